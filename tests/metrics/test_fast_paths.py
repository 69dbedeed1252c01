"""Internals of the fast paths of small calls: the quick parameter check and the
unit weights. (The metrics' values on those paths are checked against the
general path in metrics/test_properties.py.)"""

import math
from numbers import Integral, Real

import numpy as np
import pytest
from sklearn.utils._param_validation import Interval

from sklearn_selective._utils._param_validation import _quick_interval
from sklearn_selective.metrics._core._group_stats import unit_weights


@pytest.mark.parametrize(
    "interval",
    [
        Interval(Real, 0, 1, closed="right"),
        Interval(Real, 0, 1, closed="neither"),
        Interval(Real, 0, 1, closed="both"),
        Interval(Real, 0, None, closed="left"),
        Interval(Integral, 1, None, closed="left"),
    ],
    ids=str,
)
def test_quick_interval_check_accepts_only_what_sklearn_accepts(interval):
    """The metrics' fast parameter check may pass a value to scikit-learn's check
    (which then decides), but must never accept a value that check rejects."""
    quick = _quick_interval(interval)
    values = [0, 1, 2, -1, 10**400, 0.0, -0.0, 0.5, 1.0, 1.0 + 2**-52, 1e-300]
    values += [math.inf, -math.inf, math.nan, True, False, np.float64(0.5)]
    values += [np.int64(1), "0.5", None, [0.5], 1j]
    for value in values:
        if quick(value):
            assert interval.is_satisfied_by(value), value
    inside = 1 if interval.type is Integral else 0.5
    assert quick(inside)  # the quick path is taken for plain Python numbers


def test_unit_weights_are_read_only():
    weights = unit_weights(5)
    assert weights.strides == (0,) and weights.tolist() == [1.0] * 5
    with pytest.raises(ValueError, match="read-only"):
        weights[0] = 2.0
