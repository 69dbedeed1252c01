"""SelectiveClassifier: policies, guarantee, scikit-learn citizenship, bad input."""

import math
import pickle

import numpy as np
import pytest
from sklearn import config_context
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_classification
from sklearn.ensemble import IsolationForest
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils import Bunch
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_selective import SelectiveClassifier


# No expected failures: with ``reject_label=None`` (the default) ``predict``
# returns the refitted model's labels, so even the sample-weight equivalence
# check passes although the out-of-fold threshold depends on the CV splits.
class _ZeroOneCosts:
    """A callable cost matrix with a stable repr (test ids must not hold a
    memory address, or parallel test workers collect different tests)."""

    def __call__(self, classes):
        return 1 - np.eye(len(classes))

    def __repr__(self):
        return "zero_one_costs"


_zero_one_costs = _ZeroOneCosts()


def _with_check_warnings(test):
    """scikit-learn's checks fit on tiny random data: the policies' own
    warnings (nothing meets the target, a fold's risk undefined) are expected
    there, and one check casts NaN in scikit-learn's array API shim."""
    for message in (
        ".*cannot have a threshold of their own",
        "No threshold has a validation selective risk",
        "cv_results_.*is undefined",
        "invalid value encountered in cast",
    ):
        test = pytest.mark.filterwarnings(f"ignore:{message}")(test)
    return test


# The fast loop checks the default policy and a per-class guarantee; the other
# policies (each about 10 s of checks) run in the full suite.
@parametrize_with_checks(
    [
        SelectiveClassifier(LogisticRegression()),
        SelectiveClassifier(
            LogisticRegression(), target_risk=0.2, threshold_per_class=True
        ),
    ]
)
@_with_check_warnings
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks(
    [
        SelectiveClassifier(LogisticRegression(), target_coverage=1.0),
        SelectiveClassifier(
            LogisticRegression(),
            novelty_detector=IsolationForest(n_estimators=10, random_state=0),
        ),
        SelectiveClassifier(
            LogisticRegression(),
            cost_matrix=_zero_one_costs,
            rejection_cost=0.3,
            cost_rule="empirical",
            calibration="isotonic",
            store_cv_results=True,
        ),
        SelectiveClassifier(
            LogisticRegression(),
            cost_matrix=_zero_one_costs,
            rejection_cost=0.3,
            calibration="temperature",
        ),
    ]
)
@_with_check_warnings
def test_sklearn_compatible_estimator_other_policies(estimator, check):
    check(estimator)


def _model():
    return make_pipeline(StandardScaler(), LogisticRegression())


# ------------------------------------------------------------------------------------
# Policies
# ------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", [0.5, 0.8, 0.95, 1.0])
def test_target_coverage_on_validation_and_fresh_data(data, target):
    X, y, X_new, _ = data
    clf = SelectiveClassifier(_model(), target_coverage=target).fit(X, y)
    assert clf.policy_ == "target_coverage"
    assert clf.coverage_ >= target
    assert clf.coverage_ - target < 2 / len(y)  # minimal: at most one sample more
    assert abs(clf.predict_accept(X_new).mean() - target) < 0.05


def test_default_policy_is_ninety_percent_coverage(data):
    X, y, _, _ = data
    clf = SelectiveClassifier(_model()).fit(X, y)
    assert clf.policy_ == "target_coverage"
    assert 0.9 <= clf.coverage_ < 0.9 + 2 / len(y)


def test_target_risk_and_rejection_cost(data):
    X, y, X_new, y_new = data
    clf = SelectiveClassifier(_model(), target_risk=0.05).fit(X, y)
    assert clf.policy_ == "target_risk"
    assert clf.risk_ <= 0.05
    accepted = clf.predict_accept(X_new)
    assert 0 < accepted.mean() < 1
    assert np.mean(clf.predict(X_new)[accepted] != y_new[accepted]) < 0.1

    cheap = SelectiveClassifier(_model(), rejection_cost=0.05).fit(X, y)
    dear = SelectiveClassifier(_model(), rejection_cost=0.6).fit(X, y)
    assert cheap.policy_ == "rejection_cost"
    assert cheap.coverage_ < dear.coverage_
    # Rejecting costs 0.6: only the few lowest-confidence groups, whose
    # validation error exceeds 0.6, are worth rejecting.
    assert dear.coverage_ > 0.95


