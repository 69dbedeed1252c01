"""The failure floor: the Jeffreys predictive (Beta-binomial) interval."""

import numpy as np
import pytest
from scipy.stats import betabinom

from sklearn_selective._shift._failure_floor import failure_floor_interval


def test_failure_floor_interval_is_the_beta_binomial_hull():
    predictive = betabinom(200, 0.5, 400.5)
    low, high = failure_floor_interval(1.0, 1.0, 200, 0, 400, 0.95)
    assert high == 1.0
    assert low == pytest.approx(1 - predictive.ppf(0.975) / 200)
    # an interval already wider is kept
    assert failure_floor_interval(0.5, 1.0, 200, 0, 400, 0.95) == (0.5, 1.0)
    # NaN interval: the floor alone
    low, high = failure_floor_interval(np.nan, np.nan, 50, 4, 400, 0.9)
    assert 0.8 < low < high <= 1.0
    # nothing to say without samples
    assert failure_floor_interval(0.9, 0.95, 0, 0, 400, 0.95) == (0.9, 0.95)
