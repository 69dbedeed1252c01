"""Bootstrap resamples and the metric on each of them.

A resample is a vector of counts (``_draws``). This package's metrics take a fast
path: the risk metrics evaluate the counts on the once-sorted samples
(``_risk_resampler``), ``uq_c_index`` one resample at a time on its once-built
structure. Any other metric is called on index-resampled copies of the data (each
sample repeated by its count). Both paths see the same resamples, so they give the
same bootstrap distribution, to rounding.
"""

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_array, column_or_1d

from ..._utils._draws import _indices
from ..._utils._validation import (
    _check_confidence,
    _check_probabilities,
    _check_sample_weight,
    _true_class_proba,
)
from .._areas import (
    augrc,
    aurc,
    e_aurc,
    naurc,
    sele,
)
from .._core._area_options import uses_area_options
from .._core._group_stats import (
    _scale_exponent,
    group_ties,
)
from .._ranking import (
    _kendall_dis,
    _squared_group_weight,
    _UnitConcordance,
    _weighted_inversions,
    uq_auc,
    uq_c_index,
)
from .._working_points import (
    coverage_at_risk,
    selective_risk_at_coverage,
)
from ._risk_resampler import _risk_path

# Whether a larger value of each package metric is better.
_GREATER_IS_BETTER = {
    "aurc": False,
    "augrc": False,
    "e_aurc": False,
    "naurc": False,
    "sele": False,
    "selective_risk_at_coverage": False,
    "coverage_at_risk": True,
    "uq_auc": True,
    "uq_c_index": True,
}
_METRICS = {
    function.__name__: function
    for function in (
        aurc,
        augrc,
        e_aurc,
        naurc,
        sele,
        selective_risk_at_coverage,
        coverage_at_risk,
        uq_auc,
        uq_c_index,
    )
}


class _ConcordanceResampler:
    """``uq_c_index`` with the sorting done once; one resample at a time.

    Without sample weights a resample's copies are counted as ``uq_c_index``
    counts unit-weight samples: scipy's compiled discordant-pair count on the
    ranks repeated by their counts, in exact integers. That count releases the
    GIL, so ``n_jobs`` threads evaluate the resamples of a block in parallel;
    each value is computed alone, so the values do not depend on ``n_jobs``.
    """

    def __init__(self, y_true, y_proba, confidence, labels, sample_weight, n_jobs):
        self._n_threads = effective_n_jobs(n_jobs)
        self.block_rows = self._n_threads  # a resample for every thread
        y_true = column_or_1d(y_true, dtype=None)
        y_proba = check_array(y_proba, dtype=None, input_name="y_proba")
        y_proba, true_column, _ = _check_probabilities(
            y_true, y_proba, labels, "uq_c_index"
        )
        # In float64, as uq_c_index computes it: 1 - p in float32 would tie gaps
        # that the metric tells apart.
        gap = 1.0 - _true_class_proba(y_proba, true_column)
        self._confidence_groups = group_ties(confidence)
        self._gap_groups = group_ties(gap)
        if sample_weight is not None:  # scale invariant: as uq_c_index, exactly
            sample_weight = np.ldexp(sample_weight, -_scale_exponent(sample_weight))
        self._weight = sample_weight
        if sample_weight is None and _kendall_dis is not None:
            self._unit = _UnitConcordance(self._confidence_groups, self._gap_groups)
            return
        self._unit = None
        ranked, other = sorted(
            [self._confidence_groups, self._gap_groups],
            key=lambda groups: groups.n_groups,
        )
        ranked_index = ranked.group_index
        self._joint_groups = group_ties(
            other.group_index.astype(np.int64) * ranked.n_groups + ranked_index
        )
        self._ranked = ranked_index[self._joint_groups.order]

    def __call__(self, counts):
        if self._n_threads == 1 or counts.shape[0] == 1:
            values = [self._value(count) for count in counts]
        else:
            # The workers take this thread's numpy error state: it is per thread
            # (numpy < 2) or per context (numpy 2), and neither is inherited.
            error_state = np.geterr()

            def value(count):
                with np.errstate(**error_state):
                    return self._value(count)

            with ThreadPoolExecutor(min(self._n_threads, counts.shape[0])) as pool:
                values = list(pool.map(value, counts))
        return np.array(values, dtype=np.float64)

    def _value(self, count):
        if self._unit is not None:
            numerator, comparable = self._unit.counts(count)
            return numerator / comparable if comparable > 0 else np.nan
        weight = count.astype(np.float64)
        if self._weight is not None:
            weight *= self._weight
        concordant = _weighted_inversions(
            self._ranked, weight[self._joint_groups.order]
        )
        return self._c_index(weight, float(concordant))

    def _c_index(self, weight, concordant):
        # The computation of uq_c_index, with weights.
        gap_weight = self._gap_groups.weight(weight)
        comparable = (gap_weight.sum() ** 2 - np.sum(gap_weight**2)) / 2.0
        if comparable <= 0:
            return np.nan
        tied = (
            _squared_group_weight(self._confidence_groups, weight)
            - _squared_group_weight(self._joint_groups, weight)
        ) / 2.0
        return (concordant + tied / 2.0) / comparable


def _concordance_path(
    y_true, y_pred, confidence, sample_weight, labels=None, n_jobs=None
):
    return _ConcordanceResampler(
        y_true, y_pred, confidence, labels, sample_weight, n_jobs
    )


