"""Bootstrap resamples and the metric on each of them.

A resample is a vector of counts (``_draws``). This package's metrics take the
fast path of their registry entry (``_metric_registry``): the risk metrics evaluate the
counts on the once-sorted samples (``_risk_resampler``), ``uq_c_index`` one
resample at a time on its once-built structure (``_concordance_resampler``).
Any other metric is called on index-resampled copies of the data (each sample
repeated by its count). Both paths see the same resamples, so they give the
same bootstrap distribution, to rounding.
"""

import warnings

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.exceptions import UndefinedMetricWarning

from ..._utils._draws import _indices
from ..._utils._validation import _check_confidence, _check_sample_weight
from .._core._area_options import uses_area_options
from .._metric_registry import fast_entry


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
    entry = fast_entry(metric)
    if uses_area_options(metric_kwargs):  # coverage_range, class_balanced, ...
        entry = None
    if entry is not None:
        if entry.threaded:
            metric_kwargs = {**metric_kwargs, "n_jobs": n_jobs}
        evaluate = entry.fast_path(
            y_true, y_pred, confidence, sample_weight, **metric_kwargs
        )
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
