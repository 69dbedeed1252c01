"""The fast path of the risk metrics: count vectors on the once-sorted samples.

The samples are sorted and grouped by confidence once; a resample is a vector of
counts used as integer sample weights (integer weights are the same as repeated
samples, SPEC section 1). Blocks of resamples are evaluated a few rows and a chunk
of sorted samples at a time, so that the temporaries stay in cache: without
sample weights by the accumulators of ``_integer_counts``, which several metrics
of the same data share; with sample weights by the batched ``*_from_stats``
functions of ``_core``.
"""

from functools import partial

import numpy as np

from ..._utils._validation import _validate_risk_inputs
from .._core._group_stats import (
    GroupStats,
    augrc_from_stats,
    aurc_from_stats,
    coverage_at_risk_from_stats,
    group_ties,
    sele_from_stats,
    selective_risk_at_coverage_from_stats,
)
from .._core._integer_counts import (
    _row_dot,
    integer_values,
    uq_auc_from_sums,
)
from .._core._oracle import (
    naurc_from_values,
)

# The fast path evaluates at most this many (resample, sample) entries at once, in
# chunks of at most _EVAL_CHUNK sorted samples: the temporaries stay in cache.
_EVAL_ELEMENTS = 2**16
_EVAL_CHUNK = 2**15
# The oracle's group weights are dot products up to this many distinct losses.
_INDICATOR_GROUPS = 8


