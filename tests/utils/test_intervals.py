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
    assert_allclose(_interval(values, 0.3, 0.9, "percentile"), (low, high))
    assert_allclose(_interval(values, 0.3, 0.9, "basic"), (0.6 - high, 0.6 - low))
    assert np.isnan(_interval(values[:0], 0.0, 0.9, "percentile")).all()


def test_percentile_interval_reads_ranks_b_plus_one_times_the_tail():
    # 199 values 1..199: ranks (199 + 1) * 0.025 = 5 and 195 exactly (numpy's
    # linear rule would read 5.95 and 194.05).
    values = np.random.default_rng(0).permutation(np.arange(1.0, 200.0))
    assert_allclose(percentile_interval(values, 0.95), (5.0, 195.0))
    assert_allclose(percentile_interval(np.r_[values, np.nan], 0.95), (5.0, 195.0))
    # Its content of the uniform distribution the values are drawn from is the
    # level on average for small B too (the linear rule's: 1 - 2 * 5.95 / 200).
    draws = np.random.default_rng(1).random((5000, 199))
    content = [np.subtract(*percentile_interval(d, 0.95)[::-1]) for d in draws]
    assert abs(np.mean(content) - 0.95) < 0.001


def test_degenerate_bca_warns_and_is_nan():
    values = np.zeros(20)
    with pytest.warns(DegenerateDataWarning, match="BCa"):
        interval = _interval(values, 0.0, 0.9, "bca", jackknife=np.zeros(5))
    assert np.isnan(interval).all()


def test_undefined_values_warn_at_the_callers_line():
    with pytest.warns(UndefinedMetricWarning, match="3 of 10 resamples") as record:
        _warn_undefined(3, 10, "resamples")
    assert record[0].filename == __file__