_FAST_PATHS = {
    aurc: _risk_path("aurc"),
    sele: _risk_path("sele"),
    e_aurc: _risk_path("e_aurc"),
    naurc: _risk_path("naurc"),
    augrc: _risk_path("augrc"),
    uq_auc: _risk_path("uq_auc"),
    selective_risk_at_coverage: _risk_path("selective_risk_at_coverage"),
    coverage_at_risk: _risk_path("coverage_at_risk"),
    uq_c_index: _concordance_path,
}
# Fast paths that evaluate resamples one at a time, in n_jobs threads.
_THREADED_PATHS = {uq_c_index}


def _positive_weight(sample_weight):
    """Mask of the samples with positive weight, or None when all have."""
    if sample_weight is None or np.all(sample_weight > 0):
        return None
    return sample_weight > 0


def _evaluate_counts(evaluate, counts, positive):
    """Metric values of count vectors; nan for resamples of zero total weight."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values = np.array(evaluate(counts), dtype=np.float64)
    if positive is not None:
        values[~counts[:, positive].any(axis=1)] = np.nan
    return values


class _FastValues:
    """``self(count_blocks)``: a metric's fast path on each resample. ``evaluate``
    is the prepared metric (a ``_FastMetric`` for the risk metrics, which
    ``_SharedResamples`` evaluates together when they share their data)."""

    def __init__(self, evaluate, positive):
        self.evaluate, self.positive = evaluate, positive
        self.block_rows = getattr(evaluate, "block_rows", 1)

    def __call__(self, count_blocks):
        return np.concatenate(
            [
                _evaluate_counts(self.evaluate, counts, self.positive)
                for counts in count_blocks
            ]
        )


# --------------------------------------------------------------------------------------
# Generic path: call the metric on index-resampled copies of the data.
# --------------------------------------------------------------------------------------
def _call_metric(metric, arrays, kwargs, counts):
    indices = _indices(counts)
    y_true, y_pred, confidence, sample_weight, loss = (
        None if array is None else array[indices] for array in arrays
    )
    if sample_weight is not None:
        if not sample_weight.any():  # only zero-weight samples were drawn
            return np.nan
        kwargs = {**kwargs, "sample_weight": sample_weight}
    if loss is not None:
        kwargs = {**kwargs, "loss": loss}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return float(metric(y_true, y_pred, confidence, **kwargs))


def _generic_values(metric, arrays, kwargs, count_blocks, n_jobs):
    values = []
    with Parallel(n_jobs=n_jobs) as parallel:
        for counts in count_blocks:
            values.extend(
                parallel(
                    delayed(_call_metric)(metric, arrays, kwargs, row) for row in counts
                )
            )
    return np.asarray(values, dtype=np.float64)


def _resolve_metric(metric):
    if isinstance(metric, str):
        return _METRICS[metric]
    return metric


def _as_samples(values, name, n_samples):
    """Indexable array of ``n_samples`` rows, or None."""
    if values is None:
        return None
    values = np.asarray(values)
    if values.ndim == 0 or values.shape[0] != n_samples:
        raise ValueError(
            f"{name} must have one entry per sample: confidence has {n_samples} "
            f"samples but {name} has shape {values.shape}."
        )
    return values


def _check_resampling_inputs(y_true, y_pred, confidence, sample_weight):
    confidence = _check_confidence(confidence)
    n_samples = confidence.shape[0]
    if n_samples < 2:
        raise ValueError(f"The bootstrap needs at least 2 samples; got {n_samples}.")
    y_true = _as_samples(y_true, "y_true", n_samples)
    y_pred = _as_samples(y_pred, "y_pred", n_samples)
    sample_weight = _check_sample_weight(sample_weight, n_samples)
    return y_true, y_pred, confidence, sample_weight


_RESAMPLING_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_pred": ["array-like", None],
    "random_state": ["random_state", np.random.Generator],
    "sample_weight": ["array-like", None],
}


def _resample_evaluator(metric, arrays, metric_kwargs, n_jobs=None):
    """``values(count_blocks)``: the metric on each resample of ``arrays``.

    ``arrays`` are the checked ``(y_true, y_pred, confidence, sample_weight)``;
    this package's metrics take the fast path, any other callable the generic one.
    ``values.block_rows`` is the number of resamples a block needs to keep the
    parallel workers busy.
    """
    y_true, y_pred, confidence, sample_weight = arrays
    n_samples = confidence.shape[0]
    prepare = _FAST_PATHS.get(metric)
    if uses_area_options(metric_kwargs):  # coverage_range, class_balanced, ...
        prepare = None
    if prepare is not None:
        if metric in _THREADED_PATHS:
            metric_kwargs = {**metric_kwargs, "n_jobs": n_jobs}
        evaluate = prepare(y_true, y_pred, confidence, sample_weight, **metric_kwargs)
        return _FastValues(evaluate, _positive_weight(sample_weight))

    kwargs = dict(metric_kwargs)
    loss = kwargs.pop("loss", None)
    if loss is None or isinstance(loss, str) or callable(loss):
        loss_samples = None
        if loss is not None:
            kwargs["loss"] = loss
    else:
        loss_samples = _as_samples(loss, "loss", n_samples)
    generic_arrays = (y_true, y_pred, confidence, sample_weight, loss_samples)

    def values(count_blocks):
        return _generic_values(metric, generic_arrays, kwargs, count_blocks, n_jobs)

    values.block_rows = effective_n_jobs(n_jobs)  # a resample for every worker
    return values
