"""Scorers: exact values, one inference, and every scikit-learn search tool."""

import numpy as np
import pytest
from sklearn import config_context
from sklearn.datasets import make_classification
from sklearn.experimental import enable_halving_search_cv  # noqa: F401
from sklearn.inspection import permutation_importance
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import (
    GridSearchCV,
    HalvingGridSearchCV,
    RandomizedSearchCV,
    StratifiedKFold,
    cross_validate,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from sklearn_selective import SelectiveClassifier
from sklearn_selective.confidence import get_confidence_function
from sklearn_selective.metrics import (
    augrc,
    aurc,
    coverage_at_risk,
    e_aurc,
    get_scorer,
    get_scorer_names,
    make_coverage_at_risk_scorer,
    make_risk_at_coverage_scorer,
    make_selective_scorer,
    naurc,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)

SCORER_METRICS = {
    "neg_augrc": (augrc, -1),
    "neg_aurc": (aurc, -1),
    "neg_e_aurc": (e_aurc, -1),
    "neg_naurc": (naurc, -1),
    "uq_auc": (uq_auc, 1),
    "uq_c_index": (uq_c_index, 1),
}


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=600,
        n_features=10,
        n_informative=5,
        n_classes=3,
        flip_y=0.05,
        random_state=0,
    )
    return X[:400], y[:400], X[400:], y[400:]


def _model(C=1.0):
    return make_pipeline(StandardScaler(), LogisticRegression(C=C))


class CountingModel(LogisticRegression):
    """Counts inference calls."""

    calls = 0

    def predict_proba(self, X):
        type(self).calls += 1
        return super().predict_proba(X)


def test_names_and_unknown_name():
    assert get_scorer_names() == sorted(SCORER_METRICS)
    with pytest.raises(ValueError, match=r"'acuracy' is neither .*'neg_augrc'"):
        get_scorer("acuracy")


def test_scikit_learn_names_pass_through():
    # issue 28: imported under one name, this get_scorer shadowed scikit-learn's;
    # its names still give scikit-learn's scorers.
    from sklearn.metrics import get_scorer as sklearn_get_scorer

    assert repr(get_scorer("accuracy")) == repr(sklearn_get_scorer("accuracy"))
    assert repr(get_scorer("neg_log_loss")) == repr(sklearn_get_scorer("neg_log_loss"))


@pytest.mark.parametrize("name", sorted(SCORER_METRICS))
def test_scorer_equals_metric_for_a_probabilistic_model(data, name):
    X, y, X_test, y_test = data
    model = _model().fit(X, y)
    proba = model.predict_proba(X_test)
    y_pred, confidence = model.classes_[proba.argmax(1)], proba.max(1)
    metric, sign = SCORER_METRICS[name]
    if name == "uq_c_index":  # a concordance with the probability gap
        y_pred = proba
    assert get_scorer(name)(model, X_test, y_test) == sign * metric(
        y_test, y_pred, confidence
    )
    weights = np.random.default_rng(0).integers(0, 4, size=len(y_test))
    assert get_scorer(name)(
        model, X_test, y_test, sample_weight=weights
    ) == sign * metric(y_test, y_pred, confidence, sample_weight=weights)


def test_decision_function_model_uses_max_logit(data):
    X, y, X_test, y_test = data
    svm = LinearSVC().fit(X, y)
    scores = svm.decision_function(X_test)
    expected = augrc(y_test, svm.classes_[scores.argmax(1)], scores.max(1))
    assert get_scorer("neg_augrc")(svm, X_test, y_test) == -expected


def test_selective_classifier_uses_its_own_csf(data):
    X, y, X_test, y_test = data
    clf = SelectiveClassifier(_model(), csf="margin", reject_label=-1).fit(X, y)
    proba = clf.predict_proba(X_test)
    margin = get_confidence_function("margin")(proba)
    expected = augrc(y_test, clf.classes_[proba.argmax(1)], margin)
    assert get_scorer("neg_augrc")(clf, X_test, y_test) == -expected
    assert clf.score(X_test, y_test) == -expected  # the default scoring


