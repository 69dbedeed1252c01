"""The one registry of metrics: what reads it, and ``method="auto"`` decided by
what the metric is, never by how it is called."""

import functools
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_selective.metrics import (
    bootstrap_metric,
    get_scorer,
    metric_by_group,
    uq_auc,
)
from sklearn_selective.metrics._metric_registry import METRICS, find_entry

# Keyword arguments a metric needs (the working points' level).
KWARGS = {
    "selective_risk_at_coverage": {"coverage": 0.6},
    "coverage_at_risk": {"risk": 0.15},
}


def _data(n=60, seed=0, n_classes=3):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, n_classes, n)
    correct = rng.random(n) < 0.75
    y_pred = np.where(correct, y_true, (y_true + 1) % n_classes)
    confidence = np.round(rng.random(n) + 0.4 * correct, 1)
    proba = rng.random((n, n_classes))
    proba /= proba.sum(axis=1, keepdims=True)
    return y_true, y_pred, confidence, proba


def _wrapped(metric):
    """Another function object around ``metric``: the generic (index) path."""

    @functools.wraps(metric)
    def wrapped(*args, **kwargs):
        return metric(*args, **kwargs)

    return wrapped


def _run(metric, name, method):
    y_true, y_pred, confidence, proba = _data()
    second = proba if name == "uq_c_index" else y_pred
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return bootstrap_metric(
            metric,
            y_true,
            second,
            confidence,
            n_resamples=12,
            method=method,
            random_state=3,
            **KWARGS.get(name, {}),
        )


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa", "double", "auto"])
@pytest.mark.parametrize("name", sorted(METRICS))
def test_fast_path_and_generic_callable_give_the_same_interval(name, method):
    fast = _run(name, name, method)
    generic = _run(_wrapped(METRICS[name].function), name, method)
    assert fast.method == generic.method
    assert_allclose(
        fast.bootstrap_distribution,
        generic.bootstrap_distribution,
        rtol=0,
        atol=1e-12,
        equal_nan=True,
    )
    assert_allclose(fast.confidence_interval, generic.confidence_interval, atol=1e-12)


def test_auto_follows_the_metric_not_its_spelling():
    """The failure AUROC's rule (BCa up to 500 samples) holds for the name, the
    function and its wrappers; a user's function of the same name is another
    metric, with the default rule."""

    def uq_auc_of_my_own(*args, **kwargs):
        return uq_auc(*args, **kwargs)

    uq_auc_of_my_own.__name__ = "uq_auc"
    forms = {
        "name": "uq_auc",
        "function": uq_auc,
        "partial": functools.partial(uq_auc, loss="zero_one"),
        "wraps": _wrapped(uq_auc),
    }
    methods = {
        form: _run(metric, "uq_auc", "auto").method for form, metric in forms.items()
    }
    assert set(methods.values()) == {"bca"}, methods
    assert _run(uq_auc_of_my_own, "uq_auc", "auto").method == "double"
    assert find_entry(uq_auc_of_my_own) is None


def test_every_reader_takes_the_direction_from_the_registry():
    y_true, y_pred, confidence, _ = _data()
    for name, entry in METRICS.items():
        if entry.scorer is not None:
            assert (get_scorer(entry.scorer)._sign > 0) == entry.greater_is_better
        second = None if name == "uq_c_index" else y_pred
        if second is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            result = metric_by_group(
                name, y_true, second, confidence, groups="class", **KWARGS.get(name, {})
            )
        assert result.greater_is_better == entry.greater_is_better


def test_metric_by_group_uses_the_default_interval_of_bootstrap_metric():
    """Issue 35: each group's interval is bootstrap_metric's default (here BCa
    for uq_auc at 50 samples), also when an option binds the metric into a
    partial (aurc_estimator="trapezoid" takes the generic path)."""
    rng = np.random.default_rng(1)
    confidence = rng.normal(size=100)
    losses = (rng.random(100) < 0.3).astype(float)
    groups = np.repeat([0, 1], 50)
    for name, kwargs in (("uq_auc", {}), ("aurc", {"aurc_estimator": "trapezoid"})):
        by_group = metric_by_group(
            name,
            None,
            None,
            confidence,
            loss=losses,
            groups=groups,
            n_resamples=10,
            random_state=np.random.default_rng(5),
            **kwargs,
        )
        alone = bootstrap_metric(
            name,
            None,
            None,
            confidence[:50],
            loss=losses[:50],
            n_resamples=10,
            random_state=np.random.default_rng(5),
            **kwargs,
        )
        assert_allclose(by_group.confidence_interval[0], alone.confidence_interval)
