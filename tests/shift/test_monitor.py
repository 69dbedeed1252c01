"""PerformanceMonitor and MonitoringResult."""

import inspect
import json
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.exceptions import NotFittedError, UndefinedMetricWarning
from sklearn.frozen import FrozenEstimator
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_selective import (
    ATCEstimator,
    MonitoringResult,
    PerformanceMonitor,
    SelectiveClassifier,
    atc_accuracy,
    average_confidence_accuracy,
    doc_accuracy,
)
from sklearn_selective._shift._methods import METHODS
from sklearn_selective._shift._monitoring_result import FRAME_COLUMNS
from sklearn_selective.confidence._calibrators import isotonic_helps

N_FEATURES, N_CLASSES = 5, 3


class _Population:
    """3 classes, 5 Gaussian features, fixed P(y | x) = softmax(W x + b)."""

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.weights = rng.normal(size=(N_FEATURES, N_CLASSES))
        self.bias = rng.normal(size=N_CLASSES)

    def proba(self, X):
        logits = X @ self.weights + self.bias
        proba = np.exp(logits - logits.max(axis=1, keepdims=True))
        return proba / proba.sum(axis=1, keepdims=True)

    def draw(self, rng, n, move=0.0):
        X = rng.normal(size=(n, N_FEATURES))
        X[:, :2] += move
        y = (rng.random((n, 1)) > self.proba(X).cumsum(axis=1)).sum(axis=1)
        return X, y


@pytest.fixture(scope="module")
def setting():
    population = _Population()
    rng = np.random.default_rng(1)
    X_train, y_train = population.draw(rng, 500)
    model = LogisticRegression().fit(X_train, y_train)
    X_ref, y_ref = population.draw(rng, 600)
    clf = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.7)
    clf.fit(X_ref, y_ref)
    X, y = population.draw(rng, 1000, move=0.5)
    return model, clf, X_ref, y_ref, X, y


def _monitor(estimator, **params):
    """The monitor without its input signals (test_signals.py tests them): the
    estimates, intervals and bands here do not depend on them."""
    params.setdefault("novelty_detector", None)
    params.setdefault("drift_estimator", None)
    return PerformanceMonitor(estimator, **params)


# ----------------------------------------------------------------------------
# Coverage, chunks and the result object
# ----------------------------------------------------------------------------
@pytest.mark.parametrize("method", sorted(METHODS))
def test_coverage_is_exactly_the_mean_of_predict_accept(setting, method):
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, method=method, n_resamples=20, random_state=0)
    result = monitor.fit(X_ref, y_ref).estimate(X, chunk_size=300)
    for c in range(result.n_chunks):
        expected = clf.predict_accept(X[result.start[c] : result.stop[c]]).mean()
        assert result.coverage[c] == expected
    assert np.isclose(monitor.reference_coverage_, clf.predict_accept(X_ref).mean())


def test_chunk_by_size_keeps_and_flags_the_partial_last_chunk(setting):
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, n_resamples=10, random_state=0).fit(X_ref, y_ref)
    result = monitor.estimate(X, chunk_size=300)
    assert result.n_samples.tolist() == [300, 300, 300, 100]
    assert result.partial.tolist() == [False, False, False, True]
    assert result.start.tolist() == [0, 300, 600, 900]
    assert result.stop.tolist() == [300, 600, 900, 1000]
    exact = monitor.estimate(X, chunk_size=250)
    assert not exact.partial.any()
    assert exact.n_samples.tolist() == [250] * 4


def test_chunk_by_number(setting):
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, n_resamples=10, random_state=0).fit(X_ref, y_ref)
    result = monitor.estimate(X, n_chunks=3)
    assert result.n_samples.tolist() == [334, 333, 333]
    assert result.stop.tolist() == [334, 667, 1000]
    assert not result.partial.any()
    single = monitor.estimate(X)
    assert single.n_chunks == 1
    assert single.n_samples.tolist() == [1000]


