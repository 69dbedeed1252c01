"""Confidence score functions against direct transcriptions, and their theorems."""

import math
import statistics
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.stats import rankdata
from sklearn.datasets import make_classification
from sklearn.ensemble import (
    BaggingClassifier,
    GradientBoostingClassifier,
    RandomForestClassifier,
    VotingClassifier,
)
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from sklearn_selective import confidence as csf_module
from sklearn_selective.confidence import (
    fit_temperature_scaling,
    get_confidence_function,
    get_confidence_function_names,
    predict_with_confidence,
)
from sklearn_selective.metrics import augrc, aurc

# ----------------------------------------------------------------------------
# Direct transcriptions (one sample at a time, Python floats / mpmath)
# ----------------------------------------------------------------------------


def _entropy(p):
    return -sum(x * math.log(x) for x in p if x > 0)


def _ref_margin(p):
    top = [*sorted(p, reverse=True), 0.0]
    return top[0] - top[1]


def _ref_logit_pnorm(z, p=2.0):
    # Exact rational centring: constant logits give exactly 0, and logits near
    # the float limit neither overflow nor lose digits.
    mean = sum(map(Fraction, z)) / len(z)
    c = [Fraction(x) - mean for x in z]
    scale = max(abs(x) for x in c)
    if scale == 0:
        return 0.0
    c = [float(x / scale) for x in c]  # the ratio is scale-free
    norm = 1.0 if p == math.inf else sum(abs(x) ** p for x in c) ** (1 / p)
    return max(c) / norm


def _ref_js_to_uniform(p):
    """Jensen-Shannon distance to uniform in 50-digit arithmetic.

    (scipy's ``jensenshannon`` returns NaN near the uniform vector.)
    """
    with mpmath.workdps(50):
        u = mpmath.mpf(1) / len(p)
        mix = [(mpmath.mpf(x) + u) / 2 for x in p]
        kl_p = mpmath.fsum(
            x * mpmath.log(x / m) for x, m in zip(p, mix, strict=False) if x > 0
        )
        kl_u = mpmath.fsum(u * mpmath.log(u / m) for m in mix)
        return float(mpmath.sqrt(max(kl_p / 2 + kl_u / 2, 0)))


def _ref_energy(z, temperature=1.0):
    t = mpmath.mpf(temperature)
    return float(t * mpmath.log(mpmath.fsum(mpmath.exp(mpmath.mpf(x) / t) for x in z)))


PROBA_REFERENCES = {
    "msp": max,
    "margin": _ref_margin,
    "negative_entropy": lambda p: -_entropy(p),
    "gini": lambda p: sum(x * x for x in p) - 1,
    "l2_norm": lambda p: math.sqrt(sum(x * x for x in p)),
    "l1_to_uniform": lambda p: sum(abs(x - 1 / len(p)) for x in p),
    "l2_to_uniform": lambda p: math.sqrt(sum((x - 1 / len(p)) ** 2 for x in p)),
    "js_to_uniform": lambda p: _ref_js_to_uniform(p),
}
# Cancellation near the uniform vector limits these two to ~sqrt(eps) absolute.
NEAR_UNIFORM_ATOL = {"l2_to_uniform": 1e-7, "js_to_uniform": 1e-7}


def _argmax(row):
    """Index of the largest value, the first on ties."""
    return max(range(len(row)), key=lambda j: (row[j], -j))


def _ensemble_references(P):
    """All ensemble CSFs of one sample's (m, k) member probabilities."""
    m = len(P)
    mean = [sum(col) / m for col in zip(*P, strict=False)]
    total = -_entropy(mean)
    aleatoric = -sum(_entropy(row) for row in P) / m
    votes = [_argmax(row) for row in P]
    vote_shares = [votes.count(j) / m for j in set(votes)]
    predicted = [row[_argmax(mean)] for row in P]
    return {
        "ensemble_msp": max(mean),
        "total_entropy": total,
        "aleatoric_entropy": aleatoric,
        "mutual_information": total - aleatoric,
        "variation_ratio": max(vote_shares),
        # [UQ] Sec. 7 / 17.1: variance of the predicted class across members,
        # the first-order variance of the prediction, the TTA vote entropy.
        "predicted_class_variance": -statistics.pvariance(predicted),
        "prediction_variance": -sum(p * (1 - p) for p in mean),
        "vote_entropy": -_entropy(vote_shares),
    }


