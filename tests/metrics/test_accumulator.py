"""RiskCoverageAccumulator: batches and merges give the in-memory metrics, and the
bounds of a budget always contain the exact value."""

import itertools
import json
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_selective import metrics
from sklearn_selective.metrics._accumulator import RiskCoverageAccumulator

# (metric, keyword arguments, needs 0/1 losses, bounded). The working points use
# targets that no sum of the drawn weights and losses hits exactly.
CASES = [
    ("aurc", {}, False, True),
    ("aurc", {"aurc_estimator": "log"}, False, True),
    ("aurc", {"aurc_estimator": "trapezoid"}, False, False),
    ("aurc", {"coverage_range": (0.2, 0.7)}, False, False),
    ("augrc", {}, False, True),
    ("augrc", {"coverage_range": (0.1, 0.55)}, False, True),
    ("sele", {}, False, True),
    ("e_aurc", {}, False, True),
    ("e_aurc", {"aurc_estimator": "log"}, False, True),
    ("e_aurc", {"aurc_estimator": "trapezoid"}, False, False),
    ("e_aurc", {"oracle": "asymptotic"}, True, True),
    ("naurc", {}, False, True),
    ("naurc", {"aurc_estimator": "log"}, False, True),
    ("selective_risk_at_coverage", {"coverage": 0.5}, False, True),
    ("selective_risk_at_coverage", {"coverage": 1.0}, False, True),
    ("coverage_at_risk", {"risk": 0.3137}, False, True),
    ("uq_auc", {}, True, True),
    ("ood_auroc", {}, True, True),
    ("fpr_at_tpr", {"tpr": 0.8123}, True, False),
]
CURVES = ["risk_coverage_curve", "generalized_risk_coverage_curve"]


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return function(*args, **kwargs)


def in_memory(metric, confidence, losses, weight, **kwargs):
    function = getattr(metrics, metric)
    if metric in ("ood_auroc", "fpr_at_tpr"):  # the loss is the OOD indicator
        return _quiet(function, losses, confidence, sample_weight=weight, **kwargs)
    return _quiet(
        function, None, None, confidence, loss=losses, sample_weight=weight, **kwargs
    )


def assert_close(actual, expected):
    if np.isnan(expected):
        assert np.isnan(actual)
    else:
        assert actual == pytest.approx(expected, rel=1e-12, abs=1e-12)


@st.composite
def samples(draw, binary=False, max_n=40):
    n = draw(st.integers(1, max_n))
    ties = st.sampled_from([0.0, 0.25, 0.5, 1.0])
    confidence = draw(
        arrays(float, n, elements=st.one_of(ties, st.floats(-10, 10, width=32)))
    )
    if binary:
        losses = draw(arrays(float, n, elements=st.sampled_from([0.0, 1.0])))
    else:
        values = st.one_of(st.sampled_from([0.0, 1.0]), st.floats(0, 3, width=32))
        losses = draw(arrays(float, n, elements=values))
    weight = draw(
        st.one_of(
            st.none(),
            arrays(float, n, elements=st.sampled_from([0.0, 1.0, 2.0, 3.0])),
            arrays(float, n, elements=st.one_of(st.just(0.0), st.floats(0.1, 4))),
        )
    )
    if weight is not None and not weight.any():
        weight[0] = 1.0
    return confidence, losses, weight


@st.composite
def batchings(draw, n):
    """Sorted cut points of ``range(n)`` (empty batches included)."""
    cuts = draw(st.lists(st.integers(0, n), max_size=5))
    return [0, *sorted(cuts), n]


def accumulate(draw, data, max_groups=None):
    """One accumulator per batch of a random batching, merged in a random tree."""
    confidence, losses, weight = data
    cuts = draw(batchings(confidence.shape[0]))
    parts = []
    for start, stop in itertools.pairwise(cuts):
        accumulator = RiskCoverageAccumulator(max_groups=max_groups)
        # A few batches go through one accumulator, update after update.
        for piece in np.array_split(np.arange(start, stop), draw(st.integers(1, 3))):
            accumulator.update(
                None,
                None,
                confidence[piece],
                loss=losses[piece],
                sample_weight=None if weight is None else weight[piece],
            )
        parts.append(accumulator)
    while len(parts) > 1:
        index = draw(st.integers(0, len(parts) - 2))
        left, right = parts[index], parts.pop(index + 1)
        if draw(st.booleans()):
            left, right = right, left
        parts[index] = left + right if draw(st.booleans()) else left.merge(right)
    return parts[0]