def test_predictions_with_reject_label(data):
    X, y, X_new, _ = data
    clf = SelectiveClassifier(_model(), target_coverage=0.7, reject_label=-1).fit(X, y)
    y_pred = clf.predict(X_new)
    accepted = clf.predict_accept(X_new)
    assert np.all(y_pred[~accepted] == -1)
    np.testing.assert_array_equal(
        y_pred[accepted], clf.estimator_.predict(X_new)[accepted]
    )
    np.testing.assert_array_equal(
        accepted, clf.confidence_score(X_new) >= clf.threshold_
    )
    np.testing.assert_allclose(
        clf.predict_proba(X_new), clf.estimator_.predict_proba(X_new)
    )


def test_string_labels_and_a_string_reject_label(data):
    X, y, X_new, _ = data
    names = np.array(["cat", "dog", "bird"])[y]
    clf = SelectiveClassifier(
        _model(), target_coverage=0.6, reject_label="abstain"
    ).fit(X, names)
    assert set(clf.classes_) == {"bird", "cat", "dog"}
    y_pred = clf.predict(X_new)
    assert set(np.unique(y_pred)) <= {"bird", "cat", "dog", "abstain"}
    assert np.any(y_pred == "abstain")


def test_binary_problem_with_a_decision_function_only_classifier():
    X, y = make_classification(n_samples=600, random_state=1)
    clf = SelectiveClassifier(LinearSVC(), csf="max_logit", target_coverage=0.8).fit(
        X, y
    )
    assert clf.coverage_ >= 0.8
    assert clf.predict_accept(X).dtype == bool
    assert not hasattr(clf, "predict_proba")


def test_reject_label_must_not_be_a_class(data):
    X, y, _, _ = data
    with pytest.raises(ValueError, match=r"reject_label=1 .* one of the classes.*-1"):
        SelectiveClassifier(_model(), reject_label=1).fit(X, y)


@pytest.mark.parametrize(
    "labels, reject_label, match",
    [
        (["cat", "dog", "bird"], -1, "must be a string.*reject_label='abstain'"),
        (["abstain", "dog", "bird"], None, None),
        ([0, 1, 2], "abstain", "must be an integer.*reject_label=-1"),
        ([0, 1, 2], 0.5, "must be an integer"),
        ([-1, 0, 1], -1, "one of the classes.*reject_label=-2"),
        ([0.0, 1.0, 2.0], "x", "must be a number"),
        (["abstain", "dog", "bird"], "abstain", "reject_label='rejected'"),
    ],
)
def test_reject_label_must_match_the_classes_type(data, labels, reject_label, match):
    # Issue 12 item 8: -1 with string classes gave a mixed array that crashed
    # accuracy_score; now fit refuses it and suggests a valid label.
    X, y, _, _ = data
    y = np.asarray(labels)[y]
    clf = SelectiveClassifier(_model(), reject_label=reject_label)
    if match is None:
        clf.fit(X, y)
        return
    with pytest.raises(ValueError, match=match):
        clf.fit(X, y)


@pytest.mark.parametrize(
    "labels, reject_label, dtype_kind",
    [
        ([0, 1, 2], -1, "i"),
        ([0.0, 1.0, 2.0], -1, "f"),
        (["a", "b", "c"], "abstain", "U"),
    ],
)
def test_predictions_with_a_reject_label_keep_the_classes_type(
    data, labels, reject_label, dtype_kind
):
    from sklearn.metrics import accuracy_score

    X, y, X_new, y_new = data
    labels = np.asarray(labels)
    clf = SelectiveClassifier(_model(), reject_label=reject_label).fit(X, labels[y])
    y_pred = clf.predict(X_new)
    assert y_pred.dtype.kind == dtype_kind
    assert np.sum(y_pred == reject_label) > 0
    assert 0 < accuracy_score(labels[y_new], y_pred) < 1


