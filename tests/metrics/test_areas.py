"""SPEC section 10: AURC weights, partial areas, class-balanced areas and the
FD-Shifts conventions, against slow transcriptions and the identities."""

import itertools
import math

import numpy as np
import pytest
from _reference import (
    aurc_eq10,
    aurc_step_partial,
    curves_direct,
    expand,
    expectation_over_ties,
    fdshifts_augrc_ba,
    fdshifts_aurc_ba,
    fdshifts_trapezoid_aurc,
    mean_position_alpha,
    n_tie_orderings,
)
from hypothesis import assume, example, given
from hypothesis import strategies as st
from scipy.integrate import quad

from sklearn_selective.metrics import (
    augrc,
    aurc,
    aurc_weights,
    e_aurc,
    naurc,
    sele,
)

TOL = {"rel": 1e-12, "abs": 1e-12}
tied_values = st.sampled_from([-1.5, 0.0, 0.25, 0.5, 1.0])
any_values = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
coverages = st.floats(0.0, 1.0)


@st.composite
def problems(draw, max_n=6, binary=False, max_orderings=720, real_weights=False):
    """(confidence, losses, sample_weight or None); integer weights unless
    ``real_weights``, small enough to enumerate every tie ordering."""
    n = draw(st.integers(1, max_n))
    values = draw(st.sampled_from([tied_values, any_values]))
    confidence = np.array(draw(st.lists(values, min_size=n, max_size=n)))
    loss_values = st.sampled_from([0.0, 1.0]) if binary else st.floats(0, 3)
    losses = np.array(draw(st.lists(loss_values, min_size=n, max_size=n)))
    # Weights below ~1e-8 hit a cancellation in the core (0/0 -> nan), see report.
    real = st.one_of(st.just(0.0), st.floats(1e-3, 3))
    weights = real if real_weights else st.integers(0, 3)
    sample_weight = draw(
        st.one_of(st.none(), st.lists(weights, min_size=n, max_size=n).map(np.array))
    )
    if sample_weight is not None:
        assume(sample_weight.sum() > 0.1 and sample_weight.sum() <= 8)
    if not real_weights:
        expanded, _ = expand(confidence, losses, sample_weight)
        assume(n_tie_orderings(expanded) <= max_orderings)
    return confidence, losses, sample_weight


def _range(draw_low, draw_high):
    return tuple(sorted((draw_low, draw_high)))


# --------------------------------------------------------------------------------------
# aurc_weights
# --------------------------------------------------------------------------------------
@given(problems(real_weights=True), st.sampled_from(["harmonic", "log"]))
def test_aurc_weights_give_aurc_as_weighted_mean(problem, estimator):
    confidence, losses, w = problem
    alpha = aurc_weights(confidence, aurc_estimator=estimator, sample_weight=w)
    expected = aurc(
        None, None, confidence, loss=losses, sample_weight=w, aurc_estimator=estimator
    )
    assert np.average(alpha * losses, weights=w) == pytest.approx(expected, **TOL)
    assert np.all(np.isfinite(alpha))


@given(problems(real_weights=True))
def test_sele_weights_give_sele(problem):
    confidence, losses, w = problem
    alpha = aurc_weights(confidence, aurc_estimator="sele", sample_weight=w)
    expected = sele(None, None, confidence, loss=losses, sample_weight=w)
    assert np.average(alpha * losses, weights=w) == pytest.approx(expected, **TOL)


_POSITION_WEIGHTS = {
    "harmonic": lambda r, n: sum(1.0 / k for k in range(n - r + 1, n + 1)),
    "log": lambda r, n: -math.log(1 - r / (n + 1)),
    "sele": lambda r, n: r / n,
}


@given(problems(), st.sampled_from(sorted(_POSITION_WEIGHTS)))
def test_aurc_weights_are_the_tie_group_means_of_the_paper_weights(problem, name):
    confidence, _, w = problem
    w = None if w is None else w.astype(int)
    expected, _ = mean_position_alpha(confidence, w, _POSITION_WEIGHTS[name])
    got = aurc_weights(confidence, aurc_estimator=name, sample_weight=w)
    positive = np.ones(len(confidence), bool) if w is None else w > 0
    np.testing.assert_allclose(got[positive], expected[positive], rtol=1e-12)


