"""The plug-in weights alpha of the AURC estimators ([AURC] Eq. 11, 13, 18), averaged
over the positions of a tie group, and the special functions behind them, extended to
real arguments and free of catastrophic cancellation."""

import numpy as np
from scipy.special import digamma, gammaln

# Below this argument the asymptotic expansions are not accurate to double precision;
# there the closed forms are evaluated directly (no harmful cancellation at that size).
_ASYMPTOTIC_MIN = 30.0


# --------------------------------------------------------------------------------------
# Special functions, extended to real arguments and free of catastrophic cancellation.
# --------------------------------------------------------------------------------------
def _harmonic_difference(x, y):
    """``H_x - H_y`` for real ``x >= y >= 0`` with ``H_z = digamma(z + 1) + gamma``.

    Computed from the asymptotic series of the digamma difference when both
    arguments are large, so that small differences of large harmonic numbers
    keep full relative precision (the direct difference loses ~log10(n) digits
    at sample size n). :func:`_tabulated_difference` serves small integers.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    small = y + 1.0 < _ASYMPTOTIC_MIN
    result = _harmonic_difference_asymptotic(x, y)
    if small.any():
        result[small] = digamma(x[small] + 1.0) - digamma(y[small] + 1.0)
    return result


# Harmonic numbers in exact fixed point: 1/k = q1 2**-58 + q2 2**-88 + (< 2**-88),
# both digits from integer division, so their prefix sums are exact in int64 and
# H_x - H_y = (P[x] - P[y]) 2**-58 + (Q[x] - Q[y]) 2**-88 has a relative error of
# a few units in the last place (plus x 2**-88 / (H_x - H_y) <= x**2 2**-88 from
# the truncation) for any x >= y: no cancellation, whatever the gap.
_TABLE_SIZE = 1 << 16
_TABLE = []


def _harmonic_table():
    if not _TABLE:
        k = np.arange(1, _TABLE_SIZE + 1, dtype=np.int64)
        q1, remainder = np.divmod(np.int64(1 << 58), k)
        q2 = (remainder << 30) // k
        _TABLE.append(np.concatenate([[0], np.cumsum(q1)]))
        _TABLE.append(np.concatenate([[0], np.cumsum(q2)]))
    return _TABLE


def _tabulated_difference(x, y):
    """``H_x - H_y`` for integer arrays ``x >= y`` (at most ``_TABLE_SIZE``)."""
    prefix1, prefix2 = _harmonic_table()
    high = (np.take(prefix1, x) - np.take(prefix1, y)).astype(np.float64)
    low = (np.take(prefix2, x) - np.take(prefix2, y)).astype(np.float64)
    return (high + low * 2.0**-30) * 2.0**-58


def _tabulated_tail_dot(values):
    """``sum_k (H_n - H_{n - 1 - k}) values[k]`` over ``k < n = len(values)``
    (at most ``_TABLE_SIZE``): the harmonic AURC weights of unit-weight samples
    without ties in ascending order, dotted with ``values``.

    The weights are the exact fixed-point differences of
    :func:`_tabulated_difference`, read from reversed slices of the table instead
    of gathered position by position.
    """
    n = values.shape[0]
    prefix1, prefix2 = _harmonic_table()
    high = (prefix1[n] - prefix1[:n][::-1]).astype(np.float64)
    low = (prefix2[n] - prefix2[:n][::-1]).astype(np.float64)
    return (np.dot(high, values) + np.dot(low, values) * 2.0**-30) * 2.0**-58


def _scalar_tabulated_difference(x, y):
    """:func:`_tabulated_difference` of two Python integers."""
    prefix1, prefix2 = _harmonic_table()
    high = float(int(prefix1[x]) - int(prefix1[y]))
    low = float(int(prefix2[x]) - int(prefix2[y]))
    return (high + low * 2.0**-30) * 2.0**-58


def _harmonic_difference_asymptotic(x, y):
    # psi(z) ~ ln z - 1/(2z) - 1/(12z^2) + 1/(120z^4) - 1/(252z^6) + 1/(240z^8);
    # with u = x + 1, v = y + 1, h = x - y, p = 1/u^2, q = 1/v^2 the difference is
    # log1p(h/v) + h/(2uv) - h (u + v)/(uv)^2 * [-1/12 + (p + q)/120 - ...].
    u, v = x + 1.0, y + 1.0
    h = x - y
    # From the reciprocals: u v and u + v overflow for huge frequency weights.
    inv_u, inv_v = 1.0 / u, 1.0 / v
    inv_uv = inv_u * inv_v
    p, q = inv_u * inv_u, inv_v * inv_v
    pp_qq = p * p + q * q
    series = (p + q) * (1.0 / 120.0 + pp_qq / 240.0) - (pp_qq + p * q) / 252.0
    series -= 1.0 / 12.0
    with np.errstate(divide="ignore", invalid="ignore"):  # small args: replaced
        return np.log1p(h / v) + h * inv_uv * (0.5 - (inv_u + inv_v) * series)


def _mean_log_excess(x, y):
    """``(lnGamma(x + 1) - lnGamma(y + 1)) / (x - y) - ln(y + 1)`` for ``x > y >= 0``.

    For integers this is the mean of ``ln m`` over ``m = y + 1 .. x`` minus
    ``ln(y + 1)``, computed without cancelling the large common ``ln(y + 1)``.
    """
    x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    u, v = x + 1.0, y + 1.0
    h = x - y
    result = np.empty(x.shape)
    # x == y in float (a group narrower than the resolution of weights near
    # 1e300): the limit h -> 0, psi(y + 1) - ln(y + 1).
    level = h == 0
    result[level] = digamma(v[level]) - np.log(v[level])
    x, y, u, v, h = x[~level], y[~level], u[~level], v[~level], h[~level]
    rest = result[~level]
    small = v < _ASYMPTOTIC_MIN
    rest[small] = (gammaln(u[small]) - gammaln(v[small])) / h[small] - np.log(v[small])
    u, v, h = u[~small], v[~small], h[~small]
    # Stirling: lnGamma(z) ~ (z - 1/2) ln z - z + ln(2 pi)/2 + 1/(12z) - 1/(360z^3)
    #                        + 1/(1260z^5) - 1/(1680z^7)
    a, b = 1.0 / u, 1.0 / v
    ab = a * b
    s2 = a * a + ab + b * b
    s4 = a**4 + a**3 * b + a * a * b * b + a * b**3 + b**4
    s6 = (a**6 + b**6) + ab * (a**4 + b**4) + ab * ab * (a * a + b * b) + ab**3
    rest[~small] = (
        (u - 0.5) * np.log1p(h / v) / h
        - 1.0
        - ab / 12.0
        + ab * s2 / 360.0
        - ab * s4 / 1260.0
        + ab * s6 / 1680.0
    )
    result[~level] = rest
    return result


# --------------------------------------------------------------------------------------
# Plug-in weights alpha of the AURC estimators, averaged over a tie group's positions.
# --------------------------------------------------------------------------------------
def _integer_bounds(below, upto, n):
    """``below, upto, n`` as integer arrays when all are integers within the
    harmonic table (unit or integer weights), else None."""
    if not upto.size or float(np.max(n)) > _TABLE_SIZE:
        return None
    integers = below.astype(np.intp), upto.astype(np.intp), n.astype(np.intp)
    for exact, value in zip(integers, (below, upto, n), strict=True):
        if not (exact == value).all():
            return None
    return integers


def _harmonic_alpha(below, upto, n):
    """Mean of ``H_n - H_{n - r}`` over the positions ``r`` in ``(below, upto]``.

    Arrays of equal shape, ``upto > below`` (groups of zero weight carry no loss
    and are never asked for). With ``x = n - below`` and ``y = n - upto``, the
    identity ``sum_{m=0}^{M-1} H_m = M (H_M - 1)`` gives
    ``alpha = (H_n - H_y) - x (H_x - H_y) / (x - y) + 1``; the last two terms
    cancel exactly for a group of width one (a single unit-weight sample).
    """
    integers = _integer_bounds(below, upto, n)
    if integers is not None:  # exact table: unit or integer weights
        below, upto, n = integers
        difference = _tabulated_difference
    else:
        difference = _harmonic_difference
    y = n - upto
    alpha = difference(n, y)
    width = upto - below
    wide = width != 1
    if wide.any():
        x, y, width = n[wide] - below[wide], y[wide], width[wide]
        alpha[wide] += 1.0 - x * difference(x, y) / width
    return alpha


def _log_alpha(below, upto, n):
    """Mean of ``-ln(1 - r / (n + 1))`` over the positions ``r`` in ``(below, upto]``.

    ``ln(n + 1) - mean_{m=y+1..x} ln m = -ln(1 - upto / (n + 1)) - excess(x, y)``,
    where the excess vanishes for a group of width one.
    """
    share = upto / (n + 1.0)
    # -ln(1 - share), with 1 - share computed exactly where it cancels.
    alpha = np.where(
        share < 0.5,
        -np.log1p(-share),
        -np.log(np.maximum(n + 1.0 - upto, 0.0) / (n + 1.0)),
    )
    wide = (upto - below) != 1
    if wide.any():
        alpha[wide] -= _mean_log_excess(n[wide] - below[wide], n[wide] - upto[wide])
    return alpha


def _unit_log_alpha(n):
    """:func:`_log_alpha` of the positions ``r = 1 .. n`` of unit-weight samples
    without ties, in ascending order: the same operations, without the search
    for wide groups and with each position's branch taken once."""
    share = np.arange(1.0, n + 1.0)
    share /= n + 1.0
    # -ln(1 - share): log1p below one half, the log of the exact 1 - share above.
    half = int(np.searchsorted(share, 0.5))
    alpha = np.empty(n)
    np.negative(np.log1p(-share[:half]), out=alpha[:half])
    above = np.arange(n + 1.0 - half - 1.0, 0.0, -1.0)  # n + 1 - r, exact
    above /= n + 1.0
    np.negative(np.log(above), out=alpha[half:])
    return alpha


ALPHA_ESTIMATORS = {"harmonic": _harmonic_alpha, "log": _log_alpha}
