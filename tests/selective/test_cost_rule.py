"""The cost rule (``_selective/_policies/_cost_rule.py``) against loops over classes."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sklearn_selective._selective._policies._cost_rule import (
    cost_decision,
    fit_cost_margin,
)


# ------------------------------------------------------------------------------------
# The cost rule against loops over classes
# ------------------------------------------------------------------------------------
@st.composite
def cost_problems(draw, max_n=12):
    k = draw(st.integers(2, 4))
    n = draw(st.integers(1, max_n))
    # Quarter probabilities and small integer costs: every sum is exact in float,
    # so ties between classes and with abstaining really are ties.
    rows = []
    for _ in range(n):
        cuts = sorted(draw(st.lists(st.integers(0, 4), min_size=k - 1, max_size=k - 1)))
        bounds = [0, *cuts, 4]
        rows.append([(bounds[j + 1] - bounds[j]) / 4 for j in range(k)])
    proba = np.array(rows)
    matrix = np.array(
        draw(st.lists(st.integers(0, 4), min_size=k * k, max_size=k * k)), float
    ).reshape(k, k)
    rejection = np.array(
        draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=k, max_size=k))
    )
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    return proba, matrix, rejection, y


@given(cost_problems())
def test_bayes_cost_rule_matches_loops_with_ties(problem):
    proba, matrix, rejection, _ = problem
    index, margin = cost_decision(proba, matrix, rejection)
    for i, p in enumerate(proba):
        k = len(p)
        expected = [sum(p[t] * matrix[t, j] for t in range(k)) for j in range(k)]
        best = min(range(k), key=lambda j: (expected[j], j))  # ties: first class
        reject = sum(p[t] * rejection[t] for t in range(k))
        assert index[i] == best
        # Abstain iff abstaining is strictly cheaper; a tie predicts.
        assert (margin[i] >= 0) == (reject >= expected[best])


@given(cost_problems(), st.booleans())
def test_empirical_cost_margin_matches_brute_force(problem, weighted):
    proba, matrix, rejection, y = problem
    index, margin = cost_decision(proba, matrix, rejection)
    accept_cost, reject_cost = matrix[y, index], rejection[y]
    weights = np.arange(1.0, len(y) + 1) if weighted else None
    threshold, table = fit_cost_margin(
        margin, accept_cost, reject_cost, weights, tune=True
    )
    w = np.ones(len(y)) if weights is None else weights
    candidates = [*sorted(set(margin.tolist()), reverse=True), math.inf]
    totals = [
        sum(
            w[i] * (accept_cost[i] if margin[i] >= t else reject_cost[i])
            for i in range(len(y))
        )
        for t in candidates
    ]
    best = min(totals)
    ties = [t for t, c in zip(candidates, totals, strict=True) if c <= best + 1e-9]
    finite = [t for t in ties if t != math.inf]
    assert threshold == (finite[-1] if finite else math.inf)
    assert fit_cost_margin(margin, accept_cost, reject_cost, weights, tune=False)[
        0
    ] == pytest.approx(0.0)
    np.testing.assert_allclose(
        table["cost"], np.array(totals[:-1]) / w.sum(), atol=1e-12
    )


def test_complex_costs_are_refused():
    # issue 28: a complex cost matrix lost its imaginary part with a numpy warning.
    from sklearn_selective._utils._cost_matrix import check_costs

    classes = np.array([0, 1])
    with pytest.raises(ValueError, match="cost_matrix holds complex numbers"):
        check_costs(np.array([[0, 1 + 1j], [1, 0]]), 0.3, classes)
    with pytest.raises(ValueError, match="rejection_cost holds complex numbers"):
        check_costs(1 - np.eye(2), 0.3 + 0j, classes)


def test_a_cost_matrix_of_text_names_the_argument():
    """Issue 35: 'could not convert string to float: x'."""
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from sklearn_selective import SelectiveClassifier

    X, y = make_classification(n_samples=100, random_state=0)
    clf = SelectiveClassifier(
        LogisticRegression(), cost_matrix=[["x", "1"], ["1", "0"]], rejection_cost=0.3
    )
    with pytest.raises(ValueError, match="cost_matrix must hold numbers"):
        clf.fit(X, y)


@pytest.mark.parametrize("exponent", [-1060, 1000])
def test_costs_of_any_magnitude_give_the_decisions_of_unit_costs(exponent):
    """Issue 35: costs of 1e-320 made every expected cost underflow and the
    empirical rule accepted everything (coverage 1.0 where 0.015 is right);
    costs of 1e308 overflowed the validation totals. A power of two scales
    exactly, so the decisions must be identical and the costs scaled."""
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from sklearn_selective import SelectiveClassifier

    X, y = make_classification(
        n_samples=600, n_informative=3, flip_y=0.2, random_state=0
    )
    matrix, rejection = 4 * (1 - np.eye(2)), 1.0
    fits = [
        SelectiveClassifier(
            LogisticRegression(),
            cost_matrix=np.ldexp(matrix, e),
            rejection_cost=np.ldexp(rejection, e),
            cost_rule=rule,
            random_state=0,
        ).fit(X, y)
        for e in (0, exponent)
        for rule in ("bayes", "empirical")
    ]
    for unit, scaled in zip(fits[:2], fits[2:], strict=True):
        np.testing.assert_array_equal(unit.predict_accept(X), scaled.predict_accept(X))
        assert scaled.coverage_ == unit.coverage_
        assert scaled.cost_ == np.ldexp(unit.cost_, exponent)
    assert fits[3].coverage_ < 0.5
