"""The metric on bootstrap resamples: the fast (count) path and the generic
(index) path."""

import warnings
from functools import partial

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_selective._utils import _draws
from sklearn_selective.metrics import (
    augrc,
    aurc,
    bootstrap_metric,
    coverage_at_risk,
    e_aurc,
    naurc,
    sele,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)
from sklearn_selective.metrics._resampling import (
    _risk_resampler,
)

METRICS = {
    "aurc": aurc,
    "aurc_log": partial(aurc, aurc_estimator="log"),
    "sele": sele,
    "e_aurc": e_aurc,
    "naurc": naurc,
    "augrc": augrc,
    "uq_auc": uq_auc,
    "uq_c_index": uq_c_index,
    "selective_risk_at_coverage": partial(selective_risk_at_coverage, coverage=0.6),
    "coverage_at_risk": partial(coverage_at_risk, risk=0.15),
}


def _split(name):
    """Public metric, its string name and its keyword arguments."""
    metric = METRICS[name]
    if isinstance(metric, partial):
        return metric.func, metric.func.__name__, metric.keywords
    return metric, name, {}


def _data(n=60, seed=0, n_classes=3, ties=True):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, n_classes, n)
    correct = rng.random(n) < 0.75
    y_pred = np.where(correct, y_true, (y_true + 1) % n_classes)
    confidence = rng.random(n) + 0.4 * correct
    if ties:
        confidence = np.round(confidence, 1)
    proba = rng.random((n, n_classes))
    proba /= proba.sum(axis=1, keepdims=True)
    return y_true, y_pred, confidence, proba


def _second_argument(name, y_pred, proba):
    return proba if name == "uq_c_index" else y_pred


def _drawn_counts(seed, n, n_resamples):
    """The count vectors that ``random_state=seed`` stands for."""
    rng = np.random.default_rng(seed)
    return np.concatenate(list(_draws._bootstrap_counts(rng, n, n_resamples)))


@pytest.fixture(params=["one chunk", "chunks of 4"])
def eval_chunk(request, monkeypatch):
    """The fast path evaluates the sorted samples in chunks framed by the weight
    below and above them: with chunks of 4 samples, every framing is exercised."""
    if request.param == "chunks of 4":
        monkeypatch.setattr(_risk_resampler, "_EVAL_CHUNK", 4)
        monkeypatch.setattr(_risk_resampler, "_EVAL_ELEMENTS", 9)
    return request.param


def _generic(metric):
    """A different function object: ``bootstrap_metric`` takes the generic path."""

    def wrapped(*args, **kwargs):
        return metric(*args, **kwargs)

    return wrapped


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return func(*args, **kwargs)


WEIGHTS = {
    "none": lambda n, rng: None,
    "integer": lambda n, rng: rng.integers(0, 4, n).astype(float),
    "real": lambda n, rng: rng.random(n) * 2.0,
}


# --------------------------------------------------------------------------------------
# The fast (count) path against the generic (index) path and the public metrics.
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
@pytest.mark.parametrize("weights", sorted(WEIGHTS))
@pytest.mark.parametrize("name", sorted(METRICS))
def test_fast_path_equals_generic_path(name, weights, method, eval_chunk):
    metric, metric_name, kwargs = _split(name)
    y_true, y_pred, confidence, proba = _data()
    second = _second_argument(name, y_pred, proba)
    sample_weight = WEIGHTS[weights](len(confidence), np.random.default_rng(1))
    common = dict(
        n_resamples=40,
        method=method,
        random_state=3,
        sample_weight=sample_weight,
        **kwargs,
    )
    fast = _quiet(bootstrap_metric, metric_name, y_true, second, confidence, **common)
    generic = _quiet(
        bootstrap_metric, _generic(metric), y_true, second, confidence, **common
    )
    assert fast.statistic == generic.statistic
    assert isinstance(fast.statistic, float)
    assert_allclose(
        fast.bootstrap_distribution,
        generic.bootstrap_distribution,
        rtol=0,
        atol=1e-12,
        equal_nan=True,
    )
    assert_allclose(fast.confidence_interval, generic.confidence_interval, atol=1e-12)
    assert_allclose(fast.standard_error, generic.standard_error, atol=1e-12)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_function_and_name_give_the_same_result(name):
    metric, metric_name, kwargs = _split(name)
    y_true, y_pred, confidence, proba = _data(seed=4)
    second = _second_argument(name, y_pred, proba)
    by_name = bootstrap_metric(
        metric_name,
        y_true,
        second,
        confidence,
        n_resamples=30,
        random_state=0,
        **kwargs,
    )
    by_function = bootstrap_metric(
        metric, y_true, second, confidence, n_resamples=30, random_state=0, **kwargs
    )
    assert_array_equal(
        by_name.bootstrap_distribution, by_function.bootstrap_distribution
    )


