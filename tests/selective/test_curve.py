"""The validation curve and the one evaluation of a threshold
(``_selective/_curve.py``), against loops over samples."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_policies import _accepted, validation_sets

from sklearn_selective._selective._curve import _ValidationCurve, evaluate_threshold


@given(validation_sets(), st.sampled_from([-math.inf, 0.1, 0.5, 0.7, 0.95, math.inf]))
def test_evaluate_threshold_is_the_weighted_share_and_mean_loss(problem, threshold):
    confidence, losses, weights = problem
    fit = evaluate_threshold(threshold, confidence, losses, weights)
    coverage, risk = _accepted(confidence, losses, weights, threshold)
    assert fit.threshold == threshold
    assert fit.coverage == pytest.approx(coverage)
    np.testing.assert_allclose(fit.risk, risk)
    assert fit.risk_bound is None and fit.cost is None


@given(validation_sets())
def test_evaluate_threshold_costs_each_decision(problem):
    confidence, losses, weights = problem
    accept_cost, reject_cost = losses * 2.0, np.full_like(losses, 0.3)
    fit = evaluate_threshold(
        0.5, confidence, losses, weights, (accept_cost, reject_cost)
    )
    w = np.ones_like(losses) if weights is None else weights
    expected = (
        sum(
            w[i] * (accept_cost[i] if confidence[i] >= 0.5 else reject_cost[i])
            for i in range(len(losses))
        )
        / w.sum()
    )
    assert fit.cost == pytest.approx(expected)


def test_no_sample_gives_nan():
    fit = evaluate_threshold(0.5, np.empty(0), np.empty(0))
    assert math.isnan(fit.coverage) and math.isnan(fit.risk)


@given(validation_sets())
def test_the_curve_at_each_threshold_is_its_evaluation(problem):
    confidence, losses, weights = problem
    curve = _ValidationCurve.from_samples(confidence, losses, weights)
    table = curve.table()
    for index, threshold in enumerate(table["threshold"]):
        fit = evaluate_threshold(threshold, confidence, losses, weights)
        assert curve.at(index).coverage == pytest.approx(fit.coverage)
        assert table["risk"][index] == pytest.approx(fit.risk)