def test_working_point_factories(data):
    X, y, X_test, y_test = data
    model = _model().fit(X, y)
    proba = model.predict_proba(X_test)
    y_pred, confidence = proba.argmax(1), proba.max(1)
    assert make_risk_at_coverage_scorer(0.7)(
        model, X_test, y_test
    ) == -selective_risk_at_coverage(y_test, y_pred, confidence, coverage=0.7)
    assert make_coverage_at_risk_scorer(0.05)(model, X_test, y_test) == (
        coverage_at_risk(y_test, y_pred, confidence, risk=0.05)
    )
    scorer = make_selective_scorer("aurc", csf="negative_entropy", aurc_estimator="log")
    entropy = get_confidence_function("negative_entropy")(proba)
    assert scorer(model, X_test, y_test) == -aurc(
        y_test, y_pred, entropy, aurc_estimator="log"
    )
    assert "make_selective_scorer(aurc" in repr(scorer)


def test_one_inference_per_evaluation(data):
    X, y, X_test, y_test = data
    model = CountingModel().fit(X, y)
    CountingModel.calls = 0
    get_scorer("neg_augrc")(model, X_test, y_test)
    assert CountingModel.calls == 1
    # Several selective scorers of one multi-metric evaluation share it.
    CountingModel.calls = 0
    scoring = {name: get_scorer(name) for name in ("neg_augrc", "neg_aurc", "uq_auc")}
    cross_validate(CountingModel(), X, y, scoring=scoring, cv=2)
    assert CountingModel.calls == 2  # one per fold


def test_search_tools(data):
    X, y, _, _ = data
    grid = {"logisticregression__C": [0.01, 1.0]}
    scorer = get_scorer("neg_augrc")
    for search in (
        GridSearchCV(_model(), grid, scoring=scorer, cv=3),
        RandomizedSearchCV(_model(), grid, n_iter=2, scoring=scorer, cv=3),
        HalvingGridSearchCV(_model(), grid, scoring=scorer, cv=3, random_state=0),
    ):
        search.fit(X, y)
        assert search.best_params_["logisticregression__C"] in (0.01, 1.0)
        assert np.all(search.cv_results_["mean_test_score"] <= 0)


def test_multimetric_cross_validate_and_refit(data):
    X, y, _, _ = data
    scoring = {
        "neg_augrc": get_scorer("neg_augrc"),
        "uq_auc": get_scorer("uq_auc"),
        "accuracy": "accuracy",
    }
    results = cross_validate(_model(), X, y, scoring=scoring, cv=3)
    assert {"test_neg_augrc", "test_uq_auc", "test_accuracy"} <= set(results)
    search = GridSearchCV(
        _model(),
        {"logisticregression__C": [0.01, 1.0]},
        scoring=scoring,
        refit="neg_augrc",
        cv=3,
    ).fit(X, y)
    best = np.argmax(search.cv_results_["mean_test_neg_augrc"])
    assert search.best_index_ == best


def test_permutation_importance(data):
    X, y, X_test, y_test = data
    model = _model().fit(X, y)
    result = permutation_importance(
        model,
        X_test,
        y_test,
        scoring=get_scorer("neg_augrc"),
        n_repeats=3,
        random_state=0,
    )
    assert result.importances_mean.shape == (X.shape[1],)
    assert result.importances_mean.max() > 0


def test_sample_weight_is_routed_to_the_scorer(data):
    X, y, _, _ = data
    weights = np.random.default_rng(1).integers(1, 4, size=len(y)).astype(float)
    cv = StratifiedKFold(3)
    with config_context(enable_metadata_routing=True):
        scorer = get_scorer("neg_augrc").set_score_request(sample_weight=True)
        model = make_pipeline(
            StandardScaler().set_fit_request(sample_weight=False),
            LogisticRegression().set_fit_request(sample_weight=False),
        )
        results = cross_validate(
            model, X, y, scoring=scorer, cv=cv, params={"sample_weight": weights}
        )
    expected = []
    for train, test in cv.split(X, y):
        fitted = _model().fit(X[train], y[train])
        proba = fitted.predict_proba(X[test])
        expected.append(
            -augrc(y[test], proba.argmax(1), proba.max(1), sample_weight=weights[test])
        )
    np.testing.assert_allclose(results["test_score"], expected, rtol=1e-12)


