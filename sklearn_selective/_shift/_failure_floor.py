"""The failure floor: no zero-width interval from a reference without failures.

No failure on the reference (every accepted reference sample right) makes
every isotonic fit equal to one and every bootstrap interval of a realised
accuracy zero wide, while the chunk's own failures are still to come.
:func:`failure_floor_interval` widens an interval to the predictive interval
of the chunk's failures under a Jeffreys prior on the failure rate (Beta-
binomial), so that an interval never claims more than the reference's
failure count supports. The monitor applies it below ``FEW_FAILURES``
failures (:mod:`._chunk_estimates`), the importance-weighted estimate always
(:mod:`._importance_weights`).
"""

import numpy as np
from scipy.stats import betabinom

# Below this many failures on the reference, the monitor's realised-value
# intervals are floored by failure_floor_interval: a normal approximation of a
# count of failures is poor below about ten (the usual n p >= 10 rule).
FEW_FAILURES = 10


def failure_floor_interval(
    low, high, n_samples, n_failures, n_reference, confidence_level
):
    """Widen an interval of a realised accuracy to the Jeffreys predictive one.

    The reference saw ``n_failures`` failures in ``n_reference`` samples
    (effective counts under weights). With a Jeffreys prior, the failure rate
    is ``Beta(n_failures + 1/2, n_reference - n_failures + 1/2)`` a
    posteriori, and the number of failures among ``n_samples`` new samples is
    Beta-binomial. Its central ``confidence_level`` interval, as an accuracy,
    is a floor on the width: the returned interval is the hull of both. With
    no failure on the reference it is ``[1 - f / n_samples, 1]``, ``f`` the
    upper quantile of the predictive failures, never zero wide for a
    reference of finite size.

    Parameters
    ----------
    low, high : float
        The interval to widen (NaN: the floor alone).
    n_samples : int
        Samples of the chunk whose accuracy the interval is for.
    n_failures, n_reference : float
        Failures and samples of the reference (may be effective, non-integer).
    confidence_level : float in (0, 1)
        Level of the interval.

    Returns
    -------
    low, high : float
        The widened interval.

    Examples
    --------
    >>> from sklearn_selective._shift._failure_floor import (
    ...     failure_floor_interval)
    >>> low, high = failure_floor_interval(1.0, 1.0, 200, 0, 400, 0.95)
    >>> float(high), bool(0.97 < low < 1.0)
    (1.0, True)
    """
    if n_samples <= 0 or not n_reference > 0:
        return low, high
    n_failures = min(max(float(n_failures), 0.0), float(n_reference))
    predictive = betabinom(
        int(n_samples), n_failures + 0.5, n_reference - n_failures + 0.5
    )
    alpha = 1.0 - confidence_level
    failures = predictive.ppf([alpha / 2.0, 1.0 - alpha / 2.0])
    floor_low, floor_high = 1.0 - failures[1] / n_samples, 1.0 - failures[0] / n_samples
    return (
        float(np.fmin(low, floor_low)),
        float(np.fmax(high, floor_high)),
    )
