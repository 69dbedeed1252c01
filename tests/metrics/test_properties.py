"""Identities the papers prove, invariances, and the SPEC's weight conventions."""

import itertools
import math
import warnings
from functools import partial

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.stats import rankdata
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_selective.metrics import (
    augrc,
    aurc,
    coverage_at_risk,
    e_aurc,
    generalized_risk_coverage_curve,
    naurc,
    risk_coverage_curve,
    sele,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)


@st.composite
def samples(draw, min_n=1, max_n=40, binary=False):
    n = draw(st.integers(min_n, max_n))
    confidence = draw(
        arrays(
            float,
            n,
            elements=st.one_of(
                st.sampled_from([0.0, 0.5, 1.0]), st.floats(-100, 100, width=32)
            ),
        )
    )
    if binary:
        losses = draw(arrays(float, n, elements=st.sampled_from([0.0, 1.0])))
    else:
        losses = draw(arrays(float, n, elements=st.floats(0, 5, width=32)))
    return confidence, losses


def _quiet(metric, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return metric(*args, **kwargs)


# ------------------------------------------------------------------------------------
# [AURC]
# ------------------------------------------------------------------------------------
@given(samples(), st.booleans())
def test_plug_in_weights_average_to_one_eq14(problem, weighted):
    """(1/n) sum_i alpha_i = 1: with every loss equal to 1 the AURC is 1."""
    confidence, _ = problem
    w = np.arange(1, confidence.shape[0] + 1) * 0.7 if weighted else None
    ones = np.ones_like(confidence)
    value = aurc(None, None, confidence, loss=ones, sample_weight=w)
    assert value == pytest.approx(1.0, rel=1e-13)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_random_ranking_has_expected_aurc_equal_to_mean_loss_eq14(n):
    """Averaged over every permutation, the harmonic AURC is the mean loss exactly."""
    losses = np.random.default_rng(n).exponential(size=n)
    confidence = np.arange(n, dtype=float)
    values = [
        aurc(None, None, confidence, loss=losses[list(p)])
        for p in itertools.permutations(range(n))
    ]
    assert np.mean(values) == pytest.approx(losses.mean(), rel=1e-13)


def test_sele_is_not_half_an_upper_bound_eq34_36():
    losses = [0, 0, 0, 0, 1]
    confidence = [1, 2, 3, 4, 5]
    harmonic_5 = 1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5
    assert aurc(None, None, confidence, loss=losses) == pytest.approx(harmonic_5 / 5)
    assert 2 * sele(None, None, confidence, loss=losses) == pytest.approx(0.4)
    assert aurc(None, None, confidence, loss=losses) > 2 * sele(
        None, None, confidence, loss=losses
    )


@given(samples())
def test_log_estimator_never_exceeds_harmonic_eq20(problem):
    confidence, losses = problem
    harmonic = aurc(None, None, confidence, loss=losses)
    log = aurc(None, None, confidence, loss=losses, aurc_estimator="log")
    assert log <= harmonic + 1e-12


@given(samples(), st.sampled_from(["harmonic", "log"]))
def test_e_aurc_is_non_negative_and_zero_for_the_oracle(problem, estimator):
    confidence, losses = problem
    value = aurc(None, None, confidence, loss=losses, aurc_estimator=estimator)
    oracle = aurc(None, None, -losses, loss=losses, aurc_estimator=estimator)
    assert value >= oracle - 1e-12
    assert e_aurc(None, None, confidence, loss=losses, aurc_estimator=estimator) == (
        pytest.approx(value - oracle, abs=1e-12)
    )
    # Any strictly decreasing function of the loss is an oracle.
    for decreasing in (-losses, -rankdata(losses), -np.sqrt(losses) - 2):
        keeps_order = rankdata(decreasing) == rankdata(-losses)
        if keeps_order.all():  # the square root may merge nearly equal losses
            assert (
                e_aurc(None, None, decreasing, loss=losses, aurc_estimator=estimator)
                == 0
            )


def test_e_aurc_stays_non_negative_where_the_asymptotic_oracle_fails():
    """Subtracting r + (1 - r) ln(1 - r) gives a negative excess here; we do not."""
    losses = np.array([1.0] * 9 + [0.0])
    confidence = np.arange(10.0)  # perfect ranking
    value = aurc(None, None, confidence, loss=losses, aurc_estimator="log")
    risk = losses.mean()
    assert value - (risk + (1 - risk) * math.log(1 - risk)) < -0.02
    assert e_aurc(None, None, confidence, loss=losses, aurc_estimator="log") == 0.0


@given(samples(min_n=2))
def test_naurc_is_zero_for_the_oracle(problem):
    _, losses = problem
    value = _quiet(naurc, None, None, -losses, loss=losses)
    if np.unique(losses).shape[0] < 2:
        assert math.isnan(value)
    else:
        assert value == 0.0


def test_naurc_warns_when_every_loss_is_equal():
    with pytest.warns(UndefinedMetricWarning, match="naurc is undefined"):
        assert math.isnan(naurc(None, None, [0.1, 0.2, 0.3], loss=[1.0, 1.0, 1.0]))


# ------------------------------------------------------------------------------------
# [AUGRC] and [UQ]
# ------------------------------------------------------------------------------------
@given(samples(binary=True), st.booleans())
def test_augrc_eq7_holds_exactly(problem, weighted):
    confidence, failures = problem
    n = confidence.shape[0]
    w = (np.arange(n) % 4) * 0.5 + 0.25 if weighted else np.ones(n)
    accuracy = 1 - np.average(failures, weights=w)
    value = augrc(None, None, confidence, loss=failures, sample_weight=w)
    if accuracy in (0.0, 1.0):
        assert value == pytest.approx((1 - accuracy) ** 2 / 2, abs=1e-15)
        return
    auc = uq_auc(None, None, confidence, loss=failures, sample_weight=w)
    expected = (1 - auc) * accuracy * (1 - accuracy) + (1 - accuracy) ** 2 / 2
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-15)
    # [UQ] Lemma 3.1: G-AUC = 2 AUGRC lies in [0, 1].
    assert 0 <= 2 * value <= 1 + 1e-12