def _csf_problem():
    """Three classes where the MSP misranks failures and the margin does not.

    Class 2 is a low-density "confusable" class: the model's probabilities of
    class 2 are flat (low MSP) but the decision between 0 and 1 is clear.
    """
    X, y = make_classification(
        n_samples=900,
        n_features=6,
        n_informative=4,
        n_redundant=0,
        n_classes=3,
        n_clusters_per_class=2,
        class_sep=0.8,
        flip_y=0.15,
        random_state=4,
    )
    return X, y


def test_search_over_csf_matches_a_manual_loop():
    X, y = _csf_problem()
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    csfs = ["msp", "margin", "negative_entropy", "gini"]
    search = GridSearchCV(
        SelectiveClassifier(_model(), cv=3),
        {"csf": csfs},
        scoring=get_scorer("neg_augrc"),
        cv=cv,
    ).fit(X, y)
    manual = {}
    for csf in csfs:
        scores = []
        for train, test in cv.split(X, y):
            fitted = _model().fit(X[train], y[train])
            proba = fitted.predict_proba(X[test])
            confidence = get_confidence_function(csf)(proba)
            scores.append(-augrc(y[test], proba.argmax(1), confidence))
        manual[csf] = np.mean(scores)
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], [manual[c] for c in csfs], rtol=1e-12
    )
    assert search.best_params_["csf"] == max(manual, key=manual.get)
    assert len({round(v, 6) for v in manual.values()}) == len(csfs)  # no ties


def test_same_best_params_with_one_and_two_jobs(data):
    X, y, _, _ = data
    grid = {"csf": ["msp", "margin"], "estimator__logisticregression__C": [0.1, 1]}
    results = [
        GridSearchCV(
            SelectiveClassifier(_model(), cv=3), grid, cv=3, n_jobs=n_jobs
        ).fit(X, y)
        for n_jobs in (1, 2)
    ]
    assert results[0].best_params_ == results[1].best_params_
    np.testing.assert_array_equal(
        results[0].cv_results_["mean_test_score"],
        results[1].cv_results_["mean_test_score"],
    )


def test_score_rejects_labels_unseen_at_fit(data):
    X, y, X_test, y_test = data
    clf = SelectiveClassifier(_model()).fit(X, y)
    with pytest.raises(ValueError, match=r"labels unseen at fit: \[7\]"):
        clf.score(X_test, np.where(y_test == 0, 7, y_test))


def test_score_accepts_other_scorings(data):
    X, y, X_test, y_test = data
    clf = SelectiveClassifier(_model(), scoring="accuracy").fit(X, y)
    assert clf.score(X_test, y_test) == np.mean(clf.predict(X_test) == y_test)
    clf.set_params(scoring="uq_auc")
    assert 0.5 < clf.score(X_test, y_test) <= 1


def test_dask_backend_gives_the_same_search(data):
    distributed = pytest.importorskip("distributed")
    from joblib import parallel_config

    X, y, _, _ = data
    grid = {"csf": ["msp", "margin"], "estimator__logisticregression__C": [0.1, 1]}

    def search():
        return GridSearchCV(
            SelectiveClassifier(_model(), cv=3),
            grid,
            scoring=get_scorer("neg_augrc"),
            cv=3,
            n_jobs=2,
        )

    local = search().fit(X, y)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster),
        parallel_config(backend="dask"),
    ):
        remote = search().fit(X, y)
    assert remote.best_params_ == local.best_params_
    np.testing.assert_array_equal(
        remote.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"]
    )
