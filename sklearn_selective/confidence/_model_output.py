"""The one place that turns a fitted classifier into predictions and confidences.

Estimators, scorers and displays all call :func:`predict_with_confidence`, so
which model output a CSF needs, how an ensemble's members are queried, and how
the prediction is derived from the same output live here only.
"""

import numpy as np
from sklearn.ensemble import BaseEnsemble, VotingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.pipeline import Pipeline
from sklearn.tree import BaseDecisionTree, DecisionTreeClassifier
from sklearn.utils.validation import check_is_fitted, validate_data

from .._utils._sklearn import HasMethods, safe_indexing, validate_params
from ._registry import get_confidence_function, model_output_of

_OUTPUT_METHODS = {
    "predict_proba": "predict_proba",
    "decision_function": "decision_function",
    "ensemble_proba": "predict_proba",
}


def _final_step(estimator, X=None):
    """Unwrap ``FrozenEstimator`` and ``Pipeline``; transform ``X`` on the way."""
    while True:
        if isinstance(estimator, FrozenEstimator):
            estimator = estimator.estimator
        elif isinstance(estimator, Pipeline):
            if X is not None:
                X = estimator[:-1].transform(X)
            estimator = estimator[-1]
        else:
            return estimator, X


def classifier_inputs(estimator, X):
    """``X`` as the final classifier of ``estimator`` sees it: through the
    transformers of a (frozen) Pipeline, unchanged otherwise."""
    return _final_step(estimator, X)[1]


def _supports_ensemble(estimator):
    final, _ = _final_step(estimator)
    if isinstance(final, VotingClassifier):
        return all(
            hasattr(member, "predict_proba")
            for _, member in final.estimators
            if member != "drop"
        )
    if isinstance(final, BaseEnsemble) and hasattr(final, "estimator"):
        template = final.estimator
        if template is None:  # Bagging's default member
            template = DecisionTreeClassifier()
        return hasattr(template, "predict_proba")
    return False


def _default_csf(estimator):
    if hasattr(estimator, "predict_proba"):
        return "msp"
    return "max_logit"


def check_csf_supported(estimator, csf):
    """Raise ``ValueError`` if ``estimator`` lacks the output ``csf`` needs.

    Works before fitting, so that a meta-estimator fails fast in ``fit``.
    """
    output = model_output_of(csf)
    if output == "features":
        supported = hasattr(estimator, "predict")
        needed = "a predict method"
    elif output == "ensemble_proba":
        supported = _supports_ensemble(estimator)
        needed = (
            "an ensemble whose members have predict_proba (RandomForestClassifier, "
            "ExtraTreesClassifier, BaggingClassifier, soft VotingClassifier, "
            "possibly as the last step of a Pipeline)"
        )
    else:
        supported = hasattr(estimator, _OUTPUT_METHODS[output])
        needed = f"a {_OUTPUT_METHODS[output]} method"
    if not supported and not any(
        hasattr(estimator, method) for method in ("predict_proba", "decision_function")
    ):
        raise ValueError(
            f"{type(estimator).__name__} has neither predict_proba nor "
            "decision_function, so no confidence score can be computed from it: "
            "pass a classifier (a regressor cannot abstain on its predictions)."
        )
    if not supported:
        alternative = "'msp'" if hasattr(estimator, "predict_proba") else "'max_logit'"
        raise ValueError(
            f"The confidence function {_name(csf)} needs {needed}, which "
            f"{type(estimator).__name__} does not provide. Use a CSF that this "
            f"estimator supports, such as {alternative}."
        )


def _name(csf):
    return repr(csf) if isinstance(csf, str) else getattr(csf, "__name__", repr(csf))


def _ensemble_proba(estimator, X):
    """Member probabilities ``(m, n, k)`` and the ensemble's classes."""
    final, X = _final_step(estimator, X)
    check_is_fitted(final)
    members = getattr(final, "estimators_", None)
    if members is None or not all(hasattr(m, "predict_proba") for m in members):
        raise ValueError(
            f"{type(final).__name__} is not an ensemble of probabilistic "
            "classifiers; ensemble CSFs need members with predict_proba."
        )
    classes = final.classes_
    trees = all(isinstance(member, BaseDecisionTree) for member in members)
    X = validate_data(
        final,
        X,
        reset=False,
        accept_sparse="csr",
        dtype=np.float32 if trees else None,
        ensure_all_finite=False,
    )
    features = getattr(final, "estimators_features_", None)
    proba = np.zeros((len(members), X.shape[0], len(classes)))
    for index, member in enumerate(members):
        X_member = X if features is None else safe_indexing(X, features[index], axis=1)
        member_proba = member.predict_proba(X_member)
        # Members are fitted on encoded labels and may have seen a subset.
        columns = np.asarray(member.classes_).astype(np.intp)
        proba[index][:, columns] = member_proba
    return proba, classes


def _model_output(estimator, X, output):
    """The model output and the predictions derived from it (one inference)."""
    if output == "features":  # the final step's inputs (transformed once)
        final, features = _final_step(estimator, X)
        return features, np.asarray(final.predict(features))
    if output == "ensemble_proba":
        proba, classes = _ensemble_proba(estimator, X)
        return proba, classes[proba.mean(axis=0).argmax(axis=1)]
    values = np.asarray(getattr(estimator, _OUTPUT_METHODS[output])(X))
    classes = estimator.classes_
    if values.ndim == 1:  # binary decision function: positive class iff > 0
        return values, classes[(values > 0).astype(np.intp)]
    return values, classes[values.argmax(axis=1)]


