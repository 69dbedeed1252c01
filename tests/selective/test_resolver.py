"""Which parameters belong to which threshold policy
(``_selective/_policies/_resolver.py``): each bad combination is refused with a
message that names it."""

import numpy as np
import pytest
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