def test_messages_name_the_argument_and_never_give_circular_advice(data):
    from sklearn.linear_model import LinearRegression

    X, y, _, _ = data
    for csf in ("msp", "max_logit"):
        with pytest.raises(ValueError, match="estimator=LinearRegression has neither"):
            SelectiveClassifier(LinearRegression(), csf=csf).fit(X, y)
    with pytest.raises(ValueError, match="sample_weight has 10 entries but y has"):
        SelectiveClassifier(_model()).fit(X, y, sample_weight=np.ones(10))


# ------------------------------------------------------------------------------------
# The guarantee
# ------------------------------------------------------------------------------------
class CalibratedCoin(ClassifierMixin, BaseEstimator):
    """Predicts class 1 with probability p = 0.5 + x / 2 for a feature x in [0, 1].

    With x uniform and y ~ Bernoulli(p), the MSP is p ~ U(0.5, 1) and the true
    selective risk at threshold t is E[1 - p | p >= t] = (1 - t) / 2.
    """

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.n_features_in_ = 1
        return self

    def predict_proba(self, X):
        p = 0.5 + np.asarray(X)[:, 0] / 2
        return np.column_stack([1 - p, p])

    def predict(self, X):
        return np.ones(len(X), dtype=int)


def _true_selective_risk(threshold):
    return (1 - min(max(threshold, 0.5), 1.0)) / 2


def _guarantee_violation_rate(
    n_repeats, n_validation, target, confidence_level, seed, guarantee="sgr"
):
    rng = np.random.default_rng(seed)
    model = FrozenEstimator(CalibratedCoin().fit(None, None))
    violations = 0
    for _ in range(n_repeats):
        x = rng.random((n_validation, 1))
        y = (rng.random(n_validation) < 0.5 + x[:, 0] / 2).astype(int)
        clf = SelectiveClassifier(
            model,
            target_risk=target,
            confidence_level=confidence_level,
            guarantee=guarantee,
        ).fit(x, y)
        if np.isfinite(clf.threshold_):  # else it abstains on everything
            assert clf.risk_ <= clf.risk_bound_ <= target
        violations += _true_selective_risk(clf.threshold_) > target
    return violations / n_repeats


@pytest.mark.filterwarnings("ignore:No threshold certifies")
@pytest.mark.parametrize("guarantee", ["fixed_sequence", "sgr"])
def test_guarantee_holds_fast(guarantee):
    # 300 repetitions: the rate is <= 1 - confidence_level = delta up to 3 Monte
    # Carlo standard errors.
    delta = 0.1
    rate = _guarantee_violation_rate(
        300, 500, 0.1, confidence_level=0.9, seed=0, guarantee=guarantee
    )
    assert rate <= delta + 3 * math.sqrt(delta * (1 - delta) / 300)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:No threshold certifies")
def test_sgr_guarantee_holds_slow():
    delta = 0.2
    rate = _guarantee_violation_rate(3000, 300, 0.12, confidence_level=0.8, seed=1)
    assert rate <= delta + 3 * math.sqrt(delta * (1 - delta) / 3000)


def test_guarantee_needs_the_certified_model_to_be_deployed(data):
    X, y, _, _ = data
    with pytest.raises(ValueError, match="holds only for the model"):
        SelectiveClassifier(_model(), target_risk=0.1, confidence_level=0.9).fit(X, y)
    with pytest.raises(ValueError, match="holds only for the model"):
        SelectiveClassifier(
            _model(), target_risk=0.1, confidence_level=0.9, cv=0.3
        ).fit(X, y)
    clf = SelectiveClassifier(
        _model(),
        target_risk=0.2,
        confidence_level=0.9,
        cv=0.3,
        refit=False,
        random_state=0,
    ).fit(X, y)
    assert clf.policy_ == "guaranteed_risk"
    assert clf.risk_ <= clf.risk_bound_ < 0.2
    fitted = _model().fit(X[:1000], y[:1000])
    clf = SelectiveClassifier(
        FrozenEstimator(fitted), target_risk=0.2, confidence_level=0.9
    ).fit(X[1000:], y[1000:])
    assert clf.estimator_.estimator is fitted
    assert clf.risk_bound_ < 0.2


