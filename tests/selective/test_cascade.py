"""SelectiveCascade: the estimator (fit, its policies and scikit-learn's API)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_selective import SelectiveCascade
from sklearn_selective.exceptions import GuaranteeNotMetWarning, TooFewSamplesError


def _stages():
    return [("nb", GaussianNB()), ("lr", LogisticRegression(max_iter=1000))]


@parametrize_with_checks([SelectiveCascade(_stages())])
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks(
    [SelectiveCascade(_stages(), target_risk=0.2, stage_costs=[1.0, 5.0])]
)
def test_sklearn_compatible_with_a_target_risk_and_costs(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def fitted(data):
    X, y, _, _ = data
    return SelectiveCascade(
        _stages(), target_coverage=0.8, stage_costs=[1.0, 10.0], random_state=0
    ).fit(X, y)


def test_fitted_numbers_agree(fitted):
    share = fitted.stage_share_
    assert share.shape == (3,)
    assert share.sum() == pytest.approx(1.0)
    assert fitted.coverage_ == pytest.approx(share[:2].sum())
    assert fitted.coverage_ >= 0.8
    # A sample answered by stage k paid stages 1..k; a person's paid all.
    assert fitted.expected_cost_ == pytest.approx(
        share[0] * 1.0 + (share[1] + share[2]) * 11.0
    )
    assert fitted.risk_bound_ is None
    # The chosen configuration is one of the paths' offers.
    paths = fitted.paths_
    assert paths.thresholds.shape == (5, 2) and paths.stage_share.shape == (5, 3)
    row = np.flatnonzero((paths.thresholds == fitted.thresholds_).all(axis=1))
    assert row.size >= 1
    assert paths.coverage[row[0]] == fitted.coverage_
    assert paths.expected_cost[row[0]] == fitted.expected_cost_
    assert fitted.policy_ == "target_coverage"
    assert fitted.n_features_in_ == 10
    assert set(fitted.named_estimators_) == {"nb", "lr"}


def test_empirical_risk_policy(data):
    X, y, _, _ = data
    cascade = SelectiveCascade(_stages(), target_risk=0.05, random_state=0).fit(X, y)
    assert cascade.policy_ == "target_risk"
    assert cascade.risk_ <= 0.05
    assert 0 < cascade.coverage_ < 1
    dummies = [("a", DummyClassifier()), ("b", DummyClassifier())]
    with pytest.warns(GuaranteeNotMetWarning, match="abstains on every sample"):
        nothing = SelectiveCascade(dummies, target_risk=0.1, random_state=0)
        nothing.fit(X, y)
    assert np.isinf(nothing.thresholds_).all()
    assert nothing.coverage_ == 0.0 and nothing.stage_share_[-1] == 1.0


def _frozen(data):
    X, y, _, _ = data
    return [
        ("nb", FrozenEstimator(GaussianNB().fit(X[:1000], y[:1000]))),
        (
            "lr",
            FrozenEstimator(LogisticRegression(max_iter=1000).fit(X[:1000], y[:1000])),
        ),
    ]


def test_guarantee_with_frozen_stages(data):
    X, y, X_test, y_test = data
    cascade = SelectiveCascade(
        _frozen(data), target_risk=0.2, confidence_level=0.9
    ).fit(X[1000:], y[1000:])
    assert cascade.policy_ == "guaranteed_risk"
    assert cascade.risk_ <= cascade.risk_bound_ <= 0.2
    assert cascade.coverage_ > 0.5
    offered = ~np.isnan(cascade.paths_.coverage)
    assert cascade.coverage_ == cascade.paths_.coverage[offered].max()
    assert (cascade.paths_.risk_bound[offered] <= 0.2).all()
    accepted = cascade.predict_accept(X_test)
    assert np.mean(cascade.predict(X_test)[accepted] != y_test[accepted]) < 0.22


def test_guarantee_with_a_single_split(data):
    X, y, _, _ = data
    cascade = SelectiveCascade(
        _stages(), target_risk=0.2, confidence_level=0.9, cv=0.5, refit=False,
        random_state=0,
    ).fit(X, y)  # fmt: skip
    assert cascade.risk_bound_ <= 0.2


@pytest.mark.parametrize("params", [{}, {"cv": 0.5}, {"cv": 3, "refit": False}])
def test_guarantee_refuses_models_other_than_the_certified(data, params):
    X, y, _, _ = data
    cascade = SelectiveCascade(
        _stages(), target_risk=0.1, confidence_level=0.9, **params
    )
    with pytest.raises(ValueError, match="refit"):
        cascade.fit(X, y)


def test_nothing_certified_abstains_with_a_warning(data):
    X, y, _, _ = data
    cascade = SelectiveCascade(_frozen(data), target_risk=0.005, confidence_level=0.9)
    with pytest.warns(GuaranteeNotMetWarning, match="certifies"):
        cascade.fit(X[1000:], y[1000:])
    assert np.isinf(cascade.thresholds_).all()
    assert np.isnan(cascade.risk_bound_)
    assert not cascade.predict_accept(X[:50]).any()
    with pytest.raises(TooFewSamplesError):
        cascade.fit(X[1000:1010], y[1000:1010])


@pytest.mark.parametrize(
    "params, match",
    [
        ({"target_coverage": 0.5, "target_risk": 0.1}, "at most one"),
        ({"confidence_level": 0.9}, "set target_risk"),
        ({"target_risk": 0.1, "max_abstention_rate": 0.2}, "confidence_level"),
        ({"csf": ["msp"]}, "one CSF per stage"),
        ({"stage_costs": [1.0]}, "one finite non-negative cost per stage"),
        ({"stage_costs": [1.0, -1.0]}, "non-negative"),
        ({"estimators": [("a", GaussianNB()), ("a", GaussianNB())]}, "unique"),
        ({"estimators": [("person", GaussianNB())]}, "unique and not 'person'"),
        ({"estimators": [GaussianNB()]}, r"\(name, estimator\) tuples"),
        ({"estimators": []}, r"\(name, estimator\) tuples"),
    ],
)
def test_errors_name_the_argument(data, params, match):
    X, y, _, _ = data
    params = {"estimators": _stages(), **params}
    with pytest.raises(ValueError, match=match):
        SelectiveCascade(**params).fit(X[:300], y[:300])


def test_sample_weight_with_a_guarantee_is_refused(data):
    X, y, _, _ = data
    cascade = SelectiveCascade(_frozen(data), target_risk=0.1, confidence_level=0.9)
    with pytest.raises(ValueError, match="sample_weight"):
        cascade.fit(X[1000:], y[1000:], sample_weight=np.ones(1000))


def test_integer_sample_weights_equal_repeated_samples(data):
    X, y, _, _ = data
    X, y = X[1000:1400], y[1000:1400]
    weights = np.random.default_rng(0).integers(0, 3, y.shape[0])
    frozen = _frozen(data)
    weighted = SelectiveCascade(frozen, target_risk=0.1).fit(
        X, y, sample_weight=weights
    )
    repeated = SelectiveCascade(frozen, target_risk=0.1).fit(
        np.repeat(X, weights, axis=0), np.repeat(y, weights)
    )
    np.testing.assert_array_equal(weighted.thresholds_, repeated.thresholds_)
    assert weighted.coverage_ == pytest.approx(repeated.coverage_, abs=1e-12)
    assert weighted.risk_ == pytest.approx(repeated.risk_, abs=1e-12)


def test_a_list_of_csfs_one_per_stage(data):
    X, y, X_test, _ = data
    cascade = SelectiveCascade(
        _stages(), csf=["msp", "margin"], target_coverage=0.8, random_state=0
    ).fit(X, y)
    assert cascade.csfs_ == ["msp", "margin"]
    proba = cascade.estimators_[1].predict_proba(X_test)
    top2 = np.sort(proba, axis=1)[:, -2:]
    reach = cascade.predict_stage(X_test) != "nb"
    np.testing.assert_allclose(
        cascade.confidence_score(X_test)[reach], (top2[:, 1] - top2[:, 0])[reach]
    )


def test_clone_and_grid_search(data):
    X, y, _, _ = data
    cascade = SelectiveCascade(
        [("nb", GaussianNB()), ("tree", DecisionTreeClassifier(random_state=0))],
        target_coverage=0.8,
        cv=3,
    )
    assert clone(cascade).get_params()["target_coverage"] == 0.8
    search = GridSearchCV(
        cascade, {"csf": ["msp", "margin"], "tree__max_depth": [2, 4]}, cv=3
    ).fit(X[:600], y[:600])
    assert search.best_params_["tree__max_depth"] in {2, 4}
    assert hasattr(search.best_estimator_, "thresholds_")


def test_metadata_routing_of_sample_weight(data):
    import sklearn

    X, y, _, _ = data
    X, y = X[:400], y[:400]
    weights = np.random.default_rng(0).random(y.shape[0])
    with sklearn.config_context(enable_metadata_routing=True):
        stages = [
            ("nb", GaussianNB().set_fit_request(sample_weight=True)),
            ("lr", LogisticRegression().set_fit_request(sample_weight=False)),
        ]
        cascade = SelectiveCascade(stages, cv=0.5, random_state=0, refit=False)
        cascade.fit(X, y, sample_weight=weights)
        assert cascade.coverage_ > 0
    with pytest.raises(ValueError, match="metadata routing"):
        SelectiveCascade(_stages()).fit(X, y, foo=1)
