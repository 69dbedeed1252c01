"""The guarantee procedures (``_selective/_guarantees.py``): transcriptions of
fixed-sequence testing and of SGR, the level in simulation, and what the
classifier says."""

import math
import warnings

import numpy as np
import pytest
from scipy.stats import binomtest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import load_breast_cancer
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_selective import SelectiveClassifier
from sklearn_selective._selective._curve import _ValidationCurve
from sklearn_selective._selective._guarantees import (
    SGR,
    FixedSequence,
    clopper_pearson_upper,
    min_samples_for_guarantee,
    risk_starts,
    samples_needed,
    sgr_n_tests,
)
from sklearn_selective.exceptions import GuaranteeNotMetWarning


# --------------------------------------------------------------------------------------
# The procedure, written out
# --------------------------------------------------------------------------------------
def _starts_by_search(n, target, alpha, ratio=3.0):
    """The smallest S with at most S starts m0 * ratio**i <= n, m0 the fewest
    accepted samples whose no-failure p-value (1 - target)**m0 is <= alpha / S."""
    for n_starts in range(1, 200):
        m0 = next(m for m in range(1, 10**6) if (1 - target) ** m <= alpha / n_starts)
        if m0 >= n:
            return [n], n_starts
        count = 0
        while m0 * ratio**count <= n:
            count += 1
        if count <= n_starts:
            return [min(n, math.ceil(m0 * ratio**i)) for i in range(count)], n_starts
    raise AssertionError("unreachable")


def _fixed_sequence_transcription(confidence, losses, target, alpha, cap=None):
    """Index-free transcription: thresholds from the most confident down, exact
    binomial p-values by scipy, one walk per start, and the cap walked from the
    least confident threshold up."""
    thresholds = np.unique(confidence)[::-1]
    n = len(confidence)
    accepted = [int(np.sum(confidence >= t)) for t in thresholds]
    failures = [int(np.sum(losses[confidence >= t])) for t in thresholds]
    alpha_risk = alpha if cap is None else alpha / 2
    starts, n_walks = _starts_by_search(n, target, alpha_risk)
    level = alpha_risk / n_walks
    p = [
        binomtest(k, m, target, alternative="less").pvalue
        for k, m in zip(failures, accepted, strict=True)
    ]
    best = None
    for count in starts:
        j = next((j for j, m in enumerate(accepted) if m >= count), None)
        last = None
        while j is not None and j < len(p) and p[j] <= level:
            last, j = j, j + 1
        if last is not None and (best is None or last > best):
            best = last
    if best is not None and cap is not None:
        q = [binomtest(m, n, 1 - cap, alternative="greater").pvalue for m in accepted]
        j, lowest = len(q) - 1, None
        while j >= 0 and q[j] <= alpha / 2:
            lowest, j = j, j - 1
        if lowest is None or best < lowest:
            best = None
    return math.inf if best is None else thresholds[best]


@pytest.mark.parametrize("seed", range(12))
def test_fixed_sequence_matches_a_transcription(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(150, 600))
    confidence = np.round(rng.random(n), 2)  # ties
    losses = (rng.random(n) < 0.3 * (1 - confidence) ** 2).astype(float)
    target = float(rng.choice([0.02, 0.05, 0.1]))
    level = float(rng.choice([0.8, 0.9, 0.95]))
    cap = [None, 0.5, 0.8][seed % 3]
    curve = _ValidationCurve.from_samples(confidence, losses, None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GuaranteeNotMetWarning)
        fit = FixedSequence(max_abstention_rate=cap).certify(curve, target, level)
    expected = _fixed_sequence_transcription(confidence, losses, target, 1 - level, cap)
    assert fit.threshold == expected
    if math.isfinite(fit.threshold):
        assert fit.risk_bound <= target


@pytest.mark.parametrize(
    "n, target, alpha", [(1000, 0.05, 0.1), (1000, 0.02, 0.1), (5000, 0.005, 0.1)]
)
def test_starts_are_where_a_walk_can_succeed(n, target, alpha):
    starts, n_walks = risk_starts(n, target, alpha)
    assert (starts, n_walks) == _starts_by_search(n, target, alpha)
    assert len(starts) <= n_walks
    level = alpha / n_walks
    assert (1 - target) ** starts[0] <= level < (1 - target) ** (starts[0] - 1)


