"""The risk-coverage core shared by every metric.

Samples are sorted once by confidence and collapsed into *tie groups*: one group per
distinct confidence value, in ascending order. Every metric of this package is a
function of the per-group totals ``weight`` (sum of sample weights) and ``loss`` (sum
of weighted losses) only, which is what makes tie handling exact (SPEC section 1: a
group's members share the mean of the per-position quantities) and what lets a
bootstrap evaluate a resample as a vector of integer counts on the sorted arrays.

The functions taking ``weight`` and ``loss`` work on arrays of shape ``(..., n_groups)``
so that many resamples can be evaluated at once. Groups of zero weight are allowed
there and contribute nothing, exactly as if their samples had been removed.
"""

import itertools
from typing import NamedTuple

import numpy as np

from ._alpha import (
    _TABLE_SIZE,
    ALPHA_ESTIMATORS,
    _harmonic_alpha,
    _log_alpha,
    _scalar_tabulated_difference,
    _tabulated_tail_dot,
    _unit_log_alpha,
)

_ONE = np.ones(1)
_ONE.flags.writeable = False


def unit_weights(n_samples):
    """``n_samples`` weights of 1.0: a read-only view of one value (stride 0), the
    mark of constant weights throughout this module. A third of the cost of
    ``np.broadcast_to``, which a call on a thousand samples notices."""
    return np.ndarray((n_samples,), np.float64, _ONE, 0, (0,))


class TieGroups(NamedTuple):
    """Samples sorted by ascending value (confidence) and split into tie groups."""

    order: np.ndarray  # argsort of the values (ascending)
    starts: np.ndarray | None  # sorted index where each group starts; None: no ties
    values: np.ndarray  # the distinct values, ascending

    @property
    def n_groups(self):
        if self.starts is None:
            return self.order.shape[0]
        return self.starts.shape[0]

    @property
    def group_index(self):
        """Dense rank (0 .. n_groups - 1) of each sample, in the original order."""
        return self.dense_rank()

    def dense_rank(self, first=0):
        """Dense rank (``first`` .. ``first + n_groups - 1``) of each sample, in
        the original order."""
        n_samples = self.order.shape[0]
        index = np.empty(n_samples, dtype=np.intp)
        if self.starts is None:
            index[self.order] = np.arange(first, first + n_samples)
            return index
        is_start = np.zeros(n_samples, dtype=np.intp)
        is_start[0] = first
        is_start[self.starts[1:]] = 1
        index[self.order] = np.cumsum(is_start)
        return index

    def weight(self, sample_weight=None):
        """Total weight of each group, float64; unit weights when None."""
        if sample_weight is not None:
            return self.sum(sample_weight)
        if self.starts is None:
            return unit_weights(self.order.shape[0])
        return np.diff(self.starts, append=self.order.shape[0]).astype(np.float64)

    def sum(self, values):
        """Per-group totals of ``values`` (shape ``(..., n_samples)``)."""
        sorted_values = values.take(self.order, axis=-1)
        if self.starts is None:
            return sorted_values
        return np.add.reduceat(sorted_values, self.starts, axis=-1)


def group_ties(values, with_values=True):
    """Sort ``values`` (usually the confidences) once and find their tie groups.

    With ``with_values=False`` the distinct values are not kept (``values`` is
    None): when there are ties, they would cost another array of about ``n``.
    """
    # numpy's default sort, not the stable one: the order inside a tie group does
    # not matter, and the stable sort (timsort) branches on every comparison,
    # which costs up to three times as much on fresh data of a thousand values.
    order = np.argsort(values)
    sorted_values = values[order]
    is_start = np.empty(sorted_values.shape[0], dtype=bool)
    is_start[:1] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=is_start[1:])
    if is_start.all():  # the common case of continuous scores
        return TieGroups(order, None, sorted_values if with_values else None)
    starts = np.flatnonzero(is_start)
    del is_start
    return TieGroups(order, starts, sorted_values[starts] if with_values else None)


class GroupStats(NamedTuple):
    """Per-tie-group totals, ascending confidence, shape ``(..., n_groups)``."""

    weight: np.ndarray
    loss: np.ndarray

    @classmethod
    def from_samples(cls, groups, losses, sample_weight=None):
        """Group totals; ``sample_weight=None`` means unit weights."""
        weighted_losses = losses if sample_weight is None else sample_weight * losses
        return cls(groups.weight(sample_weight), groups.sum(weighted_losses))

    @property
    def total_weight(self):
        return self.weight.sum(axis=-1)

    @property
    def bounds(self):
        """Cumulative-weight interval ``(below, upto]`` of each group (ascending)."""
        upto = np.cumsum(self.weight, axis=-1)
        return upto - self.weight, upto