@pytest.mark.parametrize(("metric", "kwargs", "binary", "bounded"), CASES)
@settings(max_examples=40)
@given(data=st.data())
def test_exact_accumulator_equals_in_memory(metric, kwargs, binary, bounded, data):
    sample = data.draw(samples(binary=binary))
    accumulator = accumulate(data.draw, sample)
    expected = in_memory(metric, *sample, **kwargs)
    assert accumulator.exact_
    value = _quiet(accumulator.compute, metric, **kwargs)
    assert_close(value, expected)
    if bounded:
        lower, upper = _quiet(accumulator.bounds, metric, **kwargs)
        assert_close(lower, value)
        assert_close(upper, value)


@pytest.mark.parametrize("metric", CURVES)
@settings(max_examples=40)
@given(data=st.data())
def test_exact_curves_equal_in_memory(metric, data):
    confidence, losses, weight = data.draw(samples())
    accumulator = accumulate(data.draw, (confidence, losses, weight))
    curve = accumulator.compute(metric)
    expected = getattr(metrics, metric)(
        None, None, confidence, loss=losses, sample_weight=weight
    )
    for actual, wanted in zip(curve, expected, strict=True):
        np.testing.assert_allclose(actual, wanted, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("metric", "kwargs", "binary"),
    [(metric, kwargs, binary) for metric, kwargs, binary, bounded in CASES if bounded],
)
@settings(max_examples=40)
@given(data=st.data())
def test_budget_bounds_contain_the_exact_value(metric, kwargs, binary, data):
    sample = data.draw(samples(binary=binary, max_n=60))
    max_groups = data.draw(st.integers(1, 12))
    accumulator = accumulate(data.draw, sample, max_groups=max_groups)
    assert accumulator.n_groups_ <= max_groups
    exact = in_memory(metric, *sample, **kwargs)
    lower, upper = _quiet(accumulator.bounds, metric, **kwargs)
    value = _quiet(accumulator.compute, metric, **kwargs)
    if np.isnan(exact):
        return
    if accumulator.exact_:
        assert lower == upper == value
        assert_close(value, exact)
    elif not np.isnan(lower):
        assert lower <= exact <= upper
        assert lower <= upper


@settings(max_examples=40)
@given(data=st.data())
def test_merge_order_does_not_matter(data):
    sample = data.draw(samples())
    first = accumulate(data.draw, sample)
    second = accumulate(data.draw, sample)
    for metric in ("aurc", "augrc", "e_aurc", "sele"):
        assert_close(first.compute(metric), second.compute(metric))


# ------------------------------------------------------------------------------------
# Small and degenerate data
# ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2])
def test_one_and_two_samples(n):
    confidence, losses = np.array([0.3, 0.7])[:n], np.array([1.0, 0.0])[:n]
    accumulator = RiskCoverageAccumulator().update(None, None, confidence, loss=losses)
    for metric in ("aurc", "augrc", "sele", "e_aurc"):
        assert accumulator.compute(metric) == pytest.approx(
            in_memory(metric, confidence, losses, None), abs=1e-15
        )


def test_constant_confidence_is_one_group():
    rng = np.random.default_rng(0)
    losses = rng.integers(0, 2, 50).astype(float)
    confidence = np.full(50, 0.4)
    accumulator = RiskCoverageAccumulator(max_groups=1)
    for batch in np.array_split(np.arange(50), 5):
        accumulator.update(None, None, confidence[batch], loss=losses[batch])
    assert accumulator.exact_ and accumulator.n_groups_ == 1
    assert accumulator.bounds("aurc") == (accumulator.compute("aurc"),) * 2
    assert accumulator.compute("aurc") == pytest.approx(
        metrics.aurc(None, None, confidence, loss=losses), rel=1e-12
    )


def test_empty_and_zero_weight_batches_add_nothing():
    confidence, losses = np.array([0.1, 0.5, 0.9]), np.array([1.0, 0.0, 1.0])
    accumulator = RiskCoverageAccumulator()
    accumulator.update(None, None, [], loss=[])
    accumulator.update(None, None, np.empty(0), loss=np.empty(0), sample_weight=[])
    accumulator.update(None, None, [0.7, 0.2], loss=[1.0, 1.0], sample_weight=[0, 0])
    accumulator.update(None, None, confidence, loss=losses)
    assert accumulator.n_samples_seen_ == 5
    assert accumulator.total_weight_ == 3.0
    assert accumulator.compute("aurc") == metrics.aurc(
        None, None, confidence, loss=losses
    )


