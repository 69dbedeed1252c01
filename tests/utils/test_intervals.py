"""Intervals read off a bootstrap distribution (_utils/_intervals)."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.stats import DegenerateDataWarning
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_selective._utils._intervals import (
    _interval,
    _warn_undefined,
    percentile_interval,
)


def test_percentile_and_basic_intervals():
    values = np.random.default_rng(0).normal(size=1001)
    low, high = np.quantile(values, [0.05, 0.95])
    assert_allclose(percentile_interval(values, 0.9), (low, high))
    assert_allclose(_interval(values, 0.3, 0.9, "basic"), (0.6 - high, 0.6 - low))
    assert np.isnan(_interval(values[:0], 0.0, 0.9, "percentile")).all()


def test_degenerate_bca_warns_and_is_nan():
    values = np.zeros(20)
    with pytest.warns(DegenerateDataWarning, match="BCa"):
        interval = _interval(values, 0.0, 0.9, "bca", jackknife=np.zeros(5))
    assert np.isnan(interval).all()


def test_undefined_values_warn_at_the_callers_line():
    with pytest.warns(UndefinedMetricWarning, match="3 of 10 resamples") as record:
        _warn_undefined(3, 10, "resamples")
    assert record[0].filename == __file__