def test_chunk_by_time_with_empty_periods(setting):
    pd = pytest.importorskip("pandas")
    _, clf, X_ref, y_ref, X, _ = setting
    days = np.repeat(np.arange("2024-01-01", "2024-01-06", dtype="datetime64[D]"), 200)
    days = days[np.random.default_rng(0).permutation(1000)]  # not sorted in time
    day_3, day_4 = np.datetime64("2024-01-03"), np.datetime64("2024-01-04")
    days[days == day_3] = day_4
    monitor = _monitor(clf, n_resamples=10, random_state=0).fit(X_ref, y_ref)
    with pytest.warns(UndefinedMetricWarning, match="too small"):
        result = monitor.estimate(X, timestamps=days, freq="D")
    assert result.n_chunks == 5
    assert result.n_samples.tolist() == [200, 200, 0, 400, 200]
    assert pd.Timestamp(result.start[3]) == pd.Timestamp("2024-01-04")
    assert pd.Timestamp(result.stop[3]) == pd.Timestamp("2024-01-05")
    assert np.isnan(result.accuracy[2]) and np.isnan(result.coverage[2])
    assert "no samples" in result.reason[2]
    assert result.coverage[3] == clf.predict_accept(X[days == day_4]).mean()
    weekly = monitor.estimate(X, timestamps=pd.Series(days), freq="W")
    assert weekly.n_samples.sum() == 1000


def test_too_small_chunks_warn_and_give_nan_with_a_reason(setting):
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, n_resamples=10, min_chunk_size=30)
    monitor.fit(X_ref, y_ref)
    with pytest.warns(UndefinedMetricWarning, match="min_chunk_size"):
        result = monitor.estimate(X[:120], chunk_size=50)
    assert result.n_samples.tolist() == [50, 50, 20]
    assert np.isnan(result.accuracy[2]) and np.isnan(result.selective_accuracy[2])
    assert not np.isnan(result.coverage[2])
    assert "20 samples < min_chunk_size=30" in result.reason[2]
    assert result.reason[0] == ""
    assert not result.alert[2]


def test_selective_accuracy_nan_when_too_few_accepted(setting):
    model, _, X_ref, y_ref, X, _ = setting
    strict = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.05)
    strict.fit(X_ref, y_ref)
    monitor = _monitor(strict, n_resamples=10, min_chunk_size=20)
    monitor.fit(X_ref, y_ref)
    with pytest.warns(UndefinedMetricWarning):
        result = monitor.estimate(X[:100])
    assert not np.isnan(result.accuracy[0])
    assert np.isnan(result.selective_accuracy[0])
    assert "accepted samples" in result.reason[0]


def test_with_labels_gives_the_realised_accuracies(setting):
    _, clf, X_ref, y_ref, X, y = setting
    monitor = _monitor(clf, n_resamples=10).fit(X_ref, y_ref)
    result = monitor.estimate(X, chunk_size=400)
    assert result.realised_accuracy is None
    labelled = result.with_labels(y)
    for c, (start, stop) in enumerate(zip(result.start, result.stop, strict=True)):
        correct = clf.predict(X[start:stop]) == y[start:stop]
        accepted = clf.predict_accept(X[start:stop])
        assert labelled.realised_accuracy[c] == pytest.approx(correct.mean())
        assert labelled.realised_selective_accuracy[c] == pytest.approx(
            correct[accepted].mean()
        )
    np.testing.assert_array_equal(labelled.accuracy, result.accuracy)
    with pytest.raises(ValueError, match=r"y has 10 labels but .* 1000 samples"):
        result.with_labels(y[:10])
    with pytest.raises(ValueError, match="NaN"):
        result.with_labels(np.full(1000, np.nan))
    with pytest.raises(ValueError, match=r"y contains NaN \(missing labels\)"):
        result.with_labels(np.where(np.arange(1000) == 3, None, y).astype(object))


def test_to_frame_repr_and_plot(setting):
    pytest.importorskip("pandas")
    _, clf, X_ref, y_ref, X, y = setting
    monitor = PerformanceMonitor(clf, n_resamples=20, random_state=0)
    result = monitor.fit(X_ref, y_ref).estimate(X, chunk_size=300)
    frame = result.to_frame()
    assert tuple(frame.columns[: len(FRAME_COLUMNS)]) == FRAME_COLUMNS
    assert list(frame.columns[len(FRAME_COLUMNS) :]) == ["partial", "reason"]
    assert frame.shape[0] == 4
    labelled = result.with_labels(y).to_frame()
    assert "realised_selective_accuracy" in labelled.columns
    text = repr(result)
    assert "MonitoringResult(method='auto', n_chunks=4" in text
    assert "partial chunk" in text
    assert isinstance(result, MonitoringResult)
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax, coverage_ax = result.with_labels(y).plot()
    assert ax.get_ylabel() == "accuracy"
    assert coverage_ax.get_ylim()[1] > 1
    plt.close("all")