# ----------------------------------------------------------------------------
# Strategies
# ----------------------------------------------------------------------------
@st.composite
def simplex_points(draw, min_classes=1, max_classes=6, max_rows=15):
    k = draw(st.integers(min_classes, max_classes))
    n = draw(st.integers(1, max_rows))
    raw = draw(
        hnp.arrays(
            np.float64,
            (n, k),
            elements=st.one_of(
                st.just(0.0), st.just(1.0), st.floats(0, 1, allow_subnormal=False)
            ),
        )
    )
    raw[raw.sum(axis=1) == 0, 0] = 1.0
    return raw / raw.sum(axis=1, keepdims=True)


logit_arrays = st.integers(1, 6).flatmap(
    lambda k: hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 15), st.just(k)),
        elements=st.one_of(
            st.floats(-1e4, 1e4, allow_subnormal=False), st.sampled_from([-1e4, 0, 1e4])
        ),
    )
)


@st.composite
def ensembles(draw):
    m = draw(st.integers(1, 5))
    points = draw(simplex_points(max_rows=8 * m))
    n = len(points) // m
    if n == 0:
        points = np.repeat(points, m, axis=0)
        n = len(points) // m
    return points[: m * n].reshape(m, n, -1)


def _functions(output):
    return [
        name
        for name in get_confidence_function_names()
        if get_confidence_function(name).model_output == output
    ]


# ----------------------------------------------------------------------------
# Formulas
# ----------------------------------------------------------------------------
def test_every_registered_function_is_exported_and_tested():
    names = set(get_confidence_function_names())
    assert names <= set(csf_module.__all__)
    tested = set(PROBA_REFERENCES) | {"max_logit", "logit_pnorm", "energy"}
    tested |= set(_ensemble_references([[1.0]]))
    tested |= {"mahalanobis", "knn_distance"}  # test_feature_space.py
    assert names == tested


@pytest.mark.parametrize("name", sorted(PROBA_REFERENCES))
@given(proba=simplex_points())
def test_probability_csf_matches_transcription(name, proba):
    result = get_confidence_function(name)(proba)
    expected = [PROBA_REFERENCES[name](list(row)) for row in proba]
    assert result.dtype == np.float64 and result.shape == (len(proba),)
    np.testing.assert_allclose(
        result, expected, rtol=1e-12, atol=NEAR_UNIFORM_ATOL.get(name, 1e-12)
    )


@given(logits=logit_arrays, p=st.sampled_from([1, 1.5, 2, 3, 7.5, math.inf]))
def test_logit_csfs_match_transcriptions(logits, p):
    rows = [list(row) for row in logits]
    np.testing.assert_allclose(
        csf_module.max_logit(logits), [max(r) for r in rows], rtol=1e-15
    )
    np.testing.assert_allclose(
        csf_module.logit_pnorm(logits, p=p),
        [_ref_logit_pnorm(r, p) for r in rows],
        rtol=1e-9,
        atol=1e-12,
    )


@given(logits=logit_arrays, temperature=st.sampled_from([0.01, 0.5, 1.0, 3.0, 1e3]))
def test_energy_matches_high_precision_transcription(logits, temperature):
    result = csf_module.energy(logits, temperature=temperature)
    expected = [_ref_energy(row, temperature) for row in logits]
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)


@given(
    decision=hnp.arrays(np.float64, st.integers(1, 20), elements=st.floats(-1e4, 1e4))
)
def test_binary_decision_function_is_the_centred_two_class_case(decision):
    two_class = np.column_stack([-decision / 2, decision / 2])
    for name in ("max_logit", "logit_pnorm", "energy"):
        function = get_confidence_function(name)
        np.testing.assert_array_equal(function(decision), function(two_class))
    np.testing.assert_allclose(csf_module.max_logit(decision), np.abs(decision) / 2)


