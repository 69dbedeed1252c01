"""SelectiveCascade.report: the numbers, their intervals, the result object and
the plot; the intervals' coverage checked by simulation (slow)."""

import json
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError, UndefinedMetricWarning
from sklearn.frozen import FrozenEstimator
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_selective import SelectiveCascade
from sklearn_selective._selective._cascade._cascade_report import CascadeReport


class _StageModel(ClassifierMixin, BaseEstimator):
    """Reads its prediction from column ``2 * stage`` of X and its confidence
    ``s`` from the next column: MSP ``0.5 + s / 2``."""

    def __init__(self, stage=0):
        self.stage = stage

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        predicted = X[:, 2 * self.stage].astype(int)
        s = X[:, 2 * self.stage + 1]
        proba = np.empty((X.shape[0], 2))
        proba[np.arange(X.shape[0]), predicted] = 0.5 + s / 2
        proba[np.arange(X.shape[0]), 1 - predicted] = 0.5 - s / 2
        return proba

    def predict(self, X):
        return X[:, 2 * self.stage].astype(int)


SCALES, COSTS = (1.0, 0.9), (1.0, 5.0)
THRESHOLDS = np.array([0.7, 0.65])  # MSP: s >= 0.4 at stage 1, s >= 0.3 at 2


def _draw(rng, n, scales=SCALES):
    """Columns (prediction, s) of each stage, and the labels: each stage's
    ``s`` uniform and independent, wrong with probability ``a (1 - s)**2``."""
    y = rng.integers(0, 2, n)
    columns = []
    for scale in scales:
        s = rng.random(n)
        wrong = rng.random(n) < scale * (1 - s) ** 2
        columns += [np.where(wrong, 1 - y, y), s]
    return np.column_stack(columns), y


def _truth():
    """Every number's population value at ``THRESHOLDS``."""
    t1, t2 = 2 * (THRESHOLDS - 0.5)
    (a1, a2), (c1, c2) = SCALES, COSTS
    coverage = (1 - t1) + t1 * (1 - t2)
    errors = a1 * (1 - t1) ** 3 / 3 + t1 * a2 * (1 - t2) ** 3 / 3
    truth = {
        ("cascade", "coverage"): coverage,
        ("cascade", "risk"): errors / coverage,
        ("cascade", "expected_cost"): c1 + c2 * t1,
        ("person", "share"): t1 * t2,
    }
    stages = (
        ("cheap", 1 - t1, a1, t1, 1 - t1),
        ("strong", t1 * (1 - t2), a2, t2, 1 - t2),
    )
    for name, share, a, t, own in stages:
        truth[name, "share"] = share
        truth[name, "risk"] = truth[name, "alone_risk"] = a * (1 - t) ** 2 / 3
        truth[name, "coverage"] = own
        truth[name, "alone_coverage"] = 1 - t
    return truth


@pytest.fixture(scope="module")
def cascade():
    stages = [
        (name, FrozenEstimator(_StageModel(k).fit(None, None)))
        for k, name in enumerate(("cheap", "strong"))
    ]
    X, y = _draw(np.random.default_rng(0), 500)
    cascade = SelectiveCascade(stages, stage_costs=COSTS).fit(X, y)
    cascade.thresholds_ = THRESHOLDS.copy()  # a fixed deployed cascade
    return cascade


def test_the_numbers_are_those_of_the_decisions(cascade):
    X, y = _draw(np.random.default_rng(1), 400)
    report = cascade.report(X, y, n_resamples=50, random_state=0)
    decision = cascade.decide(X)
    stage, answered = decision.stage, decision.accepted
    wrong = decision.y_pred != y
    assert report.coverage.statistic == pytest.approx(answered.mean())
    assert report.risk.statistic == pytest.approx(wrong[answered].mean())
    reached = stage != "cheap"
    assert report.expected_cost.statistic == pytest.approx(1 + 5 * reached.mean())
    for k, name in enumerate(("cheap", "strong", "person")):
        assert report.stage_share[k].statistic == pytest.approx(np.mean(stage == name))
    mine = stage == "strong"
    assert report.stage_risk[1].statistic == pytest.approx(wrong[mine].mean())
    assert report.stage_coverage[1].statistic == pytest.approx(
        mine.sum() / reached.sum()
    )
    s2 = X[:, 3]
    alone = 0.5 + s2 / 2 >= THRESHOLDS[1]
    assert report.alone_coverage[1].statistic == pytest.approx(alone.mean())
    assert report.alone_risk[1].statistic == pytest.approx(
        np.mean(X[alone, 2] != y[alone])
    )
    for _, _, result in report._rows():
        low, high = result.confidence_interval
        assert low <= result.statistic <= high
    assert report.n_samples == 400 and report.method == "double"