def test_guarantee_refuses_too_few_samples_and_weights(data):
    X, y, _, _ = data
    fitted = FrozenEstimator(_model().fit(X, y))
    with pytest.raises(ValueError, match="cannot be certified from 20"):
        SelectiveClassifier(fitted, target_risk=0.01, confidence_level=0.95).fit(
            X[:20], y[:20]
        )
    with pytest.raises(
        ValueError, match="sample_weight is not supported with confidence_level"
    ):
        SelectiveClassifier(fitted, target_risk=0.1, confidence_level=0.95).fit(
            X, y, sample_weight=np.ones(len(y))
        )


# ------------------------------------------------------------------------------------
# Validation data, reproducibility, composition
# ------------------------------------------------------------------------------------
def test_frozen_estimator_uses_all_data_for_validation(data):
    X, y, X_new, y_new = data
    fitted = _model().fit(X_new, y_new)
    clf = SelectiveClassifier(FrozenEstimator(fitted), target_coverage=0.5).fit(X, y)
    confidence = clf.confidence_score(X)
    assert np.mean(confidence >= clf.threshold_) == pytest.approx(clf.coverage_)
    assert clf.coverage_ >= 0.5


@pytest.mark.parametrize("cv", [3, KFold(4, shuffle=True, random_state=0), 0.25])
def test_identical_results_with_one_or_two_jobs(data, cv):
    X, y, X_new, _ = data
    fits = [
        SelectiveClassifier(
            _model(), target_coverage=0.8, cv=cv, n_jobs=n_jobs, random_state=0
        ).fit(X, y)
        for n_jobs in (1, 2)
    ]
    assert fits[0].threshold_ == fits[1].threshold_
    np.testing.assert_array_equal(fits[0].predict(X_new), fits[1].predict(X_new))


def test_reproducible_with_and_without_random_state(data):
    X, y, _, _ = data
    a = SelectiveClassifier(_model(), cv=0.3, random_state=3).fit(X, y)
    b = SelectiveClassifier(_model(), cv=0.3, random_state=3).fit(X, y)
    assert a.threshold_ == b.threshold_
    # An integer cv is deterministic, so random_state is not needed.
    a = SelectiveClassifier(_model(), cv=4).fit(X, y)
    b = SelectiveClassifier(_model(), cv=4).fit(X, y)
    assert a.threshold_ == b.threshold_


def test_refit_false_keeps_the_single_split_model(data):
    X, y, _, _ = data
    clf = SelectiveClassifier(_model(), cv=0.3, refit=False, random_state=0).fit(X, y)
    assert not np.allclose(clf.estimator_[-1].coef_, _model().fit(X, y)[-1].coef_)
    with pytest.raises(ValueError, match="refit=False keeps the model of a single"):
        SelectiveClassifier(_model(), cv=3, refit=False).fit(X, y)


def test_params_clone_pickle_and_grid_search(data):
    X, y, X_new, _ = data
    clf = SelectiveClassifier(_model(), target_coverage=0.8)
    assert clf.get_params()["estimator__logisticregression__C"] == 1.0
    clf.set_params(estimator__logisticregression__C=0.1)
    assert clone(clf).estimator[-1].C == 0.1
    clf.fit(X, y)
    restored = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(restored.predict(X_new), clf.predict(X_new))
    grid = {"csf": ["msp", "margin"], "estimator__logisticregression__C": [0.1]}
    search = GridSearchCV(clf, grid, cv=3).fit(X, y)
    assert search.best_params_["csf"] in {"msp", "margin"}


def test_selective_classifier_as_the_last_step_of_a_pipeline(data):
    X, y, X_new, _ = data
    pipeline = make_pipeline(
        StandardScaler(), SelectiveClassifier(LogisticRegression(), reject_label=-1)
    ).fit(X, y)
    assert np.any(pipeline.predict(X_new) == -1)


def test_html_repr_shows_the_inner_estimator():
    html = SelectiveClassifier(_model())._repr_html_()
    assert "LogisticRegression" in html and "StandardScaler" in html