# ----------------------------------------------------------------------------
# The estimates against the functional forms and a direct transcription
# ----------------------------------------------------------------------------
def _plain(setting, method, **kwargs):
    model, _, X_ref, y_ref, X, _ = setting
    monitor = _monitor(model, method=method, n_resamples=0, **kwargs)
    return monitor.fit(X_ref, y_ref).estimate(X)


def test_plain_classifier_accepts_everything(setting):
    result = _plain(setting, "calibrated_ac")
    assert result.coverage.tolist() == [1.0]
    assert result.selective_accuracy[0] == pytest.approx(result.accuracy[0])
    assert np.isnan(result.accuracy_lower[0])  # n_resamples=0: no interval


def test_plain_classifier_csf_is_the_atc_score(setting):
    model, _, X_ref, y_ref, X, _ = setting
    proba_ref, proba = model.predict_proba(X_ref), model.predict_proba(X)
    margin = _plain(setting, "atc", csf="margin").accuracy[0]
    # The score parameter is being renamed score -> csf (SPEC §8): accept both.
    name = "csf" if "csf" in inspect.signature(atc_accuracy).parameters else "score"
    expected = atc_accuracy(y_ref, proba_ref, proba, **{name: "margin"})
    assert margin == pytest.approx(expected, abs=1e-12)


def test_point_estimates_equal_the_functional_forms(setting):
    model, _, X_ref, y_ref, X, _ = setting
    proba_ref, proba = model.predict_proba(X_ref), model.predict_proba(X)
    expected = {
        "atc": atc_accuracy(y_ref, proba_ref, proba),
        "ac": average_confidence_accuracy(proba),
        "doc": doc_accuracy(y_ref, proba_ref, proba),
    }
    for method, value in expected.items():
        assert _plain(setting, method).accuracy[0] == pytest.approx(value, abs=1e-12)


def test_selective_atc_is_atc_on_the_accepted_samples(setting):
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, method="atc", n_resamples=0).fit(X_ref, y_ref)
    result = monitor.estimate(X)
    accepted_ref, accepted = clf.predict_accept(X_ref), clf.predict_accept(X)
    expected = atc_accuracy(
        y_ref[accepted_ref],
        clf.predict_proba(X_ref)[accepted_ref],
        clf.predict_proba(X)[accepted],
        labels=clf.classes_,
    )
    assert result.selective_accuracy[0] == pytest.approx(expected, abs=1e-12)


def _isotonic(x_fit, y_fit, x):
    iso = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip")
    return iso.fit(x_fit, y_fit).predict(x)


def test_calibrated_methods_match_isotonic_regression(setting):
    _, clf, X_ref, y_ref, X, _ = setting
    proba_ref, proba = clf.predict_proba(X_ref), clf.predict_proba(X)
    pred_ref, pred = proba_ref.argmax(axis=1), proba.argmax(axis=1)
    msp_ref, msp = proba_ref.max(axis=1), proba.max(axis=1)
    correct = (pred_ref == y_ref).astype(float)
    acc_ref, acc = clf.predict_accept(X_ref), clf.predict_accept(X)
    # Top-label: isotonic of correctness on the MSP (accepted samples only for
    # the selective accuracy).
    top = _monitor(clf, method="calibrated_ac", n_resamples=0)
    result = top.fit(X_ref, y_ref).estimate(X)
    assert result.accuracy[0] == pytest.approx(
        _isotonic(msp_ref, correct, msp).mean(), abs=1e-12
    )
    assert result.selective_accuracy[0] == pytest.approx(
        _isotonic(msp_ref[acc_ref], correct[acc_ref], msp[acc]).mean(), abs=1e-12
    )

    # CBPE-like: one-vs-rest isotonic per class where that helps (NannyML's
    # test), renormalised.
    def ovr(mask_ref, mask):
        helps = [
            isotonic_helps(proba_ref[mask_ref, j], y_ref[mask_ref] == j, 0)
            for j in range(N_CLASSES)
        ]
        calibrated = np.column_stack(
            [
                _isotonic(proba_ref[mask_ref, j], y_ref[mask_ref] == j, proba[mask, j])
                if helps[j]
                else proba[mask, j]
                for j in range(N_CLASSES)
            ]
        )
        calibrated /= calibrated.sum(axis=1, keepdims=True)
        return calibrated[np.arange(mask.sum()), pred[mask]].mean()

    cbpe = _monitor(clf, method="cbpe", n_resamples=0)
    result = cbpe.fit(X_ref, y_ref).estimate(X)
    everything = np.ones(X.shape[0], dtype=bool)
    assert result.accuracy[0] == pytest.approx(
        ovr(np.ones(X_ref.shape[0], dtype=bool), everything), abs=1e-12
    )
    assert result.selective_accuracy[0] == pytest.approx(ovr(acc_ref, acc), abs=1e-12)