@pytest.mark.parametrize("weights", ["none", "real"])
@pytest.mark.parametrize("name", sorted(METRICS))
def test_distribution_is_the_metric_weighted_by_bootstrap_counts(name, weights):
    """Resample b is the b-th count vector drawn from the generator, and its value
    is the public metric with ``sample_weight = counts * sample_weight``."""
    metric, metric_name, kwargs = _split(name)
    y_true, y_pred, confidence, proba = _data(n=45, seed=2)
    second = _second_argument(name, y_pred, proba)
    n, n_resamples = len(confidence), 25
    sample_weight = WEIGHTS[weights](n, np.random.default_rng(5))
    result = _quiet(
        bootstrap_metric,
        metric_name,
        y_true,
        second,
        confidence,
        n_resamples=n_resamples,
        random_state=np.random.default_rng(11),
        sample_weight=sample_weight,
        **kwargs,
    )
    expected = []
    for counts in _drawn_counts(11, n, n_resamples).astype(float):
        weight = counts if sample_weight is None else counts * sample_weight
        expected.append(
            _quiet(metric, y_true, second, confidence, sample_weight=weight, **kwargs)
        )
    assert_allclose(result.bootstrap_distribution, expected, rtol=1e-12, atol=1e-14)


def test_a_loss_array_is_resampled_with_the_samples():
    _, _, confidence, _ = _data(seed=6)
    losses = np.random.default_rng(0).random(len(confidence)) ** 3
    common = {"loss": losses, "n_resamples": 30, "random_state": 1}
    fast = bootstrap_metric("aurc", None, None, confidence, **common)
    generic = bootstrap_metric(_generic(aurc), None, None, confidence, **common)
    assert_allclose(
        fast.bootstrap_distribution, generic.bootstrap_distribution, atol=1e-12
    )


def test_callable_loss_is_evaluated_per_sample():
    y_true, _, confidence, proba = _data(seed=8)

    def squared_error(y_true, y_proba):
        return (1.0 - y_proba[np.arange(len(y_true)), y_true]) ** 2

    common = {"loss": squared_error, "n_resamples": 30, "random_state": 2}
    fast = bootstrap_metric("augrc", y_true, proba, confidence, **common)
    generic = bootstrap_metric(_generic(augrc), y_true, proba, confidence, **common)
    assert_allclose(
        fast.bootstrap_distribution, generic.bootstrap_distribution, atol=1e-12
    )