def test_sample_weight_reaches_the_inner_estimator(data):
    X, y, _, _ = data
    weights = np.where(y == 0, 5.0, 1.0)
    weighted = SelectiveClassifier(LogisticRegression(), cv=3).fit(
        X, y, sample_weight=weights
    )
    direct = LogisticRegression().fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(weighted.estimator_.coef_, direct.coef_)

    with config_context(enable_metadata_routing=True):
        inner = LogisticRegression().set_fit_request(sample_weight=True)
        scaler = StandardScaler().set_fit_request(sample_weight=False)
        routed = SelectiveClassifier(make_pipeline(scaler, inner), cv=3)
        routed.fit(X, y, sample_weight=weights)
    expected = make_pipeline(StandardScaler(), LogisticRegression()).fit(
        X, y, logisticregression__sample_weight=weights
    )
    np.testing.assert_allclose(routed.estimator_[-1].coef_, expected[-1].coef_)


def test_sample_weight_without_support_in_fit_warns(data):
    X, y, _, _ = data
    with pytest.warns(UserWarning, match="does not accept sample_weight"):
        SelectiveClassifier(make_pipeline(StandardScaler(), GaussianNB())).fit(
            X, y, sample_weight=np.ones(len(y))
        )


# ------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------


def test_unfitted_classifier_raises_not_fitted(data):
    _, _, X_new, _ = data
    clf = SelectiveClassifier(_model())
    for method in ("predict", "predict_accept", "confidence_score", "predict_proba"):
        with pytest.raises(NotFittedError):
            getattr(clf, method)(X_new)


# ------------------------------------------------------------------------------------
# Per-fold results and the validation table (issue 14 item 4)
# ------------------------------------------------------------------------------------
def test_cv_results_are_the_policy_on_each_fold(data):
    X, y, _, _ = data
    clf = SelectiveClassifier(
        _model(), target_coverage=0.8, cv=KFold(4), store_cv_results=True
    ).fit(X, y)
    results = clf.cv_results_
    assert results["threshold"].shape == (4,)
    np.testing.assert_array_equal(results["n_samples"], [500] * 4)
    assert np.all(results["coverage"] >= 0.8)
    assert results["std_threshold"] == pytest.approx(np.std(results["threshold"]))
    # Fold 0 alone: the same policy on the first fold's out-of-fold predictions.
    first = SelectiveClassifier(
        _model(), target_coverage=0.8, cv=[next(KFold(4).split(X))], refit=False
    ).fit(X, y)
    assert results["threshold"][0] == first.threshold_
    assert results["risk"][0] == first.risk_
    assert SelectiveClassifier(_model()).fit(X, y).cv_results_ is None


def test_validation_curve_is_the_table_the_threshold_comes_from(data):
    X, y, _, _ = data
    clf = SelectiveClassifier(_model(), target_risk=0.1).fit(X, y)
    table = clf.validation_curve_
    assert np.all(np.diff(table["threshold"]) < 0)
    row = np.flatnonzero(table["threshold"] == clf.threshold_)[0]
    assert table["coverage"][row] == clf.coverage_
    assert table["risk"][row] == clf.risk_
    # The lowest threshold with a risk <= target: every lower one exceeds it.
    assert np.all(table["risk"][row + 1 :] > 0.1)
    assert table["coverage"][-1] == 1.0


# ------------------------------------------------------------------------------------
# Choosing the CSF by AUGRC at the price of the model (issue 14 item 5)
# ------------------------------------------------------------------------------------
class CountingLogisticRegression(LogisticRegression):
    n_fits = 0

    def fit(self, X, y, sample_weight=None):
        CountingLogisticRegression.n_fits += 1
        return super().fit(X, y, sample_weight=sample_weight)


def test_accept_all_fits_the_model_once_and_scores_like_the_threshold_mode(data):
    X, y, X_new, y_new = data
    CountingLogisticRegression.n_fits = 0
    cheap = SelectiveClassifier(
        CountingLogisticRegression(), csf="margin", target_coverage=1.0
    ).fit(X, y)
    assert CountingLogisticRegression.n_fits == 1
    assert cheap.threshold_ == -np.inf and cheap.coverage_ == 1.0
    assert cheap.predict_accept(X_new).all()
    assert cheap.validation_curve_ is None
    full = SelectiveClassifier(CountingLogisticRegression(), csf="margin", cv=3)
    full.fit(X, y)
    assert CountingLogisticRegression.n_fits == 1 + 4
    assert cheap.score(X_new, y_new) == full.score(X_new, y_new)


