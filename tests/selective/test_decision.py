"""The one decision (``_selective/_decision.py``): every prediction method of a
fitted SelectiveClassifier reads the same acceptance."""

import numpy as np
import pytest
from sklearn.ensemble import IsolationForest
from test_classifier import _model

from sklearn_selective import SelectiveClassifier


@pytest.mark.parametrize(
    "params",
    [
        {"target_coverage": 0.7, "novelty_detector": IsolationForest(random_state=0)},
        {"target_coverage": 0.8, "threshold_per_class": True, "reject_label": -1},
        {"cost_matrix": 1 - np.eye(3), "rejection_cost": 0.3, "reject_label": -1},
        {
            "csf": "margin",
            "rejection_cost": 0.2,
            "novelty_rate": 0.1,
            "novelty_detector": IsolationForest(random_state=0),
            "reject_label": -1,
        },
    ],
)
def test_every_prediction_method_reads_one_decision(data, params):
    X, y, X_test, _ = data
    clf = SelectiveClassifier(_model(), cv=3, **params).fit(X, y)
    decision = clf.decide(X_test)
    np.testing.assert_array_equal(clf.predict_accept(X_test), decision.accepted)
    np.testing.assert_array_equal(clf.confidence_score(X_test), decision.confidence)
    np.testing.assert_array_equal(clf.predict_novel(X_test), decision.novel)
    reasons = clf.rejection_reason(X_test)
    np.testing.assert_array_equal(reasons == "accepted", decision.accepted)
    np.testing.assert_array_equal(
        np.char.startswith(reasons.astype(str), "novel"), decision.novel
    )
    predicted = clf.predict(X_test)
    expected = np.where(decision.accepted, decision.y_pred, clf.reject_label or 0)
    if clf.reject_label is None:
        expected = decision.y_pred
    np.testing.assert_array_equal(predicted, expected)
