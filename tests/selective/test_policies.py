"""The policies on a validation curve (``_selective/_policies/``: target coverage,
target risk, rejection cost) against direct transcriptions of their definitions."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sklearn_selective._selective._curve import _ValidationCurve
from sklearn_selective._selective._policies import (
    RejectionCost,
    TargetCoverage,
    TargetRisk,
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
    fit = TargetCoverage(target).fit_curve(_ValidationCurve.from_samples(*problem))
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
    fit = TargetRisk(target).fit_curve(_ValidationCurve.from_samples(*problem))
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
    fit = RejectionCost(cost).fit_curve(_ValidationCurve.from_samples(*problem))
    assert mean_cost(fit.threshold) == pytest.approx(best)
