"""Every metric against a slow, direct transcription of the paper's formula."""

import math

import numpy as np
import pytest
from _reference import (
    augrc_trapezoid,
    aurc_eq10,
    aurc_log_eq18,
    curves_direct,
    expand,
    expectation_over_ties,
    mean_position_alpha,
    n_tie_orderings,
    oracle_aurc_eq10,
    sele_eq32,
)
from hypothesis import assume, example, given
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_selective.metrics import (
    augrc,
    aurc,
    e_aurc,
    generalized_risk_coverage_curve,
    naurc,
    risk_coverage_curve,
    sele,
)

TOL = {"rel": 1e-12, "abs": 1e-12}

# Few distinct values make ties likely; arbitrary floats make them unlikely.
tied_values = st.sampled_from([-1.5, 0.0, 0.25, 0.5, 1.0])
any_values = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@st.composite
def problems(draw, max_n=6, binary=False, max_orderings=720):
    """(confidence, losses, integer sample_weight or None), small enough that all tie
    orderings of the weight-expanded sample can be enumerated."""
    n = draw(st.integers(1, max_n))
    values = draw(st.sampled_from([tied_values, any_values]))
    confidence = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    loss_values = st.sampled_from([0.0, 1.0]) if binary else st.floats(0, 3)
    losses = np.array(draw(st.lists(loss_values, min_size=n, max_size=n)))
    sample_weight = draw(
        st.one_of(
            st.none(),
            st.lists(st.integers(0, 3), min_size=n, max_size=n).map(np.array),
        )
    )
    if sample_weight is not None:
        assume(sample_weight.sum() > 0 and sample_weight.sum() <= 8)
    expanded, _ = expand(confidence, losses, sample_weight)
    assume(n_tie_orderings(expanded) <= max_orderings)
    return confidence, losses, sample_weight


@given(problems())
def test_aurc_harmonic_equals_eq10(problem):
    confidence, losses, w = problem
    expected = expectation_over_ties(aurc_eq10, confidence, losses, w)
    got = aurc(None, None, confidence, loss=losses, sample_weight=w)
    assert got == pytest.approx(expected, **TOL)


@given(problems())
def test_aurc_log_equals_eq18(problem):
    confidence, losses, w = problem
    expected = expectation_over_ties(aurc_log_eq18, confidence, losses, w)
    got = aurc(
        None, None, confidence, loss=losses, sample_weight=w, aurc_estimator="log"
    )
    assert got == pytest.approx(expected, **TOL)


@given(problems())
def test_sele_equals_eq32(problem):
    confidence, losses, w = problem
    expected = expectation_over_ties(sele_eq32, confidence, losses, w)
    got = sele(None, None, confidence, loss=losses, sample_weight=w)
    assert got == pytest.approx(expected, **TOL)


@given(problems())
def test_augrc_equals_trapezoid_area(problem):
    confidence, losses, w = problem
    expected = expectation_over_ties(augrc_trapezoid, confidence, losses, w)
    got = augrc(None, None, confidence, loss=losses, sample_weight=w)
    assert got == pytest.approx(expected, **TOL)


@given(problems())
def test_e_aurc_equals_eq10_minus_oracle(problem):
    confidence, losses, w = problem
    expected = expectation_over_ties(
        aurc_eq10, confidence, losses, w
    ) - oracle_aurc_eq10(losses, w)
    got = e_aurc(None, None, confidence, loss=losses, sample_weight=w)
    assert got == pytest.approx(expected, **TOL)


@example(
    (np.array([-1.5, -1.5, -1.5]), np.array([0.0, 0.0, 5e-324]), np.array([0, 1, 2.0]))
)
@example((np.array([-1.5, -1.5]), np.array([0.0, 5e-324]), None))
@given(problems())
def test_naurc_equals_normalised_excess(problem):
    confidence, losses, w = problem
    # NAURC is a ratio, invariant to the scale of the losses: the reference works
    # on losses scaled exactly by a power of two to at most 1, so that tiny
    # (subnormal) losses keep their precision (naurc itself rescales so).
    scaled = np.ldexp(losses, -np.frexp(np.max(losses, initial=0.0))[1])
    _, expanded_losses = expand(confidence, scaled, w)
    value = expectation_over_ties(aurc_eq10, confidence, scaled, w)
    oracle = oracle_aurc_eq10(scaled, w)
    random_minus_oracle = np.mean(expanded_losses) - oracle
    # Undefined when every loss is equal (or equal up to float resolution).
    if np.unique(expanded_losses).shape[0] < 2 or random_minus_oracle <= 0:
        with pytest.warns(UndefinedMetricWarning, match="same loss"):
            assert math.isnan(
                naurc(None, None, confidence, loss=losses, sample_weight=w)
            )
        return
    expected = (value - oracle) / random_minus_oracle
    got = naurc(None, None, confidence, loss=losses, sample_weight=w)
    assert got == pytest.approx(expected, **TOL)