def test_aurc_weights_example_values_and_mean_one():
    alpha = aurc_weights([0.9, 0.2, 0.6, 0.4])
    # ranks 4, 1, 3, 2 of n = 4: H_4 - H_{4 - r}
    np.testing.assert_allclose(alpha, [25 / 12, 1 / 4, 13 / 12, 7 / 12], rtol=1e-14)
    assert alpha.mean() == pytest.approx(1.0, abs=1e-14)
    tied = aurc_weights([1.0, 1.0, 0.0])
    np.testing.assert_allclose(tied, [(11 / 6 + 5 / 6) / 2] * 2 + [1 / 3])


# --------------------------------------------------------------------------------------
# coverage_range
# --------------------------------------------------------------------------------------
@given(
    problems(),
    st.sampled_from(["harmonic", "log"]),
    coverages,
    coverages,
)
def test_partial_plug_in_aurc_equals_area_of_its_curve(problem, estimator, a, b):
    confidence, losses, w = problem
    low, high = _range(a, b)
    expected = expectation_over_ties(
        lambda ordered: aurc_step_partial(ordered, low, high, estimator),
        confidence,
        losses,
        w,
    )
    got = aurc(
        None,
        None,
        confidence,
        loss=losses,
        sample_weight=w,
        aurc_estimator=estimator,
        coverage_range=(low, high),
    )
    assert got == pytest.approx(expected, rel=1e-10, abs=1e-12)


@given(problems())
def test_step_curve_transcription_is_eq10(problem):
    # The reference curve of the harmonic estimator is Eq. 10 over (0, 1].
    confidence, losses, w = problem
    full = expectation_over_ties(
        lambda ordered: aurc_step_partial(ordered, 0.0, 1.0), confidence, losses, w
    )
    assert full == pytest.approx(
        expectation_over_ties(aurc_eq10, confidence, losses, w), **TOL
    )


AREAS = {
    "harmonic": lambda **kw: aurc(**kw),
    "log": lambda **kw: aurc(**kw, aurc_estimator="log"),
    "trapezoid": lambda **kw: aurc(**kw, aurc_estimator="trapezoid"),
    "augrc": lambda **kw: augrc(**kw),
}


