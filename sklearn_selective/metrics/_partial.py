"""Areas restricted to a coverage range, and the trapezoid AURC of FD-Shifts.

Every area of this package is the integral over coverage ``c`` in ``(0, 1]`` of a
curve; ``coverage_range=(low, high)`` integrates the same curve over ``(low, high]``
only. So ``(0, 1)`` is the full metric and adjacent ranges add up exactly: each value
is ``A(high) - A(low)`` for one cumulative area ``A``.

Plug-in AURC estimators ([AURC] Eq. 10-13, 18). With ``K = c n`` (coverage in units
of samples) and ``m_i = n - r_i`` the number of samples more confident than sample
``i``, both estimators integrate the curve

    C(c) = (sum of the losses of the ceil(K) most confident samples) / d(K),

``d(K) = ceil(K)`` for the harmonic estimator (the step selective-risk curve of
Eq. 10: ``R_k`` on ``((k - 1)/n, k/n]``) and ``d(K) = K + 1`` for the log estimator.
Sample ``i`` is in the numerator once ``K > m_i``, so its weight restricted to
``(low, high]`` is ``F(max(K_high, m_i)) - F(max(K_low, m_i))`` with ``F`` the
antiderivative of ``1/d``: the harmonic numbers linearly interpolated between
integers (``F(k) = H_k``) and ``F(x) = ln(x + 1)``. At ``(0, 1)`` this is
``F(n) - F(m_i)``, the estimators' own ``alpha_i`` (Eq. 13, 18). Tie groups take the
mean over their positions (the expectation over a random order of the ties), and
with real weights the grid of integers becomes the grid ``n - j`` and the means over
positions use the same real extensions as the full estimators, so ``(0, 1)`` is the
full value for any weights.
"""

import numpy as np
from scipy.special import digamma

from ._core import ALPHA_ESTIMATORS


def _harmonic_tail(n, cut):
    """``F(n) - F(cut)`` with ``F`` the harmonic numbers linearly interpolated on the
    grid ``n - j`` (``j = 0, 1, ...``) and ``F(0) = 0``."""
    steps = np.ceil(n - cut)
    lower = np.maximum(n - steps, 0.0)
    upper = n - steps + 1.0
    h_lower = digamma(n + 1.0) - digamma(lower + 1.0)  # H_n - H_lower
    h_step = digamma(upper + 1.0) - digamma(lower + 1.0)  # H_upper - H_lower
    return h_lower - (cut - lower) / (upper - lower) * h_step


def _log_tail(n, cut):
    """``F(n) - F(cut)`` with ``F(x) = ln(x + 1)``."""
    return np.log((n + 1.0) / (cut + 1.0))


_TAILS = {"harmonic": _harmonic_tail, "log": _log_tail}


def _cut_alpha(below, upto, n, cut, estimator):
    """Mean over a group's positions of ``F(n) - F(max(cut, m))``, ``m = n - r``.

    The positions ``r`` in ``(below, upto]`` have ``m`` in ``[n - upto, n - below)``;
    the ``count`` of them with ``m < cut`` take ``F(n) - F(cut)``, the others form a
    narrower group ``(below, upto - count]`` whose mean is the full estimator's.
    """
    width = upto - below
    count = np.clip(np.ceil(cut - (n - upto)), 0.0, width)
    result = np.zeros(width.shape)
    partly = count > 0
    result[partly] = count[partly] * _TAILS[estimator](n[partly], cut[partly])
    rest = count < width
    result[rest] += (width[rest] - count[rest]) * ALPHA_ESTIMATORS[estimator](
        below[rest], upto[rest] - count[rest], n[rest]
    )
    return result / width


def partial_aurc_from_stats(stats, estimator, coverage_range):
    """Plug-in AURC restricted to ``coverage_range`` (see the module docstring)."""
    low, high = coverage_range
    below, upto = stats.bounds
    n = upto[-1]
    carry = (stats.loss > 0) & (stats.weight > 0)
    below, upto, loss = below[carry], upto[carry], stats.loss[carry]
    n_groups = np.full(below.shape, n)
    alpha = _cut_alpha(below, upto, n_groups, low * n_groups, estimator) - _cut_alpha(
        below, upto, n_groups, high * n_groups, estimator
    )
    return float(np.sum(alpha * loss) / n)


def piecewise_linear_area(coverage, risk, low, high):
    """Integral over ``(low, high]`` of the curve through the points ``(coverage,
    risk)`` (``coverage`` increasing from 0 to 1), linear between points."""
    cumulative = np.concatenate(
        [[0.0], np.cumsum(np.diff(coverage) * (risk[1:] + risk[:-1]) / 2.0)]
    )

    def area_up_to(c):
        index = np.clip(np.searchsorted(coverage, c, side="right") - 1, 0, None)
        index = min(index, coverage.shape[0] - 2)
        value = np.interp(c, coverage, risk)
        return cumulative[index] + (c - coverage[index]) * (risk[index] + value) / 2.0

    return float(area_up_to(high) - area_up_to(low))


def generalized_curve_points(stats):
    """Points ``(coverage, generalized risk)`` from ``(0, 0)``, most confident first:
    the curve of the AUGRC, linear between the distinct thresholds (the expectation
    over a random order of each tie group)."""
    keep = stats.weight > 0
    weight, loss = stats.weight[keep][::-1], stats.loss[keep][::-1]
    total = weight.sum()
    coverage = np.concatenate([[0.0], np.cumsum(weight) / total])
    risk = np.concatenate([[0.0], np.cumsum(loss) / total])
    return coverage, risk


def selective_curve_points(stats):
    """Points ``(coverage, selective risk)`` at the distinct thresholds, with the
    first risk repeated at coverage 0 (FD-Shifts' ``selective_risk_stats``)."""
    keep = stats.weight > 0
    weight, loss = stats.weight[keep][::-1], stats.loss[keep][::-1]
    accepted = np.cumsum(weight)
    risk = np.cumsum(loss) / accepted
    coverage = np.concatenate([[0.0], accepted / accepted[-1]])
    return coverage, np.concatenate([risk[:1], risk])
