"""Several metrics bootstrapped on one draw of the resamples (the command
line's ``_SharedResamples``): each result is ``bootstrap_metric``'s."""

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from sklearn_selective.metrics import bootstrap_metric
from sklearn_selective.metrics._shared_resamples import (
    _shared_groups,
    _SharedResamples,
)


def _data(n, seed):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, n)
    correct = rng.random(n) < 0.75
    y_pred = np.where(correct, y_true, (y_true + 1) % 3)
    confidence = np.round(rng.random(n) + 0.4 * correct, 1)
    proba = rng.random((n, 3))
    proba /= proba.sum(axis=1, keepdims=True)
    return y_true, y_pred, confidence, proba


def _risk_problem(n, accuracy=0.8, seed=0):
    rng = np.random.default_rng(seed)
    correct = rng.random(n) < accuracy
    return rng.normal(size=n) + correct, (~correct).astype(float)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_shared_resamples_equal_separate_bootstraps(method):
    # The command line evaluates all its metrics on one draw of the resamples:
    # each result must be bootstrap_metric's for the same seed.
    y_true, y_pred, confidence, proba = _data(n=60, seed=3)
    calls = [
        ("aurc", y_pred, {}),
        ("e_aurc", y_pred, {}),
        ("uq_c_index", proba, {}),
        ("selective_risk_at_coverage", y_pred, {"coverage": 0.7}),
        (lambda t, p, c: float(np.mean(t == p)), y_pred, {}),
    ]
    shared = _SharedResamples(n_resamples=30, random_state=5)
    progress = []
    for metric, second, kwargs in calls:
        shared.add(metric, y_true, second, confidence, **kwargs)
    shared.run(progress=lambda done, total: progress.append((done, total)))
    assert progress[-1] == (30, 30)
    # aurc, e_aurc and the working point share one evaluation of their data.
    groups = _shared_groups([values for _, _, values, _ in shared._metrics])
    assert sorted(indices for indices, _ in groups) == [[0, 1, 3], [2], [4]]
    for index, (metric, second, kwargs) in enumerate(calls):
        expected = bootstrap_metric(
            metric,
            y_true,
            second,
            confidence,
            n_resamples=30,
            random_state=5,
            method=method,
            **kwargs,
        )
        result = shared.result(index, method=method)
        assert_array_equal(
            result.bootstrap_distribution, expected.bootstrap_distribution
        )
        assert result.confidence_interval == expected.confidence_interval
        assert result.statistic == expected.statistic


def test_shared_resamples_give_bootstrap_metrics_double_bootstrap():
    confidence, losses = _risk_problem(80)
    shared = _SharedResamples(100, 5)
    first = shared.add("aurc", None, None, confidence, loss=losses)
    second = shared.add("augrc", None, None, confidence, loss=losses)
    shared.run()
    for index, name in ((first, "aurc"), (second, "augrc")):
        alone = bootstrap_metric(
            name, None, None, confidence, loss=losses, n_resamples=100, random_state=5
        )
        got = shared.result(index)
        assert got.method == alone.method == "double"
        assert tuple(got.confidence_interval) == tuple(alone.confidence_interval)