@given(P=ensembles())
def test_ensemble_csfs_match_transcriptions(P):
    expected = [_ensemble_references(P[:, i].tolist()) for i in range(P.shape[1])]
    for name in expected[0]:
        result = get_confidence_function(name)(P)
        np.testing.assert_allclose(
            result, [e[name] for e in expected], rtol=1e-12, atol=1e-12
        )


@given(P=ensembles())
def test_entropy_decomposition(P):
    total = csf_module.total_entropy(P)
    aleatoric = csf_module.aleatoric_entropy(P)
    mutual = csf_module.mutual_information(P)
    assert np.all(mutual <= 0)  # MI >= 0; the score is -MI
    np.testing.assert_allclose(total, aleatoric + mutual, atol=1e-12)


def test_uq_paper_ensemble_scores_by_hand():
    # Two samples, four members; sample 0: votes 0, 0, 1, 1 (TTA entropy log 2),
    # sample 1: unanimous votes and identical members (zero variance).
    P = np.array(
        [
            [[0.9, 0.1], [0.7, 0.3]],
            [[0.6, 0.4], [0.7, 0.3]],
            [[0.2, 0.8], [0.7, 0.3]],
            [[0.1, 0.9], [0.7, 0.3]],
        ]
    )
    # Mean of class 0: 0.45 < 0.55, so the ensemble predicts class 1 for sample 0;
    # its probabilities 0.1, 0.4, 0.8, 0.9 have variance 0.41 / 4.
    np.testing.assert_allclose(
        csf_module.predicted_class_variance(P), [-0.1025, 0], atol=1e-15
    )
    np.testing.assert_allclose(
        csf_module.prediction_variance(P), [-2 * 0.45 * 0.55, -2 * 0.7 * 0.3]
    )
    np.testing.assert_allclose(csf_module.vote_entropy(P), [-math.log(2), 0])
    for name in ("predicted_class_variance", "prediction_variance", "vote_entropy"):
        assert get_confidence_function(name).model_output == "ensemble_proba"
    # The UQ paper's "variation ratio" 1 - pihat_yhat is 1 - ensemble_msp; ours
    # is the modal-vote share (0.5 here, where ensemble_msp is 0.55).
    np.testing.assert_allclose(1 - csf_module.ensemble_msp(P), [0.45, 0.3])
    np.testing.assert_allclose(csf_module.variation_ratio(P), [0.5, 1.0])


def test_single_member_ensemble_matches_single_model_csfs():
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(4), size=50)
    np.testing.assert_array_equal(
        csf_module.ensemble_msp(proba[None]), csf_module.msp(proba)
    )
    np.testing.assert_allclose(
        csf_module.total_entropy(proba[None]), csf_module.negative_entropy(proba)
    )
    np.testing.assert_array_equal(csf_module.mutual_information(proba[None]), 0)
    np.testing.assert_array_equal(csf_module.variation_ratio(proba[None]), 1)
    np.testing.assert_array_equal(csf_module.vote_entropy(proba[None]), 0)
    np.testing.assert_array_equal(csf_module.predicted_class_variance(proba[None]), 0)
    np.testing.assert_allclose(
        csf_module.prediction_variance(proba[None]), csf_module.gini(proba)
    )


# ----------------------------------------------------------------------------
# Edge cases: always finite, always float64
# ----------------------------------------------------------------------------
EDGE_PROBAS = {
    "one class": np.ones((3, 1)),
    "two classes with 0 and 1": np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]]),
    "one-hot k=5": np.eye(5),
    "uniform": np.full((2, 7), 1 / 7),
    "float32": np.random.default_rng(1).dirichlet(np.ones(10), 20).astype(np.float32),
    "integers": np.array([[0, 1], [1, 0]]),
}


