"""RiskCoverageDisplay, checked on a non-interactive backend as scikit-learn does."""

import inspect

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
    selective_risk_at_coverage,
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
        plot_chance_level=True,
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
        area = np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2)  # np.trapezoid: numpy >= 2
        assert area == pytest.approx(value)
    else:  # through every point of the curve, from coverage 0
        assert x[0] == 0 and x[-1] == 1
        at_points = np.isin(x, coverage)
        np.testing.assert_array_equal(x[at_points], coverage)
        np.testing.assert_array_equal(y[at_points], risk)
    assert display.oracle_line_.get_label() == "Oracle (model)"
    assert display.chance_level_.get_label() == "Chance level (model)"
    assert display.oracle_line_.get_color() == display.line_.get_color()
    mean_loss = np.average(y_true != y_pred, weights=weights)
    assert display.chance_level_.get_ydata()[-1] == pytest.approx(mean_loss)
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
    display = RiskCoverageDisplay.from_cv_results(
        results, X, y, plot_oracle=True, plot_chance_level=True
    )
    assert [line.get_label() for line in display.oracle_line_] == [
        "Oracle (Fold 1)",
        "Oracle (Fold 2)",
        "Oracle (Fold 3)",
    ]
    assert len(display.chance_level_) == 3
    with pytest.raises(ValueError, match="return_indices=True"):
        RiskCoverageDisplay.from_cv_results({"estimator": []}, X, y)


def test_selective_lines_are_the_expected_risk_at_every_coverage(pyplot):
    # Ties and weights: inside a tie group the drawn curve is
    # selective_risk_at_coverage (random acceptance inside the group), for the
    # model's curve and for its oracle alike.
    rng = np.random.default_rng(1)
    losses = rng.random(60) * (rng.random(60) < 0.4)
    losses[:20] = 1.0  # a wide tie group in the oracle
    confidence = rng.integers(0, 6, 60)
    weights = rng.integers(1, 4, 60).astype(float)
    display = RiskCoverageDisplay.from_predictions(
        None,
        None,
        confidence,
        loss=losses,
        sample_weight=weights,
        plot_oracle=True,
    )
    for line, scores in ((display.line_, confidence), (display.oracle_line_, -losses)):
        x, y = line.get_data()
        assert len(x) > 200  # the grid inside wide groups
        expected = [
            selective_risk_at_coverage(
                None, None, scores, coverage=c, loss=losses, sample_weight=weights
            )
            for c in x[1:]
        ]
        np.testing.assert_allclose(y[1:], expected, rtol=1e-12, atol=1e-15)
        # Coverage 0: the limit, the most confident group's mean loss.
        top = scores == scores.max()
        assert y[0] == pytest.approx(np.average(losses[top], weights=weights[top]))


def test_oracle_of_the_zero_one_loss_is_exact(pyplot):
    # Issue 12 item 7: the 0/1 oracle has two tie groups; drawn as a chord from
    # (accuracy, 0) to (1, error) it showed 0.0505 at coverage 0.848 where the
    # oracle's selective risk is (0.848 - 0.7975) / 0.848 = 0.0595, and it
    # missed the zero-risk stretch below the accuracy.
    y_true = np.zeros(400, dtype=int)
    y_pred = np.r_[np.ones(81, dtype=int), np.zeros(319, dtype=int)]  # acc 0.7975
    confidence = np.random.default_rng(0).random(400)
    display = RiskCoverageDisplay.from_predictions(
        y_true, y_pred, confidence, plot_oracle=True
    )
    x, y = display.oracle_line_.get_data()
    assert np.interp(0.848, x, y) == pytest.approx((0.848 - 0.7975) / 0.848, abs=1e-5)
    assert np.interp(0.848, x, y) == pytest.approx(0.0595, abs=1e-4)
    assert np.all(y[x <= 0.7975] == 0) and np.sum(x <= 0.7975) > 100
    above = x > 0.7975
    np.testing.assert_allclose(y[above], (x[above] - 0.7975) / x[above], atol=1e-15)