@pytest.mark.parametrize("name", sorted(AREAS))
@given(problem=problems(real_weights=True), cuts=st.lists(coverages, max_size=4))
@example(  # a group of real weight off the grid n - j: a negative piece before
    problem=(
        np.array([-1.5, -1.5, -1.5, -1.5, -1.5, 0.0]),
        np.array([0.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
        np.array([0.0, 0.0, 0.0, 0.0, 2.921875, 2.609375]),
    ),
    cuts=[0.47265625],
)
def test_partial_areas_add_up_and_zero_one_is_full(name, problem, cuts):
    confidence, losses, w = problem
    area = AREAS[name]
    data = {"y_true": None, "y_pred": None, "confidence": confidence}
    data |= {"loss": losses, "sample_weight": w}
    full = area(**data)
    assert area(**data, coverage_range=(0, 1)) == pytest.approx(full, **TOL)
    edges = sorted({0.0, 1.0, *cuts})
    pieces = [
        area(**data, coverage_range=(lo, hi)) for lo, hi in itertools.pairwise(edges)
    ]
    assert sum(pieces) == pytest.approx(full, rel=1e-10, abs=1e-12)
    assert all(piece >= -1e-12 for piece in pieces)
    assert area(**data, coverage_range=(0.3, 0.3)) == pytest.approx(0, abs=1e-15)


@given(problems(max_n=8, real_weights=True), coverages, coverages)
def test_partial_augrc_integrates_the_generalized_curve(problem, a, b):
    confidence, losses, w = problem
    low, high = _range(a, b)
    coverage, _, generalized, _ = curves_direct(confidence, losses, w)
    coverage, generalized = np.r_[0.0, coverage], np.r_[0.0, generalized]
    expected, _ = quad(
        lambda c: np.interp(c, coverage, generalized),
        low,
        high,
        points=coverage,
        epsabs=1e-13,
        limit=200,
    )
    got = augrc(
        None, None, confidence, loss=losses, sample_weight=w, coverage_range=(low, high)
    )
    assert got == pytest.approx(expected, rel=1e-8, abs=1e-12)


def test_partial_harmonic_aurc_of_a_known_step_curve():
    # Losses by decreasing confidence 1, 0, 0, 1: selective risks 1, 1/2, 1/3, 1/2
    # on the four quarter steps; (0.1, 0.6) covers 0.15 of step 1, 0.25 of step 2
    # and 0.1 of step 3.
    confidence = [4.0, 3.0, 2.0, 1.0]
    losses = [1.0, 0.0, 0.0, 1.0]
    got = aurc(None, None, confidence, loss=losses, coverage_range=(0.1, 0.6))
    assert got == pytest.approx(0.15 * 1 + 0.25 / 2 + 0.1 / 3, **TOL)


@pytest.mark.parametrize(
    "coverage_range", [(0.5, 0.2), (-0.1, 0.5), (0.0, 1.5), (0.1,), ("a", "b")]
)
def test_invalid_coverage_range_names_the_argument(coverage_range):
    with pytest.raises(ValueError, match="coverage_range"):
        aurc(None, None, [1.0, 2.0], loss=[0, 1], coverage_range=coverage_range)
    with pytest.raises(ValueError, match="coverage_range"):
        augrc(None, None, [1.0, 2.0], loss=[0, 1], coverage_range=coverage_range)


# --------------------------------------------------------------------------------------
# FD-Shifts conventions: trapezoid AURC, asymptotic oracle, class-balanced areas
# --------------------------------------------------------------------------------------
@given(problems(max_n=8, max_orderings=10**9))
def test_trapezoid_aurc_equals_fd_shifts(problem):
    confidence, losses, w = problem
    expanded_confidence, expanded_losses = expand(confidence, losses, w)
    expected = fdshifts_trapezoid_aurc(expanded_confidence, expanded_losses)
    got = aurc(
        None, None, confidence, loss=losses, sample_weight=w, aurc_estimator="trapezoid"
    )
    assert got == pytest.approx(expected, **TOL)


def test_trapezoid_aurc_is_scale_invariant_unlike_the_plug_in_estimators():
    confidence, losses = [0.1, 0.5, 0.7, 0.9], [1.0, 0.0, 1.0, 0.0]
    weights = np.array([1.0, 2.0, 1.0, 3.0])
    for estimator, invariant in (("trapezoid", True), ("harmonic", False)):
        values = [
            aurc(
                None,
                None,
                confidence,
                loss=losses,
                sample_weight=scale * weights,
                aurc_estimator=estimator,
            )
            for scale in (1.0, 10.0)
        ]
        assert (values[0] == pytest.approx(values[1], **TOL)) is invariant


@given(
    problems(binary=True, real_weights=True),
    st.sampled_from(["harmonic", "log", "trapezoid"]),
)
def test_asymptotic_oracle(problem, estimator):
    confidence, losses, w = problem
    err = np.average(losses, weights=w)
    oracle = err + (0.0 if err == 1 else (1 - err) * math.log(1 - err))
    value = aurc(
        None, None, confidence, loss=losses, sample_weight=w, aurc_estimator=estimator
    )
    got = e_aurc(
        None,
        None,
        confidence,
        loss=losses,
        sample_weight=w,
        aurc_estimator=estimator,
        oracle="asymptotic",
    )
    assert got == pytest.approx(value - oracle, **TOL)


def test_asymptotic_oracle_can_be_negative_and_needs_a_zero_one_loss():
    # A perfect ranking: the finite-sample trapezoid area is below the limit.
    losses = [1.0, 1.0, 0.0, 0.0, 0.0]
    confidence = [0.1, 0.2, 0.7, 0.8, 0.9]
    kwargs = {"loss": losses, "aurc_estimator": "trapezoid"}
    assert e_aurc(None, None, confidence, **kwargs, oracle="asymptotic") < 0
    oracle = -np.array(losses)
    assert e_aurc(None, None, oracle, **kwargs) == pytest.approx(0, abs=1e-15)
    with pytest.raises(ValueError, match="0/1 loss"):
        e_aurc(None, None, confidence, loss=[0.5] * 5, oracle="asymptotic")


@given(problems(max_n=8, max_orderings=10**9), st.booleans())
def test_trapezoid_e_aurc_uses_the_trapezoid_oracle(problem, _):
    confidence, losses, w = problem
    c, l_ = expand(confidence, losses, w)
    # The SPEC's oracle, confidence = -loss (tied losses form one curve point);
    # FD-Shifts gives tied losses distinct confidences (same value when the losses
    # are distinct) and, for 0/1 losses, uses the asymptotic oracle.
    expected = fdshifts_trapezoid_aurc(c, l_) - fdshifts_trapezoid_aurc(-l_, l_)
    got = e_aurc(
        None, None, confidence, loss=losses, sample_weight=w, aurc_estimator="trapezoid"
    )
    assert got == pytest.approx(expected, **TOL)


@st.composite
def labelled_problems(draw, max_n=8):
    confidence, losses, w = draw(problems(max_n=max_n, max_orderings=10**9))
    y_true = np.array(
        draw(
            st.lists(
                st.sampled_from(["a", "b", "c"]),
                min_size=len(losses),
                max_size=len(losses),
            )
        )
    )
    return y_true, confidence, losses, w


def _expand_labels(y_true, w):
    return y_true if w is None else np.repeat(y_true, w.astype(int))


@given(labelled_problems())
def test_class_balanced_aurc_equals_fd_shifts_aurc_ba(problem):
    y_true, confidence, losses, w = problem
    c, l_ = expand(confidence, losses, w)
    expected = fdshifts_aurc_ba(c, l_, _expand_labels(y_true, w))
    got = aurc(
        y_true,
        None,
        confidence,
        loss=losses,
        sample_weight=w,
        aurc_estimator="trapezoid",
        class_balanced=True,
    )
    assert got == pytest.approx(expected, **TOL)


@given(labelled_problems())
def test_class_balanced_augrc_equals_fd_shifts_augrc_ba(problem):
    y_true, confidence, losses, w = problem
    c, l_ = expand(confidence, losses, w)
    expected = fdshifts_augrc_ba(c, l_, _expand_labels(y_true, w))
    got = augrc(
        y_true, None, confidence, loss=losses, sample_weight=w, class_balanced=True
    )
    assert got == pytest.approx(expected, **TOL)


def test_class_balanced_equals_plain_on_balanced_classes_for_augrc():
    rng = np.random.default_rng(0)
    y_true = np.repeat([0, 1, 2], 20)
    losses, confidence = rng.integers(0, 2, 60).astype(float), rng.random(60)
    kwargs = {"loss": losses}
    assert augrc(y_true, None, confidence, **kwargs, class_balanced=True) == (
        pytest.approx(augrc(y_true, None, confidence, **kwargs), **TOL)
    )


def test_class_balanced_needs_labels_and_the_trapezoid_aurc():
    with pytest.raises(ValueError, match="needs y_true"):
        augrc(None, None, [0.1, 0.2], loss=[0, 1], class_balanced=True)
    with pytest.raises(ValueError, match="aurc_estimator='trapezoid'"):
        aurc([0, 1], [0, 0], [0.1, 0.2], class_balanced=True)


# --------------------------------------------------------------------------------------
# Corrected claims (issue 13): finite-sample bias, and naurc's "1 = random"
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "n, harmonic_bias", [(8, 2 / 9), (32, 2 / 33), (128, 2 / 129), (1024, 2 / 1025)]
)
def test_plug_in_aurc_is_biased_on_small_samples(n, harmonic_bias):
    """Confidence percentile U uniform, failure probability 1 - U: the population
    AURC is 1/4. The estimators are linear in the losses, so their exact expectation
    is their value at the expected losses of the order statistics,
    E[l_(k)] = 1 - k / (n + 1): the harmonic estimator is +22 % too high at n = 8."""
    ranks = np.arange(1.0, n + 1)
    expected_losses = 1 - ranks / (n + 1)
    harmonic = aurc(None, None, ranks, loss=expected_losses)
    log = aurc(None, None, ranks, loss=expected_losses, aurc_estimator="log")
    assert harmonic / 0.25 - 1 == pytest.approx(harmonic_bias, rel=1e-9)
    assert 0 < log / 0.25 - 1 < harmonic_bias


def test_naurc_of_a_random_ranking_is_one_for_the_harmonic_estimator_only():
    losses = np.array([0.0, 1.0, 0.0, 2.5, 1.0])
    values = {"harmonic": [], "log": []}
    for permutation in itertools.permutations(range(5)):
        confidence = np.array(permutation, dtype=float)
        for estimator, found in values.items():
            found.append(
                naurc(None, None, confidence, loss=losses, aurc_estimator=estimator)
            )
    assert np.mean(values["harmonic"]) == pytest.approx(1.0, **TOL)
    assert np.mean(values["log"]) == pytest.approx(0.747, abs=5e-4)  # docstring


# --------------------------------------------------------------------------------------
# The group-statistics functions are batched like those of _core (bootstrap-ready)
# --------------------------------------------------------------------------------------
_BATCHED = {
    # name: (function of the group statistics, the same through the public API)
    "harmonic": (
        lambda f, s: f["aurc"](s, "harmonic", (0.1, 0.7)),
        {"coverage_range": (0.1, 0.7)},
    ),
    "log": (
        lambda f, s: f["aurc"](s, "log", (0.0, 0.4)),
        {"aurc_estimator": "log", "coverage_range": (0.0, 0.4)},
    ),
    "trapezoid": (
        lambda f, s: f["trapezoid"](s, (0.0, 0.6)),
        {"aurc_estimator": "trapezoid", "coverage_range": (0.0, 0.6)},
    ),
    "augrc": (lambda f, s: f["augrc"](s, (0.25, 1.0)), {"coverage_range": (0.25, 1.0)}),
}


@pytest.mark.parametrize("name", sorted(_BATCHED))
def test_partial_functions_are_batched_over_count_vectors(name):
    from sklearn_selective.metrics._core import _partial
    from sklearn_selective.metrics._core._group_stats import GroupStats, group_ties

    functions = {
        "aurc": _partial.partial_aurc_from_stats,
        "augrc": _partial.partial_augrc_from_stats,
        "trapezoid": _partial.trapezoid_aurc_from_stats,
    }
    evaluate, options = _BATCHED[name]
    public = augrc if name == "augrc" else aurc
    rng = np.random.default_rng(0)
    confidence = rng.integers(0, 8, 30).astype(float)  # ties
    losses = rng.exponential(size=30)
    groups = group_ties(confidence)
    # Bootstrap-like count vectors: many zero weights, also at the extremes.
    counts = rng.multinomial(30, np.full(30, 1 / 30), size=5).astype(float)
    batched = evaluate(functions, GroupStats.from_samples(groups, losses, counts))
    assert batched.shape == (5,)
    for row, count in enumerate(counts):
        expected = public(
            None, None, confidence, loss=losses, sample_weight=count, **options
        )
        assert batched[row] == pytest.approx(expected, **TOL)


@pytest.mark.parametrize(
    "options",
    [
        {"coverage_range": (0.0, 0.5)},
        {"aurc_estimator": "trapezoid"},
        {"oracle": "asymptotic"},
    ],
)
def test_bootstrap_metric_with_area_options_calls_the_metric(options):
    from functools import partial

    from sklearn_selective.metrics import bootstrap_metric

    rng = np.random.default_rng(0)
    confidence = rng.random(40)
    losses = (rng.random(40) < 0.3).astype(float)
    metric = e_aurc if "oracle" in options else aurc
    kwargs = {"loss": losses, "n_resamples": 30, "random_state": 1}
    kwargs["method"] = "percentile"  # the options, not the interval, are tested
    got = bootstrap_metric(metric, None, None, confidence, **kwargs, **options)
    # The same resamples through a plain callable (the generic path).
    expected = bootstrap_metric(
        partial(metric, **options), None, None, confidence, **kwargs
    )
    np.testing.assert_allclose(
        got.bootstrap_distribution, expected.bootstrap_distribution, rtol=1e-12
    )
    assert got.statistic == metric(None, None, confidence, loss=losses, **options)


def test_paired_comparisons_refuse_the_area_options_clearly():
    from sklearn_selective.metrics import compare_confidence_functions

    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, 30)
    y_pred = np.where(rng.random(30) < 0.3, 1 - y_true, y_true)
    confidences = {"a": rng.random(30), "b": rng.random(30)}
    with pytest.raises(ValueError, match="coverage_range"):
        compare_confidence_functions(
            y_true, y_pred, confidences, metric="aurc", coverage_range=(0, 0.5)
        )


@pytest.mark.parametrize("estimator", ["harmonic", "log"])
def test_partial_aurc_with_huge_weights_is_finite_and_adds_up(estimator):
    """Issue 35: weights of 1e100 with coverage_range=(0, 0.4) gave NaN (the
    harmonic grid's unit steps are below float resolution beyond 2**53)."""
    rng = np.random.default_rng(0)
    confidence, losses = rng.random(50), (rng.random(50) < 0.3).astype(float)
    values = []
    for weight in (1e15, 1e16, 1e100, 1e300):
        kwargs = {"loss": losses, "sample_weight": np.full(50, weight)}
        kwargs["aurc_estimator"] = estimator
        low = aurc(None, None, confidence, coverage_range=(0, 0.4), **kwargs)
        high = aurc(None, None, confidence, coverage_range=(0.4, 1), **kwargs)
        full = aurc(None, None, confidence, **kwargs)
        assert np.isfinite(low) and low > 0
        assert low + high == pytest.approx(full, rel=1e-14)
        values.append(low)
    # Beyond 2**53 samples the estimator is at its limit: the same value.
    np.testing.assert_allclose(values, values[0], rtol=1e-12)