@pytest.mark.parametrize("name", sorted(PROBA_REFERENCES))
@pytest.mark.parametrize("case", sorted(EDGE_PROBAS))
def test_probability_csfs_are_finite_float64_on_edge_cases(name, case):
    proba = EDGE_PROBAS[case]
    result = get_confidence_function(name)(proba)
    assert result.dtype == np.float64 and result.shape == (proba.shape[0],)
    assert np.isfinite(result).all()


def test_one_hot_and_uniform_extremes():
    eye, uniform = np.eye(4), np.full((1, 4), 0.25)
    assert np.all(csf_module.negative_entropy(eye) == 0)
    np.testing.assert_allclose(csf_module.negative_entropy(uniform), -math.log(4))
    for name in ("l1_to_uniform", "l2_to_uniform", "js_to_uniform"):
        function = get_confidence_function(name)
        assert function(uniform)[0] == pytest.approx(0, abs=1e-7)
        assert np.all(function(eye) > function(uniform))


@pytest.mark.parametrize("name", ["max_logit", "logit_pnorm", "energy"])
def test_logit_csfs_are_finite_for_huge_logits(name):
    logits = np.array([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4], [1e4, 1e4, 1e4]])
    for values in (logits, logits.astype(np.float32), logits[:, 0]):
        result = get_confidence_function(name)(values)
        assert result.dtype == np.float64 and np.isfinite(result).all()


HUGE_LOGITS = np.array(
    [
        [1e308, -1e308, 0.0],
        [1e308, 1e308, -1e308],
        [-1e308, -1e308, -1e308],
        [1.7e308, -1.7e308, 1e308],
        [np.finfo(np.float64).max, -np.finfo(np.float64).max, 0.0],
    ]
)


@pytest.mark.parametrize("p", [1, 2, 3, math.inf])
def test_logit_pnorm_is_exact_for_logits_near_the_float_limit(p):
    # Issue 12 item 5: centring 1e308 overflowed and returned NaN. The score is
    # scale-free, so it must equal the score of the same logits divided by 1e300
    # (and the transcription, which centres in Python floats at that scale).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = csf_module.logit_pnorm(HUGE_LOGITS, p=p)
    small = HUGE_LOGITS / 1e300
    np.testing.assert_allclose(result, csf_module.logit_pnorm(small, p=p), rtol=1e-15)
    np.testing.assert_allclose(
        result, [_ref_logit_pnorm(list(row), p) for row in HUGE_LOGITS], rtol=1e-12
    )
    assert result[2] == 0  # constant logits
    np.testing.assert_allclose(
        csf_module.logit_pnorm(np.array([1e308, -1e308]), p=p), 2 ** (-1 / p)
    )


@pytest.mark.parametrize("p", [1, 2, 3, math.inf])
def test_logit_pnorm_is_exact_for_nearly_constant_logits(p):
    # Logits a few units in the last place apart: the rounded mean used to
    # centre them asymmetrically ([x, x + ulp] scored 1 instead of 2^(-1/p)).
    x = -1e4
    rows = [
        [x, np.nextafter(x, 0)],
        [x, np.nextafter(x, 0), np.nextafter(np.nextafter(x, 0), 0)],
        [0.1, 0.1, np.nextafter(0.1, 1), 0.1],
    ]
    for row in rows:
        expected = _ref_logit_pnorm(row, p)
        assert csf_module.logit_pnorm([row], p=p)[0] == pytest.approx(expected)
    assert csf_module.logit_pnorm([rows[0]], p=p)[0] == pytest.approx(2 ** (-1 / p))


def test_max_logit_and_energy_are_exact_near_the_float_limit():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(
            csf_module.max_logit(HUGE_LOGITS), HUGE_LOGITS.max(axis=1)
        )
        result = csf_module.energy(HUGE_LOGITS)
        hot = csf_module.energy(HUGE_LOGITS, temperature=1e300)
    # Differences of ~1e308 make every other term vanish: energy = max + T log(ties).
    ties = (HUGE_LOGITS.max(axis=1, keepdims=True) == HUGE_LOGITS).sum(axis=1)
    np.testing.assert_allclose(result, HUGE_LOGITS.max(axis=1) + np.log(ties))
    expected = [_ref_energy(row, 1e300) for row in HUGE_LOGITS[:4]]
    np.testing.assert_allclose(hot[:4], expected, rtol=1e-12)
    with pytest.raises(ValueError, match="exceeds the float64 range"):
        csf_module.energy([[1.7e308, 1.7e308]], temperature=1e308)