def test_labels_and_named_losses():
    rng = np.random.default_rng(1)
    proba = rng.dirichlet(np.ones(3), 200)
    y_true = rng.integers(0, 3, 200)
    confidence = np.round(proba.max(axis=1), 1)
    for loss in (None, "log_loss", "brier"):
        accumulator = RiskCoverageAccumulator()
        for batch in np.array_split(np.arange(200), 3):
            accumulator.update(
                y_true[batch],
                proba[batch],
                confidence[batch],
                loss=loss,
                labels=[0, 1, 2],
            )
        expected = metrics.aurc(
            y_true, proba, confidence, loss=loss or "zero_one", labels=[0, 1, 2]
        )
        assert accumulator.compute("aurc") == pytest.approx(expected, rel=1e-12)


def test_pickle_json_repr_and_frame():
    rng = np.random.default_rng(2)
    confidence, losses = rng.random(100), rng.integers(0, 2, 100).astype(float)
    accumulator = RiskCoverageAccumulator(max_groups=8)
    accumulator.update(None, None, confidence, loss=losses)
    copy = pickle.loads(pickle.dumps(accumulator))
    assert copy.compute("aurc") == accumulator.compute("aurc")
    assert copy.bounds("augrc") == accumulator.bounds("augrc")
    data = json.loads(accumulator.to_json(include_distribution=True))
    assert data["n_groups"] == accumulator.n_groups_ <= 8
    assert data["exact"] is False and data["loss"] == "per-sample array"
    assert len(data["groups"]["weight"]) == data["n_groups"]
    assert "max_groups=8" in repr(accumulator) and "merged groups" in repr(accumulator)
    pytest.importorskip("pandas")
    frame = accumulator.to_frame()
    assert list(frame.columns) == [
        "low",
        "high",
        "weight",
        "loss",
        "loss_min",
        "loss_max",
    ]
    assert frame["weight"].sum() == 100


def test_sum_of_accumulators():
    parts = [
        RiskCoverageAccumulator().update(None, None, [c], loss=[float(c > 0.5)])
        for c in (0.1, 0.6, 0.3, 0.9)
    ]
    total = sum(parts)
    assert total.n_samples_seen_ == 4
    assert all(part.n_samples_seen_ == 1 for part in parts)  # unchanged


def test_budget_keeps_memory_and_bounds_tight():
    rng = np.random.default_rng(3)
    n = 200_000
    confidence = rng.random(n)
    losses = (rng.random(n) > confidence).astype(float)
    accumulator = RiskCoverageAccumulator(max_groups=2**10)
    for batch in np.array_split(np.arange(n), 20):
        accumulator.update(None, None, confidence[batch], loss=losses[batch])
    assert accumulator.n_groups_ <= 2**10
    for metric in ("aurc", "augrc"):
        lower, upper = accumulator.bounds(metric)
        exact = in_memory(metric, confidence, losses, None)
        assert lower <= exact <= upper
        assert upper - lower < 2e-3


# ------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------
@pytest.fixture
def filled():
    return RiskCoverageAccumulator().update([0, 1, 1], [0, 1, 0], [0.2, 0.5, 0.9])


def test_unknown_metric(filled):
    with pytest.raises(ValueError, match=r"metric must be one of .*'aurc'"):
        filled.compute("accuracy")
    with pytest.raises(ValueError, match="metric must be one of"):
        filled.bounds("accuracy")


def test_unknown_and_missing_keywords(filled):
    with pytest.raises(TypeError, match=r"unexpected keyword argument.*estimator"):
        filled.compute("aurc", estimator="log")
    with pytest.raises(TypeError, match="needs the keyword argument coverage"):
        filled.compute("selective_risk_at_coverage")
    with pytest.raises(ValueError, match="aurc_estimator must be one of"):
        filled.compute("aurc", aurc_estimator="exact")
    with pytest.raises(ValueError, match="coverage must be in"):
        filled.compute("selective_risk_at_coverage", coverage=1.5)
    with pytest.raises(ValueError, match="class_balanced=True needs the true class"):
        filled.compute("aurc", class_balanced=True)
    with pytest.raises(ValueError, match="coverage_range"):
        filled.compute("aurc", coverage_range=(0.5, 0.2))