def test_same_seed_same_report_and_the_methods(cascade):
    X, y = _draw(np.random.default_rng(2), 600)
    first = cascade.report(X, y, n_resamples=200, random_state=3)
    again = cascade.report(X, y, n_resamples=200, random_state=3)
    assert first.to_dict() == again.to_dict()
    assert first.method == "percentile"  # "auto" above 500 samples
    bca = cascade.report(X, y, n_resamples=200, method="BCa", random_state=3)
    assert bca.method == "bca"
    np.testing.assert_array_equal(
        bca.coverage.bootstrap_distribution, first.coverage.bootstrap_distribution
    )


def test_the_result_converts_to_data(cascade):
    pd = pytest.importorskip("pandas")
    X, y = _draw(np.random.default_rng(4), 300)
    report = cascade.report(X, y, n_resamples=100, random_state=0)
    assert isinstance(report, CascadeReport)
    frame = report.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["value", "low", "high", "standard_error"]
    assert len(frame) == 3 + 5 * 2 + 1
    data = json.loads(report.to_json())
    assert data["stage_names"] == ["cheap", "strong"] and data["person"] == "person"
    assert [row["value"] for row in data["rows"]] == pytest.approx(
        frame["value"].tolist()
    )
    assert "cascade" in str(report) and "alone_risk" in str(report)


def test_a_stage_that_answers_nothing_has_undefined_numbers(cascade):
    X, y = _draw(np.random.default_rng(5), 200)
    silent = SelectiveCascade(cascade.estimators, stage_costs=COSTS).fit(X, y)
    silent.thresholds_ = np.array([np.inf, 0.65])
    with pytest.warns(UndefinedMetricWarning):
        report = silent.report(X, y, n_resamples=50, method="percentile")
    assert np.isnan(report.stage_risk[0].statistic)
    assert report.stage_share[0].statistic == 0.0


def test_errors_name_the_argument(cascade):
    X, y = _draw(np.random.default_rng(6), 50)
    with pytest.raises(NotFittedError):
        SelectiveCascade(cascade.estimators).report(X, y)
    with pytest.raises(ValueError, match="X has 50 rows but y has 49"):
        cascade.report(X, y[:-1])
    with pytest.raises(InvalidParameterError, match="n_resamples"):
        cascade.report(X, y, n_resamples=0)
    with pytest.raises(InvalidParameterError, match="method"):
        cascade.report(X, y, method="normal")


def test_plot_coverage_against_cost(cascade):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = _draw(np.random.default_rng(7), 300)
    report = cascade.report(X, y, n_resamples=100, random_state=0)
    fig, ax = plt.subplots()
    assert report.plot(ax=ax, name="triage") is ax
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["triage", "cheap alone", "strong alone"]
    assert ax.get_xlabel() == "expected cost per sample"
    assert len(ax.containers) == 3  # one error bar per point
    plt.close(fig)
    ax = report.plot()
    assert ax.get_ylabel() == "coverage"
    plt.close(ax.figure)


def _coverage_rates(cascade, repeats, method, seed):
    truth = _truth()
    keys = list(truth)
    values = np.array([truth[key] for key in keys])
    rng = np.random.default_rng(seed)
    hits = np.zeros((repeats, len(keys)), dtype=bool)
    for r in range(repeats):
        X, y = _draw(rng, 200)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            report = cascade.report(X, y, method=method, random_state=r)
        frame = report.to_frame()
        low = frame.loc[keys, "low"].to_numpy()
        high = frame.loc[keys, "high"].to_numpy()
        hits[r] = (low <= values) & (values <= high)
    return dict(zip(keys, hits.mean(axis=0), strict=True))


def _within(rates, repeats, low_only=False):
    """The cascade's three numbers within two Monte-Carlo standard errors of
    0.95, all fourteen within three (one in fourteen may leave a band of two
    by chance: the numbers are a family)."""
    se = np.sqrt(0.95 * 0.05 / repeats)
    for key, rate in rates.items():
        width = (2 if key[0] == "cascade" else 3) * se
        if rate < 0.95 - width or (not low_only and rate > 0.95 + width):
            return False
    return True


@pytest.mark.slow
def test_every_interval_covers_its_population_value(cascade):
    """At 200 samples (12 to 14 wrong answers per stage), the percentile 95 %
    intervals cover their population values within the Monte-Carlo error of
    0.95; the default (the double bootstrap at this size) never less (it
    counts ties as misses, so it is conservative: 0.954-0.984 measured)."""
    rates = _coverage_rates(cascade, 500, "percentile", seed=11)
    assert _within(rates, 500), rates
    rates = _coverage_rates(cascade, 150, "auto", seed=12)
    assert _within(rates, 150, low_only=True), rates