# --------------------------------------------------------------------------------------
# Metrics on group statistics. All accept a leading batch axis.
# --------------------------------------------------------------------------------------
# Totals above _LARGE (or positive ones below 1 / _LARGE) are scaled by a power of
# two before use, so that sums of products of weights and losses neither overflow
# nor underflow; scaling by a power of two is exact and is undone at the end.
_LARGE = 2.0**300


def times_power_of_two(value, exponent):
    """``value * 2**exponent`` as :func:`numpy.ldexp` computes it, without a numpy
    call for the common exponent 0 (a Python int)."""
    if type(exponent) is int and exponent == 0:
        return value
    return np.ldexp(value, exponent)


def _scale_exponent(values):
    """Per-row exponent ``e`` with ``values * 2**-e <= 1``; 0 for moderate rows."""
    if values.ndim == 1:  # the common case, in Python scalars
        if not values.size:
            return 0
        top = float(values[0] if values.strides[0] == 0 else values.max())
        if top == 0 or 1.0 / _LARGE <= top <= _LARGE:
            return 0
        return int(np.frexp(top)[1])
    top = values.max(axis=-1, initial=0.0)
    extreme = (top > _LARGE) | ((top > 0) & (top < 1.0 / _LARGE))
    return np.where(extreme, np.frexp(top)[1], 0)


def scale_losses(losses, sample_weight=None):
    """``(losses * 2**-e, e)``: exact. ``e = 0`` unless weighted sums could
    overflow, or every loss is tiny (below ``2**-300``): those are scaled up, so
    that sums and differences of the losses keep their precision."""
    largest = float(losses.max())
    top = largest * losses.shape[0]
    if sample_weight is not None:
        top *= float(sample_weight.max())
    if top <= _LARGE and (largest >= 1.0 / _LARGE or largest == 0):
        return losses, 0
    exponent = int(np.frexp(largest)[1])
    return np.ldexp(losses, -exponent), exponent


def rescaled_stats(stats, scale_weight=True):
    """``stats`` with extreme weights and losses scaled exactly by powers of two.

    Returns the scaled statistics and the exponent ``e`` such that a metric that
    is scale invariant in the weights (only when ``scale_weight``) and linear in
    the per-unit loss equals ``2**e`` times its value on the scaled statistics.
    """
    loss_exp = _scale_exponent(stats.loss)
    weight_exp = _scale_exponent(stats.weight) if scale_weight else 0
    if stats.loss.ndim == 1:  # Python integers
        if not (loss_exp or weight_exp):
            return stats, 0
    elif not (np.any(loss_exp) or np.any(weight_exp)):
        return stats, 0
    scaled = GroupStats(
        np.ldexp(stats.weight, -np.expand_dims(weight_exp, -1)),
        np.ldexp(stats.loss, -np.expand_dims(loss_exp, -1)),
    )
    return scaled, loss_exp - weight_exp


def aurc_from_stats(stats, aurc_estimator="harmonic"):
    """Plug-in AURC ``(1/n) sum_i alpha_i l_i`` ([AURC] Eq. 11, 13, 18)."""
    stats, exponent = rescaled_stats(stats, scale_weight=False)
    alpha_function = ALPHA_ESTIMATORS[aurc_estimator]
    if stats.loss.ndim == 1:
        return times_power_of_two(_aurc_1d(stats, alpha_function), exponent)
    below, upto = stats.bounds
    n = upto[..., -1]
    n_groups = upto.shape[-1]
    with_loss = np.flatnonzero(stats.loss)
    row = with_loss // n_groups
    alpha = alpha_function(
        below.reshape(-1)[with_loss],
        upto.reshape(-1)[with_loss],
        n.reshape(-1)[row],
    )
    contribution = alpha * stats.loss.reshape(-1)[with_loss]
    total = np.bincount(row, weights=contribution, minlength=n.size).reshape(n.shape)
    return np.ldexp(total / n, exponent)


# Groups per piece of the 1-D AURC sum: its temporaries stay small.
_AURC_PIECE = 2**20