def test_atc_works_with_a_decision_function_model(setting):
    _, _, X_ref, y_ref, X, _ = setting
    svc = LinearSVC().fit(X_ref, y_ref)
    with pytest.raises(ValueError, match=r"needs predict_proba.*method='atc'"):
        _monitor(svc, method="calibrated_ac").fit(X_ref, y_ref)
    result = _monitor(svc, method="atc", n_resamples=20).fit(X_ref, y_ref)
    estimate = result.estimate(X).accuracy[0]
    assert 0 < estimate < 1


# ----------------------------------------------------------------------------
# Errors and scikit-learn conventions
# ----------------------------------------------------------------------------
def test_unfitted_estimator_and_monitor(setting):
    _, _, X_ref, y_ref, X, _ = setting
    with pytest.raises(NotFittedError):
        _monitor(LogisticRegression()).fit(X_ref, y_ref)
    with pytest.raises(NotFittedError):
        _monitor(setting[1]).estimate(X)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"chunk_size": 10, "n_chunks": 2}, "one rule only"),
        ({"freq": "D"}, "needs both timestamps"),
        ({"n_chunks": 5000}, "n_chunks=5000 is larger"),
        ({"chunk_size": 0}, "chunk_size must be a positive integer"),
        ({"n_chunks": 2.5}, "n_chunks must be a positive integer"),
        ({"timestamps": np.arange(3), "freq": "D"}, "one time per sample"),
    ],
)
def test_bad_chunking_arguments(setting, kwargs, match):
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, n_resamples=5).fit(X_ref, y_ref)
    with pytest.raises(ValueError, match=match):
        monitor.estimate(X, **kwargs)


def test_bad_timestamps(setting):
    pd = pytest.importorskip("pandas")
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, n_resamples=5).fit(X_ref, y_ref)
    times = pd.date_range("2024-01-01", periods=1000, freq="h").to_numpy().copy()
    times[3] = np.datetime64("NaT")
    with pytest.raises(ValueError, match="missing values"):
        monitor.estimate(X, timestamps=times, freq="D")
    with pytest.raises(ValueError, match="freq='not a freq'"):
        monitor.estimate(X, timestamps=times[4:].repeat(2)[:1000], freq="not a freq")


def test_bad_inputs(setting):
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, n_resamples=5)
    with pytest.raises(ValueError, match="X_reference has 600 samples but"):
        monitor.fit(X_ref, y_ref[:-1])
    with pytest.raises(ValueError, match="y_reference contains NaN"):
        monitor.fit(X_ref, np.where(y_ref == 0, np.nan, y_ref))
    # None among the labels (an object column with gaps): "mixes strings and
    # numbers" or a raw TypeError before.
    with pytest.raises(ValueError, match="y_reference contains NaN"):
        monitor.fit(X_ref, np.where(y_ref == 0, None, y_ref))
    with pytest.raises(ValueError, match="labels the estimator does not know"):
        monitor.fit(X_ref, y_ref.astype(str))
    with pytest.raises(ValueError, match="X_reference is empty"):
        monitor.fit(X_ref[:0], y_ref[:0])
    # One sample: IsolationForest's "Found array with 0 sample(s)" before.
    with pytest.raises(ValueError, match="X_reference has 1 sample; the input"):
        PerformanceMonitor(clf, n_resamples=5).fit(X_ref[:1], y_ref[:1])
    with pytest.raises(ValueError, match="own CSF; leave csf=None"):
        _monitor(clf, csf="margin").fit(X_ref, y_ref)
    monitor.fit(X_ref, y_ref)
    with pytest.raises(ValueError, match="X is empty"):
        monitor.estimate(X[:0])
    X_nan = X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        monitor.estimate(X_nan)
    with pytest.raises(ValueError, match="features"):
        monitor.estimate(X[:, :3])


