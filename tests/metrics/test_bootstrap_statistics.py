"""Several statistics bootstrapped together give each the interval that
bootstrap_metric gives it alone, from the same resamples."""

import numpy as np
import pytest

from sklearn_selective.metrics import bootstrap_metric
from sklearn_selective.metrics._bootstrap_statistics import bootstrap_statistics
from sklearn_selective.metrics._resampling._double_bootstrap import (
    calibration_shares,
)


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 2, n)
    y_pred = np.where(rng.random(n) < 0.8, y_true, 1 - y_true)
    return y_true, y_pred, rng.random(n)


def _accuracy(y_true, y_pred, confidence):
    return np.mean(y_true == y_pred)


def _high_share(y_true, y_pred, confidence):
    return np.mean(confidence >= 0.5)


def _values(correct, high):
    columns = np.column_stack([correct, high]).astype(float)

    def values(count_blocks):
        blocks = [
            c.astype(float) @ columns / c.sum(axis=1)[:, None] for c in count_blocks
        ]
        return np.concatenate(blocks)

    return values


@pytest.mark.parametrize("method", ["percentile", "BCa", "double"])
def test_each_statistic_gets_bootstrap_metric_s_interval(method):
    y_true, y_pred, confidence = _data()
    correct, high = y_true == y_pred, confidence >= 0.5
    results = bootstrap_statistics(
        ["accuracy", "high"],
        [correct.mean(), high.mean()],
        _values(correct, high),
        60,
        n_resamples=100 if method == "double" else 300,
        confidence_level=0.9,
        method=method,
        rng=np.random.default_rng(7),
    )
    assert [r.metric for r in results] == ["accuracy", "high"]
    for result, metric in zip(results, (_accuracy, _high_share), strict=True):
        alone = bootstrap_metric(
            metric, y_true, y_pred, confidence,
            n_resamples=result.bootstrap_distribution.shape[0],
            confidence_level=0.9, method=method, random_state=7,
        )  # fmt: skip
        if method == "double" and metric is _high_share:
            # its inner resamples follow the first statistic's alone, but
            # are shared here: the same law, not the same draws
            continue
        np.testing.assert_allclose(
            result.bootstrap_distribution, alone.bootstrap_distribution
        )
        assert result.confidence_interval == pytest.approx(alone.confidence_interval)
        assert result.method == alone.method


def test_shares_of_several_statistics_are_each_one_s():
    y_true, y_pred, confidence = _data(n=40, seed=1)
    values = _values(y_true == y_pred, confidence >= 0.5)
    outer = np.random.default_rng(0).multinomial(40, np.full(40, 1 / 40), size=5)
    statistics = np.array([0.8, 0.5])
    below, at_most = calibration_shares(
        values, statistics, outer, np.random.default_rng(3)
    )
    assert below.shape == (5, 2)
    for j in range(2):
        one = calibration_shares(
            lambda blocks, j=j: values(blocks)[:, j],
            statistics[j],
            outer,
            np.random.default_rng(3),
        )
        np.testing.assert_array_equal(below[:, j], one[0])
        np.testing.assert_array_equal(at_most[:, j], one[1])
