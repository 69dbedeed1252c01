"""What the monitor reads from the model: one acceptance (issue 34).

The monitor reads acceptance through ``SelectiveClassifier.decide``: its
coverage per chunk, its reference coverage and the realised selective accuracy
of a chunk are exactly what ``predict_accept`` gives, whatever decides the
rejection (one threshold, a threshold per class, a cost rule, a novelty
detector).
"""

import warnings

import numpy as np
import pytest
from sklearn.covariance import EllipticEnvelope
from sklearn.datasets import make_classification
from sklearn.ensemble import IsolationForest
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import LocalOutlierFactor
from sklearn.svm import OneClassSVM

from sklearn_selective import PerformanceMonitor, SelectiveClassifier
from sklearn_selective.exceptions import UndefinedMetricWarning


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(3000, 8, n_informative=5, n_redundant=0, random_state=0)
    # training, reference, and production: clean then shifted by +4.
    X_prod = np.r_[X[2000:2500], X[2500:] + 4.0]
    return (X[:1000], y[:1000]), (X[1000:2000], y[1000:2000]), (X_prod, y[2000:])


DETECTORS = {
    "IsolationForest": lambda: IsolationForest(n_estimators=30, random_state=0),
    "LocalOutlierFactor": lambda: LocalOutlierFactor(novelty=True),
    "OneClassSVM": lambda: OneClassSVM(),
    "EllipticEnvelope": lambda: EllipticEnvelope(random_state=0),
}
COSTS = {"cost_matrix": [[0.0, 1.0], [2.0, 0.0]], "rejection_cost": 0.3}
CLASSIFIERS = {
    **{
        name: lambda make=make: {
            "target_coverage": 0.9,
            "novelty_detector": make(),
            "novelty_rate": 0.2,
        }
        for name, make in DETECTORS.items()
    },
    "threshold_per_class": lambda: {
        "target_coverage": 0.9,
        "threshold_per_class": True,
    },
    "cost_matrix": lambda: dict(COSTS),
}


# EllipticEnvelope's MinCovDet on this data (scikit-learn's own warning).
@pytest.mark.filterwarnings("ignore:Determinant has increased:RuntimeWarning")
@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_monitor_reads_the_acceptance_predict_accept_gives(name, data):
    (X_train, y_train), (X_ref, y_ref), (X_prod, y_prod) = data
    clf = SelectiveClassifier(LogisticRegression(), **CLASSIFIERS[name]())
    clf = clf.fit(X_train, y_train)
    monitor = PerformanceMonitor(
        clf, novelty_detector=None, drift_estimator=None, n_resamples=0
    )
    monitor = monitor.fit(X_ref, y_ref)
    assert monitor.reference_coverage_ == clf.predict_accept(X_ref).mean()
    novelty = "novelty_detector" in CLASSIFIERS[name]()
    with warnings.catch_warnings():
        # The detectors reject the shifted chunks: no selective accuracy there.
        warnings.filterwarnings("ignore", "2 chunk", UndefinedMetricWarning)
        result = monitor.estimate(X_prod, chunk_size=250).with_labels(y_prod)

    accepted = clf.predict_accept(X_prod).astype(bool)
    right = clf.predict(X_prod) == y_prod
    chunks = np.arange(X_prod.shape[0]) // 250
    expected_coverage = [accepted[chunks == c].mean() for c in range(4)]
    np.testing.assert_array_equal(result.coverage, expected_coverage)
    expected_selective = [
        right[(chunks == c) & accepted].mean()
        if accepted[chunks == c].any()
        else np.nan
        for c in range(4)
    ]
    np.testing.assert_array_equal(
        result.realised_selective_accuracy, expected_selective
    )
    if novelty:
        # The shifted inputs are novel: the detector rejects (nearly) all.
        assert result.coverage[2:].max() < 0.5 * result.coverage[:2].min()