@st.composite
def _resampling_problems(draw):
    n = draw(st.integers(2, 25))
    elements = st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(-5, 5, width=16))
    confidence = np.array(draw(st.lists(elements, min_size=n, max_size=n)))
    name = draw(
        st.sampled_from(
            [
                "aurc",
                "aurc_log",
                "sele",
                "e_aurc",
                "naurc",
                "augrc",
                "uq_auc",
                "selective_risk_at_coverage",
                "coverage_at_risk",
            ]
        )
    )
    if name == "uq_auc" or draw(st.booleans()):
        loss_values = st.sampled_from([0.0, 1.0])
    else:
        loss_values = st.floats(0, 3, width=16)
    losses = np.array(draw(st.lists(loss_values, min_size=n, max_size=n)))
    weight_kind = draw(st.sampled_from(["none", "integer", "real"]))
    if weight_kind == "none":
        sample_weight = None
    else:
        # Real weights stay above 1e-3: a weight below the float resolution of the
        # cumulative weight makes _core's AURC weights 0/0 (on both paths alike).
        values = (
            st.integers(0, 3)
            if weight_kind == "integer"
            else st.one_of(st.just(0.0), st.floats(1e-3, 3))
        )
        sample_weight = np.array(
            draw(st.lists(values, min_size=n, max_size=n)), dtype=float
        )
        assume(sample_weight.any())
    seed = draw(st.integers(0, 2**32 - 1))
    return name, confidence, losses, sample_weight, seed


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(problem=_resampling_problems())
@example(  # only failures have weight: total - failures was a rounding residue
    problem=(
        "uq_auc",
        np.array([0.0, 0.5, 0.0, 0.0, 0.0, 0.0]),
        np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0]),
        np.array([1.7786603902036153, 1.0, 0.6411530948415044, 0.0, 0.0, 0.0]),
        1,
    )
)
def test_fast_path_equals_generic_path_property(problem, eval_chunk):
    """Ties, zero weights, resamples of zero weight (nan) and any loss."""
    name, confidence, losses, sample_weight, seed = problem
    metric, metric_name, kwargs = _split(name)
    common = dict(
        loss=losses,
        n_resamples=15,
        method="percentile",  # the distributions are compared, not the intervals
        random_state=seed,
        sample_weight=sample_weight,
        **kwargs,
    )
    fast = _quiet(bootstrap_metric, metric_name, None, None, confidence, **common)
    generic = _quiet(
        bootstrap_metric, _generic(metric), None, None, confidence, **common
    )
    assert_allclose(
        fast.bootstrap_distribution,
        generic.bootstrap_distribution,
        rtol=1e-12,
        atol=1e-12,
        equal_nan=True,
    )


@settings(max_examples=60)
@given(
    n=st.integers(2, 25),
    levels=st.integers(1, 4),
    weighted=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_c_index_fast_path_equals_generic_path_with_joint_ties(
    n, levels, weighted, seed
):
    """Gaps and confidences from a few values: ties in each and in both."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 2, n)
    first = rng.integers(0, levels + 1, n) / levels
    proba = np.column_stack([first, 1.0 - first])
    confidence = rng.integers(0, levels + 1, n).astype(float)
    sample_weight = rng.integers(0, 3, n).astype(float) if weighted else None
    assume(sample_weight is None or sample_weight.any())
    common = {
        "n_resamples": 12,
        "method": "percentile",  # the distributions are compared
        "random_state": seed,
        "sample_weight": sample_weight,
        "labels": [0, 1],
    }
    fast = _quiet(bootstrap_metric, uq_c_index, y_true, proba, confidence, **common)
    generic = _quiet(
        bootstrap_metric, _generic(uq_c_index), y_true, proba, confidence, **common
    )
    assert_allclose(
        fast.bootstrap_distribution,
        generic.bootstrap_distribution,
        rtol=1e-12,
        atol=1e-15,
        equal_nan=True,
    )


def test_resamples_without_weight_are_undefined():
    """Only zero-weight samples drawn: nan on both paths, with one warning."""
    confidence = np.array([0.1, 0.9])
    common = {
        "loss": [0.0, 1.0],
        "sample_weight": [0.0, 1.0],
        "n_resamples": 50,
        "random_state": 0,
    }
    with pytest.warns(UndefinedMetricWarning, match=r"undefined \(nan\) on \d+ of 50"):
        fast = bootstrap_metric("augrc", None, None, confidence, **common)
    with pytest.warns(UndefinedMetricWarning):
        generic = bootstrap_metric(_generic(augrc), None, None, confidence, **common)
    empty = _drawn_counts(0, 2, 50)[:, 1] == 0
    assert empty.any()
    assert_array_equal(np.isnan(fast.bootstrap_distribution), empty)
    assert_array_equal(np.isnan(generic.bootstrap_distribution), empty)
