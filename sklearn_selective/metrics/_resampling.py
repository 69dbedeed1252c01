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
from functools import partial

import numpy as np
from joblib import Parallel, delayed
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_array, column_or_1d

from ._core import (
    ALPHA_ESTIMATORS,
    GroupStats,
    augrc_from_stats,
    aurc_from_stats,
    coverage_at_risk_from_stats,
    e_aurc_from_stats,
    group_ties,
    naurc_from_stats,
    sele_from_stats,
    selective_risk_at_coverage_from_stats,
)
from ._draws import _indices
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

# The fast path evaluates at most this many (resample, sample) entries at once, in
# chunks of at most _EVAL_CHUNK sorted samples: the temporaries stay in cache.
_EVAL_ELEMENTS = 2**15
_EVAL_CHUNK = 2**13
# Tie groups of unit-weight samples up to this width take their AURC weight as the
# mean of tabulated per-position weights; wider ones use _core's closed form.
_TABLE_WIDTH = 8

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
# Fast path: sort once; evaluate count vectors in cache-sized pieces.
# --------------------------------------------------------------------------------------
class _RiskResampler:
    """Samples sorted by confidence once; count vectors become batched group stats.

    The additive metrics (sums over tie groups of a function of the group's
    cumulative-weight interval, its loss and the total weight) are evaluated chunk
    by chunk along the sorted samples, a few resamples at a time, so that every
    temporary stays in cache. A chunk's groups are framed by two loss-free groups
    holding the weight below and above it: the ``_core`` function then sees each
    group's exact interval and the total weight, and its value on the framed chunk,
    times the total weight to the metric's power, is the chunk's share of the sum.
    """

    def __init__(self, confidence, losses, sample_weight):
        groups = group_ties(confidence)
        self.order = groups.order
        self.losses = losses[groups.order]
        self.weight = None if sample_weight is None else sample_weight[groups.order]
        self._starts = groups.starts
        self._oracle_groups = None
        self._tables = {}
        n_samples = confidence.shape[0]
        # Chunk bounds on the sorted samples, moved up to the next group start.
        bounds = np.arange(0, n_samples, _EVAL_CHUNK)
        if groups.starts is not None:
            at = np.searchsorted(groups.starts, bounds)
            bounds = np.unique(np.append(groups.starts, n_samples)[at])
            bounds = bounds[bounds < n_samples]
        stops = np.append(bounds[1:], n_samples)
        self._chunks = []
        for start, stop in zip(bounds, stops, strict=True):
            local = None
            if groups.starts is not None:
                first, last = np.searchsorted(groups.starts, [start, stop])
                local = groups.starts[first:last] - start
            self._chunks.append((start, stop, local))

    def sorted_counts(self, counts):
        return np.take(counts, self.order, axis=1)

    def _sample_weight(self, counts, start, stop):
        if self.weight is None:
            return counts.astype(np.float64)
        return counts * self.weight[start:stop]

    def stats(self, sorted_counts, start=0, stop=None, local_starts=None):
        """Group stats of the samples ``start:stop`` (all when ``stop`` is None)."""
        if stop is None:
            stop, local_starts = self.losses.shape[0], self._starts
        weight = self._sample_weight(sorted_counts[:, start:stop], start, stop)
        loss = weight * self.losses[start:stop]
        if local_starts is None:
            return GroupStats(weight, loss)
        return GroupStats(
            np.add.reduceat(weight, local_starts, axis=-1),
            np.add.reduceat(loss, local_starts, axis=-1),
        )

    def oracle_stats(self, sorted_counts):
        """Group stats of the oracle ranking (confidence = -loss)."""
        if self._oracle_groups is None:
            self._oracle_groups = group_ties(-self.losses)
        weight = self._sample_weight(sorted_counts, 0, self.losses.shape[0])
        return GroupStats.from_samples(self._oracle_groups, self.losses, weight)

    def sums(self, sorted_counts, function, power):
        """Per resample: the sum over groups of an additive metric, with the
        total weight and total loss: ``(sum, total_weight, total_loss)``."""
        weight = np.ones_like(self.losses) if self.weight is None else self.weight
        weights = np.column_stack(
            [sorted_counts[:, a:b] @ weight[a:b] for a, b, _ in self._chunks]
        )
        losses = np.column_stack(
            [
                sorted_counts[:, a:b] @ (weight[a:b] * self.losses[a:b])
                for a, b, _ in self._chunks
            ]
        )
        total = weights.sum(axis=-1)
        below = np.cumsum(weights, axis=-1) - weights
        value = np.zeros(sorted_counts.shape[0])
        for k, (start, stop, local_starts) in enumerate(self._chunks):
            stats = self.stats(sorted_counts, start, stop, local_starts)
            rows, width = stats.weight.shape
            framed_weight = np.empty((rows, width + 2))
            framed_weight[:, 0] = below[:, k]
            framed_weight[:, 1:-1] = stats.weight
            framed_weight[:, -1] = np.maximum(total - below[:, k] - weights[:, k], 0)
            framed_loss = np.zeros((rows, width + 2))
            framed_loss[:, 1:-1] = stats.loss
            framed = GroupStats(framed_weight, framed_loss)
            value += function(framed) * total**power
        return value, total, losses.sum(axis=-1)

    def _alpha_table(self, estimator):
        """``alpha(r)`` of the positions ``r = 0 .. n`` for unit sample weights,
        where every resample has total weight ``n``; cached."""
        if estimator not in self._tables:
            n = self.losses.shape[0]
            positions = np.arange(n + 1, dtype=np.float64)
            table = np.zeros(n + 1)
            # A group of width one at (r - 1, r]: alpha is the estimator's
            # per-position weight, computed as _core computes it.
            table[1:] = ALPHA_ESTIMATORS[estimator](
                positions[:-1], positions[1:], np.full(n, float(n))
            )
            self._tables[estimator] = table
        return self._tables[estimator]

    def aurc_from_table(self, sorted_counts, estimator):
        """AURC of count vectors for unit sample weights ([AURC] Eq. 11-13, 18).

        Every resample has the total weight ``n``, so a group of width one at
        ``(r - 1, r]`` has the tabulated ``alpha(r)``, the value ``_core`` gives it;
        a group of width ``w <= _TABLE_WIDTH`` has the mean of ``w`` table entries
        (the SPEC's definition of a tie group's alpha), and a wider group the
        closed form of ``_core``. Group weights stay integers here.
        """
        table = self._alpha_table(estimator)
        rows = sorted_counts.shape[0]
        value = np.zeros(rows)
        carry = np.zeros((rows, 1), dtype=np.intp)
        for start, stop, local_starts in self._chunks:
            counts = sorted_counts[:, start:stop]
            loss = counts * self.losses[start:stop]
            if local_starts is not None:
                counts = np.add.reduceat(counts, local_starts, axis=-1, dtype=np.intp)
                loss = np.add.reduceat(loss, local_starts, axis=-1)
            upto = np.cumsum(counts, axis=-1, dtype=np.intp)
            upto += carry
            carry = upto[:, -1:].copy()
            alpha = table[upto]
            value += np.einsum("ij,ij->i", alpha, loss)
            row, column = np.nonzero((counts > 1) & (loss > 0))
            if row.shape[0]:
                width = counts[row, column].astype(np.float64)
                upto, loss = upto[row, column], loss[row, column]
                wide = self._wide_alpha(table, upto, width, estimator)
                correction = (wide - table[upto]) * loss
                value += np.bincount(row, weights=correction, minlength=rows)
        return value / self.losses.shape[0]

    @staticmethod
    def _wide_alpha(table, upto, width, estimator):
        below = (upto - width).astype(np.intp)
        alpha = np.zeros(upto.shape[0])
        for k in range(1, _TABLE_WIDTH + 1):
            inside = width >= k
            alpha[inside] += table[below[inside] + k]
        alpha /= width
        wider = width > _TABLE_WIDTH
        if wider.any():
            n = np.full(np.count_nonzero(wider), float(table.shape[0] - 1))
            alpha[wider] = ALPHA_ESTIMATORS[estimator](
                upto[wider] - width[wider], upto[wider], n
            )
        return alpha


