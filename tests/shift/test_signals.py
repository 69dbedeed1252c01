"""The monitor's input signals: exact tests, level by simulation, and alerts."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import betabinom, mannwhitneyu
from sklearn.datasets import load_digits
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_selective import PerformanceMonitor, SelectiveClassifier
from sklearn_selective._shift._signals import (
    InputSignals,
    ReferenceBands,
    _auc_test,
    _split_halves,
    mean_band,
)


class _DistanceToMean:
    """A cheap outlier detector: minus the distance to the training mean."""

    def fit(self, X, y=None):
        self.mean_ = X.mean(axis=0)
        return self

    def score_samples(self, X):
        return -np.linalg.norm(X - self.mean_, axis=1)

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self


def _signals(features, detector=None, classifier=None, rate=0.05, seed=0):
    return InputSignals(
        detector or _DistanceToMean(),
        classifier or LogisticRegression(),
        rate,
        seed,
    ).fit(features, np.zeros(features.shape[0], dtype=int))


# ----------------------------------------------------------------------------
# Exact against transcriptions
# ----------------------------------------------------------------------------
def test_novelty_is_the_conformal_count_with_its_beta_binomial_p_value():
    rng = np.random.default_rng(0)
    signals = _signals(rng.normal(size=(301, 3)))
    chunk = rng.normal(size=(40, 3)) * 1.5
    share, limit, p_value = signals.novelty(chunk, alpha=0.01)
    # The transcription: the k-th lowest calibration score, k = floor(r (m + 1)).
    calibration = np.sort(signals.detector_.score_samples(signals.calibration))
    m = calibration.shape[0]
    k = int(0.05 * (m + 1))
    flagged = int((signals.detector_.score_samples(chunk) < calibration[k - 1]).sum())
    assert share == flagged / 40
    null = betabinom(40, k, m + 1 - k)
    assert p_value == pytest.approx(sum(null.pmf(j) for j in range(flagged, 41)))
    # limit: the largest share whose p-value is at least alpha.
    tail = [sum(null.pmf(j) for j in range(c, 41)) for c in range(41)]
    assert limit == max(c for c in range(41) if tail[c] >= 0.01) / 40


@pytest.mark.parametrize("tied", [False, True])
def test_drift_auc_and_p_value_are_mann_whitney(tied):
    rng = np.random.default_rng(1)
    reference, chunk = rng.normal(size=80), rng.normal(0.4, size=30)
    if tied:
        reference, chunk = reference.round(), chunk.round()
    auc, threshold, p_value = _auc_test(reference, chunk, alpha=0.05)
    labels = np.r_[np.zeros(80), np.ones(30)]
    assert auc == pytest.approx(roc_auc_score(labels, np.r_[reference, chunk]))
    expected = mannwhitneyu(
        chunk, reference, alternative="greater", method="asymptotic"
    )
    assert p_value == pytest.approx(expected.pvalue, rel=1e-10)
    # The threshold is the AUC at which the p-value crosses alpha.
    assert (auc > threshold) == (p_value < 0.05)


def test_drift_with_every_score_tied_never_alerts():
    assert _auc_test(np.zeros(5), np.zeros(4), 0.05)[2] == 1.0


def test_repeated_rows_stay_in_one_half():
    rng = np.random.default_rng(5)
    signals = _signals(rng.normal(size=(200, 2)))
    rows = rng.normal(size=(10, 2))
    chunk = rows[rng.integers(0, 10, 60)]  # six copies of each row on average
    train, test = _split_halves(chunk, np.random.default_rng(0))
    assert not set(map(tuple, chunk[train])) & set(map(tuple, chunk[test]))
    assert sorted(np.r_[train, test]) == list(range(60))
    # One row 60 times: no halves, no test.
    same = np.repeat(rows[:1], 60, axis=0)
    auc, _, p_value, scores = signals.drift(same, rng, 0.05)
    assert np.isnan(auc) and p_value == 1.0 and scores is None


# ----------------------------------------------------------------------------
# Level and power by simulation
# ----------------------------------------------------------------------------
def _simulate(n_reference, n_chunk, repeats, move, seed=0):
    rng = np.random.default_rng(seed)
    rejections = []
    for repeat in range(repeats):
        signals = _signals(rng.normal(size=(n_reference, 4)), seed=repeat)
        chunk = rng.normal(size=(n_chunk, 4))
        chunk[:, 0] += move
        chunk_rng = np.random.default_rng(repeat)
        rejections.append(
            [
                signals.novelty(chunk, alpha=0.05)[2] < 0.05,
                signals.drift(chunk, chunk_rng, alpha=0.05)[2] < 0.05,
            ]
        )
    return np.mean(rejections, axis=0)


@pytest.mark.slow
@pytest.mark.parametrize("n_chunk", [50, 200])
def test_signals_hold_their_level_without_shift(n_chunk):
    repeats = 300
    rates = _simulate(366, n_chunk, repeats, move=0.0)
    se = np.sqrt(0.05 * 0.95 / repeats)
    assert (rates <= 0.05 + 2 * se).all(), rates


def test_signals_see_a_moved_input():
    rates = _simulate(366, 100, 20, move=1.5, seed=1)
    assert (rates >= 0.9).all(), rates


# ----------------------------------------------------------------------------
# In the monitor
# ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    train, reference, pool = np.split(order, [1000, 1366])
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    model.fit(X[train], y[train])
    clf = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.8)
    clf.fit(X[reference], y[reference])
    return clf, X[reference], y[reference], X[pool], y[pool]


def test_noise_the_confidence_misses_is_alerted_by_the_inputs(digits):
    clf, X_ref, y_ref, X_pool, y_pool = digits
    monitor = PerformanceMonitor(clf, n_resamples=0, random_state=0)
    monitor.fit(X_ref, y_ref)
    rng = np.random.default_rng(0)
    clean, noisy = X_pool[:200], X_pool[200:400] + rng.normal(0, 4.0, (200, 64))
    result = monitor.estimate(np.vstack([clean, noisy]), chunk_size=200)
    result = result.with_labels(y_pool[:400])
    assert result.realised_accuracy[1] < monitor.reference_accuracy_ - 0.3
    assert result.alert.tolist() == [False, True]
    assert {"novel_share", "drift_score"} <= set(result.alerted_by[1])
    assert result.novel_share[1] > result.novel_share_limit[1]
    assert result.drift_score[1] > result.drift_threshold[1] > 0.5
    assert result.novel_share[0] <= result.novel_share_limit[0]
    frame = result.to_frame()
    assert {"novel_share", "drift_score", "alerted_by"} <= set(frame.columns)
    assert "novel" in repr(result) and "drift" in repr(result)


def test_signals_read_the_final_step_inputs_and_can_be_turned_off(digits):
    clf, X_ref, y_ref, X_pool, _ = digits
    off = PerformanceMonitor(
        clf, n_resamples=0, novelty_detector=None, drift_estimator=None
    ).fit(X_ref, y_ref)
    result = off.estimate(X_pool[:100])
    assert np.isnan(result.novel_share).all() and np.isnan(result.drift_score).all()
    monitor = PerformanceMonitor(
        clf, n_resamples=0, novelty_detector=_DistanceToMean(), drift_estimator=None,
        random_state=0,
    ).fit(X_ref, y_ref)  # fmt: skip
    scaled = clf.estimator_.estimator[:-1].transform(X_ref)
    fit_half = monitor._signals.fit_half
    assert monitor._signals.detector_.mean_.shape == (scaled.shape[1],)
    # The detector saw the scaler's output (rows of it), not the raw pixels.
    distances = np.abs(fit_half[:, None, :] - scaled[None, :, :]).sum(axis=2)
    assert fit_half.shape[0] == len(X_ref) // 2
    np.testing.assert_allclose(distances.min(axis=1), 0.0, atol=1e-12)


def test_sparse_inputs_use_a_linear_domain_classifier():
    rng = np.random.default_rng(0)
    X = sp.random(400, 30, density=0.2, random_state=0, format="csr")
    y = rng.integers(0, 2, 400)
    model = LogisticRegression().fit(X[:200], y[:200])
    monitor = PerformanceMonitor(model, n_resamples=0, random_state=0)
    result = monitor.fit(X[200:300], y[200:300]).estimate(X[300:])
    assert isinstance(monitor._signals.drift_estimator_, LogisticRegression)
    assert np.isfinite(result.drift_score).all()


# ----------------------------------------------------------------------------
# The estimates' reference band
# ----------------------------------------------------------------------------
def test_mean_band_is_the_cornish_fisher_formula():
    proxies = np.random.default_rng(6).beta(8.0, 1.0, size=300)
    low, high = mean_band(proxies, 40, 0.05)
    m = proxies.mean()
    s2 = sum((p - m) ** 2 for p in proxies) / 300
    m3 = sum((p - m) ** 3 for p in proxies) / 300
    var = s2 * (1 / 40 + 1 / 300)
    g = m3 * (1 / 40**2 - 1 / 300**2) / var**1.5
    z = 1.959963984540054
    assert low == pytest.approx(m + np.sqrt(var) * (-z + (z * z - 1) * g / 6))
    assert high == pytest.approx(m + np.sqrt(var) * (z + (z * z - 1) * g / 6))
    assert np.isnan(mean_band(proxies, 0, 0.05)).all()


def test_reference_bands_are_the_mean_bands_of_both_proxies_clipped():
    rng = np.random.default_rng(8)
    proxies, selective = rng.beta(8.0, 1.0, size=300), rng.beta(30.0, 0.5, 200)
    bands = ReferenceBands(proxies, selective)(40, 5, 0.05)
    assert bands.shape == (2, 2)
    np.testing.assert_allclose(bands[0], mean_band(proxies, 40, 0.05))
    np.testing.assert_allclose(bands[1], np.clip(mean_band(selective, 5, 0.05), 0, 1))
    assert bands.max() <= 1.0


@pytest.mark.slow
@pytest.mark.parametrize("n", [50, 200])
def test_mean_band_holds_its_level_on_skewed_proxies(n):
    # Proxies near one with a long lower tail (a few unsure samples), a fresh
    # reference of 366 and a fresh chunk of n each time: the chunk's mean
    # leaves the two-sided band at most alpha + 2 s.e. of the time.
    rng = np.random.default_rng(7)
    repeats, alpha = 4000, 0.05
    left = 0
    for _ in range(repeats):
        reference = rng.beta(10.0, 0.7, size=366)
        low, high = mean_band(reference, n, alpha)
        mean = rng.beta(10.0, 0.7, size=n).mean()
        left += not low <= mean <= high
    se = np.sqrt(alpha * (1 - alpha) / repeats)
    assert left / repeats <= alpha + 2 * se, left / repeats


def test_inputs_with_nan_name_the_parameters_to_change():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(int)
    # A model that reads NaN; the default signals' estimators do not.
    model = HistGradientBoostingClassifier(max_iter=20).fit(X[:150], y[:150])
    X_ref = X[150:].copy()
    X_ref[0, 1] = np.nan
    with pytest.raises(ValueError, match="novelty_detector and drift_estimator"):
        PerformanceMonitor(model).fit(X_ref, y[150:])
    off = PerformanceMonitor(model, novelty_detector=None, drift_estimator=None)
    assert np.isfinite(off.fit(X_ref, y[150:]).estimate(X_ref).accuracy).all()


def test_least_alerting_count_equals_a_scan_of_every_count():
    """The novelty signal's alert limit: from the inverse survival function
    (a scan of every count was O(n**2), 23 of 28 s on 20,000 samples)."""
    from scipy.stats import betabinom

    from sklearn_selective._shift._signals import least_alerting_count

    rng = np.random.default_rng(37)
    for _ in range(500):
        n, m = int(rng.integers(1, 300)), int(rng.integers(1, 500))
        k = int(rng.integers(1, m + 1))
        alpha = float(rng.choice([0.5, 0.05, 0.01, 1e-3, 1e-6, rng.random()]))
        null = betabinom(n, k, m + 1 - k)
        scan = np.flatnonzero(null.sf(np.arange(n + 1) - 1) < alpha)
        expected = int(scan[0]) if scan.size else None
        assert least_alerting_count(null, n, alpha) == expected