def test_params_clone_and_validation(setting):
    _, clf, X_ref, y_ref, _, _ = setting
    monitor = _monitor(clf, method="atc", n_resamples=7)
    cloned = clone(monitor)
    assert cloned.get_params()["method"] == "atc"
    assert cloned.get_params()["n_resamples"] == 7
    assert cloned.set_params(method="doc").method == "doc"
    for bad in ({"method": "nannyml"}, {"confidence_level": 1.5}, {"n_resamples": -1}):
        with pytest.raises(InvalidParameterError):
            clone(monitor).set_params(**bad).fit(X_ref, y_ref)
    # One resample has no spread: its intervals were NaN, without a word.
    with pytest.raises(InvalidParameterError, match=r"among \{0\} or .* \[2, inf\)"):
        clone(monitor).set_params(n_resamples=1).fit(X_ref, y_ref)
    atc = ATCEstimator(LogisticRegression(), n_resamples=2)
    assert np.isfinite(
        atc.fit(X_ref, y_ref).estimate_accuracy(X_ref, return_interval=True)[1]
    ).all()
    with pytest.raises(InvalidParameterError, match="'n_resamples' parameter of ATC"):
        atc.set_params(n_resamples=1).fit(X_ref, y_ref)


def test_drift_estimator_must_be_a_classifier_checked_at_fit(setting):
    # issue 34 (edges): a regressor was accepted by fit and failed in estimate
    # with an AttributeError.
    from sklearn.ensemble import IsolationForest
    from sklearn.linear_model import LinearRegression

    _, clf, X_ref, y_ref, _, _ = setting
    monitor = PerformanceMonitor(clf, drift_estimator=LinearRegression())
    with pytest.raises(InvalidParameterError, match="'drift_estimator' parameter"):
        monitor.fit(X_ref, y_ref)
    monitor = PerformanceMonitor(clf, drift_estimator=IsolationForest())
    with pytest.raises(ValueError, match=r"drift_estimator=IsolationForest\(\) is not"):
        monitor.fit(X_ref, y_ref)


def test_reproducible_with_random_state(setting):
    _, clf, X_ref, y_ref, X, _ = setting
    first = _monitor(clf, n_resamples=30, random_state=3).fit(X_ref, y_ref)
    second = _monitor(clf, n_resamples=30, random_state=3).fit(X_ref, y_ref)
    a, b = first.estimate(X, n_chunks=2), second.estimate(X, n_chunks=2)
    np.testing.assert_array_equal(a.accuracy_lower, b.accuracy_lower)
    np.testing.assert_array_equal(a.selective_accuracy_band, b.selective_accuracy_band)
    assert (a.accuracy_lower <= a.accuracy_upper).all()


def test_alert_when_the_estimate_leaves_the_band(setting):
    model, _, X_ref, y_ref, _, _ = setting
    population = _Population()
    rng = np.random.default_rng(5)
    X_same, _ = population.draw(rng, 600)
    X_far, _ = population.draw(rng, 600, move=3.0)
    monitor = _monitor(model, method="ac", random_state=0)
    monitor.fit(X_ref, y_ref)
    result = monitor.estimate(np.vstack([X_same, X_far]), n_chunks=2)
    lower, upper = result.accuracy_band[1]
    assert not (lower <= result.accuracy[1] <= upper)
    assert result.alert.tolist() == [False, True]


# ----------------------------------------------------------------------------
# Intervals and bias by simulation, without shift
# ----------------------------------------------------------------------------
def _simulate(method, n_repeats, n_resamples, seed=0, n_reference=1000, n_chunk=500):
    """Estimates and intervals on fresh reference and chunk samples, and the truth.

    The model and its threshold are fixed, so the population accuracies are
    fixed numbers: the mean of the true probability of the predicted class
    over a large sample (no label noise). Each chunk's realised accuracies
    (its labels drawn from the population) are recorded too.
    """
    population = _Population(seed)
    rng = np.random.default_rng(seed + 1)
    model = LogisticRegression().fit(*population.draw(rng, 500))
    clf = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.7)
    clf.fit(*population.draw(rng, 2000))
    X_big, _ = population.draw(rng, 200_000)
    index = np.searchsorted(clf.classes_, clf.predict(X_big))
    p_correct = population.proba(X_big)[np.arange(X_big.shape[0]), index]
    accepted = clf.predict_accept(X_big)
    truth = np.array([p_correct.mean(), p_correct[accepted].mean()])
    rows, alerts = [], []
    for repeat in range(n_repeats):
        X_ref, y_ref = population.draw(rng, n_reference)
        X, y = population.draw(rng, n_chunk)
        monitor = _monitor(
            clf,
            method=method,
            n_resamples=n_resamples,
            random_state=repeat,
            novelty_detector=None,  # the input signals: test_signals.py
            drift_estimator=None,
        )
        r = monitor.fit(X_ref, y_ref).estimate(X).with_labels(y)
        alerts.append(bool(r.alert[0]))
        rows.append(
            [
                [
                    r.accuracy[0],
                    r.expected_accuracy_lower[0],
                    r.expected_accuracy_upper[0],
                    *r.accuracy_band[0],
                    r.accuracy_lower[0],
                    r.accuracy_upper[0],
                    r.realised_accuracy[0],
                ],
                [
                    r.selective_accuracy[0],
                    r.expected_selective_accuracy_lower[0],
                    r.expected_selective_accuracy_upper[0],
                    *r.selective_accuracy_band[0],
                    r.selective_accuracy_lower[0],
                    r.selective_accuracy_upper[0],
                    r.realised_selective_accuracy[0],
                ],
            ]
        )
    # (repeats, 2 estimates, [estimate, expected lower, expected upper, band low,
    # band high, realised lower, realised upper, realised]), (2,), (repeats,)
    return np.asarray(rows), truth, np.asarray(alerts)


