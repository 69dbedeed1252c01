"""The fast path of the risk metrics: count vectors on the once-sorted samples.

The samples are sorted and grouped by confidence once; a resample is a vector of
counts used as integer sample weights (integer weights are the same as repeated
samples, SPEC section 1). Blocks of resamples are evaluated a few rows and a chunk
of sorted samples at a time, so that the temporaries stay in cache, by the batched
``*_from_stats`` functions of ``_core``.
"""

from functools import partial

import numpy as np

from ._core import (
    ALPHA_ESTIMATORS,
    GroupStats,
    augrc_from_stats,
    aurc_from_stats,
    coverage_at_risk_from_stats,
    group_ties,
    sele_from_stats,
    selective_risk_at_coverage_from_stats,
)
from ._validation import _validate_risk_inputs

# The fast path evaluates at most this many (resample, sample) entries at once, in
# chunks of at most _EVAL_CHUNK sorted samples: the temporaries stay in cache.
_EVAL_ELEMENTS = 2**15
_EVAL_CHUNK = 2**13
# Tie groups of unit-weight samples up to this width take their AURC weight as the
# mean of tabulated per-position weights; wider ones use _core's closed form.
_TABLE_WIDTH = 8
# Without ties, the AURC weights of the copies of a sample drawn up to this many
# times are summed in a table (one row per count); rarer larger counts add the rest.
_SUM_WIDTH = 3
# The oracle's group weights are a matrix product up to this many distinct losses.
_ONEHOT_GROUPS = 8


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
        self._oracle_groups = self._oracle_index = self._oracle_onehot = None
        self._tables = {}
        self._position_sums = {}
        # Unit weights and no ties: every sample is its own group, of integer weight
        # its count, and the metrics have per-sample closed forms (``_unit_*``).
        self.unit = sample_weight is None and groups.starts is None
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
        if groups.n_groups <= _ONEHOT_GROUPS:  # a few losses (0/1): one product
            if self._oracle_onehot is None:
                onehot = np.zeros((self.losses.shape[0], groups.n_groups))
                onehot[np.arange(onehot.shape[0]), groups.group_index] = (
                    1.0 if self.weight is None else self.weight
                )
                self._oracle_onehot = onehot
            weight = sorted_counts @ self._oracle_onehot
            return GroupStats(weight, weight * -groups.values)
        if self._oracle_index is None:
            self._oracle_index = groups.group_index
        index = self._oracle_index
        rows, n_groups = sorted_counts.shape[0], groups.n_groups
        offsets = (np.arange(rows) * n_groups)[:, None]
        weight = np.zeros(rows * n_groups)
        for start, stop, _ in self._chunks:
            chunk = self._sample_weight(sorted_counts[:, start:stop], start, stop)
            flat = (offsets + index[start:stop]).ravel()
            weight += np.bincount(flat, chunk.ravel(), minlength=weight.shape[0])
        weight = weight.reshape(rows, n_groups)
        return GroupStats(weight, weight * -groups.values)

    def aurc(self, sorted_counts, estimator):
        """AURC of every resample: from the tables for bootstrap counts on unit
        weights, else by the chunked sums."""
        n_samples = sorted_counts.shape[1]
        if self.unit:
            value, total = self.unit_aurc(sorted_counts, estimator)
            value /= n_samples
            other = total != n_samples  # not bootstrap counts: the jackknife's
            if other.any():
                value[other] = self._aurc_by_groups(sorted_counts[other], estimator)
            return value
        return self._aurc_by_groups(sorted_counts, estimator)

    def _aurc_by_groups(self, sorted_counts, estimator):
        n_samples = sorted_counts.shape[1]
        if self.weight is None and np.all(sorted_counts.sum(axis=1) == n_samples):
            # Bootstrap counts on unit weights, total weight n: alpha from a table.
            return self.aurc_from_table(sorted_counts, estimator)
        # (1/n) sum_i alpha_i l_i: the function returns the chunk's sum over n.
        value, total, _ = self.sums(
            sorted_counts, partial(aurc_from_stats, estimator=estimator), 1
        )
        return value / total

    def sums(self, sorted_counts, function, power):
        """Per resample: the sum over groups of an additive metric, with the
        total weight and total loss: ``(sum, total_weight, total_loss)``."""
        if self.weight is None:
            total = sorted_counts.sum(axis=-1, dtype=np.float64)
        else:
            total = sorted_counts @ self.weight
        rows = sorted_counts.shape[0]
        below, losses, value = np.zeros(rows), np.zeros(rows), np.zeros(rows)
        for start, stop, local_starts in self._chunks:
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
        total = sorted_counts @ weight
        total_loss = sorted_counts @ (weight * self.losses)
        below, below_loss, largest = np.zeros(rows), np.zeros(rows), np.zeros(rows)
        for start, stop, local_starts in self._chunks:
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

    # ----------------------------------------------------------------------------------
    # Unit weights, no ties: every sample's copies form one group of integer weight,
    # its count, and the metrics are sums of per-sample closed forms.
    # ----------------------------------------------------------------------------------
    def unit_chunks(self, sorted_counts):
        """Per chunk of the sorted samples (least confident first): the counts,
        the exact count up to and including each sample ``U``, and the losses."""
        carry = np.zeros((sorted_counts.shape[0], 1), dtype=np.intp)
        for start, stop, _ in self._chunks:
            counts = sorted_counts[:, start:stop]
            upto = np.cumsum(counts, axis=-1, dtype=np.intp)
            upto += carry
            carry = upto[:, -1:].copy()
            yield counts, upto, self.losses[start:stop]

    def unit_sums(self, sorted_counts, offset):
        """``(sum_i l_i c_i (2 U_i - c_i + offset), total weight, total loss)`` per
        resample: twice the AUGRC (offset 0) or SELE (offset 1) sum of the groups
        ``(U_i - c_i, U_i]`` with loss ``c_i l_i`` (see ``_core``)."""
        rows = sorted_counts.shape[0]
        value, losses = np.zeros(rows), np.zeros(rows)
        total = np.zeros(rows, dtype=np.intp)
        for counts, upto, chunk_losses in self.unit_chunks(sorted_counts):
            middle = 2 * upto
            middle -= counts
            if offset:
                middle += offset
            middle *= counts
            value += middle @ chunk_losses
            losses += counts @ chunk_losses
            total = upto[:, -1]
        return value, total.astype(np.float64), losses

    def _unit_position_sums(self, estimator):
        """Flat table of ``S[k, r] = alpha(r) + ... + alpha(r - k + 1)`` for
        ``k <= _SUM_WIDTH``: a group of ``k`` unit samples ending at ``r`` has the
        AURC weight ``S[k, r] / k`` (the mean of its positions' weights), so a
        sample with count ``k`` adds ``S[k, r] l``."""
        if estimator not in self._position_sums:
            table = self._alpha_table(estimator)
            size = table.shape[0]
            sums = np.zeros((_SUM_WIDTH + 1, size))
            for width in range(1, _SUM_WIDTH + 1):
                sums[width] = sums[width - 1]
                sums[width, width - 1 :] += table[: size - width + 1]
            self._position_sums[estimator] = sums.ravel()
        return self._position_sums[estimator]

    def unit_aurc(self, sorted_counts, estimator):
        """``(n AURC, total weight)`` of count vectors on unit weights without ties,
        for resamples of total weight ``n`` ([AURC] Eq. 11-13, 18)."""
        table = self._alpha_table(estimator)
        sums = self._unit_position_sums(estimator)
        size = table.shape[0]
        rows = sorted_counts.shape[0]
        value = np.zeros(rows)
        total = np.zeros(rows, dtype=np.intp)
        for counts, upto, losses in self.unit_chunks(sorted_counts):
            index = np.minimum(counts, _SUM_WIDTH).astype(np.intp)
            index *= size
            index += upto
            value += np.take(sums, index) @ losses
            total = upto[:, -1]
            # The rare samples drawn more than _SUM_WIDTH times, with a loss.
            wide = np.flatnonzero((counts > _SUM_WIDTH) & (losses != 0))
            if wide.shape[0]:
                row, column = np.divmod(wide, counts.shape[1])
                count, end = counts[row, column], upto[row, column]
                rest = np.zeros(wide.shape[0])
                for below in range(_SUM_WIDTH, int(count.max())):
                    more = count > below
                    rest[more] += table[end[more] - below]
                rest *= losses[column]
                value += np.bincount(row, weights=rest, minlength=rows)
        return value, total

    def unit_selective_risk_at_coverage(self, sorted_counts, coverage):
        """Selective risk at ``coverage`` of count vectors on unit weights without
        ties: the accepted share of a sample's copies is ``clip(U_i - rejected, 0,
        c_i)``, the boundary group accepted in proportion as in ``_core``."""
        total = sorted_counts.sum(axis=-1, dtype=np.intp)
        accepted = coverage * total
        rejected = (total - accepted)[:, None]
        accepted_loss = np.zeros(sorted_counts.shape[0])
        for counts, upto, losses in self.unit_chunks(sorted_counts):
            share = np.subtract(upto, rejected)
            np.clip(share, 0.0, counts, out=share)
            accepted_loss += share @ losses
        return accepted_loss / accepted

    def unit_coverage_at_risk(self, sorted_counts, risk):
        """Largest coverage with selective risk <= ``risk`` of count vectors on unit
        weights without ties, chunk by chunk, most confident first.

        ``_core``'s candidates are the feasible group ends and the crossings inside
        groups with a feasible start; they grow along the ranking, so the largest
        is that of the last group with a feasible end or start.
        """
        rows = sorted_counts.shape[0]
        every_row = np.arange(rows)
        accepted, accepted_loss = np.zeros(rows), np.zeros(rows)
        largest = np.zeros(rows)
        for start, stop, _ in reversed(self._chunks):
            counts = sorted_counts[:, start:stop][:, ::-1]
            losses = self.losses[start:stop][::-1]
            loss = counts * losses
            upto = np.cumsum(counts, axis=-1, dtype=np.float64)
            upto += accepted[:, None]
            loss_upto = np.cumsum(loss, axis=-1)
            loss_upto += accepted_loss[:, None]
            feasible = loss_upto <= risk * upto
            start_feasible = np.empty_like(feasible)
            start_feasible[:, 0] = (accepted_loss <= risk * accepted) & (accepted > 0)
            np.logical_and(
                feasible[:, :-1], upto[:, :-1] > 0, out=start_feasible[:, 1:]
            )
            candidate = feasible | start_feasible
            candidate &= counts > 0
            last = candidate.shape[1] - 1 - np.argmax(candidate[:, ::-1], axis=-1)
            row = every_row[candidate[every_row, last]]
            last = last[row]
            end = upto[row, last]
            below = end - counts[row, last]
            loss_below = loss_upto[row, last] - loss[row, last]
            mean_loss = losses[last]
            crossing = (below * mean_loss - loss_below) / (mean_loss - risk)
            value = np.where(feasible[row, last], end, crossing)
            largest[row] = np.fmax(largest[row], value)
            accepted, accepted_loss = upto[:, -1], loss_upto[:, -1]
        return np.clip(largest, 0.0, accepted) / accepted

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
    """``values(resampler, sorted_counts, **params)`` on as many rows at a time
    as fit ``_EVAL_ELEMENTS`` with one chunk of samples."""

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
    return resampler.aurc(sorted_counts, estimator)