# --------------------------------------------------------------------------------------
# Fast path: sort once; evaluate count vectors in cache-sized pieces.
# --------------------------------------------------------------------------------------
class _RiskResampler:
    """Samples sorted by confidence once; count vectors become batched group stats.

    :meth:`evaluate` takes a few resamples at a time. Without sample weights the
    group weights are integers and ``_integer_counts`` evaluates every metric in
    one pass over the chunks. With sample weights, the additive metrics (sums
    over tie groups of a function of the group's cumulative-weight interval, its
    loss and the total weight) are evaluated chunk by chunk along the sorted
    samples, so that every temporary stays in cache. A chunk's groups are framed
    by two loss-free groups holding the weight below and above it: the ``_core``
    function then sees each group's exact interval and the total weight, and its
    value on the framed chunk, times the total weight to the metric's power, is
    the chunk's share of the sum.
    """

    def __init__(self, confidence, losses, sample_weight):
        groups = group_ties(confidence)
        self.order = groups.order
        self.losses = losses[groups.order]
        self.weight = None if sample_weight is None else sample_weight[groups.order]
        self._oracle_groups = self._oracle_index = self._oracle_indicators = None
        self.tables = {}  # the AURC tables of ``_integer_counts``
        # Without sample weights, group weights are integers (``_integer_counts``).
        self.integer = sample_weight is None
        self.binary_losses = set(np.unique(losses).tolist()) == {0.0, 1.0}
        n_samples = confidence.shape[0]
        # Chunk bounds on the sorted samples, moved up to the next group start.
        bounds = np.arange(0, n_samples, _EVAL_CHUNK)
        if groups.starts is not None:
            at = np.searchsorted(groups.starts, bounds)
            bounds = np.unique(np.append(groups.starts, n_samples)[at])
            bounds = bounds[bounds < n_samples]
        stops = np.append(bounds[1:], n_samples)
        self.chunks = []
        for start, stop in zip(bounds, stops, strict=True):
            local = None
            if groups.starts is not None:
                first, last = np.searchsorted(groups.starts, [start, stop])
                local = groups.starts[first:last] - start
            self.chunks.append((start, stop, local))

    def same_data(self, other):
        """Whether ``other`` sorts the same losses and weights the same way."""
        return (
            self.weight is None
            and other.weight is None
            and np.array_equal(self.order, other.order)
            and np.array_equal(self.losses, other.losses)
            and len(self.chunks) == len(other.chunks)
            and all(
                mine[:2] == theirs[:2] and np.array_equal(mine[2], theirs[2])
                for mine, theirs in zip(self.chunks, other.chunks, strict=True)
            )
        )

    def sorted_counts(self, counts):
        return np.take(counts, self.order, axis=1)

    def _sample_weight(self, counts, start, stop):
        if self.weight is None:
            return counts.astype(np.float64)
        return counts * self.weight[start:stop]

    def stats(self, sorted_counts, start, stop, local_starts):
        """Group stats of the sorted samples ``start:stop`` (a chunk)."""
        weight = self._sample_weight(sorted_counts[:, start:stop], start, stop)
        loss = weight * self.losses[start:stop]
        if local_starts is None:
            return GroupStats(weight, loss)
        return GroupStats(
            np.add.reduceat(weight, local_starts, axis=-1),
            np.add.reduceat(loss, local_starts, axis=-1),
        )

    def oracle_totals(self, sorted_counts):
        """The oracle's group stats accumulated chunk by chunk: every sample of
        an oracle group has the group's loss value, so its loss total is the
        group's weight times that value."""
        if self._oracle_groups is None:
            self._oracle_groups = group_ties(-self.losses)
        groups = self._oracle_groups
        if groups.n_groups <= _INDICATOR_GROUPS:  # a few losses (0/1): dot products
            if self._oracle_indicators is None:
                indicators = groups.group_index == np.arange(groups.n_groups)[:, None]
                if self.weight is not None:
                    indicators = indicators * self.weight
                self._oracle_indicators = indicators.astype(np.float64)
            weight = np.stack(
                [_row_dot(sorted_counts, group) for group in self._oracle_indicators],
                axis=-1,
            )
            return GroupStats(weight, weight * -groups.values)
        if self._oracle_index is None:
            self._oracle_index = groups.group_index
        index = self._oracle_index
        rows, n_groups = sorted_counts.shape[0], groups.n_groups
        offsets = (np.arange(rows) * n_groups)[:, None]
        weight = np.zeros(rows * n_groups)
        for start, stop, _ in self.chunks:
            chunk = self._sample_weight(sorted_counts[:, start:stop], start, stop)
            flat = (offsets + index[start:stop]).ravel()
            weight += np.bincount(flat, chunk.ravel(), minlength=weight.shape[0])
        weight = weight.reshape(rows, n_groups)
        return GroupStats(weight, weight * -groups.values)

    def weighted_aurc(self, sorted_counts, aurc_estimator="harmonic"):
        """AURC by the chunked sums: ``(1/n) sum_i alpha_i l_i``, the function
        returning the chunk's sum over ``n``."""
        value, total, _ = self.sums(
            sorted_counts, partial(aurc_from_stats, aurc_estimator=aurc_estimator), 1
        )
        return value / total

    def evaluate(self, counts, metrics):
        """Each metric's values on a block of count vectors (one row each).

        ``metrics`` are ``(name, params)`` pairs, the names those of ``_WEIGHTED``
        (and of ``INTEGER_PLANS``). The rows are
        taken a few at a time, as many as fit ``_EVAL_ELEMENTS`` with one chunk
        of samples; without sample weights every chunk's group statistics are
        computed once for all the metrics.
        """
        sorted_counts = self.sorted_counts(counts)
        width = min(sorted_counts.shape[1], _EVAL_CHUNK)
        step = max(1, _EVAL_ELEMENTS // width)
        values = [[] for _ in metrics]
        for start in range(0, sorted_counts.shape[0], step):
            rows = sorted_counts[start : start + step]
            if self.integer:
                results = integer_values(self, rows, metrics)
            else:
                results = [
                    _WEIGHTED[name](self, rows, **params) for name, params in metrics
                ]
            for found, result in zip(values, results, strict=True):
                found.append(result)
        return [np.concatenate(found) for found in values]

    def sums(self, sorted_counts, function, power):
        """Per resample: the sum over groups of an additive metric, with the
        total weight and total loss: ``(sum, total_weight, total_loss)``."""
        if self.weight is None:
            total = sorted_counts.sum(axis=-1, dtype=np.float64)
        else:
            total = _row_dot(sorted_counts, self.weight)
        rows = sorted_counts.shape[0]
        below, losses, value = np.zeros(rows), np.zeros(rows), np.zeros(rows)
        for start, stop, local_starts in self.chunks:
            stats = self.stats(sorted_counts, start, stop, local_starts)
            width = stats.weight.shape[1]
            weight = stats.weight.sum(axis=-1)
            framed_weight = np.empty((rows, width + 2))
            framed_weight[:, 0] = below
            framed_weight[:, 1:-1] = stats.weight
            framed_weight[:, -1] = np.maximum(total - below - weight, 0.0)
            framed_loss = np.zeros((rows, width + 2))
            framed_loss[:, 1:-1] = stats.loss
            value += function(GroupStats(framed_weight, framed_loss)) * total**power
            below += weight
            losses += stats.loss.sum(axis=-1)
        return value, total, losses

    def coverage_at_risk(self, sorted_counts, risk):
        """Largest coverage with selective risk <= ``risk``, chunk by chunk.

        Each chunk is topped by one group holding the weight and loss of all
        the samples above it (more confident): every candidate that
        :func:`coverage_at_risk_from_stats` finds on it -- the end of that
        group, the ends of the chunk's groups and the crossings inside them --
        is a point of the resample's curve, so the largest over the chunks is
        the resample's largest accepted weight.
        """
        rows = sorted_counts.shape[0]
        weight = np.ones_like(self.losses) if self.weight is None else self.weight
        total = _row_dot(sorted_counts, weight)
        total_loss = _row_dot(sorted_counts, weight * self.losses)
        below, below_loss, largest = np.zeros(rows), np.zeros(rows), np.zeros(rows)
        for start, stop, local_starts in self.chunks:
            stats = self.stats(sorted_counts, start, stop, local_starts)
            width = stats.weight.shape[1]
            chunk, chunk_loss = stats.weight.sum(axis=-1), stats.loss.sum(axis=-1)
            topped_weight = np.empty((rows, width + 1))
            topped_weight[:, :-1] = stats.weight
            topped_weight[:, -1] = np.maximum(total - below - chunk, 0.0)
            topped_loss = np.empty((rows, width + 1))
            topped_loss[:, :-1] = stats.loss
            topped_loss[:, -1] = np.maximum(total_loss - below_loss - chunk_loss, 0.0)
            topped = GroupStats(topped_weight, topped_loss)
            accepted = coverage_at_risk_from_stats(topped, risk) * topped.total_weight
            largest = np.fmax(largest, accepted)  # nan: a chunk without weight
            below += chunk
            below_loss += chunk_loss
        return np.clip(largest, 0.0, total) / total


# --------------------------------------------------------------------------------------
# With sample weights: the chunked sums of ``_core``'s functions.
# --------------------------------------------------------------------------------------
def _weighted_sele(resampler, sorted_counts):
    value, total, _ = resampler.sums(sorted_counts, sele_from_stats, 2)
    return value / total**2


def _weighted_augrc(resampler, sorted_counts):
    value, total, _ = resampler.sums(sorted_counts, augrc_from_stats, 2)
    return value / total**2


def _weighted_uq_auc(resampler, sorted_counts):
    numerator, total, failures = resampler.sums(sorted_counts, augrc_from_stats, 2)
    # Summed on its own, the weight of the correct predictions is exactly 0 when
    # only failures were drawn; total - failures can be a rounding residue.
    correct = 1.0 - resampler.losses
    if resampler.weight is not None:
        correct *= resampler.weight
    correct = _row_dot(sorted_counts, correct)
    return uq_auc_from_sums(numerator, total, failures, correct)


def _weighted_e_aurc(resampler, sorted_counts, aurc_estimator="harmonic"):
    # e_aurc_from_stats's excess over the oracle, clipped at 0 against rounding.
    oracle = aurc_from_stats(resampler.oracle_totals(sorted_counts), aurc_estimator)
    value = resampler.weighted_aurc(sorted_counts, aurc_estimator)
    return np.maximum(value - oracle, 0.0)


def _weighted_naurc(resampler, sorted_counts, aurc_estimator="harmonic"):
    value = resampler.weighted_aurc(sorted_counts, aurc_estimator)
    oracle = resampler.oracle_totals(sorted_counts)
    return naurc_from_values(value, aurc_from_stats(oracle, aurc_estimator), oracle)


def _weighted_risk_at_coverage(resampler, sorted_counts, coverage):
    # The accepted share of each group's loss, over the accepted weight (the same
    # for every framed chunk): the chunks' values add up (power 0).
    function = partial(selective_risk_at_coverage_from_stats, coverage=coverage)
    value, _, _ = resampler.sums(sorted_counts, function, 0)
    return value


# The metrics with sample weights; without, ``_integer_counts.INTEGER_PLANS``.
_WEIGHTED = {
    "aurc": _RiskResampler.weighted_aurc,
    "sele": _weighted_sele,
    "augrc": _weighted_augrc,
    "uq_auc": _weighted_uq_auc,
    "e_aurc": _weighted_e_aurc,
    "naurc": _weighted_naurc,
    "selective_risk_at_coverage": _weighted_risk_at_coverage,
    "coverage_at_risk": _RiskResampler.coverage_at_risk,
}


class _FastMetric:
    """A metric's values on blocks of count vectors: ``self(counts)``. Metrics
    with the same ``resampler`` can be evaluated together (``_SharedResamples``)."""

    def __init__(self, resampler, name, params):
        self.resampler, self.name, self.params = resampler, name, params

    def __call__(self, counts):
        return self.resampler.evaluate(counts, [(self.name, self.params)])[0]


def _risk_path(name):
    """Fast path of a metric of per-sample losses: a :class:`_FastMetric`."""

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
        return _FastMetric(resampler, name, params)

    return prepare