def _check_simulation(rows, truth, alerts, coverage_tolerance_se):
    n = rows.shape[0]
    nominal_se = np.sqrt(0.95 * 0.05 / n)
    for k in range(2):
        error = rows[:, k, 0] - truth[k]
        se = error.std(ddof=1) / np.sqrt(n)
        assert abs(error.mean()) <= 3 * se, (k, error.mean(), se)
        # The expected-value interval covers the population accuracy...
        covered = (rows[:, k, 1] <= truth[k]) & (truth[k] <= rows[:, k, 2])
        assert abs(covered.mean() - 0.95) <= coverage_tolerance_se * nominal_se, (
            k,
            covered.mean(),
        )
        # ... and the realised-value interval the chunk's realised accuracy.
        realised = rows[:, k, 7]
        covered = (rows[:, k, 5] <= realised) & (realised <= rows[:, k, 6])
        assert abs(covered.mean() - 0.95) <= coverage_tolerance_se * nominal_se, (
            k,
            covered.mean(),
        )
        # Without shift, an estimate leaves its band 2.5 % of the time...
        outside = (rows[:, k, 0] < rows[:, k, 3]) | (rows[:, k, 0] > rows[:, k, 4])
        band_se = np.sqrt(0.975 * 0.025 / n)
        assert abs(outside.mean() - 0.025) <= 3 * band_se, (k, outside.mean())
    # ... so that a chunk raises a false alert at most 5 % of the time.
    assert alerts.mean() <= 0.05 + coverage_tolerance_se * nominal_se, alerts.mean()


@pytest.mark.parametrize("method", ["calibrated_ac", "atc"])
def test_no_shift_unbiased_and_nominal_coverage_quick(method):
    rows, truth, alerts = _simulate(method, n_repeats=40, n_resamples=100)
    # 40 repetitions: a loose check (3 s.e.); the slow test is the real one.
    _check_simulation(rows, truth, alerts, coverage_tolerance_se=3)


@pytest.mark.slow
@pytest.mark.parametrize("n_chunk", [50, 200, 500])
@pytest.mark.parametrize("method", ["calibrated_ac", "atc"])
def test_no_shift_unbiased_and_nominal_coverage(method, n_chunk):
    # Chunks of 50 and 200: the sizes users have. With numpy's linear
    # percentile rule the expected-value intervals covered 0.929 at 50.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows, truth, alerts = _simulate(
            method, n_repeats=300, n_resamples=200, n_chunk=n_chunk
        )
    _check_simulation(rows, truth, alerts, coverage_tolerance_se=2)


def test_with_labels_of_another_type_is_refused(setting):
    # issue 28: string labels against integer predictions reported accuracy 0.0.
    _, clf, X_ref, y_ref, X, y = setting
    result = _monitor(clf, n_resamples=0).fit(X_ref, y_ref).estimate(X)
    with pytest.raises(ValueError, match="y holds strings"):
        result.with_labels(y.astype(str))
    floats = result.with_labels(y.astype(float)).realised_accuracy
    np.testing.assert_array_equal(floats, result.with_labels(y).realised_accuracy)


