"""Which parameters belong to which threshold policy
(``_selective/_policies/_resolver.py``): each bad combination is refused with a
message that names it."""

import numpy as np
import pytest
from sklearn.frozen import FrozenEstimator
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils._param_validation import InvalidParameterError
from test_classifier import _model

from sklearn_selective import SelectiveClassifier


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"target_coverage": 0.0}, InvalidParameterError, "target_coverage"),
        ({"target_coverage": 1.5}, InvalidParameterError, "target_coverage"),
        ({"target_risk": 1.0}, InvalidParameterError, "target_risk"),
        (
            {"target_risk": 0.1, "confidence_level": 1.0},
            InvalidParameterError,
            "confidence_level",
        ),
        (
            {"target_risk": 0.1, "confidence_level": 0.0},
            InvalidParameterError,
            "confidence_level",
        ),
        ({"rejection_cost": 0.0}, InvalidParameterError, "rejection_cost"),
        (
            {"target_coverage": 0.8, "target_risk": 0.1},
            ValueError,
            "Set exactly one threshold policy",
        ),
        ({"confidence_level": 0.9}, ValueError, "needs target_risk"),
        (
            {"target_coverage": 0.8, "confidence_level": 0.9},
            ValueError,
            "needs target_risk",
        ),
        ({"csf": "energy"}, ValueError, "decision_function"),
    ],
)
def test_bad_parameters(data, params, error, match):
    X, y, _, _ = data
    with pytest.raises(error, match=match):
        SelectiveClassifier(
            make_pipeline(StandardScaler(), GaussianNB()), **params
        ).fit(X, y)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"cost_matrix": np.ones((2, 2)), "rejection_cost": 0.3}, "shape"),
        ({"cost_matrix": 1 - np.eye(3)}, "needs rejection_cost"),
        (
            {"cost_matrix": 1 - np.eye(3), "rejection_cost": [0.1, 0.2]},
            "one value per class",
        ),
        ({"cost_matrix": -np.eye(3), "rejection_cost": 0.3}, "non-negative"),
        (
            {"cost_matrix": 1 - np.eye(3), "rejection_cost": 0.3, "target_risk": 0.1},
            "policy of its own",
        ),
        (
            {
                "cost_matrix": 1 - np.eye(3),
                "rejection_cost": 0.3,
                "threshold_per_class": True,
            },
            "does not apply to cost_matrix",
        ),
        ({"calibration": "isotonic"}, "cost rule only"),
        ({"cost_rule": "empirical"}, "cost rule only"),
        ({"rejection_cost": [0.1, 0.2, 0.3]}, "needs cost_matrix"),
    ],
)
def test_bad_cost_parameters(data, params, match):
    X, y, _, _ = data
    with pytest.raises(ValueError, match=match):
        SelectiveClassifier(_model(), **params).fit(X, y)


# ------------------------------------------------------------------------------------
# The resolver's policy objects
# ------------------------------------------------------------------------------------
from sklearn_selective._selective._policies import (  # noqa: E402
    CostRule,
    GuaranteedRisk,
    PerClass,
    RejectionCost,
    TargetCoverage,
    TargetRisk,
    resolve_policy,
)


@pytest.mark.parametrize(
    "params, kind, name",
    [
        ({}, TargetCoverage, "target_coverage"),
        ({"target_coverage": 0.7}, TargetCoverage, "target_coverage"),
        ({"target_risk": 0.1}, TargetRisk, "target_risk"),
        (
            {"target_risk": 0.1, "confidence_level": 0.9, "guarantee": "sgr"},
            GuaranteedRisk,
            "guaranteed_risk",
        ),
        ({"rejection_cost": 0.2}, RejectionCost, "rejection_cost"),
        ({"cost_matrix": 1 - np.eye(2), "rejection_cost": 0.2}, CostRule, "cost_rule"),
    ],
)
def test_parameters_resolve_to_one_policy_object(params, kind, name):
    policy = resolve_policy(**params)
    assert isinstance(policy, kind) and policy.name == name
    per_class = resolve_policy(**params, threshold_per_class=kind is not CostRule)
    if kind is not CostRule:
        assert isinstance(per_class, PerClass) and per_class.name == name
        assert per_class.certifies == (kind is GuaranteedRisk)
    assert resolve_policy(**params).needs_proba == (kind is CostRule)


def test_accept_all_needs_no_validation():
    assert not resolve_policy(target_coverage=1.0).needs_validation
    assert resolve_policy(target_coverage=0.99).needs_validation


@pytest.mark.parametrize("guarantee", ["fixed_sequence", "sgr"])
@pytest.mark.parametrize("per_class", [False, True])
@pytest.mark.parametrize("cap", [None, 0.3])
def test_a_zero_target_risk_cannot_be_certified(data, guarantee, per_class, cap):
    # issue 34: target_risk=0 with confidence_level divided by log1p(-0) = 0.
    if cap is not None and guarantee == "sgr":
        pytest.skip("the cap needs the fixed sequence (its own error)")
    X, y, _, _ = data
    clf = SelectiveClassifier(
        FrozenEstimator(_model().fit(X, y)),
        target_risk=0.0,
        confidence_level=0.9,
        guarantee=guarantee,
        threshold_per_class=per_class,
        max_abstention_rate=cap,
    )
    with pytest.raises(ValueError, match=r"target_risk=0 cannot be certified"):
        clf.fit(X, y)
    # Without a confidence level a zero empirical risk is a target like another.
    clf.set_params(confidence_level=None, max_abstention_rate=None).fit(X, y)
    assert clf.policy_ == "target_risk"