@validate_params(
    {
        "estimator": [HasMethods(["fit"])],
        "X": ["array-like", "sparse matrix"],
        "csf": [str, callable, None],
        "csf_params": [dict, None],
    },
    prefer_skip_nested_validation=True,
)
def predict_with_confidence(estimator, X, csf=None, csf_params=None):
    """Predictions and confidences of a fitted classifier, from one inference.

    The model output the CSF needs (``predict_proba``, ``decision_function``
    or the members' ``predict_proba`` of an ensemble) is computed once; the
    prediction is the argmax of that same output (for a binary decision
    function: the positive class iff ``d > 0``), so predictions and
    confidences always agree.

    Parameters
    ----------
    estimator : fitted classifier
        A scikit-learn classifier, ``Pipeline`` or ``FrozenEstimator``. A
        fitted :class:`~sklearn_selective.SelectiveClassifier` with
        ``csf=None`` uses its own CSF (its predictions without abstention).

    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Input samples.

    csf : str or callable, default=None
        The confidence score function (see :func:`get_confidence_function`).
        None selects ``"msp"`` for a classifier with ``predict_proba``, else
        ``"max_logit"``.

    csf_params : dict, default=None
        Keyword arguments of the CSF, e.g. ``{"temperature": 2.0}``.

    Returns
    -------
    y_pred : ndarray of shape (n_samples,)
        Predicted labels (from ``estimator.classes_``).

    confidence : ndarray of shape (n_samples,)
        Float64 confidences; higher means more confident.

    See Also
    --------
    get_confidence_function : The CSFs by name.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_selective.confidence import predict_with_confidence
    >>> X, y = load_iris(return_X_y=True)
    >>> model = LogisticRegression(max_iter=1000).fit(X, y)
    >>> y_pred, confidence = predict_with_confidence(model, X[:3], csf="margin")
    >>> y_pred
    array([0, 0, 0])
    >>> bool((confidence > 0.9).all())
    True
    """
    if csf is None and _decides_itself(estimator):
        decision = estimator.decide(X)
        return decision.y_pred, np.asarray(decision.confidence, dtype=np.float64)
    if csf is None:
        csf = _default_csf(estimator)
    check_csf_supported(estimator, csf)
    function = get_confidence_function(csf)
    _check_fitted_feature_csf(csf, csf_params)
    values, y_pred = _model_output(estimator, X, model_output_of(csf))
    confidence = _as_confidence(csf, function(values, **(csf_params or {})))
    _check_confidence_output(csf, confidence, len(y_pred))
    return y_pred, confidence


def predict_proba_with_confidence(estimator, X, csf=None, csf_params=None):
    """Class probabilities and confidences, with one inference when possible.

    For metrics such as the UQ-C-index that need the probabilities themselves.
    A probability-based CSF is computed from the same ``predict_proba`` call;
    another CSF needs a second inference. A ``SelectiveClassifier`` with
    ``csf=None`` contributes its fitted model and its own CSF.
    """
    if csf is None and _decides_itself(estimator):
        proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
        return proba, predict_with_confidence(estimator, X)[1]
    if csf is None:
        csf = _default_csf(estimator)
    if not hasattr(estimator, "predict_proba"):
        raise ValueError(
            f"{type(estimator).__name__} has no predict_proba; this metric needs "
            "class probabilities."
        )
    proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    if model_output_of(csf) == "predict_proba":
        function = get_confidence_function(csf)
        confidence = _as_confidence(csf, function(proba, **(csf_params or {})))
        _check_confidence_output(csf, confidence, proba.shape[0])
        return proba, confidence
    return proba, predict_with_confidence(estimator, X, csf, csf_params)[1]


def _decides_itself(estimator):
    """An estimator that scores its own predictions through the public
    ``decide`` method (a ``SelectiveClassifier``): its CSF is its own."""
    return callable(getattr(estimator, "decide", None))


def _check_fitted_feature_csf(csf, csf_params):
    """A feature-space CSF by name needs the training inputs a model does not keep."""
    if (
        isinstance(csf, str)
        and model_output_of(csf) == "features"
        and "training_features" not in (csf_params or {})
    ):
        raise ValueError(
            f"csf={csf!r} measures the distance to the classifier's training inputs, "
            "which a fitted model does not keep. Pass "
            f"csf=fit_feature_confidence({csf!r}, model, X_train, y_train), or use "
            f"csf={csf!r} in SelectiveClassifier or ATCEstimator with an unfitted "
            "classifier (each training fold is used)."
        )


def _as_confidence(csf, values):
    """A CSF's output as float64, or an error that names the CSF."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        kind = np.asarray(values).dtype
        raise ValueError(
            f"The confidence function {_name(csf)} must return one number per "
            f"sample (higher = more confident); it returned values of dtype "
            f"{kind}, e.g. {np.asarray(values).ravel()[:3].tolist()}."
        ) from None


def _check_confidence_output(csf, confidence, n_samples):
    if confidence.shape != (n_samples,) or not np.isfinite(confidence).all():
        raise ValueError(
            f"The confidence function {_name(csf)} must return one finite value "
            f"per sample (shape ({n_samples},)); it returned shape "
            f"{confidence.shape}"
            + ("" if np.isfinite(confidence).all() else " with NaN or infinity")
            + "."
        )