def test_grid_search_over_csfs_is_the_same_with_accept_all(data):
    X, y, _, _ = data
    grid = {"csf": ["msp", "margin", "negative_entropy"]}
    searches = [
        GridSearchCV(SelectiveClassifier(_model(), **params), grid, cv=3).fit(X, y)
        for params in ({"target_coverage": 1.0}, {"cv": 3})
    ]
    np.testing.assert_array_equal(
        searches[0].cv_results_["mean_test_score"],
        searches[1].cv_results_["mean_test_score"],
    )


# ------------------------------------------------------------------------------------
# Per-class thresholds (issue 16 item 1)
# ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params",
    [
        {"target_coverage": 0.8},
        {"target_risk": 0.15},
        {"rejection_cost": 0.3},
    ],
)
def test_per_class_thresholds_apply_to_each_predicted_class(data, params):
    X, y, X_new, _ = data
    clf = SelectiveClassifier(_model(), threshold_per_class=True, **params)
    clf.fit(X, y)
    for attribute in ("threshold_", "coverage_", "risk_"):
        assert getattr(clf, attribute).shape == (3,)
    if "target_coverage" in params:
        assert np.all(clf.coverage_ >= 0.8)
    if "target_risk" in params:
        assert np.all(clf.risk_ <= 0.15)
    y_pred = clf.estimator_.predict(X_new)
    confidence = clf.confidence_score(X_new)
    expected = confidence >= clf.threshold_[np.searchsorted(clf.classes_, y_pred)]
    np.testing.assert_array_equal(clf.predict_accept(X_new), expected)
    assert set(clf.validation_curve_["class"]) == {0, 1, 2}


def test_per_class_with_a_class_too_rare_to_threshold_warns(data):
    X, y, _, _ = data
    keep = (y != 2) | (np.arange(len(y)) < 60)  # about 20 samples of class 2
    with pytest.warns(UserWarning, match="class 2: .* fewer than 20"):
        clf = SelectiveClassifier(
            _model(), target_coverage=0.9, threshold_per_class=True
        ).fit(X[keep], y[keep])
    pooled = SelectiveClassifier(_model(), target_coverage=0.9).fit(X[keep], y[keep])
    assert clf.threshold_[2] == pooled.threshold_


