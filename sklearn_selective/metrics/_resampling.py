"""Bootstrap resamples and the metric on each of them.

Integer sample weights are the same as repeated samples (SPEC section 1), so a
bootstrap resample is a vector of counts on the data. For this package's metrics the
samples are sorted and grouped by confidence **once**; every resample is then a row
of counts used as integer sample weights on the sorted arrays, and a whole block of
resamples is evaluated at once by the batched functions of ``_core``. Any other
metric is called on index-resampled copies of the data.

Both paths draw exactly the same resamples from the same generator, as blocks of
indices ``rng.integers(0, n, (block, n))`` (the draw of
:func:`scipy.stats.bootstrap`); the fast path turns each row of indices into counts.
So the two paths give the same bootstrap distribution, to rounding.
"""

import warnings

import numpy as np
from joblib import Parallel, delayed
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_array, column_or_1d

from ._core import (
    GroupStats,
    augrc_from_stats,
    aurc_from_stats,
    coverage_at_risk_from_stats,
    e_aurc_from_stats,
    failure_auc_from_stats,
    group_ties,
    naurc_from_stats,
    sele_from_stats,
    selective_risk_at_coverage_from_stats,
)
from ._ranking import _squared_group_weight, _weighted_inversions, uq_auc, uq_c_index
from ._risk_coverage import (
    augrc,
    aurc,
    coverage_at_risk,
    e_aurc,
    naurc,
    sele,
    selective_risk_at_coverage,
)
from ._validation import (
    _check_confidence,
    _check_probabilities,
    _check_sample_weight,
    _validate_risk_inputs,
)

# A block of resamples holds at most this many (resample, sample) entries (at least
# one resample), which bounds memory whatever n_resamples is. Small blocks keep the
# fast path's temporaries in cache and below the allocator's mmap threshold: at
# n = 1e4, 2**14 is ~2.5x faster than 2**16 and ~3x faster than 2**21.
_BLOCK_ELEMENTS = 2**14

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