@pytest.mark.parametrize("n", [3, 4, 5])
def test_augrc_random_and_perfect_reference_values(n):
    failures = np.array([1.0] + [0.0] * (n - 1))
    accuracy = 1 - failures.mean()
    confidence = np.arange(n, dtype=float)
    values = [
        augrc(None, None, confidence, loss=failures[list(p)])
        for p in itertools.permutations(range(n))
    ]
    assert np.mean(values) == pytest.approx((1 - accuracy) / 2)
    assert augrc(None, None, -failures, loss=failures) == pytest.approx(
        (1 - accuracy) ** 2 / 2
    )


# ------------------------------------------------------------------------------------
# Invariances and the SPEC's weight conventions, for every metric.
# ------------------------------------------------------------------------------------
def _uq_c_index_from_losses(y_true, y_pred, confidence, *, loss, sample_weight=None):
    # uq_c_index needs probabilities: encode the loss as the true class's probability.
    p_true = 1 / (1 + np.asarray(loss))
    y_proba = np.column_stack([p_true, 1 - p_true])
    return uq_c_index(
        np.zeros(len(p_true), int),
        y_proba,
        confidence,
        labels=[0, 1],
        sample_weight=sample_weight,
    )


def _binary(metric):
    def wrapped(y_true, y_pred, confidence, *, loss, sample_weight=None):
        return metric(
            y_true,
            y_pred,
            confidence,
            loss=(np.asarray(loss) > 1).astype(float),
            sample_weight=sample_weight,
        )

    return wrapped


# (name, metric, invariant to scaling all weights)
METRICS = [
    ("aurc", aurc, False),
    ("aurc_log", partial(aurc, aurc_estimator="log"), False),
    ("sele", sele, False),
    ("e_aurc", e_aurc, False),
    ("naurc", naurc, False),
    ("augrc", augrc, True),
    ("uq_auc", _binary(uq_auc), True),
    ("uq_c_index", _uq_c_index_from_losses, True),
    ("risk_at_coverage", partial(selective_risk_at_coverage, coverage=0.37), True),
    ("coverage_at_risk", partial(coverage_at_risk, risk=0.8), True),
    ("risk_coverage_curve", risk_coverage_curve, True),
    ("generalized_curve", generalized_risk_coverage_curve, True),
]


def _assert_same(a, b, rtol=1e-12):
    if isinstance(a, tuple):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_allclose(x, y, rtol=rtol, atol=1e-13)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-13)


