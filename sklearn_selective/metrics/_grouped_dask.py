""":func:`metric_by_group` of Dask collections: exact values per group, on the cluster.

Each partition becomes one :class:`RiskCoverageAccumulator` per group label it
holds (the rows of a group are never moved), the per-partition dictionaries of
states merge in the tree of :func:`~._dask.merge_tree` (the states of a label
merge exactly, ties across partitions included), and the last task computes the
metric of every group. Each value is what :func:`metric_by_group` returns in
memory on the same data, up to the rounding of sums taken in another order.

Bootstrap intervals are refused: resampling a group exactly as in memory needs
its samples in one array in the order of the data, which the states do not
keep (a group's rows can be gathered with ``frame[frame[column] == g]`` and
passed to :func:`metric_by_group` in memory for its intervals).
"""

import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._utils._warnings import warn
from ._accumulator import RiskCoverageAccumulator
from ._accumulator._metrics import METRICS as ACCUMULATED
from ._dask import import_dask, merge_tree, partition_columns
from ._metric_registry import find_entry

# The scalar metrics of the accumulator (the curves are not group values).
_SCALAR = sorted(name for name, spec in ACCUMULATED.items() if spec.scalar)


def _metric_name(metric):
    """The accumulator's name of ``metric`` (a name, or a registry function
    itself: a wrapper may change its arguments)."""
    entry = find_entry(metric)
    if (
        entry is not None
        and not isinstance(metric, str)
        and entry.function is not metric
    ):
        entry = None
    if entry is None or entry.name not in ACCUMULATED:
        shown = (
            metric if isinstance(metric, str) else getattr(metric, "__name__", metric)
        )
        raise ValueError(
            "metric_by_group on Dask collections computes the tie-group metrics "
            f"{_SCALAR}; got {shown!r}. Compute the data in memory (.compute()) "
            "for any other metric."
        )
    return entry.name


def _partition_groups(
    max_groups, loss, labels, y_true, y_pred, confidence, weight, groups
):
    """One state per group label of a partition: {label: accumulator}."""
    groups = np.asarray(groups)
    if groups.dtype.kind in "fc" and np.isnan(groups).any():
        raise ValueError("groups contains NaN: give every sample a group label.")
    unique, index = np.unique(groups, return_inverse=True)
    states = {}
    for position, label in enumerate(unique.tolist()):
        mask = index == position

        def rows(value, mask=mask):
            if value is None or isinstance(value, str) or callable(value):
                return value
            return np.asarray(value)[mask]

        states[label] = RiskCoverageAccumulator(max_groups=max_groups).update(
            rows(y_true),
            rows(y_pred),
            rows(confidence),
            loss=rows(loss),
            sample_weight=rows(weight),
            labels=labels,
        )
    return states


def _merge_groups(*partitions):
    """The states of every label of several partitions (new dictionary)."""
    merged = {}
    for states in partitions:
        for label, state in states.items():
            merged[label] = merged[label] + state if label in merged else state
    return merged


def _evaluate_groups(states, metric, kwargs):
    """(labels, values, sample counts, total weights, warnings) of every group."""
    labels = sorted(states)
    values = np.empty(len(labels))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        for position, label in enumerate(labels):
            state = states[label]
            values[position] = (
                state.compute(metric, **kwargs) if state.total_weight_ > 0 else np.nan
            )
    counts = np.asarray([states[label].n_samples_seen_ for label in labels])
    weights = np.asarray([states[label].total_weight_ for label in labels])
    messages = [(str(w.message), w.category) for w in caught]
    return labels, values, counts, weights, messages


def dask_group_values(
    metric, y_true, y_pred, confidence, groups, sample_weight, metric_kwargs
):
    """Every group's value of ``metric`` (a name or function of the registry)
    on Dask collections, computed on the cluster.

    Returns
    -------
    groups : ndarray
        The sorted group labels.
    values, n_samples : ndarray
        Each group's metric and number of samples.
    """
    dask = import_dask()
    name = _metric_name(metric)
    metric_kwargs = dict(metric_kwargs)
    loss = metric_kwargs.pop("loss", "zero_one")
    labels = metric_kwargs.pop("labels", None)
    ACCUMULATED[name].options(metric_kwargs)  # bad keywords fail before the cluster
    n_blocks, column = partition_columns(
        y_true, y_pred, confidence, loss, sample_weight, groups=groups
    )
    state = dask.delayed(_partition_groups, pure=True)
    states = [
        state(
            None,
            column["loss"][i],
            labels,
            *(column[k][i] for k in ("y_true", "y_pred", "confidence")),
            column["sample_weight"][i],
            column["groups"][i],
        )
        for i in range(n_blocks)
    ]
    tree = merge_tree(states, _merge_groups)
    result = dask.delayed(_evaluate_groups, pure=True)(tree, name, metric_kwargs)
    ((group_labels, values, counts, weights, caught),) = dask.compute(result)
    for message, category in caught:
        warn(message, category)
    unique = np.asarray(group_labels)
    if (weights == 0).any():
        raise ValueError(
            f"The groups {unique[weights == 0].tolist()} have zero total "
            "sample_weight, so the metric is undefined on them: remove their "
            "samples first."
        )
    return unique, values, counts
