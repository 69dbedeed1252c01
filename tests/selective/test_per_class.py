"""Per-class thresholds (``_selective/_policies/_per_class.py``): brute force over
every candidate threshold of each class, the fallback, and the Bonferroni split."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_guarantees import _sgr_transcription
from test_policies import _accepted, validation_sets

from sklearn_selective._selective._curve import _ValidationCurve
from sklearn_selective._selective._policies import (
    PerClass,
    TargetCoverage,
    _per_class,
    resolve_policy,
)


def fit_per_class(policy, index, classes, confidence, losses, weights, **params):
    """The per-class wrapper of the policy these parameters resolve to."""
    wrapper = PerClass(resolve_policy(**params))
    return wrapper.fit_samples(confidence, losses, weights, index, classes)


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
    monkeypatch.setattr(_per_class, "MIN_CLASS_PREDICTIONS", 1)


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
    pooled = TargetCoverage(0.8).fit_curve(
        _ValidationCurve.from_samples(confidence, losses, None)
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