def test_samples_needed_is_the_smallest_size_that_certifies():
    needed = samples_needed(0.01, 0.03, 0.05)
    assert clopper_pearson_upper(math.floor(0.01 * needed), needed, 0.05) <= 0.03
    smaller = needed - 1
    assert clopper_pearson_upper(math.floor(0.01 * smaller), smaller, 0.05) > 0.03
    assert samples_needed(0.05, 0.03, 0.05) is None


# --------------------------------------------------------------------------------------
# SGR, kept for reproduction
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("n, k", [(1, 0), (10, 0), (10, 3), (50, 7), (200, 0), (7, 7)])
@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
def test_clopper_pearson_matches_scipy_exact_interval(n, k, alpha):
    expected = (
        binomtest(k, n, alternative="less")
        .proportion_ci(confidence_level=1 - alpha, method="exact")
        .high
    )
    assert clopper_pearson_upper(k, n, alpha) == pytest.approx(expected, rel=1e-10)


def _sgr_transcription(confidence, losses, target_risk, delta):
    """Geifman & El-Yaniv (2017), Algorithm 1, over the distinct thresholds."""
    thresholds = np.unique(confidence)[::-1]  # decreasing: coverage increases
    k = math.ceil(math.log2(len(thresholds) + 1))
    lo, hi, result = -1, len(thresholds), (math.inf, None)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        accepted = confidence >= thresholds[mid]
        failures, trials = int(losses[accepted].sum()), int(accepted.sum())
        bound = (
            1.0
            if failures == trials
            else binomtest(failures, trials, alternative="less")
            .proportion_ci(confidence_level=1 - delta / k, method="exact")
            .high
        )
        if bound < target_risk:
            lo, result = mid, (thresholds[mid], bound)
        else:
            hi = mid
    return result


@pytest.mark.filterwarnings("ignore:No threshold")
@pytest.mark.parametrize("seed", range(20))
def test_sgr_matches_a_transcription_of_algorithm_1(seed):
    rng = np.random.default_rng(seed)
    n = 400
    confidence = rng.integers(0, 60, n) / 60
    losses = (rng.random(n) < 0.4 * (1 - confidence)).astype(float)
    target, delta = 0.08, 0.1
    fit = SGR().certify(
        _ValidationCurve.from_samples(confidence, losses, None), target, 1 - delta
    )
    threshold, bound = _sgr_transcription(confidence, losses, target, delta)
    assert fit.threshold == threshold
    if bound is not None:
        assert fit.risk_bound == pytest.approx(bound, rel=1e-10)
        assert fit.risk_bound >= fit.risk
        assert fit.risk_bound < target


def test_sgr_abstains_with_a_warning_when_nothing_is_certified():
    confidence = np.linspace(0, 1, 500)
    losses = np.ones(500)
    with pytest.warns(UserWarning, match="abstains on every sample"):
        fit = SGR().certify(
            _ValidationCurve.from_samples(confidence, losses, None), 0.1, 0.9
        )
    assert fit.threshold == math.inf and fit.coverage == 0


def test_sgr_refuses_too_few_samples():
    needed = min_samples_for_guarantee(0.01, 0.95, sgr_n_tests(10))
    # With one sample fewer than needed, zero failures cannot certify the target.
    assert clopper_pearson_upper(0, needed - 1, 0.05 / sgr_n_tests(10)) >= 0.01
    assert clopper_pearson_upper(0, needed, 0.05 / sgr_n_tests(10)) < 0.01
    confidence = np.arange(10.0)
    with pytest.raises(ValueError, match="cannot be certified from 10 validation"):
        SGR().certify(
            _ValidationCurve.from_samples(confidence, np.zeros(10), None), 0.01, 0.95
        )