def test_bounds_of_what_cannot_be_bounded():
    accumulator = RiskCoverageAccumulator(max_groups=2)
    accumulator.update(None, None, [0.1, 0.2, 0.3, 0.4], loss=[1.0, 0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="only the scalar metrics"):
        accumulator.bounds("risk_coverage_curve")
    with pytest.raises(ValueError, match="trapezoid"):
        accumulator.bounds("aurc", aurc_estimator="trapezoid")
    with pytest.raises(ValueError, match="coverage_range is not available"):
        accumulator.bounds("aurc", coverage_range=(0.2, 0.5))
    with pytest.raises(ValueError, match="only the scalar metrics"):
        accumulator.bounds("fpr_at_tpr")


def test_different_loss_settings_do_not_mix(filled):
    other = RiskCoverageAccumulator().update(None, None, [0.3], loss=[0.5])
    with pytest.raises(ValueError, match="loss 'zero_one'"):
        filled.merge(other)
    with pytest.raises(ValueError, match="loss 'zero_one'"):
        filled + other
    with pytest.raises(ValueError, match=r"'log_loss'.*loss 'zero_one'"):
        filled.update([0], [[0.2, 0.8]], [0.5], loss="log_loss")
    with pytest.raises(TypeError, match="another RiskCoverageAccumulator"):
        filled.merge([1, 2])


def test_binary_metrics_need_binary_losses():
    accumulator = RiskCoverageAccumulator().update(None, None, [0.2, 0.4], loss=[0, 2])
    with pytest.raises(ValueError, match="0/1 loss"):
        accumulator.compute("uq_auc")
    with pytest.raises(ValueError, match="0/1 losses"):
        accumulator.compute("e_aurc", oracle="asymptotic")


def test_input_errors_name_the_argument():
    accumulator = RiskCoverageAccumulator()
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        accumulator.update(None, None, [0.1, 0.2], loss=[0, 1], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="confidence"):
        accumulator.update(None, None, [0.1, np.nan], loss=[0, 1])
    with pytest.raises(ValueError, match="loss has 1 entries"):
        accumulator.update(None, None, [0.1, 0.2], loss=[0])
    with pytest.raises(ValueError, match="needs data"):
        accumulator.compute("aurc")
    with pytest.raises(ValueError, match="max_groups must be None"):
        RiskCoverageAccumulator(max_groups=0)
    with pytest.raises(ValueError, match="max_groups must be None"):
        RiskCoverageAccumulator(max_groups=2.5)


def test_undefined_metrics_warn_like_the_functions():
    accumulator = RiskCoverageAccumulator().update(None, None, [0.2, 0.4], loss=[0, 0])
    with pytest.warns(UndefinedMetricWarning, match="uq_auc is undefined"):
        assert np.isnan(accumulator.compute("uq_auc"))
    with pytest.warns(UndefinedMetricWarning, match="naurc is undefined"):
        assert np.isnan(accumulator.compute("naurc"))


def test_a_tree_of_budgeted_merges_keeps_the_bounds_of_merging_one_by_one():
    """Cells cut from each state's own weights overlapped from state to state,
    and a tree of merges (as on Dask) joined chains of them: AURC bounds 0.45
    wide after 64 states at 2**10 groups, where merging one by one gave 6e-4.
    Cells fixed in advance (dyadic in the float order) keep them."""
    rng = np.random.default_rng(36)
    parts, states = [], []
    for _ in range(64):
        confidence = rng.random(2000)
        losses = (rng.random(2000) < 0.4 * (1 - confidence)).astype(float)
        parts.append((confidence, losses))
        state = RiskCoverageAccumulator(max_groups=2**8)
        state.update(None, None, confidence, loss=losses)
        states.append(state)
    one_by_one = RiskCoverageAccumulator(max_groups=2**8)
    for confidence, losses in parts:
        one_by_one.update(None, None, confidence, loss=losses)
    tree = states
    while len(tree) > 1:
        tree = [sum(tree[i : i + 8]) for i in range(0, len(tree), 8)]
    confidence, losses = (np.concatenate(column) for column in zip(*parts, strict=True))
    for metric in ("aurc", "augrc"):
        exact = in_memory(metric, confidence, losses, None)
        widths = []
        for state in (one_by_one, tree[0]):
            lower, upper = state.bounds(metric)
            assert lower <= exact <= upper
            widths.append(upper - lower)
        assert widths[1] < 1.5 * widths[0] < 0.01, widths
