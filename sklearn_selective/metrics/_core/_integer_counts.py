"""The bootstrap fast path without sample weights: integer group weights.

Without sample weights a resample's tie group (the copies of the samples that
share a confidence) has an integer weight ``W``, the sum of their counts, and
every risk metric is a sum over groups of a closed form in ``W``, the exact
weight ``U`` up to and including the group (least confident first) and the
group's loss. The sorted samples are cut into chunks; each chunk's group
statistics (:class:`_IntegerChunk`) are computed once for a few resamples and
handed to the accumulators the metrics need (``INTEGER_PLANS``: e_aurc and
naurc share aurc's, uq_auc augrc's), so that several metrics of the same data
share that work. The AURC weight of a group (the mean of its positions'
weights, [AURC] Eq. 11-13, 18) is read from tables: the values are ``_core``'s,
to rounding (tests/metrics/test_bootstrap.py).
"""

from functools import cached_property
from typing import NamedTuple

import numpy as np

from ._alpha import ALPHA_ESTIMATORS
from ._group_stats import (
    GroupStats,
    aurc_from_stats,
)
from ._oracle import (
    naurc_from_values,
)

# The mean AURC weight of groups of up to this many samples is read from a table
# (one row per width); wider groups take it from running sums of the weights.
_SUM_WIDTH = 3


class _IntegerChunk(NamedTuple):
    """Group statistics of one chunk of sorted samples, for a few resamples."""

    weight: np.ndarray  # integer group weights, (rows, groups)
    upto: np.ndarray  # exact weight up to and including each group (intp)
    loss: np.ndarray  # group loss totals
    losses: np.ndarray  # the samples' losses (the groups' without ties)
    tied: bool

    @property
    def mean(self):
        """Loss per unit of weight of each group: the losses without ties."""
        if not self.tied:
            return self.losses
        return self.loss / np.maximum(self.weight, 1)  # no weight: no loss either


def _row_dot(values, per_unit):
    """Per row, ``sum_j values[i, j] per_unit[(i,) j]``. (einsum, not a matrix
    product: BLAS is slow for one row of small integers, and may start threads.)"""
    if per_unit.ndim == 1:
        return np.einsum("ij,j->i", values, per_unit)
    return np.einsum("ij,ij->i", values, per_unit)


def integer_chunks(resampler, sorted_counts):
    """The chunks' :class:`_IntegerChunk`, least confident first."""
    carry = np.zeros((sorted_counts.shape[0], 1), dtype=np.intp)
    for start, stop, local_starts in resampler.chunks:
        counts = sorted_counts[:, start:stop]
        losses = resampler.losses[start:stop]
        loss = counts * losses
        upto = np.cumsum(counts, axis=-1, dtype=np.intp)
        weight = counts
        if local_starts is not None:
            # Group totals as differences of the running sums at the group ends
            # (faster than reduceat; exact for the integer weights).
            ends = np.append(local_starts[1:], stop - start) - 1
            upto = np.take(upto, ends, axis=-1)
            weight = _differences(upto)
            loss = _differences(np.take(np.cumsum(loss, axis=-1), ends, axis=-1))
        upto += carry
        carry = upto[:, -1:].copy()
        yield _IntegerChunk(weight, upto, loss, losses, local_starts is not None)


def _differences(running):
    """Row-wise differences of running sums, the first entry kept."""
    values = np.empty_like(running)
    values[:, 0] = running[:, 0]
    np.subtract(running[:, 1:], running[:, :-1], out=values[:, 1:])
    return values


class _Block:
    """The sorted counts of a few resamples and their totals, computed once."""

    def __init__(self, resampler, sorted_counts):
        self.resampler, self.counts = resampler, sorted_counts
        self.rows = sorted_counts.shape[0]

    @cached_property
    def total(self):
        return self.counts.sum(axis=-1, dtype=np.intp)

    @cached_property
    def total_loss(self):
        return _row_dot(self.counts, self.resampler.losses)

    @cached_property
    def oracle(self):
        if self.resampler.binary_losses:  # the failures, then the correct
            weight = np.stack([self.total_loss, self.total - self.total_loss], -1)
            return GroupStats(weight, weight * np.array([1.0, 0.0]))
        return self.resampler.oracle_totals(self.counts)


# --------------------------------------------------------------------------------------
# Accumulators: ``add`` each chunk in order, then ``result()`` per resample.
# --------------------------------------------------------------------------------------
class _Areas:
    """``sum_g loss_g (2 U_g - W_g + offset)``: twice the AUGRC (offset 0) or SELE
    (offset 1) sum of ``_core`` for the groups ``(U_g - W_g, U_g]``."""

    def __init__(self, block, offset):
        self.block, self.offset = block, offset
        self.value = np.zeros(block.rows)

    def add(self, chunk):
        middle = 2 * chunk.upto
        middle -= chunk.weight
        if self.offset:
            middle += self.offset
        self.value += np.einsum("ij,ij->i", middle, chunk.loss)

    def result(self):
        return self.value / (2.0 * self.block.total.astype(np.float64) ** 2)


