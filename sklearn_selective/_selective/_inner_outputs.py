"""What a :class:`~sklearn_selective.SelectiveClassifier` passes through from
its inner classifier: probabilities (calibrated as the cost rule's), their
logarithm and the decision function, without abstention. Methods of the
estimator (assigned in its class body, so that they are documented with it)."""

import numpy as np
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._utils._sklearn import estimator_has


def _has_decision_function_without_costs(self):
    """With a cost matrix the prediction is not the decision function's argmax,
    so the inner decision function is not offered as this classifier's."""
    has = estimator_has("decision_function", delegates=("estimator_", "estimator"))
    return self.cost_matrix is None and has(self)


@available_if(estimator_has("predict_proba", delegates=("estimator_", "estimator")))
def predict_proba(self, X):
    """Class probabilities of the underlying classifier (no abstention).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Input samples.

    Returns
    -------
    proba : ndarray of shape (n_samples, n_classes)
        ``estimator_.predict_proba(X)``, calibrated by ``calibrator_``
        when ``calibration`` is set.
    """
    check_is_fitted(self, "threshold_")
    proba = self.estimator_.predict_proba(X)
    if self.calibrator_ is not None:
        proba = self.calibrator_.transform(np.asarray(proba, np.float64))
    return proba


@available_if(estimator_has("predict_log_proba", delegates=("estimator_", "estimator")))
def predict_log_proba(self, X):
    """Log class probabilities of the underlying classifier.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Input samples.

    Returns
    -------
    log_proba : ndarray of shape (n_samples, n_classes)
        ``estimator_.predict_log_proba(X)``, or the logarithm of the
        calibrated probabilities when ``calibration`` is set.
    """
    check_is_fitted(self, "threshold_")
    if self.calibrator_ is not None:
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
    return self.estimator_.predict_log_proba(X)


@available_if(_has_decision_function_without_costs)
def decision_function(self, X):
    """Decision function of the underlying classifier (not with ``cost_matrix``).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Input samples.

    Returns
    -------
    decision : ndarray of shape (n_samples,) or (n_samples, n_classes)
        ``estimator_.decision_function(X)``.
    """
    check_is_fitted(self, "threshold_")
    return self.estimator_.decision_function(X)
