"""Label-free accuracy estimation: ATC against Eq. 1-3, theorems, baselines."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_selective import (
    ATCEstimator,
    AverageConfidenceEstimator,
    DoCEstimator,
    PerformanceMonitor,
    atc_accuracy,
    average_confidence_accuracy,
    doc_accuracy,
)
from sklearn_selective._shift._accuracy_estimates import (
    _fit_atc,
    _SortedScores,
)
from sklearn_selective.confidence import (
    get_confidence_function,
    get_confidence_function_names,
)


# ----------------------------------------------------------------------------
# Direct transcription of [ATC] Eq. 1-3, one candidate threshold at a time
# ----------------------------------------------------------------------------
def _reference_atc(scores, correct, target_scores, weights=None, target_weights=None):
    """Eq. 1-3 with exact rational arithmetic: distances in weight units."""
    weights = [1] * len(scores) if weights is None else list(weights)
    target_weights = (
        [1] * len(target_scores) if target_weights is None else list(target_weights)
    )
    weights = [Fraction(w) for w in weights]
    error = sum(w for w, c in zip(weights, correct, strict=True) if not c)
    best, best_distance = None, None
    for t in sorted({s for s, w in zip(scores, weights, strict=True) if w > 0}):
        below = sum(w for s, w in zip(scores, weights, strict=True) if s < t)
        distance = abs(error - below)
        if best_distance is None or distance < best_distance:  # ties: lowest t
            best, best_distance = t, distance
    accepted = sum(
        Fraction(w)
        for s, w in zip(target_scores, target_weights, strict=True)
        if s >= best
    )
    return float(accepted / sum(Fraction(w) for w in target_weights))


def test_tied_distance_goes_to_the_lowest_score():
    # Source error 2/5; the candidates 0.8 (1/5 below) and 0.9 (3/5 below) are
    # both at distance 1/5, which floating-point division broke towards 0.9.
    y = [0, 0, 1, 1, 0]
    proba = [[0.8, 0.2], [0.9, 0.1], [0.9, 0.1], [0.5, 0.5], [0.8, 0.2]]
    target = [[0.85, 0.15], [0.88, 0.12], [0.49, 0.51]]
    assert atc_accuracy(y, proba, target) == pytest.approx(2 / 3)
    X = np.arange(5)[:, None]
    atc = ATCEstimator(FrozenEstimator(_FixedProba(proba).fit(X, y))).fit(X, y)
    assert atc.threshold_ == 0.8


class _FixedProba(ClassifierMixin, BaseEstimator):
    """A 'model' whose probabilities for sample i (X[i, 0] == i) are given."""

    def __init__(self, proba):
        self.proba = proba

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.asarray(self.proba)[np.asarray(X)[:, 0].astype(int)]

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]


@st.composite
def weighted_score_problems(draw):
    """Scores on a coarse grid (many ties), integer weights, any correctness."""
    n = draw(st.integers(1, 30))
    scores = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    correct = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    weights = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n).filter(any))
    targets = draw(st.lists(st.integers(-1, 7), min_size=1, max_size=20))
    return (
        np.array(scores) / 7,
        np.array(correct, dtype=float),
        np.array(weights, dtype=float),
        np.array(targets) / 7,
    )


@given(problem=weighted_score_problems())
@example(  # the tie of issue 12: distance 1 below 0.8 and 0.9, in weight units
    problem=(
        np.array([0.8, 0.9, 0.9, 0.5, 0.8]),
        np.array([1.0, 1.0, 0.0, 0.0, 1.0]),
        np.ones(5),
        np.array([0.85, 0.88, 0.51]),
    )
)
def test_atc_threshold_matches_exact_transcription(problem):
    scores, correct, weights, targets = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # all-correct sources
        threshold, _, _ = _fit_atc(scores, correct, weights, 0, None)
    estimate = _SortedScores(targets, None).share_at_or_above(threshold)
    expected = _reference_atc(
        scores.tolist(), correct, targets.tolist(), weights.astype(int).tolist()
    )
    assert estimate == expected


@st.composite
def atc_problems(draw):
    n = draw(st.integers(1, 25))
    k = draw(st.integers(2, 4))
    # A coarse grid: many tied scores, exact arithmetic.
    grid = st.integers(0, 8)
    raw = np.array(
        draw(st.lists(st.lists(grid, min_size=k, max_size=k), min_size=n, max_size=n)),
        float,
    )
    raw[raw.sum(axis=1) == 0, 0] = 1
    proba = raw / raw.sum(axis=1, keepdims=True)
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    m = draw(st.integers(1, 25))
    raw_t = np.array(
        draw(st.lists(st.lists(grid, min_size=k, max_size=k), min_size=m, max_size=m)),
        float,
    )
    raw_t[raw_t.sum(axis=1) == 0, 0] = 1
    weights = draw(
        st.none() | st.lists(st.integers(0, 3), min_size=n, max_size=n).filter(any)
    )
    return y, proba, raw_t / raw_t.sum(axis=1, keepdims=True), weights


@given(
    problem=atc_problems(),
    score=st.sampled_from(["msp", "negative_entropy", "l2_norm"]),
)
def test_atc_matches_transcription(problem, score):
    y, proba, proba_target, weights = problem
    labels = np.arange(proba.shape[1])
    function = get_confidence_function(score)
    correct = labels[proba.argmax(axis=1)] == y
    expected = _reference_atc(
        function(proba).tolist(), correct, function(proba_target).tolist(), weights
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # all-correct sources
        result = atc_accuracy(
            y, proba, proba_target, csf=score, labels=labels, sample_weight=weights
        )
    assert result == pytest.approx(expected, abs=1e-12)


@given(problem=atc_problems())
def test_integer_weights_equal_repetition(problem):
    y, proba, proba_target, weights = problem
    if weights is None:
        return
    labels = np.arange(proba.shape[1])
    repeat = np.asarray(weights)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        weighted = atc_accuracy(
            y, proba, proba_target, labels=labels, sample_weight=weights
        )
        repeated = atc_accuracy(
            np.repeat(y, repeat),
            np.repeat(proba, repeat, axis=0),
            proba_target,
            labels=labels,
        )
    assert weighted == repeated


def test_target_weights():
    y = np.array([0, 0, 1, 1])
    proba = np.array([[0.9, 0.1], [0.6, 0.4], [0.3, 0.7], [0.55, 0.45]])
    target = np.array([[0.95, 0.05], [0.5, 0.5], [0.2, 0.8], [0.58, 0.42]])
    assert atc_accuracy(y, proba, target) == 0.5
    assert atc_accuracy(y, proba, target, target_sample_weight=[3, 1, 0, 1]) == 0.6


# ----------------------------------------------------------------------------
# Theorems and degenerate sources
# ----------------------------------------------------------------------------
PROBABILITY_SCORES = [
    name
    for name in get_confidence_function_names()
    if get_confidence_function(name).model_output == "predict_proba"
]


def _grid_binary(n, rng):
    first = rng.integers(0, 65, size=n) / 64
    return np.column_stack([first, 1 - first])


def test_theorem_1_binary_every_score_gives_the_same_estimate():
    rng = np.random.default_rng(0)
    for _ in range(20):
        proba = _grid_binary(300, rng)
        y = (rng.random(300) < proba[:, 1] * 0.8 + 0.1).astype(int)
        target = _grid_binary(200, rng) ** 1.0
        estimates = {
            score: atc_accuracy(y, proba, target, csf=score, labels=[0, 1])
            for score in PROBABILITY_SCORES
        }
        assert len(set(estimates.values())) == 1, estimates


def test_theorem_2_l2_norm_and_l2_to_uniform_agree_for_any_k():
    rng = np.random.default_rng(1)
    for k in (3, 5, 10):
        counts = rng.multinomial(32, rng.dirichlet(np.ones(k)), size=400)
        proba, target = counts[:250] / 32, counts[250:] / 32
        y = rng.integers(0, k, size=250)
        labels = np.arange(k)
        assert atc_accuracy(y, proba, target, csf="l2_norm", labels=labels) == (
            atc_accuracy(y, proba, target, csf="l2_to_uniform", labels=labels)
        )


def test_all_correct_source_uses_the_lowest_score():
    proba = np.array([[0.9, 0.1], [0.7, 0.3], [0.2, 0.8]])
    y = np.array([0, 0, 1])
    target = np.array([[0.75, 0.25], [0.6, 0.4], [0.1, 0.9]])
    with pytest.warns(UserWarning, match="Every source prediction is correct"):
        estimate = atc_accuracy(y, proba, target)
    assert estimate == pytest.approx(2 / 3)  # 0.6 < 0.7, the lowest source MSP


def test_all_wrong_source_uses_the_highest_score():
    proba = np.array([[0.9, 0.1], [0.7, 0.3], [0.2, 0.8]])
    y = np.array([1, 1, 0])
    target = np.array([[0.95, 0.05], [0.6, 0.4], [0.1, 0.9]])
    with pytest.warns(UserWarning, match="Every source prediction is wrong"):
        estimate = atc_accuracy(y, proba, target)
    assert estimate == pytest.approx(2 / 3)  # 0.95 and 0.9 reach 0.9


def test_tied_source_scores_warn():
    # A fully grown tree scores 1.0 everywhere: the threshold is that one
    # value and ATC said 1.0 for a true accuracy of 0.90, without a word.
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_classification(n_samples=1200, flip_y=0.1, random_state=0)
    tree = DecisionTreeClassifier(random_state=0)
    with pytest.warns(UserWarning, match="Every source score is 1: no ATC threshold"):
        estimate = ATCEstimator(tree).fit(X[:800], y[:800]).estimate_accuracy(X[800:])
    assert estimate == 1.0  # the SPEC's rule, which the warning explains
    tree.fit(X[:400], y[:400])
    with pytest.warns(UserWarning, match="Every source score is 1"):
        PerformanceMonitor(tree, method="atc", n_resamples=0).fit(
            X[400:800], y[400:800]
        )
    half = np.full((50, 2), 0.5)
    with pytest.warns(UserWarning, match="Every source score is 0.5"):
        atc_accuracy(np.arange(50) % 2, half, half)
    with warnings.catch_warnings():  # one distinct score more: no warning
        warnings.simplefilter("error")
        atc_accuracy(np.arange(50) % 2, np.r_[half[1:], [[0.6, 0.4]]], half)


# ----------------------------------------------------------------------------
# Without shift the estimate is unbiased
# ----------------------------------------------------------------------------
def _draw(rng, n, k=4, tilt=1.5):
    """A miscalibrated model: true class probabilities are p ** tilt, renormalised."""
    proba = rng.dirichlet(np.full(k, 0.7), size=n)
    truth = proba**tilt
    truth /= truth.sum(axis=1, keepdims=True)
    y = (truth.cumsum(axis=1) > rng.random((n, 1))).argmax(axis=1)
    return proba, y


def test_no_shift_estimate_is_unbiased():
    rng = np.random.default_rng(2)
    errors = {"msp": [], "negative_entropy": []}
    for _ in range(300):
        proba, y = _draw(rng, 400)
        proba_t, y_t = _draw(rng, 400)
        true_accuracy = np.mean(proba_t.argmax(axis=1) == y_t)
        for score, store in errors.items():
            estimate = atc_accuracy(y, proba, proba_t, csf=score, labels=range(4))
            store.append(estimate - true_accuracy)
    for score, store in errors.items():
        store = np.asarray(store)
        standard_error = store.std(ddof=1) / np.sqrt(store.size)
        assert abs(store.mean()) < 3 * standard_error + 2e-3, score


# ----------------------------------------------------------------------------
# The interval covers the population accuracy (no shift)
# ----------------------------------------------------------------------------
class _ProbaIsX(ClassifierMixin, BaseEstimator):
    """A 'model' whose class probabilities are its input rows."""

    def fit(self, X, y):
        self.classes_ = np.arange(np.asarray(X).shape[1])
        return self

    def predict_proba(self, X):
        return np.asarray(X)

    def predict(self, X):
        return self.predict_proba(X).argmax(axis=1)


def _population_accuracy(tilt=1.5, k=4):
    """E[P(correct)] of the simulated model, from 2e6 draws (s.e. ~ 1e-4)."""
    proba = np.random.default_rng(123).dirichlet(np.full(k, 0.7), size=2_000_000)
    truth = proba**tilt
    truth /= truth.sum(axis=1, keepdims=True)
    return float(truth[np.arange(proba.shape[0]), proba.argmax(axis=1)].mean())


def _interval_coverage(repetitions, n_source, n_target):
    population = _population_accuracy()
    model = FrozenEstimator(_ProbaIsX().fit(np.eye(4), range(4)))
    hits = 0
    for repetition in range(repetitions):
        rng = np.random.default_rng([repetition, 1])  # not the bootstrap's stream
        proba, y = _draw(rng, n_source)
        target, _ = _draw(rng, n_target)
        atc = ATCEstimator(model, n_resamples=200, random_state=repetition)
        _, (low, high) = atc.fit(proba, y).estimate_accuracy(
            target, return_interval=True
        )
        hits += low <= population <= high
    coverage = hits / repetitions
    print(f"coverage {coverage:.4f} over {repetitions} repetitions")
    return coverage, np.sqrt(0.95 * 0.05 / repetitions)


def test_interval_covers_the_population_accuracy():
    # Before the target was resampled too, the coverage was about 0.85 here.
    coverage, standard_error = _interval_coverage(300, n_source=300, n_target=300)
    assert abs(coverage - 0.95) <= 2 * standard_error, coverage


@pytest.mark.slow
def test_interval_covers_the_population_accuracy_long():
    coverage, standard_error = _interval_coverage(1500, n_source=200, n_target=600)
    assert abs(coverage - 0.95) <= 2 * standard_error, coverage


@pytest.mark.slow
@pytest.mark.parametrize("n_source", [50, 200])
@pytest.mark.parametrize("n_target", [50, 200])
def test_interval_is_conservative_at_small_sizes(n_source, n_target):
    # At 50 and 200 samples the interval covers 0.945-0.964 (5000
    # repetitions; the user guide's coverage table 4b): at least its level,
    # not far above it. With numpy's linear percentile rule 50 / 200 covered
    # 0.935.
    coverage, standard_error = _interval_coverage(1000, n_source, n_target)
    assert 0.95 - 2 * standard_error <= coverage <= 0.975, coverage


def test_interval_is_reproducible_and_unit_weights_change_nothing():
    rng = np.random.default_rng(7)
    proba, y = _draw(rng, 200)
    target, _ = _draw(rng, 50)
    model = FrozenEstimator(_ProbaIsX().fit(np.eye(4), range(4)))
    atc = ATCEstimator(model, n_resamples=50, random_state=0).fit(proba, y)
    first = atc.estimate_accuracy(target, return_interval=True)
    assert atc.estimate_accuracy(target, return_interval=True) == first
    estimate, interval = atc.estimate_accuracy(
        target, sample_weight=np.ones(50), return_interval=True
    )  # unit weights change nothing
    assert (estimate, *interval) == pytest.approx((first[0], *first[1]))
    # The target resamples are not the source resamples' stream.
    assert not np.array_equal(
        np.random.default_rng(atc._target_seed).integers(0, 200, 200),
        np.random.default_rng(0).integers(0, 200, 200),
    )


# ----------------------------------------------------------------------------
# Estimators
# ----------------------------------------------------------------------------
def _check(estimator, check):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Every source prediction")
        check(estimator)


# The fast loop checks ATC (few resamples) and DoC (an average-confidence
# estimator with one more step); the full suite also the defaults.
@parametrize_with_checks(
    [
        ATCEstimator(LogisticRegression(), n_resamples=5, random_state=0),
        DoCEstimator(LogisticRegression()),
    ],
)
def test_sklearn_compatible_estimator(estimator, check):
    _check(estimator, check)


@pytest.mark.slow
@parametrize_with_checks(
    [
        ATCEstimator(LogisticRegression()),
        AverageConfidenceEstimator(LogisticRegression()),
    ],
)
def test_sklearn_compatible_estimator_defaults(estimator, check):
    _check(estimator, check)


@pytest.fixture(scope="module")
def shifted():
    X, y = make_classification(
        n_samples=3000,
        n_features=10,
        n_informative=5,
        n_classes=3,
        flip_y=0.05,
        random_state=0,
    )
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(
        X[:1000], y[:1000]
    )
    X_target = X[2000:] + np.random.default_rng(0).normal(scale=1.0, size=(1000, 10))
    return model, X[1000:2000], y[1000:2000], X_target, y[2000:]


def test_frozen_estimator_matches_the_functional_form(shifted):
    model, X_source, y_source, X_target, _ = shifted
    frozen = FrozenEstimator(model)
    proba_source, proba_target = (
        model.predict_proba(X_source),
        model.predict_proba(X_target),
    )
    for score in ("msp", "negative_entropy"):
        atc = ATCEstimator(frozen, csf=score).fit(X_source, y_source)
        assert atc.estimate_accuracy(X_target) == atc_accuracy(
            y_source, proba_source, proba_target, csf=score
        )
        assert np.mean(atc.predict_correct(X_target)) == atc.estimate_accuracy(X_target)
    ac = AverageConfidenceEstimator(frozen).fit(X_source, y_source)
    assert ac.estimate_accuracy(X_target) == pytest.approx(
        average_confidence_accuracy(proba_target), rel=1e-12
    )
    doc = DoCEstimator(frozen).fit(X_source, y_source)
    assert doc.estimate_accuracy(X_target) == pytest.approx(
        doc_accuracy(y_source, proba_source, proba_target), rel=1e-12
    )


def test_bootstrap_is_reproducible_and_predict_correct_averages_to_it(shifted):
    model, X_source, y_source, X_target, _ = shifted
    frozen = FrozenEstimator(model)
    first = ATCEstimator(frozen, n_resamples=100, random_state=3).fit(
        X_source, y_source
    )
    second = ATCEstimator(frozen, n_resamples=100, random_state=3).fit(
        X_source, y_source
    )
    other = ATCEstimator(frozen, n_resamples=100, random_state=4).fit(
        X_source, y_source
    )
    np.testing.assert_array_equal(first.thresholds_, second.thresholds_)
    assert not np.array_equal(first.thresholds_, other.thresholds_)
    estimate, (low, high) = first.estimate_accuracy(X_target, return_interval=True)
    assert low <= estimate <= high
    assert np.mean(first.predict_correct(X_target)) == pytest.approx(
        estimate, abs=1e-12
    )
    # Without shift (the source distribution itself) the estimate is close.
    no_shift = first.estimate_accuracy(X_source)
    assert abs(no_shift - np.mean(model.predict(X_source) == y_source)) < 0.05


def test_cross_validated_and_temperature_scaled_fits(shifted):
    _, X_source, y_source, X_target, _ = shifted
    model = make_pipeline(StandardScaler(), LogisticRegression())
    atc = ATCEstimator(model, cv=3).fit(X_source, y_source)
    assert 0 < atc.estimate_accuracy(X_target) < 1
    assert 0.5 < atc.source_accuracy_ <= 1
    scaled = ATCEstimator(model, temperature_scaling=True, cv=3).fit(X_source, y_source)
    assert isinstance(scaled.estimator_, CalibratedClassifierCV)
    assert 0 < scaled.estimate_accuracy(X_target) < 1


def test_binary_estimator_gives_the_same_estimate_for_every_score():
    X, y = make_classification(n_samples=1200, random_state=5)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:400], y[:400])
    frozen = FrozenEstimator(model)
    estimates = {
        score: ATCEstimator(frozen, csf=score)
        .fit(X[400:800], y[400:800])
        .estimate_accuracy(X[800:] * 1.5)
        for score in PROBABILITY_SCORES
    }
    assert len(set(estimates.values())) == 1, estimates


# ----------------------------------------------------------------------------
# Bad input
# ----------------------------------------------------------------------------
def test_bad_input():
    y = [0, 1]
    proba = [[0.9, 0.1], [0.2, 0.8]]
    with pytest.raises(ValueError, match="same number of samples"):
        atc_accuracy([0, 1, 1], proba, proba)
    with pytest.raises(ValueError, match="3 columns"):
        atc_accuracy(y, [[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]], proba)
    with pytest.raises(ValueError, match="absent from labels"):
        atc_accuracy([0, 5], proba, proba, labels=[0, 1])
    with pytest.raises(ValueError, match="same classes"):
        atc_accuracy(y, proba, [[1.0, 0.0, 0.0]])
    with pytest.raises(ValueError, match="probability-based score"):
        atc_accuracy(y, proba, proba, csf="max_logit")
    with pytest.raises(ValueError, match="sum to 1"):
        atc_accuracy(y, [[0.9, 0.9], [0.2, 0.8]], proba)


def test_unfitted_and_interval_errors(shifted):
    model, X_source, y_source, X_target, _ = shifted
    with pytest.raises(NotFittedError):
        ATCEstimator(model).estimate_accuracy(X_target)
    atc = ATCEstimator(FrozenEstimator(model)).fit(X_source, y_source)
    with pytest.raises(ValueError, match="set n_resamples"):
        atc.estimate_accuracy(X_target, return_interval=True)
    with pytest.raises(ValueError, match="confidence_level"):
        atc.estimate_accuracy(X_target, confidence_level=1.5)


@pytest.mark.parametrize(
    "csf, match",
    [
        (lambda p: np.full(p.shape[0], np.nan), "NaN or infinite"),
        (lambda p: np.where(p[:, 0] > 0.5, np.inf, 0.0), "NaN or infinite"),
        (lambda p: p, r"shape \(2, 2\)"),
        (lambda p: p.max(axis=1)[:1], r"shape \(1,\)"),
        (lambda p: ["a"] * p.shape[0], "calling it failed|finite float"),
    ],
)
def test_callable_score_output_is_validated(csf, match):
    y = [0, 1]
    proba = [[0.9, 0.1], [0.2, 0.8]]
    with pytest.raises(ValueError, match=match) as info:
        atc_accuracy(y, proba, proba, csf=csf)
    assert "csf=" in str(info.value)


def test_score_is_the_negative_estimation_error(shifted):
    model, X_source, y_source, X_target, y_target = shifted
    frozen = FrozenEstimator(model)
    accuracy = np.mean(model.predict(X_target) == y_target)
    for estimator in (
        ATCEstimator(frozen, csf="negative_entropy"),
        AverageConfidenceEstimator(frozen),
        DoCEstimator(frozen),
    ):
        estimator.fit(X_source, y_source)
        expected = -abs(estimator.estimate_accuracy(X_target) - accuracy)
        assert estimator.score(X_target, y_target) == pytest.approx(expected)
        weights = np.arange(y_target.shape[0]) % 3
        estimate = estimator.estimate_accuracy(X_target, sample_weight=weights)
        weighted = np.average(model.predict(X_target) == y_target, weights=weights)
        assert estimator.score(
            X_target, y_target, sample_weight=weights
        ) == pytest.approx(-abs(estimate - weighted))
    with pytest.raises(ValueError, match="one label per sample"):
        estimator.score(X_target, y_target[:-1])
    grid = GridSearchCV(
        ATCEstimator(frozen), {"csf": ["msp", "negative_entropy"]}, cv=2
    ).fit(X_source, y_source)
    assert grid.best_params_["csf"] in ("msp", "negative_entropy")


def test_labels_of_another_type_than_the_classes_are_named():
    # Integer labels for a model of string classes scored -0.955 (every sample
    # an error), and gave DoC's regression a drop of 0.896 per shifted set.
    X, y = make_classification(n_samples=600, random_state=0)
    names = np.array(["neg", "pos"])[y]
    for estimator in (
        ATCEstimator(LogisticRegression()),
        DoCEstimator(LogisticRegression()),
    ):
        estimator.fit(X[:400], names[:400])
        assert estimator.score(X[400:], names[400:]) > -0.1
        with pytest.raises(
            ValueError, match=r"y holds numbers but .* classes_ are strings"
        ):
            estimator.score(X[400:], y[400:])
        gaps = names[400:].astype(object)
        gaps[[3, 7]] = None, np.nan  # were counted as errors, silently
        with pytest.raises(ValueError, match=r"y contains NaN \(missing labels\)"):
            estimator.score(X[400:], gaps)
    with pytest.raises(ValueError, match=r"shifted_sets\[1\]\[1\] holds numbers"):
        estimator.fit_regression([(X[400:500], names[400:500]), (X[500:], y[500:])])


# ----------------------------------------------------------------------------
# Regression DoC ([ATC] Sec. 1.1 and 3.1; Guillory et al. 2021)
# ----------------------------------------------------------------------------
def test_regression_doc_estimator(shifted):
    model, X_source, y_source, X_target, y_target = shifted
    frozen = FrozenEstimator(model)
    rng = np.random.default_rng(5)
    sets = [
        (X_source[:300] + rng.normal(scale=s, size=(300, 10)), y_source[:300])
        for s in (0.3, 0.8, 1.5)
    ]
    doc = DoCEstimator(frozen).fit(X_source, y_source)
    difference = doc.estimate_accuracy(X_target)
    assert doc.fit_regression(sets) is doc
    expected = doc_accuracy(
        y_source,
        model.predict_proba(X_source),
        model.predict_proba(X_target),
        shifted_sets=[(y, model.predict_proba(X)) for X, y in sets],
    )
    assert doc.estimate_accuracy(X_target) == pytest.approx(expected, abs=1e-12)
    assert doc.shift_doc_.shape == doc.shift_accuracy_drop_.shape == (3,)
    slope, intercept = np.polyfit(doc.shift_doc_, doc.shift_accuracy_drop_, 1)
    assert doc.regression_coef_ == pytest.approx(slope)
    assert doc.regression_intercept_ == pytest.approx(intercept, abs=1e-12)
    # On noise of the same kind, the regression is closer than the difference form.
    truth = np.mean(model.predict(X_target) == y_target)
    assert abs(doc.estimate_accuracy(X_target) - truth) < abs(difference - truth)
    # A new fit returns to the difference form.
    doc.fit(X_source, y_source)
    assert not hasattr(doc, "regression_coef_")
    assert doc.estimate_accuracy(X_target) == difference
    with pytest.raises(ValueError, match="one label per sample"):
        doc.fit_regression([(sets[0][0], sets[0][1][:-1]), sets[1]])
    with pytest.raises(TypeError, match="list of"):
        doc.fit_regression(sets[0][0])
    with pytest.raises(NotFittedError):
        DoCEstimator(frozen).fit_regression(sets)


def test_a_regressor_gets_told_a_classifier_is_needed():
    # issue 28: the advice was "use a CSF such as 'max_logit'", which a
    # regressor lacks too.
    from sklearn.linear_model import LinearRegression

    X = np.random.default_rng(0).normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="neither predict_proba nor decision_function"):
        ATCEstimator(LinearRegression()).fit(X, y)


@pytest.mark.parametrize("scale", [1e306, 1e-320])
def test_extreme_weights_give_the_estimates_of_moderate_ones(scale):
    # Sums of 1e306 overflowed (NaN or an overflow warning); subnormal weights
    # kept a few digits and moved the estimates.
    X, y = make_classification(n_samples=600, random_state=0)
    model = LogisticRegression().fit(X[:200], y[:200])
    proba, proba_target = model.predict_proba(X[200:400]), model.predict_proba(X[400:])
    rng = np.random.default_rng(0)
    extreme = [(rng.random(200) + 0.5) * scale for _ in range(2)]
    moderate = [np.ldexp(w, 10 - int(np.frexp(w.max())[1])) for w in extreme]
    for function in (atc_accuracy, doc_accuracy):
        got, want = (
            function(
                y[200:400],
                proba,
                proba_target,
                sample_weight=w[0],
                target_sample_weight=w[1],
            )
            for w in (extreme, moderate)
        )
        assert got == pytest.approx(want, rel=1e-12)
    got, want = (
        average_confidence_accuracy(proba_target, target_sample_weight=w[1])
        for w in (extreme, moderate)
    )
    assert got == pytest.approx(want, rel=1e-12)


def test_temperature_scaling_of_a_regressor_says_a_classifier_is_needed():
    """Issue 35: scikit-learn's message about CalibratedClassifierCV's
    'estimator' parameter, which the user never passed."""
    from sklearn.svm import SVR

    X, y = make_classification(n_samples=100, random_state=0)
    with pytest.raises(ValueError, match=r"temperature_scaling=True.*SVR"):
        ATCEstimator(SVR(), temperature_scaling=True).fit(X, y)
