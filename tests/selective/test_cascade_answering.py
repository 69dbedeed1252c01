"""SelectiveCascade's answers: the first stage that accepts a sample answers
it, and every prediction method reads that one decision."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from sklearn_selective import SelectiveCascade


def _stages():
    return [("nb", GaussianNB()), ("lr", LogisticRegression(max_iter=1000))]


@pytest.fixture(scope="module")
def fitted(data):
    X, y, _, _ = data
    return SelectiveCascade(
        _stages(), target_coverage=0.8, stage_costs=[1.0, 10.0], random_state=0
    ).fit(X, y)


def test_the_first_stage_that_accepts_answers(fitted, data):
    _, _, X_test, _ = data
    cheap, strong = fitted.estimators_
    p_cheap, p_strong = cheap.predict_proba(X_test), strong.predict_proba(X_test)
    c_cheap, c_strong = p_cheap.max(axis=1), p_strong.max(axis=1)
    by_cheap = c_cheap >= fitted.thresholds_[0]
    by_strong = ~by_cheap & (c_strong >= fitted.thresholds_[1])
    expected = np.where(by_cheap, "nb", np.where(by_strong, "lr", "person"))
    decision = fitted.decide(X_test)
    np.testing.assert_array_equal(fitted.predict_stage(X_test), expected)
    np.testing.assert_array_equal(decision.stage, expected)
    np.testing.assert_array_equal(decision.accepted, by_cheap | by_strong)
    np.testing.assert_array_equal(fitted.predict_accept(X_test), by_cheap | by_strong)
    labels = fitted.classes_
    y_pred = np.where(
        by_cheap, labels[p_cheap.argmax(axis=1)], labels[p_strong.argmax(axis=1)]
    )
    np.testing.assert_array_equal(fitted.predict(X_test), y_pred)
    np.testing.assert_array_equal(decision.y_pred, y_pred)
    confidence = np.where(by_cheap, c_cheap, c_strong)
    np.testing.assert_allclose(fitted.confidence_score(X_test), confidence)
    assert not decision.novel.any()


def test_reject_label_names_the_person(data):
    X, y, X_test, _ = data
    cascade = SelectiveCascade(
        _stages(), target_coverage=0.7, reject_label=-1, random_state=0
    ).fit(X, y)
    stage = cascade.predict_stage(X_test)
    y_pred = cascade.predict(X_test)
    person = ~cascade.predict_accept(X_test)
    assert person.any()
    assert (y_pred[person] == -1).all() and (y_pred[~person] != -1).all()
    assert (stage[person] == -1).all()
    with pytest.raises(ValueError, match="reject_label=0 is not usable"):
        SelectiveCascade(_stages(), reject_label=0).fit(X, y)


def test_score_is_the_accuracy_of_the_answers(fitted, data):
    _, _, X_test, y_test = data
    accepted = fitted.predict_accept(X_test)
    expected = np.mean(fitted.predict(X_test)[accepted] == y_test[accepted])
    assert fitted.score(X_test, y_test) == pytest.approx(expected)


def test_predict_proba_is_the_answering_stages(fitted, data):
    X = data[2]
    stage = fitted.predict_stage(X)
    proba = fitted.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    names = [name for name, _ in fitted.estimators]
    for k, (name, estimator) in enumerate(zip(names, fitted.estimators_, strict=True)):
        rows = stage == name
        if k == len(fitted.estimators_) - 1:
            rows |= ~fitted.predict_accept(X)  # a person's: the last stage's
        if rows.any():
            np.testing.assert_array_equal(proba[rows], estimator.predict_proba(X[rows]))
    from sklearn.svm import LinearSVC

    assert not hasattr(SelectiveCascade([("svm", LinearSVC())]), "predict_proba")


def test_the_monitor_reads_a_cascade(fitted, data):
    """Issue 38: the monitor watches a cascade as it watches a selective
    classifier: each chunk's coverage is the cascade's predict_accept, and
    the label-free estimates read the answering stages' probabilities."""
    from sklearn_selective import PerformanceMonitor

    X, y, X_new, _ = data
    monitor = PerformanceMonitor(fitted, n_resamples=50, random_state=0)
    result = monitor.fit(X[::2], y[::2]).estimate(X_new, n_chunks=2)
    frame = result.to_frame()
    halves = np.array_split(fitted.predict_accept(X_new), 2)
    np.testing.assert_allclose(frame["coverage"], [h.mean() for h in halves])
    assert np.isfinite(frame["accuracy"]).all()
    assert np.isfinite(frame["selective_accuracy"]).all()


def test_the_monitor_reports_each_stages_share_per_chunk(fitted, data):
    """Issue 38: per chunk, the share each stage answers and the person's, as
    predict_stage says, in the result, its frame and its dict."""
    from sklearn_selective import PerformanceMonitor

    X, y, X_new, _ = data
    monitor = PerformanceMonitor(fitted, n_resamples=20, random_state=0)
    result = monitor.fit(X[::2], y[::2]).estimate(X_new, n_chunks=3)
    assert result.stage_names == ("nb", "lr", "person")
    expected = [
        [np.mean(part == name) for name in ("nb", "lr", "person")]
        for part in np.array_split(fitted.predict_stage(X_new), 3)
    ]
    np.testing.assert_allclose(result.stage_share, expected)
    np.testing.assert_allclose(result.stage_share[:, -1], 1 - result.coverage)
    frame = result.to_frame()
    columns = list(frame.columns)
    at = columns.index("coverage")
    assert columns[at + 1 : at + 4] == [
        "stage_share_nb",
        "stage_share_lr",
        "stage_share_person",
    ]
    np.testing.assert_allclose(frame["stage_share_lr"], result.stage_share[:, 1])
    assert result.to_dict()["chunks"][0]["stage_share_nb"] == expected[0][0]


def test_a_model_without_stages_has_no_stage_columns(data):
    from sklearn_selective import PerformanceMonitor

    X, y, X_new, _ = data
    model = LogisticRegression(max_iter=1000).fit(X, y)
    monitor = PerformanceMonitor(model, n_resamples=20, random_state=0)
    result = monitor.fit(X[::2], y[::2]).estimate(X_new, n_chunks=2)
    assert result.stage_share is None and result.stage_names is None
    assert not any(c.startswith("stage_share") for c in result.to_frame().columns)