def test_to_dict_and_to_json_with_tz_aware_times(setting):
    pd = pytest.importorskip("pandas")
    _, clf, X_ref, y_ref, X, y = setting
    monitor = _monitor(clf, n_resamples=10, random_state=0).fit(X_ref, y_ref)
    times = pd.date_range("2026-03-28", periods=1000, freq="3min", tz="Europe/Berlin")
    result = monitor.estimate(X, timestamps=times, freq="D").with_labels(y)
    data = json.loads(result.to_json())
    assert data == result.to_dict()
    assert data["method"] == result.method
    assert len(data["chunks"]) == result.n_chunks
    first = data["chunks"][0]
    assert first["start"] == "2026-03-28T00:00:00+01:00"
    assert first["n_samples"] == result.n_samples[0]
    assert first["accuracy"] == result.accuracy[0]
    assert first["realised_accuracy"] == result.realised_accuracy[0]
    per_class = set(result.to_frame(per_class=True).columns) - {"chunk", "class"}
    assert set(first) == {*result.to_frame().columns, "class_prior", *per_class}
    assert first["selective_recall"] == result.selective_recall[0].tolist()
    assert data["classes"] == result.classes.tolist()


# ----------------------------------------------------------------------------
# importance_weighted, and intervals of a reference without failures (issue 37)
# ----------------------------------------------------------------------------
def test_importance_weighted_same_seed_same_result_and_clone(setting):
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, method="importance_weighted", n_resamples=20)
    monitor.set_params(random_state=3)
    cloned = clone(monitor).set_params(estimator=clf)  # the fitted estimator
    assert cloned.get_params()["method"] == "importance_weighted"
    first = monitor.fit(X_ref, y_ref).estimate(X, chunk_size=500)
    second = cloned.fit(X_ref, y_ref).estimate(X, chunk_size=500)
    columns = ["accuracy", "accuracy_lower", "selective_accuracy_upper"]
    frames = [r.to_frame()[[*columns, "clipped_share"]] for r in (first, second)]
    pd = pytest.importorskip("pandas")
    pd.testing.assert_frame_equal(*frames)
    assert (first.chunk_method == "importance_weighted").all()
    assert np.isfinite(first.clipped_share).all()
    assert np.isfinite(first.selective_precision).any()  # per-class values too


def test_importance_weighted_needs_no_input_signal(setting):
    # The density ratio reads the inputs whether or not a signal does.
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, method="importance_weighted", n_resamples=0)
    result = monitor.fit(X_ref, y_ref).estimate(X, chunk_size=400)
    assert np.isfinite(result.accuracy).all()
    assert np.isnan(result.novel_share).all() and np.isnan(result.drift_score).all()
    assert result.estimate_reliable.all()


@pytest.mark.parametrize("method", sorted(METHODS))
def test_no_zero_width_interval_from_a_reference_without_failures(method):
    # Issue 37: every accepted reference sample right gave [1.0, 1.0] on every
    # chunk, and the realised values were lower. The reference here is the
    # training data: no failure at all.
    X, y = load_digits(return_X_y=True)
    model = LogisticRegression(max_iter=5000).fit(X[:900], y[:900])
    clf = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.8)
    clf.fit(X[:900], y[:900])
    monitor = _monitor(clf, method=method, n_resamples=20, random_state=0)
    monitor.fit(X[:900], y[:900])
    assert monitor.reference_accuracy_ == monitor.reference_selective_accuracy_ == 1
    result = monitor.estimate(X[900:1500], chunk_size=200).with_labels(y[900:1500])
    for name in ("accuracy", "selective_accuracy"):
        estimate = getattr(result, name)
        lower, upper = (
            getattr(result, f"{name}_lower"),
            getattr(result, f"{name}_upper"),
        )
        assert (upper - lower > 0.005).all(), (name, lower, upper)
        assert ((lower <= estimate) & (estimate <= upper)).all()


class _LocalNoise:
    """Two features, P(y = 1 | x) = sigmoid(3 x1), flattened towards 1/2 where
    x0 > 1: a linear model cannot see it, so its confidence there is as high as
    elsewhere. A covariate shift moves x0 (P(y | x) unchanged) into that region,
    which the reference rarely visits: a calibration fitted on the reference
    (CBPE) stays over-confident; re-weighted to the chunk's inputs it is not."""

    @staticmethod
    def proba(X):
        sharp = 1.0 / (1.0 + np.exp(-3.0 * X[:, 1]))
        return np.where(X[:, 0] > 1.0, 0.5 + (sharp - 0.5) * 0.4, sharp)

    def draw(self, rng, n, move=0.0):
        X = rng.normal(size=(n, 2))
        X[:, 0] += move
        return X, (rng.random(n) < self.proba(X)).astype(int)


