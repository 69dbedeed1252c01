"""Confidence score functions (CSFs) and the model outputs they read.

A CSF maps a classifier's output to one confidence per sample, higher meaning
more confident. Probability-based CSFs read ``predict_proba`` ``(n, k)``,
logit-based ones ``decision_function`` ``(n, k)`` or ``(n,)``, and ensemble
CSFs the members' probabilities ``(m, n, k)``; feature-space CSFs read the
inputs of the final step and compare them with the training inputs. Every
CSF is available by name (:func:`get_confidence_function`), so the name can
go in a ``GridSearchCV`` grid; :func:`predict_with_confidence` fetches the
right output from a fitted scikit-learn model.
"""

from ._ensemble import (
    aleatoric_entropy,
    ensemble_msp,
    mutual_information,
    predicted_class_variance,
    prediction_variance,
    total_entropy,
    variation_ratio,
    vote_entropy,
)
from ._feature_space import (
    FeatureConfidence,
    fit_feature_confidence,
    knn_distance,
    mahalanobis,
)
from ._functions import (
    energy,
    gini,
    js_to_uniform,
    l1_to_uniform,
    l2_norm,
    l2_to_uniform,
    logit_pnorm,
    margin,
    max_logit,
    msp,
    negative_entropy,
)
from ._model_output import predict_with_confidence
from ._registry import get_confidence_function, get_confidence_function_names
from ._temperature import fit_temperature_scaling

__all__ = [
    "FeatureConfidence",
    "aleatoric_entropy",
    "energy",
    "ensemble_msp",
    "fit_feature_confidence",
    "fit_temperature_scaling",
    "get_confidence_function",
    "get_confidence_function_names",
    "gini",
    "js_to_uniform",
    "knn_distance",
    "l1_to_uniform",
    "l2_norm",
    "l2_to_uniform",
    "logit_pnorm",
    "mahalanobis",
    "margin",
    "max_logit",
    "msp",
    "mutual_information",
    "negative_entropy",
    "predict_with_confidence",
    "predicted_class_variance",
    "prediction_variance",
    "total_entropy",
    "variation_ratio",
    "vote_entropy",
]
