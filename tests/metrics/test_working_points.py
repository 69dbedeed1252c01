"""Working points (``metrics/_working_points.py``): on the curve, and against
direct transcriptions."""

import numpy as np
import pytest
from _reference import (
    expand,
    expectation_over_ties,
    selective_risk_at_coverages,
    selective_risk_top,
)
from hypothesis import given
from hypothesis import strategies as st
from test_reference import TOL, problems

from sklearn_selective.metrics import (
    coverage_at_risk,
    risk_coverage_curve,
    selective_risk_at_coverage,
)


def _brute_force_coverage_at_risk(confidence, losses, w, risk, n_grid=4001):
    # A feasible set can be a single point at a tie-group boundary: add those.
    w_ = np.ones(len(confidence)) if w is None else w
    order = np.argsort(-confidence)
    boundaries = np.cumsum(w_[order]) / w_.sum()
    grid = np.union1d(np.linspace(0.0, 1.0, n_grid)[1:], boundaries[boundaries > 0])
    risks = selective_risk_at_coverages(confidence, losses, w, grid)
    feasible = grid[risks <= risk + 1e-12]
    return feasible.max() if feasible.size else 0.0


def test_working_points_on_the_curve():
    rng = np.random.default_rng(3)
    confidence = rng.integers(0, 10, 200).astype(float)
    losses = (rng.random(200) < 0.3).astype(float)
    coverage, risk, _ = risk_coverage_curve(None, None, confidence, loss=losses)
    for c, r in zip(coverage, risk, strict=True):
        assert selective_risk_at_coverage(
            None, None, confidence, coverage=c, loss=losses
        ) == pytest.approx(r, rel=1e-12)
        assert (
            coverage_at_risk(None, None, confidence, risk=r, loss=losses) >= c - 1e-12
        )
    assert coverage_at_risk(None, None, confidence, risk=1.0, loss=losses) == 1.0


@given(problems())
def test_selective_risk_at_coverage_equals_top_m_mean(problem):
    confidence, losses, w = problem
    expanded, _ = expand(confidence, losses, w)
    n = expanded.shape[0]
    for m in range(1, n + 1):
        expected = expectation_over_ties(
            lambda ordered, m=m: selective_risk_top(ordered, m), confidence, losses, w
        )
        got = selective_risk_at_coverage(
            None, None, confidence, coverage=m / n, loss=losses, sample_weight=w
        )
        assert got == pytest.approx(expected, **TOL)


@given(problems(binary=True), st.sampled_from([0.0, 0.1, 0.25, 1 / 3, 0.5, 1.0]))
def test_coverage_at_risk_is_the_largest_feasible_coverage(problem, risk):
    confidence, losses, w = problem
    got = coverage_at_risk(
        None, None, confidence, risk=risk, loss=losses, sample_weight=w
    )
    grid_best = _brute_force_coverage_at_risk(confidence, losses, w, risk)
    # The grid has step 1/4000: the exact answer is at most one step above it.
    assert grid_best - 1e-12 <= got <= grid_best + 1 / 4000 + 1e-12
    if got > 0:
        at_answer = selective_risk_at_coverage(
            None, None, confidence, coverage=got, loss=losses, sample_weight=w
        )
        assert at_answer <= risk + 1e-12