def test_importance_weighted_beats_cbpe_under_covariate_shift():
    population = _LocalNoise()
    errors = {"cbpe": [], "importance_weighted": []}
    for seed in range(3):
        rng = np.random.default_rng(seed)
        model = LogisticRegression().fit(*population.draw(rng, 1000))
        X_ref, y_ref = population.draw(rng, 1000)
        X, _ = population.draw(rng, 1000, move=1.0)
        X_big, _ = population.draw(rng, 200_000, move=1.0)  # the population
        p_one = population.proba(X_big)
        truth = np.where(model.predict(X_big) == 1, p_one, 1 - p_one).mean()
        for method, kept in errors.items():
            monitor = _monitor(model, method=method, n_resamples=0, random_state=0)
            result = monitor.fit(X_ref, y_ref).estimate(X)
            kept.append(abs(result.accuracy[0] - truth))
    # Measured: cbpe 0.079, importance_weighted 0.015 (mean |error|).
    assert np.mean(errors["importance_weighted"]) < 0.5 * np.mean(errors["cbpe"])


# ----------------------------------------------------------------------------
# Chunks above the caps: a uniform sample of the chunk (issue 37)
# ----------------------------------------------------------------------------
def _small_caps(monkeypatch, cap, method_cap=True):
    """Every cap of a large chunk set to ``cap`` (the modules read them at
    each call); with ``method_cap`` False, all but the method's."""
    from sklearn_selective._shift import _chunk_estimates, _methods, _signals

    monkeypatch.setattr(_chunk_estimates, "RESAMPLE_CAP", cap)
    monkeypatch.setattr(_signals, "SIGNAL_SAMPLE_CAP", cap)
    if method_cap:
        monkeypatch.setattr(_methods, "METHOD_SAMPLE_CAP", cap)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_above_the_resample_cap_the_estimate_is_exact_and_the_spread_kept(
    setting, monkeypatch, method
):
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = _monitor(clf, method=method, n_resamples=200, random_state=0)
    monitor.fit(X_ref, y_ref)
    full = monitor.estimate(X)
    # (The method's own cap kept: the density ratio and EM's prior fitted on
    # a sample would move the point estimate.)
    _small_caps(monkeypatch, 250, method_cap=False)
    sampled = monitor.estimate(X)
    # The point estimates read every sample...
    for name in ("coverage", "accuracy", "selective_accuracy"):
        np.testing.assert_allclose(getattr(sampled, name), getattr(full, name))
    # ... the intervals keep their width (the bootstrap's own noise apart)...
    for name in ("accuracy", "selective_accuracy", "expected_accuracy"):
        widths = [
            getattr(r, f"{name}_upper")[0] - getattr(r, f"{name}_lower")[0]
            for r in (full, sampled)
        ]
        assert widths[1] == pytest.approx(widths[0], rel=0.35), (name, widths)
    # ... and a seed gives the same numbers again.
    again = monitor.estimate(X)
    pd = pytest.importorskip("pandas")
    pd.testing.assert_frame_equal(again.to_frame(), sampled.to_frame())


def test_above_the_caps_the_input_signals_read_a_sample(setting, monkeypatch):
    _, clf, X_ref, y_ref, X, _ = setting
    monitor = PerformanceMonitor(clf, n_resamples=0, random_state=0)
    monitor.fit(X_ref, y_ref)
    _small_caps(monkeypatch, 250)
    result = monitor.estimate(X)
    # the share flagged among the 250 samples read
    assert (result.novel_share[0] * 250) == pytest.approx(
        round(result.novel_share[0] * 250)
    )
    assert 0.5 < result.drift_score[0] <= 1.0
    assert result.alert[0]  # the inputs moved by 0.5


@pytest.mark.slow
@pytest.mark.parametrize("method", ["calibrated_ac", "atc"])
def test_above_the_resample_cap_nominal_coverage(monkeypatch, method):
    # Chunks of 2 x the cap, 200 repetitions: the intervals of a chunk
    # bootstrapped through its sample cover at their level (2 s.e.).
    # (label_shift_em: bench_coverage.py --only monitor_at_scale compares its
    # coverage with and without the real caps; on chunks of 500 its expected-
    # value interval of the selective accuracy covers about 0.91.)
    _small_caps(monkeypatch, 250)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows, truth, alerts = _simulate(
            method, n_repeats=200, n_resamples=200, n_chunk=500
        )
    _check_simulation(rows, truth, alerts, coverage_tolerance_se=2)