def _aurc_1d(stats, alpha_function):
    """``(1/n) sum_i alpha_i l_i`` of one ranking. Only groups with a loss
    contribute: the special functions are evaluated there only, a piece of groups
    at a time, so that the extra memory stays about one array (issue 15)."""
    loss, weight = stats.loss, stats.weight
    size = loss.shape[0]
    constant = weight.strides[0] == 0  # constant weights: positions in closed form
    if constant:
        unit = float(weight[0])
        n = size * unit
        if unit == 1.0 and size <= _TABLE_SIZE:
            # Unit weights, no ties: the weights of all positions at once.
            if alpha_function is _harmonic_alpha:  # H_n - H_{n - r}, from the table
                return _tabulated_tail_dot(loss) / size
            if alpha_function is _log_alpha:
                return np.dot(_unit_log_alpha(size), loss) / size
    else:
        if size <= 2 and alpha_function is _harmonic_alpha:
            value = _one_group_aurc(loss.tolist(), weight.tolist())
            if value is not None:
                return value
        cumulative = np.add.accumulate(weight)
        n = float(cumulative[-1])
    total = 0.0
    for start in range(0, size, _AURC_PIECE):
        with_loss = np.flatnonzero(loss[start : start + _AURC_PIECE])
        with_loss += start
        if constant:
            upto = (with_loss + 1.0) * unit
            below = with_loss * unit
        else:
            upto = cumulative[with_loss]
            below = upto - weight[with_loss]
        alpha = alpha_function(below, upto, np.broadcast_to(n, with_loss.shape))
        total += np.dot(alpha, loss[with_loss])
    return total / n


def _one_group_aurc(losses, weights):
    """The harmonic AURC of two groups or fewer of which one carries all the loss
    (the oracle of 0/1 losses), in Python scalars; None unless the group's bounds
    are integers within the harmonic table.

    These are the floating-point operations of :func:`_harmonic_alpha` and
    :func:`_aurc_1d` on arrays, without the overhead of a dozen array calls.
    """
    with_loss = [index for index, loss in enumerate(losses) if loss]
    if len(with_loss) != 1:
        return None
    (group,) = with_loss
    cumulative = list(itertools.accumulate(weights))
    upto, n = cumulative[group], cumulative[-1]
    below = upto - weights[group]
    if not (
        0 <= below < upto <= n <= _TABLE_SIZE
        and below.is_integer()
        and upto.is_integer()
        and n.is_integer()
    ):
        return None
    below, upto, n = int(below), int(upto), int(n)
    x, y, width = n - below, n - upto, upto - below
    alpha = _scalar_tabulated_difference(n, y)
    if width != 1:  # x = n for the oracle's failures, the first group
        difference = alpha if x == n else _scalar_tabulated_difference(x, y)
        alpha += 1.0 - x * difference / width
    return alpha * losses[group] / n


def _cumulative(weight):
    """``(upto, total)`` for 1-D weights, with ``upto = cumsum(weight)``."""
    if weight.strides[0] == 0:  # constant (unit) weights, a broadcast view
        upto = np.arange(1, weight.shape[0] + 1, dtype=np.float64)
        if weight[0] != 1.0:
            upto *= weight[0]
    else:
        upto = np.add.accumulate(weight)
    return upto, float(upto[-1])


def _subtract_half(upto, weight, offset=0.0):
    """In place: ``upto - weight / 2 + offset``, the middle of each group."""
    if weight.strides[0] == 0:
        upto -= 0.5 * float(weight[0]) - offset
    else:
        upto -= 0.5 * weight
        if offset:
            upto += offset
    return upto


def sele_from_stats(stats):
    """SELE score ``sum_i r_i l_i / n^2`` with mid-ranks ([AURC] Eq. 33)."""
    stats, exponent = rescaled_stats(stats, scale_weight=False)
    # The 1-D path makes the same floating-point operations as the batched one
    # (for integer weights), so that a bootstrap reproduces the point estimate.
    with np.errstate(over="ignore", invalid="ignore"):
        if stats.loss.ndim == 1:
            upto, n = _cumulative(stats.weight)
            terms = _subtract_half(upto, stats.weight, offset=0.5)
            terms *= stats.loss
            square = n * n  # numpy's n**2; Python's raises OverflowError
            value = terms.sum() / square
        else:
            below, upto = stats.bounds
            n = upto[..., -1]
            square = n**2
            value = (stats.loss * ((below + upto + 1.0) / 2.0)).sum(axis=-1) / square
    if not (np.all(np.isfinite(value)) and np.all(np.isfinite(square))):
        # Huge frequency weights: divide first.
        below, upto = stats.bounds
        n = upto[..., -1:]
        value = ((stats.loss / n) * ((below + upto + 1.0) / (2.0 * n))).sum(axis=-1)
    return times_power_of_two(value, exponent)