@pytest.fixture
def tied_problem():
    rng = np.random.default_rng(42)
    n = 60
    confidence = rng.integers(0, 12, n) / 3.0
    losses = rng.exponential(size=n) * 1.5 * (rng.random(n) < 0.6)
    return confidence, losses


@pytest.mark.parametrize("name, metric, _", METRICS, ids=[m[0] for m in METRICS])
def test_unit_weights_equal_no_weights(name, metric, _, tied_problem):
    confidence, losses = tied_problem
    _assert_same(
        metric(None, None, confidence, loss=losses),
        metric(None, None, confidence, loss=losses, sample_weight=np.ones(len(losses))),
    )


@pytest.mark.parametrize("name, metric, _", METRICS, ids=[m[0] for m in METRICS])
def test_integer_weights_equal_repetition(name, metric, _, tied_problem):
    confidence, losses = tied_problem
    counts = np.random.default_rng(0).integers(1, 5, len(losses))
    _assert_same(
        metric(None, None, confidence, loss=losses, sample_weight=counts),
        metric(
            None, None, np.repeat(confidence, counts), loss=np.repeat(losses, counts)
        ),
    )


@pytest.mark.parametrize("name, metric, _", METRICS, ids=[m[0] for m in METRICS])
def test_zero_weight_equals_removal(name, metric, _, tied_problem):
    confidence, losses = tied_problem
    w = (np.arange(len(losses)) % 3 != 0).astype(float)
    keep = w > 0
    _assert_same(
        metric(None, None, confidence, loss=losses, sample_weight=w),
        metric(None, None, confidence[keep], loss=losses[keep]),
    )


@pytest.mark.parametrize(
    "name, metric, scale_invariant", METRICS, ids=[m[0] for m in METRICS]
)
def test_scaling_the_weights(name, metric, scale_invariant, tied_problem):
    confidence, losses = tied_problem
    w = np.random.default_rng(1).random(len(losses)) + 0.1
    base = metric(None, None, confidence, loss=losses, sample_weight=w)
    scaled = metric(None, None, confidence, loss=losses, sample_weight=3.5 * w)
    if scale_invariant:
        _assert_same(base, scaled)
    else:
        # Frequency weights: the finite-sample estimators depend on n = sum(w).
        assert not np.allclose(base, scaled, rtol=1e-9)


@pytest.mark.parametrize("name, metric, _", METRICS, ids=[m[0] for m in METRICS])
def test_invariant_to_permutation_and_increasing_transforms(
    name, metric, _, tied_problem
):
    confidence, losses = tied_problem
    base = metric(None, None, confidence, loss=losses)
    permutation = np.random.default_rng(7).permutation(len(losses))
    permuted = metric(None, None, confidence[permutation], loss=losses[permutation])
    _assert_same(base, permuted)
    for transform in (np.exp, lambda c: 3 * c - 7, np.arctan):
        transformed = metric(None, None, transform(confidence), loss=losses)
        if name.endswith("curve"):  # same points, transformed thresholds
            _assert_same(base[:2], transformed[:2])
            _assert_same(transform(base[2]), transformed[2])
        else:
            _assert_same(base, transformed)


# ------------------------------------------------------------------------------------
# Issue 12: extreme scales and exact zeros
# ------------------------------------------------------------------------------------
# How each metric responds to multiplying every loss by c: linearly or not at all.
LINEAR_IN_LOSS = {
    "aurc": True,
    "aurc_log": True,
    "sele": True,
    "e_aurc": True,
    "naurc": False,
    "augrc": True,
    "risk_at_coverage": True,
    "risk_coverage_curve": True,
    "generalized_curve": True,
}