def test_float32_input_matches_float64():
    proba = EDGE_PROBAS["float32"]
    for name in PROBA_REFERENCES:
        function = get_confidence_function(name)
        np.testing.assert_allclose(
            function(proba), function(proba.astype(np.float64)), rtol=1e-12
        )


def test_large_input_crosses_block_boundaries():
    rng = np.random.default_rng(2)
    proba = rng.dirichlet(np.ones(3), size=100_003)
    np.testing.assert_array_equal(csf_module.msp(proba), proba.max(axis=1))
    np.testing.assert_allclose(
        csf_module.negative_entropy(proba), (proba * np.log(proba)).sum(axis=1)
    )
    P = rng.dirichlet(np.ones(3), size=(3, 40_001))
    np.testing.assert_allclose(csf_module.ensemble_msp(P), P.mean(0).max(1))


def test_probabilities_within_tolerance_are_accepted():
    proba = np.array([[0.5 + 5e-5, 0.5 - 5e-5 - 1e-5], [1.00001, -0.00001]])
    for name in PROBA_REFERENCES:
        assert np.isfinite(get_confidence_function(name)(proba)).all()


# ----------------------------------------------------------------------------
# Invalid input
# ----------------------------------------------------------------------------
INVALID_PROBAS = [
    (np.array([[np.nan, 1.0]]), "without NaN"),
    (np.array([[np.inf, 0.0]]), "without NaN"),
    (np.array([[0.6, 0.6]]), "sum to 1"),
    (np.array([[1.5, -0.5]]), r"in \[0, 1\]"),
    (np.array([0.2, 0.8]), r"shape \(n_samples, n_classes\)"),
    (np.ones((1, 1, 1)), r"shape \(n_samples, n_classes\)"),
    (np.empty((0, 3)), "empty"),
    (np.array([["a", "b"]]), "numeric"),
]


@pytest.mark.parametrize("name", sorted(PROBA_REFERENCES))
@pytest.mark.parametrize("proba, message", INVALID_PROBAS)
def test_invalid_probabilities_raise(name, proba, message):
    with pytest.raises(ValueError, match=message):
        get_confidence_function(name)(proba)


@pytest.mark.parametrize("name", ["max_logit", "logit_pnorm", "energy"])
@pytest.mark.parametrize(
    "logits, message",
    [
        (np.array([[np.nan, 1.0]]), "NaN or infinity"),
        (np.array([np.inf, 1.0]), "NaN or infinity"),
        (np.ones((2, 2, 2)), "shape"),
        (np.empty((0,)), "empty"),
    ],
)
def test_invalid_logits_raise(name, logits, message):
    with pytest.raises(ValueError, match=message):
        get_confidence_function(name)(logits)


@pytest.mark.parametrize("name", sorted(_ensemble_references([[1.0]])))
def test_invalid_ensembles_raise(name):
    function = get_confidence_function(name)
    with pytest.raises(ValueError, match="shape"):
        function(np.eye(3))
    with pytest.raises(ValueError, match="sum to 1"):
        function(np.full((2, 3, 2), 0.7))


def test_unknown_name_lists_valid_names():
    with pytest.raises(
        ValueError, match=r"Unknown confidence function 'softmax'.*'msp'"
    ):
        get_confidence_function("softmax")


def test_callable_is_returned_unchanged():
    def custom(proba):
        return proba[:, 0]

    assert get_confidence_function(custom) is custom


# ----------------------------------------------------------------------------
# Theorems of Maaz et al.
# ----------------------------------------------------------------------------
PROBABILITY_CSFS = _functions("predict_proba")