def _in_row_blocks(values):
    """``values(resampler, sorted_counts, **params)`` on a few rows at a time."""

    def blocked(resampler, counts, **params):
        sorted_counts = resampler.sorted_counts(counts)
        width = min(sorted_counts.shape[1], _EVAL_CHUNK)
        step = max(1, _EVAL_ELEMENTS // width)
        return np.concatenate(
            [
                values(resampler, sorted_counts[start : start + step], **params)
                for start in range(0, sorted_counts.shape[0], step)
            ]
        )

    return blocked


@_in_row_blocks
def _aurc_values(resampler, sorted_counts, estimator="harmonic"):
    n_samples = sorted_counts.shape[1]
    if resampler.weight is None and np.all(sorted_counts.sum(axis=1) == n_samples):
        # Bootstrap counts on unit weights, total weight n: alpha from a table.
        return resampler.aurc_from_table(sorted_counts, estimator)
    # (1/n) sum_i alpha_i l_i: the function returns the chunk's sum over n.
    value, total, _ = resampler.sums(
        sorted_counts, partial(aurc_from_stats, estimator=estimator), 1
    )
    return value / total


@_in_row_blocks
def _sele_values(resampler, sorted_counts):
    value, total, _ = resampler.sums(sorted_counts, sele_from_stats, 2)
    return value / total**2


@_in_row_blocks
def _augrc_values(resampler, sorted_counts):
    value, total, _ = resampler.sums(sorted_counts, augrc_from_stats, 2)
    return value / total**2


@_in_row_blocks
def _uq_auc_values(resampler, sorted_counts):
    # For 0/1 losses, with W the total weight, F the failures and A the AUGRC
    # numerator, AUGRC = (1 - UQ_AUC) acc (1 - acc) + (1 - acc)^2 / 2 ([AUGRC]
    # Eq. 7, exact; SPEC section 4) gives UQ_AUC = (F (W - F/2) - A) / ((W - F) F).
    numerator, total, failures = resampler.sums(sorted_counts, augrc_from_stats, 2)
    correct = total - failures
    defined = (failures > 0) & (correct > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (failures * (total - failures / 2.0) - numerator) / (correct * failures)
    return np.where(defined, value, np.nan)


@_in_row_blocks
def _e_aurc_values(resampler, sorted_counts, estimator="harmonic"):
    stats = resampler.stats(sorted_counts)
    return e_aurc_from_stats(stats, resampler.oracle_stats(sorted_counts), estimator)


@_in_row_blocks
def _naurc_values(resampler, sorted_counts, estimator="harmonic"):
    stats = resampler.stats(sorted_counts)
    return naurc_from_stats(stats, resampler.oracle_stats(sorted_counts), estimator)


@_in_row_blocks
def _selective_risk_at_coverage_values(resampler, sorted_counts, coverage):
    stats = resampler.stats(sorted_counts)
    return selective_risk_at_coverage_from_stats(stats, coverage)


@_in_row_blocks
def _coverage_at_risk_values(resampler, sorted_counts, risk):
    return coverage_at_risk_from_stats(resampler.stats(sorted_counts), risk)


def _risk_path(values):
    """Fast path of a metric of per-sample losses: ``values(resampler, counts)``."""

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
        return partial(values, resampler, **params)

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


def _fast_values(evaluate, count_blocks, positive):
    return np.concatenate(
        [_evaluate_counts(evaluate, counts, positive) for counts in count_blocks]
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
    """
    y_true, y_pred, confidence, sample_weight = arrays
    n_samples = confidence.shape[0]
    prepare = _FAST_PATHS.get(metric)
    if prepare is not None:
        evaluate = prepare(y_true, y_pred, confidence, sample_weight, **metric_kwargs)
        positive = _positive_weight(sample_weight)

        def values(count_blocks):
            return _fast_values(evaluate, count_blocks, positive)

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

    def values(count_blocks):
        return _generic_values(metric, generic_arrays, kwargs, count_blocks, n_jobs)

    return values
