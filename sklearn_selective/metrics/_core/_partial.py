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
full value for any weights. The positions of a group whose bounds are not integers
are off that grid; its ``F(cut)`` is then ``H_cut`` extended by digamma, the full
estimator's own extension, so that every partial area stays non-negative.
"""

import numpy as np
from scipy.special import digamma

from ._alpha import ALPHA_ESTIMATORS


def _harmonic_tail(n, cut, on_grid):
    """``F(n) - F(cut)`` with ``F`` the harmonic numbers linearly interpolated on the
    grid ``n - j`` (``j = 0, 1, ...``) and ``F(0) = 0`` where ``on_grid`` (the
    group's positions are on that grid), else ``F(x) = H_x`` extended by digamma,
    the extension of the full estimator at the group's off-grid positions."""
    steps = np.ceil(n - cut)
    lower = np.maximum(n - steps, 0.0)
    upper = n - steps + 1.0
    h_lower = digamma(n + 1.0) - digamma(lower + 1.0)  # H_n - H_lower
    h_step = digamma(upper + 1.0) - digamma(lower + 1.0)  # H_upper - H_lower
    # Beyond 2**53 (weights of 1e100) the grid's unit steps are below float
    # resolution (upper == lower): there the digamma extension, which differs
    # from the interpolation by O(1 / n**2), is the value.
    unit = upper - lower == 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        interpolated = h_lower - (cut - lower) / (upper - lower) * h_step
    extended = digamma(n + 1.0) - digamma(cut + 1.0)
    return np.where(on_grid & unit, interpolated, extended)


def _log_tail(n, cut, on_grid):
    """``F(n) - F(cut)`` with ``F(x) = ln(x + 1)``."""
    return np.log((n + 1.0) / (cut + 1.0))


_TAILS = {"harmonic": _harmonic_tail, "log": _log_tail}


def _cut_alpha(below, upto, n, cut, aurc_estimator):
    """Mean over a group's positions of ``F(n) - F(max(cut, m))``, ``m = n - r``.

    The positions ``r`` in ``(below, upto]`` have ``m`` in ``[n - upto, n - below)``;
    the ``count`` of them with ``m < cut`` take ``F(n) - F(cut)``, the others form a
    narrower group ``(below, upto - count]`` whose mean is the full estimator's.
    """
    width = upto - below
    count = np.clip(np.ceil(cut - (n - upto)), 0.0, width)
    result = np.zeros(width.shape)
    partly = count > 0
    # A group's positions are on the grid n - j when its upper bound is an integer.
    on_grid = upto[partly] == np.floor(upto[partly])
    result[partly] = count[partly] * _TAILS[aurc_estimator](
        n[partly], cut[partly], on_grid
    )
    rest = count < width
    result[rest] += (width[rest] - count[rest]) * ALPHA_ESTIMATORS[aurc_estimator](
        below[rest], upto[rest] - count[rest], n[rest]
    )
    return result / width


def partial_aurc_from_stats(stats, aurc_estimator, coverage_range):
    """Plug-in AURC restricted to ``coverage_range`` (see the module docstring).

    Batched over the leading axes of ``stats``, like the functions of ``_core``.
    """
    low, high = coverage_range
    below, upto = stats.bounds
    n = np.broadcast_to(upto[..., -1:], upto.shape)
    carry = (stats.loss > 0) & (stats.weight > 0)
    b, u, m = below[carry], upto[carry], n[carry]
    alpha = np.zeros(stats.loss.shape)
    alpha[carry] = _cut_alpha(b, u, m, low * m, aurc_estimator) - _cut_alpha(
        b, u, m, high * m, aurc_estimator
    )
    return (alpha * stats.loss).sum(axis=-1) / upto[..., -1]


def linear_segments_area(weight, start, end, coverage_range):
    """Area over ``coverage_range`` of a curve that is linear from ``start`` to
    ``end`` on consecutive coverage segments of widths ``weight / sum(weight)``
    (last axis, from coverage 0); zero-width segments add nothing. Batched."""
    low, high = coverage_range
    total = weight.sum(axis=-1, keepdims=True)
    right = np.cumsum(weight, axis=-1) / total
    width = weight / total
    left = right - width
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = np.clip((low - left) / width, 0.0, 1.0)
        t1 = np.clip((high - left) / width, 0.0, 1.0)
    # Integral of start + t (end - start) over t in [t0, t1], times the width.
    slope = np.where(width > 0, end - start, 0.0)
    level = np.where(width > 0, start, 0.0)
    area = width * ((t1 - t0) * level + (t1**2 - t0**2) / 2.0 * slope)
    return np.where(width > 0, area, 0.0).sum(axis=-1)


def _descending(stats):
    return stats.weight[..., ::-1], stats.loss[..., ::-1]


def partial_augrc_from_stats(stats, coverage_range):
    """AUGRC restricted to ``coverage_range``: the generalized risk is linear in the
    coverage inside each tie group (the expectation over a random order). Batched."""
    weight, loss = _descending(stats)
    total = weight.sum(axis=-1, keepdims=True)
    end = np.cumsum(loss, axis=-1) / total
    return linear_segments_area(weight, end - loss / total, end, coverage_range)


def step_start(risk, weight):
    """Risk at the start of each segment of a curve through the points ``risk`` at
    the ends of segments of widths ``weight``: the previous point's risk, and the
    segment's own risk before the first point of positive width (the curve is
    constant down to coverage 0). Entries of zero-width segments are arbitrary."""
    positive = weight > 0
    filled = np.where(positive, risk, np.nan)
    index = np.where(positive, np.arange(risk.shape[-1]), 0)
    index = np.maximum.accumulate(index, axis=-1)
    previous = np.take_along_axis(filled, index, axis=-1)  # last point so far
    start = np.concatenate(
        [np.full((*risk.shape[:-1], 1), np.nan), previous[..., :-1]], axis=-1
    )
    seen = np.cumsum(positive, axis=-1) - positive > 0
    return np.where(seen, start, risk)


def trapezoid_aurc_from_stats(stats, coverage_range=(0.0, 1.0)):
    """FD-Shifts' AURC: trapezoid area under the selective risk at the distinct
    thresholds, with the most confident group's risk down to coverage 0, over
    ``coverage_range``. Batched; zero-weight groups add nothing."""
    weight, loss = _descending(stats)
    accepted = np.cumsum(weight, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        risk = np.cumsum(loss, axis=-1) / accepted
    risk = np.where(accepted > 0, risk, 0.0)
    return linear_segments_area(weight, step_start(risk, weight), risk, coverage_range)
