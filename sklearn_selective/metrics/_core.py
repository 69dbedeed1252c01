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

from typing import NamedTuple

import numpy as np
from scipy.special import digamma, gammaln

# Below this argument the asymptotic expansions are not accurate to double precision;
# there the closed forms are evaluated directly (no harmful cancellation at that size).
_ASYMPTOTIC_MIN = 20.0


class ConfidenceGroups(NamedTuple):
    """Samples sorted by ascending confidence and split into tie groups."""

    order: np.ndarray  # argsort of confidence (ascending)
    starts: np.ndarray  # index in sorted order where each tie group starts
    values: np.ndarray  # the distinct confidence values, ascending

    @property
    def group_index(self):
        """Dense rank (0 .. n_groups - 1) of each sample, in the original order."""
        n_samples = self.order.shape[0]
        sorted_index = np.zeros(n_samples, dtype=np.intp)
        sorted_index[self.starts[1:]] = 1
        index = np.empty(n_samples, dtype=np.intp)
        index[self.order] = np.cumsum(sorted_index)
        return index

    def sum(self, values):
        """Per-group totals of ``values`` (shape ``(..., n_samples)``)."""
        return np.add.reduceat(values[..., self.order], self.starts, axis=-1)


def group_by_confidence(confidence):
    """Sort ``confidence`` once and find its tie groups."""
    order = np.argsort(confidence)
    sorted_confidence = confidence[order]
    is_start = np.empty(sorted_confidence.shape[0], dtype=bool)
    is_start[:1] = True
    np.not_equal(sorted_confidence[1:], sorted_confidence[:-1], out=is_start[1:])
    starts = np.flatnonzero(is_start)
    return ConfidenceGroups(order, starts, sorted_confidence[starts])


class GroupStats(NamedTuple):
    """Per-tie-group totals, ascending confidence, shape ``(..., n_groups)``."""

    weight: np.ndarray
    loss: np.ndarray

    @classmethod
    def from_samples(cls, groups, losses, sample_weight):
        return cls(groups.sum(sample_weight), groups.sum(sample_weight * losses))

    @property
    def total_weight(self):
        return self.weight.sum(axis=-1)

    @property
    def bounds(self):
        """Cumulative-weight interval ``(below, upto]`` of each group (ascending)."""
        upto = np.cumsum(self.weight, axis=-1)
        return upto - self.weight, upto


# --------------------------------------------------------------------------------------
# Special functions, extended to real arguments and free of catastrophic cancellation.
# --------------------------------------------------------------------------------------
def _harmonic_difference(x, y):
    """``H_x - H_y`` for real ``x >= y >= 0`` with ``H_z = digamma(z + 1) + gamma``.

    Computed from the asymptotic series of the digamma difference when both arguments
    are large, so that small differences of large harmonic numbers keep full relative
    precision (the direct difference loses ~log10(n) digits at sample size n).
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    u, v = x + 1.0, y + 1.0
    h = x - y
    result = np.empty(np.broadcast_shapes(x.shape, y.shape))
    small = v < _ASYMPTOTIC_MIN
    result[small] = digamma(u[small]) - digamma(v[small])
    u, v, h = u[~small], v[~small], h[~small]
    p, q = 1.0 / u**2, 1.0 / v**2
    # psi(z) ~ ln z - 1/(2z) - 1/(12z^2) + 1/(120z^4) - 1/(252z^6) + 1/(240z^8)
    series = (
        -1.0 / 12.0
        + (p + q) / 120.0
        - (p * p + p * q + q * q) / 252.0
        + (p + q) * (p * p + q * q) / 240.0
    )
    p_minus_q = -h * (u + v) * p * q
    result[~small] = np.log1p(h / v) + h / (2.0 * u * v) + p_minus_q * series
    return result


def _mean_log_excess(x, y):
    """``(lnGamma(x + 1) - lnGamma(y + 1)) / (x - y) - ln(y + 1)`` for ``x > y >= 0``.

    For integers this is the mean of ``ln m`` over ``m = y + 1 .. x`` minus
    ``ln(y + 1)``, computed without cancelling the large common ``ln(y + 1)``.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    u, v = x + 1.0, y + 1.0
    h = x - y
    result = np.empty(x.shape)
    small = v < _ASYMPTOTIC_MIN
    result[small] = (gammaln(u[small]) - gammaln(v[small])) / h[small] - np.log(
        v[small]
    )
    u, v, h = u[~small], v[~small], h[~small]
    # Stirling: lnGamma(z) ~ (z - 1/2) ln z - z + ln(2 pi)/2 + 1/(12z) - 1/(360z^3)
    #                        + 1/(1260z^5) - 1/(1680z^7)
    a, b = 1.0 / u, 1.0 / v
    ab = a * b
    s2 = a * a + ab + b * b
    s4 = a**4 + a**3 * b + a * a * b * b + a * b**3 + b**4
    s6 = (a**6 + b**6) + ab * (a**4 + b**4) + ab * ab * (a * a + b * b) + ab**3
    result[~small] = (
        (u - 0.5) * np.log1p(h / v) / h
        - 1.0
        - ab / 12.0
        + ab * s2 / 360.0
        - ab * s4 / 1260.0
        + ab * s6 / 1680.0
    )
    return result