def augrc_from_stats(stats):
    """Trapezoidal area under the generalized risk-coverage curve ([AUGRC] Eq. 6)."""
    stats, exponent = rescaled_stats(stats)
    # Weights and losses are at most 1 after rescaling. The 1-D path makes the same
    # floating-point operations as the batched one for integer weights.
    if stats.loss.ndim == 1:
        upto, total = _cumulative(stats.weight)
        terms = _subtract_half(upto, stats.weight)
        terms *= stats.loss
        return times_power_of_two(terms.sum() / total**2, exponent)
    below, upto = stats.bounds
    total = upto[..., -1]
    value = (stats.loss * (below + upto) / 2.0).sum(axis=-1) / total**2
    return times_power_of_two(value, exponent)


def failure_auc_from_stats(stats):
    """``P(g_correct > g_failure) + P(tie) / 2`` for 0/1 losses ([UQ] Eq. 15).

    Returns ``nan`` where there is no failure or no correct prediction.
    """
    if stats.loss.ndim == 1:
        return _failure_auc_1d(stats.weight, stats.loss)
    exponent = np.expand_dims(_scale_exponent(stats.weight), -1)
    if np.any(exponent):  # the same power of two for failures and weights
        stats = GroupStats(
            np.ldexp(stats.weight, -exponent), np.ldexp(stats.loss, -exponent)
        )
    failures = stats.loss
    correct = stats.weight - failures
    failures_below = np.cumsum(failures, axis=-1) - failures
    n_failures = failures.sum(axis=-1)
    n_correct = correct.sum(axis=-1)
    concordant = (correct * (failures_below + failures / 2.0)).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return concordant / (n_correct * n_failures)


def _failure_auc_1d(weight, failures):
    """:func:`failure_auc_from_stats` of one ranking, as a Python float."""
    if weight.strides[0] == 0 and weight[0] == 1.0:
        # Unit weights, no ties: with P the sum of the failures' positions (0 ..
        # n - 1, ascending confidence), the failures have P - F (F - 1) / 2
        # correct predictions below them. Integers, exact below 1.3e8 samples
        # (sums below 2**53): the same value as the general formula.
        n_failures = float(failures.sum())
        n_correct = failures.shape[0] - n_failures
        if not (n_failures > 0 and n_correct > 0):
            return np.nan
        # In integers: one index per failure, not an array of n positions.
        position_sum = float(np.flatnonzero(failures).sum())
        below = position_sum - n_failures * (n_failures - 1.0) / 2.0
        return (n_failures * n_correct - below) / (n_correct * n_failures)
    exponent = _scale_exponent(weight)
    if exponent:  # the same power of two for failures and weights
        weight, failures = np.ldexp(weight, -exponent), np.ldexp(failures, -exponent)
    failures_middle, _ = _cumulative(failures)
    failures_middle = _subtract_half(failures_middle, failures)
    correct = np.subtract(weight, failures)
    n_correct = float(correct.sum())  # exactly 0 when every prediction fails
    n_failures = float(failures.sum())
    if not (n_failures > 0 and n_correct > 0):
        return np.nan
    failures_middle *= correct
    return float(failures_middle.sum()) / (n_correct * n_failures)


def descending_curve(stats):
    """Points of the risk-coverage curves at the distinct thresholds, most confident
    first, with zero-weight groups dropped.

    Returns ``accepted_weight, accepted_loss, keep`` where ``keep`` masks the groups
    (ascending order) that carry weight.
    """
    keep = stats.weight > 0
    if keep.all():  # no copies
        upto = _cumulative(stats.weight[::-1])[0]
        return upto, np.add.accumulate(stats.loss[::-1]), keep
    weight = stats.weight[keep][::-1]
    loss = stats.loss[keep][::-1]
    return np.add.accumulate(weight), np.add.accumulate(loss), keep