@_in_row_blocks
def _sele_values(resampler, sorted_counts):
    if resampler.unit:
        value, total, _ = resampler.unit_sums(sorted_counts, offset=1)
        return value / (2.0 * total**2)
    value, total, _ = resampler.sums(sorted_counts, sele_from_stats, 2)
    return value / total**2


@_in_row_blocks
def _augrc_values(resampler, sorted_counts):
    if resampler.unit:
        value, total, _ = resampler.unit_sums(sorted_counts, offset=0)
        return value / (2.0 * total**2)
    value, total, _ = resampler.sums(sorted_counts, augrc_from_stats, 2)
    return value / total**2


@_in_row_blocks
def _uq_auc_values(resampler, sorted_counts):
    # For 0/1 losses, with W the total weight, F the failures and A the AUGRC
    # numerator, AUGRC = (1 - UQ_AUC) acc (1 - acc) + (1 - acc)^2 / 2 ([AUGRC]
    # Eq. 7, exact; SPEC section 4) gives UQ_AUC = (F (W - F/2) - A) / ((W - F) F).
    if resampler.unit:
        twice, total, failures = resampler.unit_sums(sorted_counts, offset=0)
        numerator = twice / 2.0
    else:
        numerator, total, failures = resampler.sums(sorted_counts, augrc_from_stats, 2)
    correct = total - failures
    defined = (failures > 0) & (correct > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (failures * (total - failures / 2.0) - numerator) / (correct * failures)
    return np.where(defined, value, np.nan)


@_in_row_blocks
def _e_aurc_values(resampler, sorted_counts, estimator="harmonic"):
    # e_aurc_from_stats's excess over the oracle, clipped at 0 against rounding,
    # with the AURC from the chunked path.
    oracle = aurc_from_stats(resampler.oracle_totals(sorted_counts), estimator)
    return np.maximum(resampler.aurc(sorted_counts, estimator) - oracle, 0.0)


@_in_row_blocks
def _naurc_values(resampler, sorted_counts, estimator="harmonic"):
    # naurc_from_stats with the AURC from the chunked path: the excess over the
    # oracle over (mean loss R - oracle AURC); undefined when R - oracle <= 0 or
    # fewer than two oracle groups carry weight (every loss equal).
    oracle = resampler.oracle_totals(sorted_counts)
    oracle_value = aurc_from_stats(oracle, estimator)
    excess = np.maximum(resampler.aurc(sorted_counts, estimator) - oracle_value, 0.0)
    random_minus_oracle = oracle.loss.sum(axis=-1) / oracle.total_weight - oracle_value
    undefined = (np.count_nonzero(oracle.weight, axis=-1) < 2) | (
        random_minus_oracle <= 0
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(undefined, np.nan, excess / random_minus_oracle)


@_in_row_blocks
def _selective_risk_at_coverage_values(resampler, sorted_counts, coverage):
    # The accepted share of each group's loss, over the accepted weight (the same
    # for every framed chunk): the chunks' values add up (power 0).
    if resampler.unit:
        return resampler.unit_selective_risk_at_coverage(sorted_counts, coverage)
    function = partial(selective_risk_at_coverage_from_stats, coverage=coverage)
    value, _, _ = resampler.sums(sorted_counts, function, 0)
    return value


@_in_row_blocks
def _coverage_at_risk_values(resampler, sorted_counts, risk):
    if resampler.unit:
        return resampler.unit_coverage_at_risk(sorted_counts, risk)
    return resampler.coverage_at_risk(sorted_counts, risk)


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