def _binary_grid(n=400, seed=0):
    """Two-class probabilities on a dyadic grid: exact, with ties and mirror ties."""
    rng = np.random.default_rng(seed)
    first = rng.integers(0, 257, size=n) / 256
    return np.column_stack([first, 1 - first])


def test_theorem_1_binary_all_probability_csfs_induce_one_order():
    proba = _binary_grid()
    ranks = {
        name: rankdata(get_confidence_function(name)(proba))
        for name in PROBABILITY_CSFS
    }
    for name in PROBABILITY_CSFS:
        np.testing.assert_array_equal(ranks[name], ranks["msp"], err_msg=name)


def test_theorem_1_binary_identical_aurc_and_augrc():
    rng = np.random.default_rng(3)
    proba = _binary_grid(seed=3)
    y_true = rng.integers(0, 2, size=len(proba))
    y_pred = proba.argmax(axis=1)
    values = {
        name: (
            aurc(y_true, y_pred, get_confidence_function(name)(proba)),
            augrc(y_true, y_pred, get_confidence_function(name)(proba)),
        )
        for name in PROBABILITY_CSFS
    }
    assert len(set(values.values())) == 1, values


def _binary_pairs(rng, n, log_distance, log_gap):
    """Pairs of binary rows whose largest probabilities are m1 < m2 near 1/2."""
    m1 = 0.5 + 10 ** rng.uniform(*log_distance, n)
    m2 = np.minimum(m1 + 10 ** rng.uniform(*log_gap, n), 1.0)
    keep = m2 > m1
    m1, m2 = m1[keep], m2[keep]
    return m1, m2, np.column_stack([m1, 1 - m1]), np.column_stack([m2, 1 - m2])


def test_theorem_1_floating_point_caveat_near_one_half():
    # The documented caveat (docs/user_guide/confidence.rst): in float64 the
    # binary orders agree whenever (m1 - 1/2) (m2 - m1) >= 1e-14 ...
    rng = np.random.default_rng(0)
    m1, m2, first, second = _binary_pairs(rng, 50_000, (-9, -0.302), (-15, -1))
    resolved = (m1 - 0.5) * (m2 - m1) >= 1e-14
    assert resolved.sum() > 20_000
    for name in PROBABILITY_CSFS:
        function = get_confidence_function(name)
        assert np.all(function(second)[resolved] > function(first)[resolved]), name
    # ... and closer to the uniform vector the quadratic and entropic scores tie
    # pairs that msp orders (the entropic ones can even swap them).
    m1, m2, first, second = _binary_pairs(rng, 20_000, (-12, -3), (-18, -8))
    for name in PROBABILITY_CSFS:
        function = get_confidence_function(name)
        ordered = np.mean(function(second) > function(first))
        if name in {"msp", "margin", "l1_to_uniform"}:
            assert ordered == 1, name
        else:
            assert ordered < 0.6, name
    swapped = csf_module.negative_entropy(second) < csf_module.negative_entropy(first)
    assert swapped.any()
    tie = np.array([[0.5 + 1e-9, 0.5 - 1e-9], [0.5 + 2e-9, 0.5 - 2e-9]])
    assert csf_module.msp(tie)[1] > csf_module.msp(tie)[0]
    assert csf_module.gini(tie)[1] == csf_module.gini(tie)[0]


@given(k=st.integers(2, 12), seed=st.integers(0, 2**32 - 1))
def test_theorem_2_l2_norm_and_l2_to_uniform_same_order(k, seed):
    # Dyadic compositions: exact arithmetic, many exact ties.
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(64, rng.dirichlet(np.ones(k)), size=60)
    counts = np.vstack([counts, counts[:, ::-1]])
    proba = counts / 64
    np.testing.assert_array_equal(
        rankdata(csf_module.l2_norm(proba)), rankdata(csf_module.l2_to_uniform(proba))
    )