@given(problems(max_n=8, max_orderings=10**9))
def test_curves_equal_direct_definition(problem):
    confidence, losses, w = problem
    if w is not None:
        w = w * 0.37  # real-valued weights are allowed for the curves
    coverage, selective, generalized, thresholds = curves_direct(confidence, losses, w)
    got = risk_coverage_curve(None, None, confidence, loss=losses, sample_weight=w)
    np.testing.assert_allclose(got[0], coverage, rtol=1e-12)
    np.testing.assert_allclose(got[1], selective, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got[2], thresholds)
    got = generalized_risk_coverage_curve(
        None, None, confidence, loss=losses, sample_weight=w
    )
    np.testing.assert_allclose(got[1], generalized, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------------------------
# Larger inputs: too many tie orderings to enumerate, so the SPEC's tie rule is read
# literally instead (each tie group shares the mean of its positions' weights).
# ------------------------------------------------------------------------------------
def _harmonic(m):
    return sum(1.0 / k for k in range(1, m + 1))


@pytest.mark.parametrize("seed", range(5))
def test_aurc_larger_inputs_with_ties_and_weights(seed):
    rng = np.random.default_rng(seed)
    n = 150
    confidence = rng.integers(0, 40, n) / 7.0
    losses = rng.exponential(size=n) * (rng.random(n) < 0.4)
    w = rng.integers(0, 4, n)
    harmonic = [_harmonic(m) for m in range(int(w.sum()) + 1)]
    alpha, total = mean_position_alpha(
        confidence, w, lambda r, n: harmonic[n] - harmonic[n - r]
    )
    expected = sum(alpha * w * losses) / total
    got = aurc(None, None, confidence, loss=losses, sample_weight=w)
    assert got == pytest.approx(expected, rel=1e-11)

    alpha, total = mean_position_alpha(
        confidence, w, lambda r, n: -math.log(1 - r / (n + 1))
    )
    expected = sum(alpha * w * losses) / total
    got = aurc(
        None, None, confidence, loss=losses, sample_weight=w, aurc_estimator="log"
    )
    assert got == pytest.approx(expected, rel=1e-11)


def test_aurc_keeps_full_precision_at_large_n():
    """The real-argument harmonic numbers must not lose digits for large n.

    The reference uses extended precision cumulative sums of 1/m.
    """
    rng = np.random.default_rng(0)
    n = 200_000
    confidence = rng.permutation(n).astype(float)
    losses = (rng.random(n) < 0.3).astype(float)
    harmonic = np.concatenate(
        [[0], np.cumsum(1 / np.arange(1, n + 1, dtype=np.longdouble))]
    )
    ranks = confidence.astype(int) + 1
    expected = np.sum((harmonic[n] - harmonic[n - ranks]) * losses) / n
    got = aurc(None, None, confidence, loss=losses)
    assert got == pytest.approx(float(expected), rel=1e-13)

    # Weight-2 groups exercise the group formula (differences of digamma).
    w = np.full(n, 2.0)
    n2 = 2 * n
    harmonic = np.concatenate(
        [[0], np.cumsum(1 / np.arange(1, n2 + 1, dtype=np.longdouble))]
    )
    alpha = harmonic[n2] - (harmonic[n2 - 2 * ranks + 1] + harmonic[n2 - 2 * ranks]) / 2
    expected = np.sum(alpha * 2 * losses) / n2
    got = aurc(None, None, confidence, loss=losses, sample_weight=w)
    assert got == pytest.approx(float(expected), rel=1e-13)