def test_reference_curves_belong_to_their_model(pyplot):
    # Two models on one axes: each has its own oracle and chance level, in its
    # colour and named after it; no legend entry is repeated.
    rng = np.random.default_rng(2)
    _, ax = pyplot.subplots()
    displays = {}
    for model, error_rate in (("A", 0.1), ("B", 0.3)):
        y_true = rng.integers(0, 2, 200)
        y_pred = np.where(rng.random(200) < error_rate, 1 - y_true, y_true)
        displays[model] = RiskCoverageDisplay.from_predictions(
            y_true,
            y_pred,
            rng.random(200),
            name=model,
            ax=ax,
            plot_oracle=True,
            plot_chance_level=True,
        )
        mean_loss = np.mean(y_true != y_pred)
        assert displays[model].chance_level_.get_ydata() == pytest.approx(
            [mean_loss, mean_loss]
        )
    labels = ax.get_legend_handles_labels()[1]
    assert len(labels) == len(set(labels)) == 6
    assert [label.split(" (AURC")[0] for label in labels if "AURC" in label] == [
        "A",
        "B",
    ]
    assert {"Oracle (A)", "Chance level (A)", "Oracle (B)", "Chance level (B)"} <= set(
        labels
    )
    for display in displays.values():
        color = display.line_.get_color()
        assert display.oracle_line_.get_color() == color
        assert display.chance_level_.get_color() == color
        assert display.chance_level_.get_linestyle() == "--"
    # User styles apply to the references of every curve.
    display = RiskCoverageDisplay.from_predictions(
        [0, 1, 1],
        [0, 1, 0],
        [0.9, 0.5, 0.1],
        plot_chance_level=True,
        chance_level_kw={"color": "k", "label": "random"},
    )
    assert display.chance_level_.get_color() == "k"
    assert display.chance_level_.get_label() == "random"


def test_one_curve_per_group(pyplot, data):
    model, X, y = data
    groups = np.where(X[:, 0] > 0, "site A", "site B")
    weights = np.random.default_rng(3).random(len(y))
    display = RiskCoverageDisplay.from_estimator(
        model,
        X,
        y,
        groups=groups,
        sample_weight=weights,
        plot_oracle=True,
        plot_chance_level=True,
    )
    y_pred = model.predict(X)
    confidence = model.predict_proba(X).max(axis=1)
    assert len(display.line_) == len(display.oracle_line_) == 2
    for position, group in enumerate(["site A", "site B"]):
        members = groups == group
        args = (y[members], y_pred[members], confidence[members])
        kwargs = {"sample_weight": weights[members]}
        coverage, risk, _ = risk_coverage_curve(*args, **kwargs)
        np.testing.assert_array_equal(display.coverage[position], coverage)
        np.testing.assert_array_equal(display.risk[position], risk)
        value = aurc(*args, **kwargs)
        assert display.metric_value[position] == value
        assert display.line_[position].get_label() == (
            f"LogisticRegression, group {group} (AURC = {value:.4f})"
        )
        assert display.oracle_line_[position].get_label() == (
            f"Oracle (LogisticRegression, group {group})"
        )
    with pytest.raises(ValueError, match="groups must have shape"):
        RiskCoverageDisplay.from_estimator(model, X, y, groups=groups[:-1])
    weights[groups == "site B"] = 0
    with pytest.raises(ValueError, match="'site B' of groups has a total sample_w"):
        RiskCoverageDisplay.from_estimator(
            model, X, y, groups=groups, sample_weight=weights
        )


def test_keywords_follow_scikit_learn_displays(pyplot, data):
    # Issue 14 item 3: one keyword per concept in the three constructors, and
    # scikit-learn's names for the shared ones.
    from sklearn.metrics import RocCurveDisplay

    shared = {
        "name",
        "ax",
        "curve_kwargs",
        "plot_chance_level",
        "chance_level_kw",
        "despine",
    }
    ours = {"kind", "loss", "sample_weight", "aurc_estimator", "plot_oracle"}
    ours |= {"oracle_kw"}
    roc = set(inspect.signature(RocCurveDisplay.from_estimator).parameters)
    assert shared <= roc
    assert shared - {"name"} <= set(inspect.signature(RocCurveDisplay.plot).parameters)
    for method in ("from_estimator", "from_predictions", "from_cv_results"):
        parameters = set(
            inspect.signature(getattr(RiskCoverageDisplay, method)).parameters
        )
        assert shared | ours <= parameters, method
        assert not {"estimator_kind", "plot_random", "random_kw"} & parameters
    plot = set(inspect.signature(RiskCoverageDisplay.plot).parameters)
    assert shared - {"curve_kwargs"} <= plot

    model, X, y = data
    display = RiskCoverageDisplay.from_estimator(
        model, X, y, aurc_estimator="log", despine=True
    )
    y_pred, confidence = model.predict(X), model.predict_proba(X).max(axis=1)
    assert display.metric_value == aurc(y, y_pred, confidence, aurc_estimator="log")
    assert not display.ax_.spines["top"].get_visible()
    assert not display.ax_.spines["right"].get_visible()
    with pytest.raises(ValueError, match="aurc_estimator"):
        RiskCoverageDisplay.from_estimator(model, X, y, aurc_estimator="median")


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
    with pytest.raises(ValueError, match="no mean_loss for the chance level"):
        display.plot(plot_chance_level=True)
    with pytest.raises(ValueError, match="name has 3 entries for 1 curves"):
        display.plot(name=["a", "b", "c"])
    with pytest.raises(ValueError, match="kind must be one of"):
        RiskCoverageDisplay(coverage=[0.1], risk=[0.1], thresholds=[1], kind="x").plot()
