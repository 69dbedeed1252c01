"""The four threshold policies against direct transcriptions of their definitions."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from sklearn_selective._selective._curve import _ValidationCurve
from sklearn_selective._selective._guarantees import (
    clopper_pearson_upper,
    fit_guaranteed_risk,
    min_samples_for_guarantee,
    sgr_n_tests,
)
from sklearn_selective._selective._thresholds import (
    fit_rejection_cost,
    fit_target_coverage,
    fit_target_risk,
)


@st.composite
def validation_sets(draw, max_n=30):
    n = draw(st.integers(1, max_n))
    confidence = np.array(
        draw(
            st.lists(st.sampled_from([0.1, 0.2, 0.5, 0.7, 0.9]), min_size=n, max_size=n)
        )
    )
    losses = np.array(
        draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=n, max_size=n))
    )
    weights = draw(
        st.one_of(
            st.none(),
            st.lists(st.integers(1, 3), min_size=n, max_size=n).map(np.array),
        )
    )
    return confidence, losses, weights


def _accepted(confidence, losses, weights, threshold):
    w = np.ones_like(losses) if weights is None else weights
    accepted = confidence >= threshold
    coverage = w[accepted].sum() / w.sum()
    risk = (
        (w * losses)[accepted].sum() / w[accepted].sum() if accepted.any() else math.nan
    )
    return coverage, risk


@given(validation_sets(), st.sampled_from([0.05, 0.3, 0.5, 0.9, 1.0]))
def test_target_coverage_is_the_largest_threshold_reaching_the_target(problem, target):
    confidence, losses, weights = problem
    fit = fit_target_coverage(_ValidationCurve.from_samples(*problem), target)
    coverage, risk = _accepted(confidence, losses, weights, fit.threshold)
    assert fit.coverage == pytest.approx(coverage)
    assert fit.risk == pytest.approx(risk)
    assert coverage >= target - 1e-12
    higher = confidence[confidence > fit.threshold]
    if higher.size:  # the next larger threshold misses the target
        assert _accepted(confidence, losses, weights, higher.min())[0] < target


@pytest.mark.filterwarnings("ignore:No threshold")
@given(validation_sets(), st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0]))
def test_target_risk_is_the_lowest_threshold_within_the_target(problem, target):
    confidence = problem[0]
    fit = fit_target_risk(_ValidationCurve.from_samples(*problem), target)
    feasible = [
        t for t in np.unique(confidence) if _accepted(*problem, t)[1] <= target + 1e-12
    ]
    if not feasible:
        assert fit.threshold == math.inf and fit.coverage == 0
    else:
        assert fit.threshold == min(feasible)
        assert fit.risk <= target + 1e-12


@given(validation_sets(), st.sampled_from([0.01, 0.1, 0.3, 0.6, 2.0]))
def test_rejection_cost_minimises_the_mean_cost(problem, cost):
    confidence, losses, weights = problem
    w = np.ones_like(losses) if weights is None else weights

    def mean_cost(threshold):
        accepted = confidence >= threshold
        return ((w * losses)[accepted].sum() + cost * w[~accepted].sum()) / w.sum()

    candidates = [*np.unique(confidence), math.inf]
    best = min(mean_cost(t) for t in candidates)
    fit = fit_rejection_cost(_ValidationCurve.from_samples(*problem), cost)
    assert mean_cost(fit.threshold) == pytest.approx(best)


@pytest.mark.parametrize("n, k", [(1, 0), (10, 0), (10, 3), (50, 7), (200, 0), (7, 7)])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
def test_clopper_pearson_matches_scipy_exact_interval(n, k, alpha):
    expected = (
        binomtest(k, n, alternative="less")
        .proportion_ci(confidence_level=1 - alpha, method="exact")
        .high
    )
    assert clopper_pearson_upper(k, n, alpha) == pytest.approx(expected, rel=1e-10)


def _sgr_transcription(confidence, losses, target_risk, delta):
    """Geifman & El-Yaniv (2017), Algorithm 1, over the distinct thresholds."""
    thresholds = np.unique(confidence)[::-1]  # decreasing: coverage increases
    k = math.ceil(math.log2(len(thresholds) + 1))
    lo, hi, result = -1, len(thresholds), (math.inf, None)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        accepted = confidence >= thresholds[mid]
        failures, trials = int(losses[accepted].sum()), int(accepted.sum())
        bound = (
            1.0
            if failures == trials
            else binomtest(failures, trials, alternative="less")
            .proportion_ci(confidence_level=1 - delta / k, method="exact")
            .high
        )
        if bound < target_risk:
            lo, result = mid, (thresholds[mid], bound)
        else:
            hi = mid
    return result


@pytest.mark.filterwarnings("ignore:No threshold")
@pytest.mark.parametrize("seed", range(20))
def test_sgr_matches_a_transcription_of_algorithm_1(seed):
    rng = np.random.default_rng(seed)
    n = 400
    confidence = rng.integers(0, 60, n) / 60
    losses = (rng.random(n) < 0.4 * (1 - confidence)).astype(float)
    target, delta = 0.08, 0.1
    fit = fit_guaranteed_risk(
        _ValidationCurve.from_samples(confidence, losses, None), target, 1 - delta
    )
    threshold, bound = _sgr_transcription(confidence, losses, target, delta)
    assert fit.threshold == threshold
    if bound is not None:
        assert fit.risk_bound == pytest.approx(bound, rel=1e-10)
        assert fit.risk_bound >= fit.risk
        assert fit.risk_bound < target


def test_sgr_abstains_with_a_warning_when_nothing_is_certified():
    confidence = np.linspace(0, 1, 500)
    losses = np.ones(500)
    with pytest.warns(UserWarning, match="abstains on every sample"):
        fit = fit_guaranteed_risk(
            _ValidationCurve.from_samples(confidence, losses, None), 0.1, 0.9
        )
    assert fit.threshold == math.inf and fit.coverage == 0


def test_sgr_refuses_too_few_samples():
    needed = min_samples_for_guarantee(0.01, 0.95, sgr_n_tests(10))
    # With one sample fewer than needed, zero failures cannot certify the target.
    assert clopper_pearson_upper(0, needed - 1, 0.05 / sgr_n_tests(10)) >= 0.01
    assert clopper_pearson_upper(0, needed, 0.05 / sgr_n_tests(10)) < 0.01
    confidence = np.arange(10.0)
    with pytest.raises(ValueError, match="cannot be certified from 10 validation"):
        fit_guaranteed_risk(
            _ValidationCurve.from_samples(confidence, np.zeros(10), None), 0.01, 0.95
        )


# ------------------------------------------------------------------------------------
# Per-class thresholds: brute force over every candidate threshold of each class
# ------------------------------------------------------------------------------------
from sklearn_selective._selective import _thresholds  # noqa: E402
from sklearn_selective._selective._thresholds import fit_per_class  # noqa: E402


@st.composite
def per_class_sets(draw, max_n=30):
    confidence, losses, weights = draw(validation_sets(max_n))
    n = len(losses)
    index = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    return confidence, losses, weights, index


def _brute_force_class_fit(policy, target, confidence, losses, weights):
    """Every candidate (distinct confidences, then inf) scored by direct loops."""
    candidates = [*sorted(set(confidence.tolist()), reverse=True), math.inf]
    scored = [(t, *_accepted(confidence, losses, weights, t)) for t in candidates]
    if policy == "target_coverage":
        return next(t for t, c, _ in scored if c >= target - 1e-12)
    if policy == "target_risk":
        feasible = [t for t, c, r in scored if c > 0 and r <= target + 1e-12]
        return feasible[-1] if feasible else math.inf
    w = np.ones_like(losses) if weights is None else weights
    costs = []
    for t in candidates:
        accepted = confidence >= t
        cost = (w * losses)[accepted].sum() + target * w[~accepted].sum()
        costs.append(cost / w.sum())
    best = min(costs)
    # Ties: the lowest threshold (the larger coverage); abstaining (inf) only
    # when it is strictly cheaper than every finite threshold.
    ties = [t for t, c in zip(candidates, costs, strict=True) if c <= best + 1e-12]
    finite = [t for t in ties if t != math.inf]
    return finite[-1] if finite else math.inf


@pytest.fixture
def no_minimum_per_class(monkeypatch):
    monkeypatch.setattr(_thresholds, "MIN_CLASS_PREDICTIONS", 1)


@pytest.mark.usefixtures("no_minimum_per_class")
@pytest.mark.parametrize(
    "policy, target",
    [
        ("target_coverage", 0.5),
        ("target_coverage", 0.9),
        ("target_risk", 0.3),
        ("target_risk", 0.0),
        ("rejection_cost", 0.4),
        ("rejection_cost", 0.5),
    ],
)
@given(problem=per_class_sets())
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_per_class_policies_match_brute_force(policy, target, problem):
    confidence, losses, weights, index = problem
    classes = np.array(["a", "b", "c"])
    fit, table = fit_per_class(
        policy, index, classes, confidence, losses, weights, **{policy: target}
    )
    assert fit.threshold.shape == (3,)
    for c in range(3):
        mask = index == c
        w = None if weights is None else weights[mask]
        if not mask.any():  # no prediction: the global threshold, nan coverage
            assert math.isnan(fit.coverage[c])
            continue
        expected = _brute_force_class_fit(
            policy, target, confidence[mask], losses[mask], w
        )
        if policy == "rejection_cost" and len(set(confidence[mask])) == 0:
            continue
        assert fit.threshold[c] == expected
        coverage, risk = _accepted(confidence[mask], losses[mask], w, expected)
        assert fit.coverage[c] == pytest.approx(coverage)
        np.testing.assert_allclose(fit.risk[c], risk)
        rows = table["class"] == classes[c]
        assert set(table["threshold"][rows]) == set(confidence[mask])


def test_rare_class_falls_back_to_the_global_threshold_with_a_warning():
    rng = np.random.default_rng(0)
    confidence = rng.random(200)
    losses = (rng.random(200) < 0.5 * (1 - confidence)).astype(float)
    index = np.where(np.arange(200) < 5, 1, 0)  # class 1: 5 predictions
    with pytest.warns(UserWarning, match=r"class 'b': 5 validation predictions"):
        fit, _ = fit_per_class(
            "target_coverage",
            index,
            np.array(["a", "b"]),
            confidence,
            losses,
            None,
            target_coverage=0.8,
        )
    pooled = fit_target_coverage(
        _ValidationCurve.from_samples(confidence, losses, None), 0.8
    )
    assert fit.threshold[1] == pooled.threshold
    assert fit.threshold[0] != pooled.threshold


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.filterwarnings("ignore:No threshold")
def test_per_class_sgr_is_sgr_per_class_at_the_bonferroni_level(seed):
    rng = np.random.default_rng(seed)
    n = 900
    confidence = rng.integers(0, 60, n) / 60
    losses = (rng.random(n) < 0.4 * (1 - confidence)).astype(float)
    index = rng.integers(0, 3, n)
    fit, _ = fit_per_class(
        "guaranteed_risk",
        index,
        np.array([0, 1, 2]),
        confidence,
        losses,
        None,
        target_risk=0.1,
        confidence_level=0.85,
        guarantee="sgr",
    )
    for c in range(3):
        mask = index == c
        threshold, bound = _sgr_transcription(
            confidence[mask], losses[mask], 0.1, delta=0.15 / 3
        )
        assert fit.threshold[c] == threshold
        if bound is not None:
            assert fit.risk_bound[c] == pytest.approx(bound, rel=1e-10)