def test_counterexample_three_classes():
    # Maaz et al., after Theorem 1: MSP ties p and q, the L2 norm does not.
    proba = np.array([[0.5, 0.2, 0.3], [0.5, 0.5, 0.0]])
    assert csf_module.msp(proba)[0] == csf_module.msp(proba)[1]
    assert csf_module.l2_norm(proba)[0] < csf_module.l2_norm(proba)[1]
    assert csf_module.negative_entropy(proba)[0] < csf_module.negative_entropy(proba)[1]
    np.testing.assert_allclose(csf_module.gini(proba) + 1, [0.38, 0.5])


def test_logit_pnorm_is_constant_for_two_classes():
    decision = np.array([-3.0, 0.5, 10.0])
    np.testing.assert_allclose(csf_module.logit_pnorm(decision, p=2), 2**-0.5)


# ----------------------------------------------------------------------------
# Model outputs
# ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def multiclass():
    return make_classification(
        n_samples=300, n_features=8, n_informative=5, n_classes=3, random_state=0
    )


def test_predict_proba_output(multiclass):
    X, y = multiclass
    model = LogisticRegression(max_iter=1000).fit(X, y)
    for name in PROBABILITY_CSFS:
        y_pred, confidence = predict_with_confidence(model, X, csf=name)
        np.testing.assert_array_equal(y_pred, model.predict(X))
        np.testing.assert_array_equal(
            confidence, get_confidence_function(name)(model.predict_proba(X))
        )


def test_default_csf_follows_the_available_output(multiclass):
    X, y = multiclass
    proba_model = LogisticRegression(max_iter=1000).fit(X, y)
    np.testing.assert_array_equal(
        predict_with_confidence(proba_model, X)[1], proba_model.predict_proba(X).max(1)
    )
    svm = LinearSVC().fit(X, y)
    np.testing.assert_array_equal(
        predict_with_confidence(svm, X)[1], svm.decision_function(X).max(1)
    )


def test_binary_decision_function_output_with_string_labels():
    X, y = make_classification(n_samples=200, random_state=1)
    labels = np.array(["no", "yes"])[y]
    svm = LinearSVC().fit(X, labels)
    y_pred, confidence = predict_with_confidence(svm, X, csf="energy")
    np.testing.assert_array_equal(y_pred, svm.predict(X))
    np.testing.assert_allclose(confidence, csf_module.energy(svm.decision_function(X)))


def test_random_forest_members(multiclass):
    X, y = multiclass
    forest = RandomForestClassifier(n_estimators=15, random_state=0).fit(X, y)
    y_pred, confidence = predict_with_confidence(forest, X, csf="ensemble_msp")
    np.testing.assert_array_equal(y_pred, forest.predict(X))
    np.testing.assert_allclose(confidence, forest.predict_proba(X).max(axis=1))
    members = np.stack([tree.predict_proba(X.astype(np.float32)) for tree in forest])
    np.testing.assert_allclose(
        predict_with_confidence(forest, X, csf="mutual_information")[1],
        csf_module.mutual_information(members),
    )


def test_bagging_with_feature_subsets_and_missing_classes():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 5))
    y = np.array([0] * 28 + [1] * 28 + [2] * 4)  # class 2 is missing in some bags
    # KNN takes no sample_weight, so Bagging fits it on the drawn rows only.
    bagging = BaggingClassifier(
        KNeighborsClassifier(3),
        n_estimators=12,
        max_samples=0.3,
        max_features=3,
        random_state=0,
    ).fit(X, y)
    assert any(len(member.classes_) < 3 for member in bagging.estimators_)
    y_pred, confidence = predict_with_confidence(bagging, X, csf="ensemble_msp")
    np.testing.assert_allclose(confidence, bagging.predict_proba(X).max(axis=1))
    np.testing.assert_array_equal(y_pred, bagging.predict(X))


def test_ensemble_inside_pipeline_and_frozen(multiclass):
    X, y = multiclass
    pipe = make_pipeline(StandardScaler(), RandomForestClassifier(5, random_state=0))
    pipe.fit(X, y)
    for model in (pipe, FrozenEstimator(pipe)):
        y_pred, confidence = predict_with_confidence(model, X, csf="ensemble_msp")
        np.testing.assert_array_equal(y_pred, pipe.predict(X))
        np.testing.assert_allclose(confidence, pipe.predict_proba(X).max(axis=1))