def _uq_auc(block, areas):
    # For 0/1 losses, with W the total weight, F the failures and A the AUGRC
    # numerator, AUGRC = (1 - UQ_AUC) acc (1 - acc) + (1 - acc)^2 / 2 ([AUGRC]
    # Eq. 7, exact; SPEC section 4) gives UQ_AUC = (F (W - F/2) - A) / ((W - F) F).
    total = block.total.astype(np.float64)
    return uq_auc_from_sums(areas.value / 2.0, total, block.total_loss)


def uq_auc_from_sums(numerator, total, failures, correct=None):
    """UQ-AUC from the AUGRC numerator; ``correct`` is the weight of the correct
    predictions (``total - failures`` when None, exact for integer weights)."""
    if correct is None:
        correct = total - failures
    defined = (failures > 0) & (correct > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (failures * (total - failures / 2.0) - numerator) / (correct * failures)
    return np.where(defined, value, np.nan)


class _Aurc:
    """AURC of resamples of total weight ``n`` (the bootstrap's); the others
    (the jackknife's) are recomputed by the weighted path."""

    def __init__(self, block, aurc_estimator):
        self.block, self.aurc_estimator = block, aurc_estimator
        tables = _aurc_tables(block.resampler, aurc_estimator)
        self.means, self.running, self.errors = tables
        self.size = self.running.shape[0]
        self.value = np.zeros(block.rows)

    def add(self, chunk):
        index = np.minimum(chunk.weight, _SUM_WIDTH).astype(np.intp)
        index *= self.size
        index += chunk.upto
        self.value += np.einsum("ij,ij->i", np.take(self.means, index), chunk.loss)
        # The rarer groups wider than _SUM_WIDTH, with a loss: the mean of their
        # positions' weights from the exact running sums.
        wide = np.flatnonzero((chunk.weight > _SUM_WIDTH) & (chunk.loss != 0))
        if wide.shape[0]:
            row, column = np.divmod(wide, chunk.weight.shape[1])
            width = chunk.weight[row, column]
            end = chunk.upto[row, column]
            begin = end - width
            alpha = self.running[end] - self.running[begin]
            alpha += self.errors[end] - self.errors[begin]
            alpha /= width
            alpha -= self.means[_SUM_WIDTH * self.size + end]
            alpha *= chunk.loss[row, column]
            self.value += np.bincount(row, weights=alpha, minlength=self.block.rows)

    def result(self):
        # Once: e_aurc and naurc share it with aurc.
        if not hasattr(self, "_result"):
            n_samples = self.size - 1
            value = self.value / n_samples
            other = self.block.total != n_samples
            if other.any():
                value[other] = self.block.resampler.weighted_aurc(
                    self.block.counts[other], self.aurc_estimator
                )
            self._result = value
        return self._result.copy()


class _RiskAtCoverage:
    """``clip(U_g - rejected, 0, W_g)`` of a group's weight is accepted, the
    boundary group in proportion (``_core``)."""

    def __init__(self, block, coverage):
        total = block.total
        self.accepted = coverage * total
        self.rejected = (total - self.accepted)[:, None]
        self.loss = np.zeros(block.rows)

    def add(self, chunk):
        share = np.subtract(chunk.upto, self.rejected)
        np.clip(share, 0.0, chunk.weight, out=share)
        self.loss += _row_dot(share, chunk.mean)

    def result(self):
        return self.loss / self.accepted


class _CoverageAtRisk:
    """Largest coverage with selective risk <= ``risk``.

    ``_core``'s candidates are the feasible group ends and the crossings inside
    groups with a feasible start, most confident first; they grow along that
    ranking, so the largest is that of the least confident group with a feasible
    end or start: once every resample has found one, this accumulator skips the
    later (more confident) chunks. The weight and loss accepted down to a group
    are the totals less those below it.
    """

    def __init__(self, block, risk):
        self.risk = risk
        self.total = block.total.astype(np.float64)[:, None]
        self.total_loss = block.total_loss[:, None]
        self.every_row = np.arange(block.rows)
        self.largest = np.zeros(block.rows)
        self.loss_below = np.zeros((block.rows, 1))
        self.found = np.zeros(block.rows, dtype=bool)

    def add(self, chunk):
        if self.found.all():
            return
        risk, rows = self.risk, self.every_row
        loss_upto = np.cumsum(chunk.loss, axis=-1)
        loss_upto += self.loss_below
        # Accepted down to each group's start (its end, most confident first);
        # down to its end is the start of the next group, or for the chunk's last
        # group the totals less everything up to it.
        below = chunk.upto - chunk.weight
        start = np.subtract(self.total, below, dtype=np.float64)
        start_loss = loss_upto - chunk.loss
        np.subtract(self.total_loss, start_loss, out=start_loss)
        start_feasible = start_loss <= risk * start
        last_end = self.total - chunk.upto[:, -1:]
        last_end_loss = self.total_loss - loss_upto[:, -1:]
        end_feasible = np.empty_like(start_feasible)
        np.logical_and(
            start_feasible[:, 1:], start[:, 1:] > 0, out=end_feasible[:, :-1]
        )
        end_feasible[:, -1:] = (last_end_loss <= risk * last_end) & (last_end > 0)
        self.loss_below = loss_upto[:, -1:].copy()
        candidate = start_feasible | end_feasible
        candidate &= chunk.weight > 0
        first = np.argmax(candidate, axis=-1)
        row = rows[candidate[rows, first]]
        first = first[row]
        mean = chunk.mean
        mean_loss = mean[first] if mean.ndim == 1 else mean[row, first]
        end = self.total[row, 0] - chunk.upto[row, first]
        end_loss = self.total_loss[row, 0] - loss_upto[row, first]
        crossing = (end * mean_loss - end_loss) / (mean_loss - risk)
        value = np.where(start_feasible[row, first], start[row, first], crossing)
        self.largest[row] = np.fmax(self.largest[row], value)
        self.found[row] = True

    def result(self):
        total = self.total[:, 0]
        return np.clip(self.largest, 0.0, total) / total


# --------------------------------------------------------------------------------------
# Metrics: the accumulator each needs (several metrics may share one) and its result.
# --------------------------------------------------------------------------------------
def _aurc_plan(aurc_estimator="harmonic"):
    return (_Aurc, aurc_estimator), lambda block, aurc: aurc.result()


def _e_aurc_plan(aurc_estimator="harmonic"):
    def result(block, aurc):
        # e_aurc_from_stats's excess over the oracle, clipped at 0 against rounding.
        oracle = aurc_from_stats(block.oracle, aurc_estimator)
        return np.maximum(aurc.result() - oracle, 0.0)

    return (_Aurc, aurc_estimator), result


def _naurc_plan(aurc_estimator="harmonic"):
    def result(block, aurc):
        oracle = block.oracle
        oracle_value = aurc_from_stats(oracle, aurc_estimator)
        return naurc_from_values(aurc.result(), oracle_value, oracle)

    return (_Aurc, aurc_estimator), result


def _accumulated(accumulator, parameter):
    def plan(**params):
        return (accumulator, params[parameter]), lambda block, found: found.result()

    return plan


INTEGER_PLANS = {
    "aurc": _aurc_plan,
    "sele": lambda: ((_Areas, 1), lambda block, areas: areas.result()),
    "augrc": lambda: ((_Areas, 0), lambda block, areas: areas.result()),
    "uq_auc": lambda: ((_Areas, 0), _uq_auc),
    "e_aurc": _e_aurc_plan,
    "naurc": _naurc_plan,
    "selective_risk_at_coverage": _accumulated(_RiskAtCoverage, "coverage"),
    "coverage_at_risk": _accumulated(_CoverageAtRisk, "risk"),
}


def integer_values(resampler, sorted_counts, metrics):
    """The values of ``metrics`` (``(name, params)`` pairs of ``INTEGER_PLANS``)
    on a few resamples, each accumulator shared by the metrics that need it."""
    block = _Block(resampler, sorted_counts)
    plans = [INTEGER_PLANS[name](**params) for name, params in metrics]
    accumulators = {}
    for (accumulator, argument), _ in plans:
        if (accumulator, argument) not in accumulators:
            accumulators[accumulator, argument] = accumulator(block, argument)
    for chunk in integer_chunks(resampler, sorted_counts):
        for accumulator in accumulators.values():
            accumulator.add(chunk)
    return [result(block, accumulators[key]) for key, result in plans]


def _aurc_tables(resampler, aurc_estimator):
    """``(M, P, E)`` for resamples of total weight ``n``, cached on the resampler.

    ``alpha(r)`` is the AURC weight of the position ``r = 1 .. n``, as ``_core``
    computes it for a group of width one. ``M[w, r]`` (flat) is the mean of
    ``alpha`` over the ``w <= _SUM_WIDTH`` positions ending at ``r``; ``P + E`` is
    the sum of ``alpha`` up to ``r``, ``P`` the rounded running sum and ``E`` its
    accumulated rounding errors (each step's error is exact, Knuth's TwoSum), so
    the sum over any range of positions is ``(P[b] - P[a]) + (E[b] - E[a])``.
    """
    key = ("aurc", aurc_estimator)
    if key not in resampler.tables:
        n = resampler.losses.shape[0]
        positions = np.arange(n + 1, dtype=np.float64)
        table = np.zeros(n + 1)
        table[1:] = ALPHA_ESTIMATORS[aurc_estimator](
            positions[:-1], positions[1:], np.full(n, float(n))
        )
        means = np.zeros((_SUM_WIDTH + 1, n + 1))
        for width in range(1, _SUM_WIDTH + 1):
            means[width] = means[width - 1]
            means[width, width - 1 :] += table[: n + 2 - width]
        means[1:] /= np.arange(1, _SUM_WIDTH + 1)[:, None]
        running = np.cumsum(table)
        before = np.concatenate([[0.0], running[:-1]])
        added = running - before
        errors = np.cumsum((before - (running - added)) + (table - added))
        resampler.tables[key] = means.ravel(), running, errors
    return resampler.tables[key]