def selective_risk_at_coverage_from_stats(stats, coverage):
    """Expected selective risk when a fraction ``coverage`` of the weight is accepted,
    most confident first, with the boundary tie group accepted in proportion.

    Batched over the leading axes of ``stats``; zero-weight groups add nothing.
    """
    stats, exponent = rescaled_stats(stats)
    weight = stats.weight[..., ::-1]
    loss = stats.loss[..., ::-1]
    if weight.ndim == 1:  # only the boundary group is accepted in part
        upto, total = _cumulative(weight)
        accepted = coverage * total
        boundary = min(int(np.searchsorted(upto, accepted)), upto.shape[0] - 1)
        below = float(upto[boundary] - weight[boundary])
        share = min(max((accepted - below) / float(weight[boundary]), 0.0), 1.0)
        risk = (float(np.sum(loss[:boundary])) + share * loss[boundary]) / accepted
        return times_power_of_two(risk, exponent)
    accepted = coverage * weight.sum(axis=-1, keepdims=True)
    upto = np.cumsum(weight, axis=-1)
    below = upto - weight
    share = np.clip((accepted - below) / np.where(weight > 0, weight, 1.0), 0.0, 1.0)
    share[weight == 0] = 0.0
    return np.ldexp((share * loss).sum(axis=-1) / accepted[..., 0], exponent)


def coverage_at_risk_from_stats(stats, risk):
    """Largest coverage whose (tie-randomised) selective risk is ``<= risk``.

    Batched over the leading axes of ``stats``; zero-weight groups are masked.
    """
    stats, exponent = rescaled_stats(stats)
    scaled = np.any(exponent) if np.ndim(exponent) else exponent != 0
    if scaled:  # the target in the scaled loss units
        risk = np.ldexp(risk, -exponent)
        if np.ndim(risk):
            risk = np.expand_dims(risk, -1)
    weight = stats.weight[..., ::-1]
    loss = stats.loss[..., ::-1]
    if weight.ndim == 1:
        return _coverage_at_risk_1d(weight, loss, risk)
    keep = weight > 0
    total = weight.sum(axis=-1)
    upto = np.cumsum(weight, axis=-1)
    loss_upto = np.cumsum(loss, axis=-1)
    below, loss_below = upto - weight, loss_upto - loss
    # Inside a group the accepted weight t in (below, upto] has selective risk
    # (loss_below + (t - below) * m) / t with m the group's mean loss: monotone in t,
    # so the feasible t form an interval and its right end is found in closed form.
    end_feasible = keep & (loss_upto <= risk * upto)
    start_feasible = keep & (below > 0) & (loss_below <= risk * below)
    mean_loss = loss / np.where(keep, weight, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        crossing = (below * mean_loss - loss_below) / (mean_loss - risk)
    largest = np.where(end_feasible, upto, np.where(start_feasible, crossing, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):  # no weight: nan, undefined
        return np.clip(largest.max(axis=-1), 0.0, total) / total


def _coverage_at_risk_1d(weight, loss, risk):
    """:func:`coverage_at_risk_from_stats` for one ranking (most confident first).

    The largest feasible accepted weight is the end of the last group whose end
    is feasible, or a crossing inside the next group of positive weight (whose
    start is then feasible): every later group has an infeasible start and end,
    and the risk is monotone inside a group.
    """
    upto, total = _cumulative(weight)
    loss_upto = np.add.accumulate(loss)
    feasible = loss_upto <= risk * upto
    constant = weight.strides[0] == 0  # unit weights: every group has weight
    if not constant:
        feasible &= weight > 0
    last = upto.shape[0] - 1 - int(np.argmax(feasible[::-1]))
    if not feasible[last]:
        return 0.0  # the start of the first group (below = 0) is never feasible
    largest = float(upto[last])
    if constant:
        group = last + 1 if last + 1 < upto.shape[0] else None
    else:
        following = np.flatnonzero(weight[last + 1 :] > 0)
        group = last + 1 + int(following[0]) if following.size else None
    if group is not None:
        mean_loss = float(loss[group]) / float(weight[group])
        if mean_loss > risk:
            below, loss_below = float(upto[group - 1]), float(loss_upto[group - 1])
            largest = max(
                largest, (below * mean_loss - loss_below) / (mean_loss - risk)
            )
    return min(max(largest, 0.0), total) / total