def test_soft_voting_members(multiclass):
    X, y = multiclass
    voting = VotingClassifier(
        [("lr", LogisticRegression(max_iter=1000)), ("nb", GaussianNB())],
        voting="soft",
    ).fit(X, y)
    _, confidence = predict_with_confidence(voting, X, csf="ensemble_msp")
    np.testing.assert_allclose(confidence, voting.predict_proba(X).max(axis=1))


@pytest.mark.parametrize(
    "model, csf, message",
    [
        (GaussianNB(), "energy", "needs a decision_function method"),
        (LinearSVC(), "msp", "needs a predict_proba method"),
        (LogisticRegression(), "mutual_information", "needs an ensemble"),
        (
            GradientBoostingClassifier(n_estimators=2),
            "ensemble_msp",
            "needs an ensemble",
        ),
    ],
)
def test_unsupported_output_raises(multiclass, model, csf, message):
    X, y = multiclass
    model.fit(X, y)
    with pytest.raises(ValueError, match=message):
        predict_with_confidence(model, X, csf=csf)


def test_custom_callable_reads_its_model_output(multiclass):
    X, y = multiclass
    svm = LinearSVC().fit(X, y)

    def second_logit(logits):
        return np.sort(logits, axis=1)[:, -2]

    second_logit.model_output = "decision_function"
    _, confidence = predict_with_confidence(svm, X, csf=second_logit)
    np.testing.assert_allclose(confidence, np.sort(svm.decision_function(X))[:, -2])


def test_custom_callable_with_wrong_output_raises(multiclass):
    X, y = multiclass
    model = LogisticRegression(max_iter=1000).fit(X, y)
    with pytest.raises(ValueError, match="one finite value per sample"):
        predict_with_confidence(model, X, csf=lambda proba: proba)
    with pytest.raises(ValueError, match="NaN or infinity"):
        predict_with_confidence(model, X, csf=lambda proba: proba[:, 0] * np.inf)


def test_temperature_scaling_keeps_predictions_and_changes_confidence():
    X, y = make_classification(
        n_samples=600, n_features=10, n_informative=6, n_classes=3, random_state=2
    )
    model = LogisticRegression(C=100, max_iter=2000).fit(X[:200], y[:200])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scaled = fit_temperature_scaling(model, X[200:400], y[200:400])
    y_model, conf_model = predict_with_confidence(model, X[400:], csf="msp")
    y_scaled, conf_scaled = predict_with_confidence(scaled, X[400:], csf="msp")
    np.testing.assert_array_equal(y_model, y_scaled)
    assert not np.allclose(conf_model, conf_scaled)
    # An overfit model is over-confident: temperature scaling lowers its MSP.
    assert conf_scaled.mean() < conf_model.mean()


def test_js_to_uniform_matches_scipy_on_float16_probabilities():
    """Issue 35: float16 rows sum to 1 only to their rounding; scipy's
    jensenshannon renormalises them and so does js_to_uniform (was 1e-5 off)."""
    from scipy.spatial.distance import jensenshannon

    from sklearn_selective.confidence import js_to_uniform

    proba = np.random.default_rng(0).dirichlet(np.ones(5), size=200)
    proba = proba.astype(np.float16)
    uniform = np.full(5, 0.2)
    expected = [jensenshannon(row.astype(np.float64), uniform) for row in proba]
    np.testing.assert_allclose(js_to_uniform(proba), expected, atol=1e-12)


def test_a_csf_returning_text_is_named_in_the_error():
    """Issue 35: a user's CSF returning strings (was 'could not convert string
    to float')."""
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from sklearn_selective.confidence import predict_with_confidence

    X, y = make_classification(n_samples=50, random_state=0)
    model = LogisticRegression().fit(X, y)

    def my_score(proba):
        return np.array(["high"] * len(proba))

    with pytest.raises(ValueError, match="my_score must return one number per"):
        predict_with_confidence(model, X, my_score)