class ThreeClassCoin(ClassifierMixin, BaseEstimator):
    """Feature 0: x ~ U(0, 1); feature 1: the predicted class. The MSP is
    p = 0.5 + x / 2 and the prediction is right with probability p, so each
    class's true selective risk at threshold t is (1 - t) / 2."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1, 2])
        self.n_features_in_ = 2
        return self

    def predict_proba(self, X):
        X = np.asarray(X)
        p = 0.5 + X[:, 0] / 2
        proba = np.repeat(((1 - p) / 2)[:, None], 3, axis=1)
        proba[np.arange(len(X)), X[:, 1].astype(int)] = p
        return proba

    def predict(self, X):
        return np.asarray(X)[:, 1].astype(int)


def _per_class_violation_rate(n_repeats, n_validation, target, level, seed):
    rng = np.random.default_rng(seed)
    model = FrozenEstimator(ThreeClassCoin().fit(None, None))
    violations = 0
    for _ in range(n_repeats):
        x = rng.random(n_validation)
        predicted = rng.integers(0, 3, n_validation)
        right = rng.random(n_validation) < 0.5 + x / 2
        y = np.where(
            right, predicted, (predicted + rng.integers(1, 3, n_validation)) % 3
        )
        clf = SelectiveClassifier(
            model, target_risk=target, confidence_level=level, threshold_per_class=True
        ).fit(np.column_stack([x, predicted]), y)
        risks = [_true_selective_risk(t) for t in clf.threshold_]
        violations += max(risks) > target
    return violations / n_repeats


@pytest.mark.filterwarnings("ignore:No threshold certifies")
@pytest.mark.filterwarnings("ignore:.*cannot have a threshold of their own")
def test_per_class_sgr_holds_family_wise():
    # Family-wise: the chance that ANY class's risk exceeds the target is at most
    # 1 - confidence_level (+ 2 Monte Carlo standard errors).
    level, n_repeats = 0.7, 200
    rate = _per_class_violation_rate(n_repeats, 900, 0.1, level, seed=2)
    delta = 1 - level
    assert rate <= delta + 2 * math.sqrt(delta * (1 - delta) / n_repeats)


# ------------------------------------------------------------------------------------
# The cost rule (issue 16 item 2)
# ------------------------------------------------------------------------------------
def test_cost_rule_is_the_bayes_rule_on_the_probabilities(data):
    X, y, X_new, _ = data
    costs = np.array([[0, 1, 4], [1, 0, 1], [8, 1, 0]], dtype=float)
    rejection = np.array([0.5, 0.2, 0.9])
    clf = SelectiveClassifier(
        _model(), cost_matrix=costs, rejection_cost=rejection
    ).fit(X, y)
    assert clf.policy_ == "cost_rule" and clf.threshold_ == 0.0
    proba = clf.estimator_.predict_proba(X_new)
    expected = proba @ costs
    best = expected.argmin(axis=1)
    accepted = proba @ rejection >= expected.min(axis=1)
    np.testing.assert_array_equal(clf.predict_accept(X_new), accepted)
    np.testing.assert_array_equal(clf.predict(X_new), clf.classes_[best])
    assert 0 < accepted.mean() < 1
    assert clf.cost_ > 0


def test_empirical_cost_rule_does_not_cost_more_on_validation(data):
    X, y, _, _ = data
    costs = 1 - np.eye(3)
    fits = {
        rule: SelectiveClassifier(
            _model(), cost_matrix=costs, rejection_cost=0.2, cost_rule=rule
        ).fit(X, y)
        for rule in ("bayes", "empirical")
    }
    assert fits["empirical"].cost_ <= fits["bayes"].cost_
    table = fits["empirical"].validation_curve_
    assert fits["empirical"].cost_ == pytest.approx(table["cost"].min())


@pytest.mark.parametrize("calibration", ["temperature", "isotonic"])
def test_calibration_maps_the_probabilities_the_rule_reads(data, calibration):
    X, y, X_new, _ = data
    clf = SelectiveClassifier(
        _model(), cost_matrix=1 - np.eye(3), rejection_cost=0.3, calibration=calibration
    ).fit(X, y)
    proba = clf.predict_proba(X_new)
    np.testing.assert_allclose(proba.sum(axis=1), 1)
    assert not np.allclose(proba, clf.estimator_.predict_proba(X_new))
    np.testing.assert_array_equal(
        clf.predict_accept(X_new), (1 - proba.max(axis=1)) <= 0.3
    )


def test_cost_rule_offers_no_inner_decision_function_and_works_with_scorers(data):
    from sklearn_selective.metrics import get_scorer

    X, y, X_new, y_new = data
    clf = SelectiveClassifier(
        _model(), cost_matrix=1 - np.eye(3), rejection_cost=0.3, calibration="isotonic"
    ).fit(X, y)
    assert not hasattr(clf, "decision_function")
    log_proba = clf.predict_log_proba(X_new)
    np.testing.assert_allclose(np.exp(log_proba), clf.predict_proba(X_new))
    for name in ("neg_augrc", "uq_c_index"):
        assert np.isfinite(get_scorer(name)(clf, X_new, y_new))


@pytest.mark.parametrize(
    "params",
    [
        {"target_coverage": 0.9},
        {"target_risk": 0.1},
        {"target_risk": 0.1, "threshold_per_class": True},
    ],
)
def test_frozen_model_with_string_labels_is_refused(data, params):
    # issue 28: y as strings, classes_ integers: every sample counted as wrong
    # (risk_ 1.0 or abstain on everything), without an error.
    X, y, _, _ = data
    model = _model().fit(X[:1000], y[:1000])
    with pytest.raises(ValueError, match=r"y holds strings but the model's classes_"):
        SelectiveClassifier(FrozenEstimator(model), **params).fit(
            X[1000:], y[1000:].astype(str)
        )


def test_per_class_guarantee_message_explains_the_split_level(data):
    # issue 28: the message reported confidence_level=0.95 when the user passed
    # 0.9 (the Bonferroni level of each class), without saying why.
    X, y, _, _ = data
    clf = SelectiveClassifier(
        _model(),
        target_risk=0.05,
        confidence_level=0.9,
        threshold_per_class=True,
        cv=0.3,
        refit=False,
    )
    with pytest.warns(UserWarning, match="your confidence_level=0.9 split over the 3"):
        clf.fit(X, y)


@pytest.mark.parametrize("scale", [1e306, 1e-320])
@pytest.mark.parametrize(
    "policy",
    [
        {"target_coverage": 0.7},
        {"target_risk": 0.1},
        {"rejection_cost": 0.2},
        {"target_coverage": 0.7, "threshold_per_class": True},
    ],
)
def test_extreme_weights_give_the_thresholds_of_moderate_ones(data, policy, scale):
    # Weights of 1e306 overflowed the sums (coverage_ 0 or NaN); subnormal ones
    # tied every threshold (rejection_cost accepted everything).
    X, y, X_val, y_val = data
    model = FrozenEstimator(LogisticRegression().fit(X, y))
    extreme = (np.random.default_rng(0).random(y_val.shape[0]) + 0.5) * scale
    moderate = np.ldexp(extreme, 10 - int(np.frexp(extreme.max())[1]))  # exact
    got = SelectiveClassifier(model, **policy).fit(X_val, y_val, sample_weight=extreme)
    want = SelectiveClassifier(model, **policy).fit(
        X_val, y_val, sample_weight=moderate
    )
    np.testing.assert_array_equal(got.threshold_, want.threshold_)
    np.testing.assert_array_equal(got.predict_accept(X), want.predict_accept(X))


def test_undefined_fold_risks_in_cv_results_warn():
    # issue 28: a fold that accepts nothing of a class left NaN in
    # cv_results_["mean_risk"] without a word.
    from sklearn.exceptions import UndefinedMetricWarning

    X, y = make_classification(
        n_samples=300, n_classes=3, n_informative=4, random_state=0
    )
    clf = SelectiveClassifier(
        LogisticRegression(),
        target_coverage=0.2,
        threshold_per_class=True,
        cv=5,
        store_cv_results=True,
    )
    with pytest.warns(UndefinedMetricWarning, match=r"undefined \(nan\) in 1 of 15"):
        clf.fit(X, y)
    assert np.isnan(clf.cv_results_["risk"]).sum() == 1
    assert np.isnan(clf.cv_results_["mean_risk"]).sum() == 1


def test_a_training_fold_without_a_class_gives_it_probability_zero():
    # issue 28: cross-validation where a training fold lacks the rare class
    # stopped with numpy's concatenate error. The fold's model gives the class
    # it never saw probability 0, as cross_val_predict does.
    from sklearn.model_selection import cross_val_predict

    from sklearn_selective._selective._policies._cost_rule import fit_cost_rule
    from sklearn_selective._utils._cost_matrix import check_costs

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.r_[np.zeros(28), np.ones(28), [2, 2, 2, 2]].astype(int)
    costs = np.ones((3, 3)) - np.eye(3)
    clf = SelectiveClassifier(
        LogisticRegression(), cv=KFold(3), cost_matrix=costs, rejection_cost=0.3
    ).fit(X, y)
    with pytest.warns(RuntimeWarning, match="Number of classes in training fold"):
        proba = cross_val_predict(
            LogisticRegression(), X, y, cv=KFold(3), method="predict_proba"
        )
    validation = Bunch(proba=proba, y_index=y, weights=None)
    fit, _ = fit_cost_rule(
        validation, *check_costs(costs, 0.3, np.arange(3)), tune=False
    )
    assert clf.cost_ == pytest.approx(fit.cost, rel=1e-12)


@pytest.mark.slow
def test_feature_space_csf_keeps_the_target_coverage_on_new_data():
    """Issue 35: the deployed k-NN reference has a training fold's size, so its
    distances are those the threshold was set on (a k-NN refitted on all the
    data accepted 0.93 of new in-distribution digits for a target of 0.8)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    covered = []
    for seed in range(3):
        X_train, X_new, y_train, _ = train_test_split(
            X, y, test_size=0.4, random_state=seed
        )
        clf = SelectiveClassifier(
            LogisticRegression(max_iter=500), csf="knn_distance",
            target_coverage=0.8, random_state=seed,
        ).fit(X_train, y_train)  # fmt: skip
        covered.append(clf.predict_accept(X_new).mean())
    assert abs(np.mean(covered) - 0.8) < 0.04, covered