# --------------------------------------------------------------------------------------
# The level, in simulation against a known population
# --------------------------------------------------------------------------------------
class _Uniform(ClassifierMixin, BaseEstimator):
    """Predicts class 0 with MSP 0.5 + s / 2, s the feature (uniform on [0, 1]);
    wrong with probability 0.3 (1 - s)^2: coverage c has selective risk 0.1 c^2."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)

    def predict_proba(self, X):
        p = 0.5 + np.asarray(X)[:, 0] / 2
        return np.column_stack([p, 1 - p])


def _draw(rng, n):
    s = rng.random(n)
    return s[:, None], (rng.random(n) < 0.3 * (1 - s) ** 2).astype(int)


def _violation_rate(repeats, n, target, level, cap, seed):
    rng = np.random.default_rng(seed)
    model = FrozenEstimator(_Uniform().fit(None, None))
    bad = 0
    for _ in range(repeats):
        clf = SelectiveClassifier(
            model, target_risk=target, confidence_level=level, max_abstention_rate=cap
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            clf.fit(*_draw(rng, n))
        coverage = min(max(2 * (1 - clf.threshold_), 0.0), 1.0)  # 1 - s threshold
        violated = 0.1 * coverage**2 > target
        if cap is not None:
            violated = violated or 1 - coverage > cap
        bad += violated
    return bad / repeats


@pytest.mark.slow
@pytest.mark.parametrize("cap", [None, 0.7])
def test_the_guarantee_holds_its_level(cap):
    """Every stated constraint holds on the population with probability at least
    the level: violations <= 1 - level + 2 Monte-Carlo s.e. A level that is hard
    to hold (0.7) makes the test able to fail."""
    level, repeats = 0.7, 400
    rate = _violation_rate(repeats, 400, 0.05, level, cap, seed=3)
    delta = 1 - level
    assert rate <= delta + 2 * math.sqrt(delta * (1 - delta) / repeats)


# --------------------------------------------------------------------------------------
# What the classifier says
# --------------------------------------------------------------------------------------
def _breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return make_pipeline(StandardScaler(), LogisticRegression()), X, y


def test_the_first_error_suggests_a_split_that_then_works():
    # issue 25: the suggested cv=0.3, refit=False led to a second failure (SGR
    # certified nothing on 171 calibration samples).
    model, X, y = _breast_cancer()
    with pytest.raises(ValueError, match=r"cv=0\.3, refit=False"):
        SelectiveClassifier(model, target_risk=0.03, confidence_level=0.95).fit(X, y)
    clf = SelectiveClassifier(
        model,
        target_risk=0.03,
        confidence_level=0.95,
        cv=0.3,
        refit=False,
        random_state=0,
    ).fit(X, y)
    assert clf.coverage_ > 0.8
    assert clf.risk_bound_ <= 0.03
    sgr = SelectiveClassifier(
        model,
        target_risk=0.03,
        confidence_level=0.95,
        cv=0.3,
        refit=False,
        random_state=0,
        guarantee="sgr",
    )
    with pytest.warns(UserWarning, match="No threshold certifies"):
        sgr.fit(X, y)
    assert sgr.coverage_ == 0.0


def test_nothing_certified_says_the_best_bound_and_the_size_needed():
    rng = np.random.default_rng(0)
    model = FrozenEstimator(_Uniform().fit(None, None))
    clf = SelectiveClassifier(model, target_risk=0.02, confidence_level=0.9)
    with pytest.warns(UserWarning, match=r"best bound .* validation samples"):
        clf.fit(*_draw(rng, 600))
    assert math.isinf(clf.threshold_)
    assert math.isnan(clf.risk_bound_)


def test_a_review_capacity_the_risk_cannot_meet_abstains_and_says_so():
    rng = np.random.default_rng(1)
    model = FrozenEstimator(_Uniform().fit(None, None))
    X, y = _draw(rng, 3000)
    free = SelectiveClassifier(model, target_risk=0.05, confidence_level=0.9).fit(X, y)
    assert 0.5 < free.coverage_ < 0.71  # the population allows 0.707
    capped = SelectiveClassifier(
        model, target_risk=0.05, confidence_level=0.9, max_abstention_rate=0.2
    )
    with pytest.warns(UserWarning, match=r"abstention rate <= 0\.2 at once"):
        capped.fit(X, y)
    assert math.isinf(capped.threshold_)
    loose = SelectiveClassifier(
        model, target_risk=0.05, confidence_level=0.9, max_abstention_rate=0.6
    ).fit(X, y)
    assert 1 - loose.coverage_ <= 0.6


@pytest.mark.parametrize(
    "params, match",
    [
        ({"max_abstention_rate": 0.3}, "set target_risk and confidence_level"),
        (
            {"max_abstention_rate": 0.3, "target_risk": 0.1},
            "set target_risk and confidence_level",
        ),
        (
            {
                "max_abstention_rate": 0.3,
                "target_risk": 0.1,
                "confidence_level": 0.9,
                "guarantee": "sgr",
            },
            "needs guarantee='fixed_sequence'",
        ),
    ],
)
def test_abstention_cap_parameter_errors(params, match):
    model, X, y = _breast_cancer()
    with pytest.raises(ValueError, match=match):
        SelectiveClassifier(FrozenEstimator(model.fit(X, y)), **params).fit(X, y)