@pytest.mark.parametrize(
    "name, metric, scale_invariant",
    [m for m in METRICS if m[2]],
    ids=[m[0] for m in METRICS if m[2]],
)
@pytest.mark.parametrize("scale", [1e300, 2.0**1000, 1e-300])
def test_extreme_weights_keep_scale_invariance(
    name, metric, scale_invariant, scale, tied_problem
):
    confidence, losses = tied_problem
    w = np.random.default_rng(1).random(len(losses)) + 0.1
    base = metric(None, None, confidence, loss=losses, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        scaled = metric(None, None, confidence, loss=losses, sample_weight=scale * w)
    _assert_same(base, scaled, rtol=1e-12)


@pytest.mark.parametrize("name, linear", LINEAR_IN_LOSS.items())
@pytest.mark.parametrize("scale", [1e300, 1e308 / 7.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_huge_losses_scale_the_metrics(name, linear, scale, weighted, tied_problem):
    metric = {m[0]: m[1] for m in METRICS}[name]
    confidence, losses = tied_problem
    losses = losses / losses.max()
    w = np.random.default_rng(2).random(len(losses)) + 0.1 if weighted else None
    base = metric(None, None, confidence, loss=losses, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        scaled = metric(None, None, confidence, loss=scale * losses, sample_weight=w)
    if not linear:
        _assert_same(base, scaled)
    elif isinstance(base, tuple):  # curves: (coverage, risk, thresholds)
        _assert_same(base[0], scaled[0])
        _assert_same(base[1], np.asarray(scaled[1]) / scale)
    else:
        assert scaled / scale == pytest.approx(base, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("name, linear", LINEAR_IN_LOSS.items())
@pytest.mark.parametrize("weighted", [False, True])
def test_tiny_losses_scale_the_metrics(name, linear, weighted, tied_problem):
    """Losses below 2**-300 are scaled up exactly before use: full precision."""
    metric = {m[0]: m[1] for m in METRICS}[name]
    confidence, losses = tied_problem
    w = np.random.default_rng(3).random(len(losses)) + 0.1 if weighted else None
    base = metric(None, None, confidence, loss=losses, sample_weight=w)
    scale = 2.0**-1000
    scaled = metric(None, None, confidence, loss=scale * losses, sample_weight=w)
    if not linear:
        _assert_same(base, scaled)
    elif isinstance(base, tuple):
        _assert_same(base[1], np.asarray(scaled[1]) / scale)
    else:
        assert scaled / scale == pytest.approx(base, rel=1e-13)


@pytest.mark.parametrize("n", [1, 2, 3, 1000, 65536, 65537])
@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("name, metric, _", METRICS, ids=[m[0] for m in METRICS])
def test_unit_weight_fast_paths_equal_the_weighted_path(name, metric, _, n, binary):
    """Without weights and ties, the metrics read precomputed weights (up to
    the harmonic table's 65536 samples) and skip the zero-weight masks."""
    rng = np.random.default_rng(n)
    confidence = rng.random(n)
    losses = (rng.random(n) < 0.3) * (1.0 if binary else rng.exponential(size=n))
    unweighted = _quiet(metric, None, None, confidence, loss=losses)
    weighted = _quiet(
        metric, None, None, confidence, loss=losses, sample_weight=np.ones(n)
    )
    _assert_same(unweighted, weighted, rtol=1e-13)
    if name == "uq_auc":  # integer pair counts: exact
        assert unweighted == weighted or (
            math.isnan(unweighted) and math.isnan(weighted)
        )


@pytest.mark.parametrize("metric", [e_aurc, naurc])
def test_zero_one_loss_with_huge_weights_keeps_the_binary_oracle(metric):
    """Weights summing past 2**300 scale the 0/1 losses to 1/2: the oracle of
    the failures must still come out as for the same losses given as an array."""
    rng = np.random.default_rng(5)
    y_true = rng.integers(0, 3, 50)
    y_pred = np.where(rng.random(50) < 0.3, (y_true + 1) % 3, y_true)
    confidence = rng.random(50)
    w = np.full(50, 1e100)
    from_labels = metric(y_true, y_pred, confidence, sample_weight=w)
    losses = (y_true != y_pred).astype(float)
    from_losses = metric(None, None, confidence, loss=losses, sample_weight=w)
    assert from_labels == pytest.approx(from_losses, rel=1e-12)


@pytest.mark.parametrize("metric", [aurc, partial(aurc, aurc_estimator="log"), sele])
def test_frequency_weights_near_the_float_limit(metric):
    """Weights of 1e300 give finite values without warnings; a total beyond the
    largest float64 is refused with a clear message."""
    confidence = np.random.default_rng(6).random(50)
    losses = (np.arange(50) % 3 == 0).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        moderate = metric(
            None, None, confidence, loss=losses, sample_weight=np.full(50, 1e100)
        )
        huge = metric(
            None, None, confidence, loss=losses, sample_weight=np.full(50, 1e300)
        )
    assert huge == pytest.approx(moderate, rel=1e-12)
    with pytest.raises(ValueError, match="sums to more than the largest float64"):
        metric(None, None, confidence, loss=losses, sample_weight=np.full(50, 1e307))


def test_augrc_and_uq_auc_with_weights_of_1e300():
    confidence, losses = [0.9, 0.5, 0.3, 0.1], [0.0, 1.0, 0.0, 1.0]
    w = np.full(4, 1e300)
    assert augrc(None, None, confidence, loss=losses, sample_weight=w) == 0.1875
    assert uq_auc(None, None, confidence, loss=losses, sample_weight=w) == 0.75
    big = 1e308 * np.array(losses)
    assert augrc(None, None, confidence, loss=big) == pytest.approx(0.1875e308)


def test_e_aurc_and_naurc_are_exactly_zero_for_a_perfect_ranking():
    assert e_aurc(None, None, [0, 1, 2, 3, 4], loss=[1, 1, 0, 0, 0]) == 0.0
    assert naurc(None, None, [0, 1, 2, 3, 4], loss=[1, 1, 0, 0, 0]) == 0.0


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("estimator", ["harmonic", "log"])
def test_e_aurc_is_exactly_zero_for_every_oracle_optimal_ranking(seed, estimator):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    losses = rng.choice([0.0, 0.1, 0.3, 1.0, 2.5], n)
    w = rng.choice([0.0, 0.3, 1.0, 7.0], n) if seed % 2 else None
    if w is not None and not w.any():
        w[0] = 1.0
    # Any confidence that decreases with the loss, ties only within one loss.
    confidence = -losses * 100 + rng.integers(0, 3, n) * (seed % 3 != 0)
    kwargs = {"loss": losses, "sample_weight": w, "aurc_estimator": estimator}
    assert e_aurc(None, None, confidence, **kwargs) == 0.0
    value = _quiet(naurc, None, None, confidence, **kwargs)
    single_loss = np.unique(losses if w is None else losses[w > 0]).shape[0] < 2
    assert math.isnan(value) if single_loss else value == 0.0
    # Ties across two loss values are not optimal: the excess is positive.
    if np.unique(losses).shape[0] > 1:
        merged = np.where(losses == losses.max(), -losses.max() * 100, confidence)
        merged[np.argmin(losses)] = -losses.max() * 100
        positive = w is None or (
            w[losses == losses.max()].any() and w[np.argmin(losses)] > 0
        )
        if positive:
            assert e_aurc(None, None, merged, **kwargs) > 0


@pytest.mark.parametrize("seed", range(10))
def test_binary_oracle_shortcut_matches_the_sorted_oracle(seed):
    from sklearn_selective.metrics._core._group_stats import (
        GroupStats,
        aurc_from_stats,
        group_ties,
    )
    from sklearn_selective.metrics._core._oracle import (
        naurc_from_stats,
        oracle_stats,
    )

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 50))
    losses = (rng.random(n) < rng.random()).astype(float)
    w = [None, rng.random(n) * (rng.random(n) < 0.7)][seed % 2]
    if w is not None and not w.any():
        w[0] = 1.0
    fast = oracle_stats(losses, w)
    slow = GroupStats.from_samples(group_ties(-losses), losses, w)
    np.testing.assert_allclose(fast.weight, slow.weight, rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(fast.loss, slow.loss, rtol=1e-14)
    assert aurc_from_stats(fast) == pytest.approx(aurc_from_stats(slow), rel=1e-13)
    stats = GroupStats.from_samples(group_ties(rng.random(n)), losses, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(
            naurc_from_stats(stats, fast), naurc_from_stats(stats, slow), rtol=1e-12
        )


def test_harmonic_table_keeps_full_relative_precision():
    """Differences of harmonic numbers from the exact fixed-point table, against a
    correctly rounded sum (math.fsum), including gaps of one at the table's end."""
    from sklearn_selective.metrics._core._alpha import (
        _TABLE_SIZE,
        _tabulated_difference,
    )

    rng = np.random.default_rng(0)
    x = np.concatenate([rng.integers(1, _TABLE_SIZE + 1, 200), [_TABLE_SIZE] * 3])
    y = np.concatenate([(x[:200] * rng.random(200)).astype(int), x[200:] - [1, 2, 7]])
    got = _tabulated_difference(x, y)
    for a, b, value in zip(x, y, got, strict=True):
        expected = math.fsum(1.0 / k for k in range(int(b) + 1, int(a) + 1))
        assert value == pytest.approx(expected, rel=1e-15)


@given(
    weights=st.lists(
        st.one_of(
            st.integers(0, 2**15).map(float),
            st.floats(0.1, 5.0),
            st.sampled_from([1.0000000000000002, 2.0**16, 2.0**16 + 1]),
        ),
        min_size=1,
        max_size=2,
    ),
    loss=st.floats(0.001, 1e6),
    group=st.integers(0, 1),
)
def test_one_group_aurc_equals_the_array_path(weights, loss, group):
    """The scalar AURC of one group with loss (the oracle of 0/1 losses) makes the
    operations of the array path: the values are identical, bit for bit."""
    from sklearn_selective.metrics._core import _alpha
    from sklearn_selective.metrics._core import _group_stats as _core

    group = min(group, len(weights) - 1)
    losses = [0.0] * len(weights)
    losses[group] = loss
    weight, losses = np.array(weights), np.array(losses)
    scalar = _core._one_group_aurc(losses.tolist(), weight.tolist())
    cumulative = np.cumsum(weight)
    upto = cumulative[[group]]
    below = upto - weight[[group]]
    n = np.array([cumulative[-1]])
    if upto[0] <= below[0]:  # a group of no weight carries no loss
        assert scalar is None
        return
    alpha = _alpha._harmonic_alpha(below, upto, n)
    array = np.dot(alpha, losses[[group]]) / float(cumulative[-1])
    integers = _alpha._integer_bounds(below, upto, n)
    assert (scalar is None) == (integers is None)
    if scalar is not None:
        assert scalar == array
    assert _core.aurc_from_stats(_core.GroupStats(weight, losses)) == array


@pytest.mark.parametrize(
    "n, below, upto",
    [(200_000, 160_000, 200_000), (200_000, 199_999, 200_000), (1000, 500, 900)],
)
def test_log_estimator_weights_near_full_coverage_are_precise(n, below, upto):
    # The mean of -ln(1 - r / (n + 1)) over a group's positions: 1 - r / (n + 1)
    # cancels near r = n, where computing it exactly matters (it cost 1e-12).
    from sklearn_selective.metrics._core._alpha import _log_alpha

    positions = range(n + 1 - upto, n + 1 - below)
    expected = math.log(n + 1) - math.fsum(map(math.log, positions)) / (upto - below)
    alpha = _log_alpha(
        np.array([below], float), np.array([upto], float), np.array([n], float)
    )
    assert alpha[0] == pytest.approx(expected, rel=4e-16)


@pytest.mark.parametrize("estimator", ["harmonic", "log"])
@pytest.mark.parametrize("weights", [None, "constant", "random"])
def test_aurc_summed_in_pieces_is_the_same(monkeypatch, estimator, weights):
    # Above 2**20 groups the AURC sum is taken a piece at a time (bounded memory).
    from sklearn_selective.metrics._core import _group_stats as _core

    rng = np.random.default_rng(3)
    n = 300
    confidence = np.round(rng.random(n), 2)
    losses = rng.random(n) * (rng.random(n) < 0.4)
    sample_weight = {
        None: None,
        "constant": np.full(n, 2.0),
        "random": rng.random(n) * 3,
    }[weights]
    whole = aurc(
        None,
        None,
        confidence,
        loss=losses,
        sample_weight=sample_weight,
        aurc_estimator=estimator,
    )
    monkeypatch.setattr(_core, "_AURC_PIECE", 7)
    pieces = aurc(
        None,
        None,
        confidence,
        loss=losses,
        sample_weight=sample_weight,
        aurc_estimator=estimator,
    )
    assert pieces == pytest.approx(whole, rel=1e-14)
    # The unit-weight path without ties (above the harmonic table's size).
    monkeypatch.setattr(_core, "_TABLE_SIZE", 10)
    distinct = rng.permutation(n).astype(float)
    expected = aurc(None, None, distinct, loss=losses, aurc_estimator=estimator)
    monkeypatch.setattr(_core, "_AURC_PIECE", 2**20)
    assert expected == pytest.approx(
        aurc(None, None, distinct, loss=losses, aurc_estimator=estimator), rel=1e-14
    )