# --------------------------------------------------------------------------------------
# Resamples: blocks of indices, and the counts they stand for.
# --------------------------------------------------------------------------------------
def _check_generator(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(
            random_state.randint(2**32, size=4, dtype=np.uint64)
        )
    return np.random.default_rng(random_state)


def _block_size(n_samples):
    return max(1, _BLOCK_ELEMENTS // n_samples)


def _bootstrap_indices(rng, n_samples, n_resamples):
    """Blocks of resampled indices, shape ``(block, n_samples)``, drawn in order."""
    step = _block_size(n_samples)
    for start in range(0, n_resamples, step):
        rows = min(step, n_resamples - start)
        yield rng.integers(0, n_samples, (rows, n_samples))


def _jackknife_indices(n_samples):
    """Blocks of leave-one-out indices, shape ``(block, n_samples - 1)``."""
    step = _block_size(n_samples)
    for start in range(0, n_samples, step):
        rows = min(step, n_samples - start)
        keep = np.ones((rows, n_samples), dtype=bool)
        keep[np.arange(rows), np.arange(start, start + rows)] = False
        yield np.broadcast_to(np.arange(n_samples), keep.shape)[keep].reshape(rows, -1)


def _counts(indices, n_samples):
    """How often each sample occurs in each row of ``indices`` (overwritten)."""
    rows = indices.shape[0]
    if rows == 1:
        return np.bincount(indices[0], minlength=n_samples)[None]
    indices += (np.arange(rows) * n_samples)[:, None]
    counts = np.bincount(indices.ravel(), minlength=rows * n_samples)
    return counts.reshape(rows, n_samples)


# --------------------------------------------------------------------------------------
# Fast path: sort once, then evaluate blocks of count vectors at once.
# --------------------------------------------------------------------------------------
class _RiskResampler:
    """Samples sorted by confidence once; resamples become batched group stats."""

    def __init__(self, confidence, losses, sample_weight):
        groups = group_ties(confidence)
        self._order = groups.order
        self._starts = groups.starts
        self.losses = losses[groups.order]
        self._weight = None if sample_weight is None else sample_weight[groups.order]
        self._oracle_groups = None

    def sorted_weight(self, counts):
        """Sample weights, ascending confidence, of count vectors ``(b, n)``."""
        counts = np.take(counts, self._order, axis=1)
        if self._weight is None:
            return counts.astype(np.float64)
        return counts * self._weight

    def stats(self, weight):
        loss = weight * self.losses
        if self._starts is None:
            return GroupStats(weight, loss)
        return GroupStats(
            np.add.reduceat(weight, self._starts, axis=-1),
            np.add.reduceat(loss, self._starts, axis=-1),
        )

    def oracle_stats(self, weight):
        """Group stats of the oracle ranking (confidence = -loss)."""
        if self._oracle_groups is None:
            self._oracle_groups = group_ties(-self.losses)
        return GroupStats.from_samples(self._oracle_groups, self.losses, weight)


def _aurc_values(resampler, weight, estimator="harmonic"):
    return aurc_from_stats(resampler.stats(weight), estimator)


def _sele_values(resampler, weight):
    return sele_from_stats(resampler.stats(weight))


def _augrc_values(resampler, weight):
    return augrc_from_stats(resampler.stats(weight))


def _uq_auc_values(resampler, weight):
    return failure_auc_from_stats(resampler.stats(weight))


def _e_aurc_values(resampler, weight, estimator="harmonic"):
    stats, oracle = resampler.stats(weight), resampler.oracle_stats(weight)
    return e_aurc_from_stats(stats, oracle, estimator)


def _naurc_values(resampler, weight, estimator="harmonic"):
    stats, oracle = resampler.stats(weight), resampler.oracle_stats(weight)
    return naurc_from_stats(stats, oracle, estimator)


def _selective_risk_at_coverage_values(resampler, weight, coverage):
    return selective_risk_at_coverage_from_stats(resampler.stats(weight), coverage)


def _coverage_at_risk_values(resampler, weight, risk):
    return coverage_at_risk_from_stats(resampler.stats(weight), risk)


def _risk_path(values):
    """Fast path of a metric of per-sample losses: ``values(resampler, weight)``."""

    def prepare(
        y_true,
        y_pred,
        confidence,
        sample_weight,
        loss="zero_one",
        labels=None,
        **params,
    ):
        confidence, losses, sample_weight = _validate_risk_inputs(
            y_true,
            y_pred,
            confidence,
            loss=loss,
            sample_weight=sample_weight,
            labels=labels,
        )
        resampler = _RiskResampler(confidence, losses, sample_weight)

        def evaluate(counts):
            return values(resampler, resampler.sorted_weight(counts), **params)

        return evaluate

    return prepare


class _ConcordanceResampler:
    """``uq_c_index`` with the sorting done once; one resample at a time."""

    def __init__(self, y_true, y_proba, confidence, labels, sample_weight):
        n_samples = confidence.shape[0]
        y_true = column_or_1d(y_true, dtype=None)
        y_proba = check_array(y_proba, dtype=None, input_name="y_proba")
        y_proba, true_column, _ = _check_probabilities(
            y_true, y_proba, labels, "uq_c_index"
        )
        gap = 1.0 - y_proba[np.arange(n_samples), true_column]
        self._confidence_groups = group_ties(confidence)
        self._gap_groups = group_ties(gap)
        ranked, other = sorted(
            [self._confidence_groups, self._gap_groups],
            key=lambda groups: groups.n_groups,
        )
        ranked_index = ranked.group_index
        self._joint_groups = group_ties(
            other.group_index.astype(np.int64) * ranked.n_groups + ranked_index
        )
        self._ranked = ranked_index[self._joint_groups.order]
        self._weight = sample_weight

    def __call__(self, counts):
        values = np.empty(counts.shape[0])
        for row, count in enumerate(counts):
            weight = count.astype(np.float64)
            if self._weight is not None:
                weight *= self._weight
            values[row] = self._c_index(weight)
        return values

    def _c_index(self, weight):
        # The computation of uq_c_index, with weights.
        concordant = _weighted_inversions(
            self._ranked, weight[self._joint_groups.order]
        )
        gap_weight = self._gap_groups.weight(weight)
        comparable = (gap_weight.sum() ** 2 - np.sum(gap_weight**2)) / 2.0
        if comparable <= 0:
            return np.nan
        tied = (
            _squared_group_weight(self._confidence_groups, weight)
            - _squared_group_weight(self._joint_groups, weight)
        ) / 2.0
        return (concordant + tied / 2.0) / comparable


def _concordance_path(y_true, y_pred, confidence, sample_weight, labels=None):
    return _ConcordanceResampler(y_true, y_pred, confidence, labels, sample_weight)


_FAST_PATHS = {
    aurc: _risk_path(_aurc_values),
    sele: _risk_path(_sele_values),
    e_aurc: _risk_path(_e_aurc_values),
    naurc: _risk_path(_naurc_values),
    augrc: _risk_path(_augrc_values),
    uq_auc: _risk_path(_uq_auc_values),
    selective_risk_at_coverage: _risk_path(_selective_risk_at_coverage_values),
    coverage_at_risk: _risk_path(_coverage_at_risk_values),
    uq_c_index: _concordance_path,
}


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


def _fast_values(evaluate, index_blocks, n_samples, positive):
    return np.concatenate(
        [
            _evaluate_counts(evaluate, _counts(indices, n_samples), positive)
            for indices in index_blocks
        ]
    )


# --------------------------------------------------------------------------------------
# Generic path: call the metric on index-resampled copies of the data.
# --------------------------------------------------------------------------------------
def _call_metric(metric, arrays, kwargs, indices):
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


def _generic_values(metric, arrays, kwargs, index_blocks, n_jobs):
    values = []
    with Parallel(n_jobs=n_jobs) as parallel:
        for indices in index_blocks:
            values.extend(
                parallel(
                    delayed(_call_metric)(metric, arrays, kwargs, row)
                    for row in indices
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
    """``values(index_blocks)``: the metric on each resample of ``arrays``.

    ``arrays`` are the checked ``(y_true, y_pred, confidence, sample_weight)``;
    this package's metrics take the fast path, any other callable the generic one.
    """
    y_true, y_pred, confidence, sample_weight = arrays
    n_samples = confidence.shape[0]
    prepare = _FAST_PATHS.get(metric)
    if prepare is not None:
        evaluate = prepare(y_true, y_pred, confidence, sample_weight, **metric_kwargs)
        positive = _positive_weight(sample_weight)

        def values(index_blocks):
            return _fast_values(evaluate, index_blocks, n_samples, positive)

        return values

    kwargs = dict(metric_kwargs)
    loss = kwargs.pop("loss", None)
    if loss is None or isinstance(loss, str) or callable(loss):
        loss_samples = None
        if loss is not None:
            kwargs["loss"] = loss
    else:
        loss_samples = _as_samples(loss, "loss", n_samples)
    generic_arrays = (y_true, y_pred, confidence, sample_weight, loss_samples)

    def values(index_blocks):
        return _generic_values(metric, generic_arrays, kwargs, index_blocks, n_jobs)

    return values