# --------------------------------------------------------------------------------------
# Plug-in weights alpha of the AURC estimators, averaged over a tie group's positions.
# --------------------------------------------------------------------------------------
def _harmonic_alpha(below, upto, n):
    """Mean of ``H_n - H_{n - r}`` over the positions ``r`` in ``(below, upto]``.

    With ``x = n - below`` and ``y = n - upto``, the identity
    ``sum_{m=0}^{M-1} H_m = M (H_M - 1)`` gives
    ``alpha = (H_n - H_y) - x (H_x - H_y) / (x - y) + 1``.
    """
    x, y = n - below, n - upto
    width = upto - below
    occupied = width > 0
    alpha = np.zeros(np.broadcast_shapes(below.shape, upto.shape))
    x, y, width = x[occupied], y[occupied], width[occupied]
    n_rows = np.broadcast_to(n, occupied.shape)[occupied]
    alpha[occupied] = (
        _harmonic_difference(n_rows, y) - x * _harmonic_difference(x, y) / width + 1.0
    )
    return alpha


def _log_alpha(below, upto, n):
    """Mean of ``-ln(1 - r / (n + 1))`` over the positions ``r`` in ``(below, upto]``."""
    x, y = n - below, n - upto
    occupied = (upto - below) > 0
    alpha = np.zeros(np.broadcast_shapes(below.shape, upto.shape))
    n_rows = np.broadcast_to(n, occupied.shape)[occupied]
    # ln(n + 1) - mean_{m=y+1..x} ln m = ln((n + 1) / (y + 1)) - excess(x, y).
    x, y, upto_occupied = x[occupied], y[occupied], upto[occupied]
    alpha[occupied] = -np.log1p(-upto_occupied / (n_rows + 1.0)) - _mean_log_excess(
        x, y
    )
    return alpha


ALPHA_ESTIMATORS = {"harmonic": _harmonic_alpha, "log": _log_alpha}


# --------------------------------------------------------------------------------------
# Metrics on group statistics. All accept a leading batch axis.
# --------------------------------------------------------------------------------------
def aurc_from_stats(stats, estimator="harmonic"):
    """Plug-in AURC ``(1/n) sum_i alpha_i l_i`` ([AURC] Eq. 11, 13, 18)."""
    below, upto = stats.bounds
    n = upto[..., -1:]
    alpha = ALPHA_ESTIMATORS[estimator](below, upto, n)
    return (alpha * stats.loss).sum(axis=-1) / n[..., 0]


def sele_from_stats(stats):
    """SELE score ``sum_i r_i l_i / n^2`` with mid-ranks ([AURC] Eq. 33)."""
    below, upto = stats.bounds
    n = upto[..., -1]
    return (stats.loss * (below + upto + 1.0) / 2.0).sum(axis=-1) / n**2


def augrc_from_stats(stats):
    """Trapezoidal area under the generalized risk-coverage curve ([AUGRC] Eq. 6)."""
    below, upto = stats.bounds
    total = upto[..., -1]
    return (stats.loss * (below + upto) / 2.0).sum(axis=-1) / total**2


def failure_auc_from_stats(stats):
    """``P(g_correct > g_failure) + P(tie) / 2`` for 0/1 losses ([UQ] Eq. 15).

    Returns ``nan`` where there is no failure or no correct prediction.
    """
    failures = stats.loss
    correct = stats.weight - failures
    failures_below = np.cumsum(failures, axis=-1) - failures
    n_failures = failures.sum(axis=-1)
    n_correct = correct.sum(axis=-1)
    concordant = (correct * (failures_below + failures / 2.0)).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return concordant / (n_correct * n_failures)


def oracle_stats(losses, sample_weight):
    """Group statistics of the oracle ranking, confidence = -loss."""
    groups = group_by_confidence(-losses)
    return GroupStats.from_samples(groups, losses, sample_weight)


def descending_curve(stats):
    """Points of the risk-coverage curves at the distinct thresholds, most confident
    first, with zero-weight groups dropped.

    Returns ``accepted_weight, accepted_loss, keep`` where ``keep`` masks the groups
    (ascending order) that carry weight.
    """
    keep = stats.weight > 0
    weight = stats.weight[keep][::-1]
    loss = stats.loss[keep][::-1]
    return np.cumsum(weight), np.cumsum(loss), keep


def selective_risk_at_coverage_from_stats(stats, coverage):
    """Expected selective risk when a fraction ``coverage`` of the weight is accepted,
    most confident first, with the boundary tie group accepted in proportion.
    """
    weight = stats.weight[::-1]
    loss = stats.loss[::-1]
    accepted = coverage * weight.sum()
    upto = np.cumsum(weight)
    below = upto - weight
    share = np.clip((accepted - below) / np.where(weight > 0, weight, 1.0), 0.0, 1.0)
    share[weight == 0] = 0.0
    return float((share * loss).sum() / accepted)


def coverage_at_risk_from_stats(stats, risk):
    """Largest coverage whose (tie-randomised) selective risk is ``<= risk``."""
    keep = stats.weight > 0
    weight = stats.weight[keep][::-1]
    loss = stats.loss[keep][::-1]
    total = weight.sum()
    upto = np.cumsum(weight)
    loss_upto = np.cumsum(loss)
    below, loss_below = upto - weight, loss_upto - loss
    # Inside a group the accepted weight t in (below, upto] has selective risk
    # (loss_below + (t - below) * m) / t with m the group's mean loss: monotone in t,
    # so the feasible t form an interval and its right end is found in closed form.
    end_feasible = loss_upto <= risk * upto
    start_feasible = (below > 0) & (loss_below <= risk * below)
    mean_loss = loss / weight
    with np.errstate(divide="ignore", invalid="ignore"):
        crossing = (below * mean_loss - loss_below) / (mean_loss - risk)
    largest = np.where(end_feasible, upto, np.where(start_feasible, crossing, 0.0))
    return float(np.clip(largest.max(), 0.0, total) / total)
