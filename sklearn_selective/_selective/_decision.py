"""The one abstention decision of a fitted
:class:`~sklearn_selective.SelectiveClassifier`: every prediction method
(``decide``, ``predict``, ``predict_accept``, ``confidence_score``,
``predict_novel``, ``rejection_reason``) reads it from here."""

import numpy as np
from sklearn.utils import Bunch
from sklearn.utils.validation import check_is_fitted

from .._utils._sklearn import num_samples
from ..confidence import FeatureConfidence, predict_with_confidence
from ..confidence._model_output import classifier_inputs
from ._classes import class_index
from ._inference import msp_decision
from ._novelty import is_novel


def abstention_decision(clf, X, *, novelty=True):
    """What the fitted ``clf`` decides on ``X``, from one inference of its model.

    A :class:`~sklearn.utils.Bunch` with the class ``index`` of each
    prediction, its ``confidence``, whether it reaches the threshold
    (``confident``; the threshold of its predicted class per class) and, with
    ``novelty``, whether the detector flags it (``novel``) and whether it is
    ``accepted`` (confident and not novel).
    """
    check_is_fitted(clf, "threshold_")
    policy = clf._threshold_policy
    if policy.needs_proba:
        index, confidence = policy.decide(clf.estimator_.predict_proba(X))
    elif clf.csf_ == "msp" and not clf.csf_params:
        index, confidence = msp_decision(clf.estimator_.predict_proba(X))
    else:
        y_pred, confidence = predict_with_confidence(
            clf.estimator_, X, clf.csf_, _csf_params(clf)
        )
        index = class_index(clf.classes_, y_pred)
    threshold = clf.threshold_[index] if clf.threshold_per_class else clf.threshold_
    result = Bunch(index=index, confidence=confidence)
    result.confident = confidence >= threshold
    if novelty:
        result.novel = _novel(clf, X)
        result.accepted = result.confident & ~result.novel
    return result


def _csf_params(clf):
    """A fitted feature-space CSF holds its parameters."""
    if isinstance(clf.csf_, FeatureConfidence):
        return {}
    return clf.csf_params or {}


def _novel(clf, X):
    """Whether the fitted detector flags each sample (none without one)."""
    if clf.novelty_detector_ is None:
        return np.zeros(num_samples(X), dtype=bool)
    features = classifier_inputs(clf.estimator_, X)
    return is_novel(clf.novelty_detector_, clf.novelty_threshold_, features)
