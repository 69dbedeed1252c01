"""RiskCoverageDisplay, checked on a non-interactive backend as scikit-learn does."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_validate

from sklearn_selective import RiskCoverageDisplay, SelectiveClassifier
from sklearn_selective.metrics import (
    augrc,
    aurc,
    generalized_risk_coverage_curve,
    risk_coverage_curve,
)


@pytest.fixture
def pyplot():
    """Agg backend, and every figure closed after the test (scikit-learn's fixture)."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=400, n_classes=3, n_informative=4, random_state=0
    )
    model = LogisticRegression().fit(X[:200], y[:200])
    return model, X[200:], y[200:]


@pytest.mark.parametrize(
    "kind, curve, metric, label",
    [
        ("selective", risk_coverage_curve, aurc, "AURC"),
        ("generalized", generalized_risk_coverage_curve, augrc, "AUGRC"),
    ],
)
def test_from_predictions_data_and_artists(pyplot, kind, curve, metric, label):
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, 100)
    y_pred = np.where(rng.random(100) < 0.8, y_true, 1 - y_true)
    confidence = rng.integers(0, 20, 100) / 20  # with ties
    weights = rng.random(100)
    display = RiskCoverageDisplay.from_predictions(
        y_true,
        y_pred,
        confidence,
        kind=kind,
        sample_weight=weights,
        name="model",
        plot_oracle=True,
        plot_random=True,
    )
    coverage, risk, thresholds = curve(
        y_true, y_pred, confidence, sample_weight=weights
    )
    np.testing.assert_array_equal(display.coverage, coverage)
    np.testing.assert_array_equal(display.risk, risk)
    np.testing.assert_array_equal(display.thresholds, thresholds)
    value = metric(y_true, y_pred, confidence, sample_weight=weights)
    assert display.metric_value == value
    assert display.line_.get_label() == f"model ({label} = {value:.4f})"
    x, y = display.line_.get_data()
    if kind == "generalized":  # drawn from the origin: its trapezoid area is AUGRC
        assert (x[0], y[0]) == (0.0, 0.0)
        assert np.trapezoid(y, x) == pytest.approx(value)
    else:
        np.testing.assert_array_equal(x, coverage)
    assert display.oracle_line_.get_label() == "Oracle"
    assert display.random_line_.get_label() == "Random"
    assert display.ax_.get_xlabel() == "Coverage"
    assert display.ax_.get_legend() is not None
    assert display.figure_ is display.ax_.figure


def test_from_estimator_uses_the_selective_classifiers_csf(pyplot, data):
    model, X, y = data
    display = RiskCoverageDisplay.from_estimator(model, X, y, csf="margin")
    assert display.line_.get_label().startswith("LogisticRegression (AURC = ")
    selective = SelectiveClassifier(LogisticRegression(), csf="margin").fit(X, y)
    display = RiskCoverageDisplay.from_estimator(selective, X, y)
    confidence = selective.confidence_score(X)
    expected = risk_coverage_curve(y, selective.predict(X), confidence)
    np.testing.assert_array_equal(display.risk, expected[1])


def test_from_cv_results_one_curve_per_fold(pyplot, data):
    _, X, y = data
    results = cross_validate(
        LogisticRegression(), X, y, cv=3, return_estimator=True, return_indices=True
    )
    display = RiskCoverageDisplay.from_cv_results(results, X, y)
    assert len(display.line_) == 3
    assert [line.get_label().split(" (")[0] for line in display.line_] == [
        "Fold 1",
        "Fold 2",
        "Fold 3",
    ]
    with pytest.raises(ValueError, match="return_indices=True"):
        RiskCoverageDisplay.from_cv_results({"estimator": []}, X, y)


def test_plot_on_given_axes_and_errors(pyplot):
    _, ax = pyplot.subplots()
    display = RiskCoverageDisplay(
        coverage=np.array([0.5, 1.0]), risk=np.array([0.0, 0.2]), thresholds=None
    )
    display.plot(ax=ax, curve_kwargs={"color": "red"})
    assert display.ax_ is ax
    assert display.line_.get_color() == "red"
    assert display.ax_.get_legend() is None  # no name, no metric: no legend
    with pytest.raises(ValueError, match="no oracle curve"):
        display.plot(plot_oracle=True)
    with pytest.raises(ValueError, match="kind must be one of"):
        RiskCoverageDisplay(coverage=[0.1], risk=[0.1], thresholds=[1], kind="x").plot()
