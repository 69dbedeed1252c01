"""Validation of metric inputs and resolution of the per-sample loss."""

import numpy as np
from sklearn.utils import check_array, check_consistent_length, column_or_1d


def _check_confidence(confidence):
    confidence = check_array(
        confidence,
        ensure_2d=False,
        dtype=np.float64,
        ensure_all_finite=True,
        input_name="confidence",
    )
    if confidence.ndim != 1:
        raise ValueError(
            "confidence must be a 1-D array of shape (n_samples,) holding one score "
            f"per sample (higher = more confident); got shape {confidence.shape}."
        )
    return confidence


def _check_nonnegative_1d(values, name, n_samples):
    values = check_array(
        values,
        ensure_2d=False,
        dtype=np.float64,
        ensure_all_finite=True,
        input_name=name,
    )
    if values.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D array of shape (n_samples,); got shape "
            f"{values.shape}."
        )
    if values.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {values.shape[0]} entries but confidence has {n_samples}; "
            "pass one value per sample."
        )
    if np.any(values < 0):
        raise ValueError(f"{name} must be non-negative; found {values.min()!r}.")
    return values


def _check_sample_weight(sample_weight, n_samples):
    """Validated float64 weights, or None (unit weights) when None is given."""
    if sample_weight is None:
        return None
    sample_weight = _check_nonnegative_1d(sample_weight, "sample_weight", n_samples)
    if not sample_weight.any():
        raise ValueError(
            "sample_weight sums to zero: at least one sample needs a positive weight."
        )
    return sample_weight


def _check_labels_and_predictions(y_true, y_pred, n_samples, loss_name):
    if y_true is None or y_pred is None:
        raise ValueError(
            f"loss={loss_name!r} needs y_true and y_pred. If you only have per-sample "
            "losses, pass them as an array: loss=losses."
        )
    y_true = column_or_1d(y_true, dtype=None)
    y_pred = check_array(y_pred, ensure_2d=False, dtype=None, ensure_all_finite=False)
    check_consistent_length(y_true, y_pred)
    if y_true.shape[0] != n_samples:
        raise ValueError(
            f"y_true has {y_true.shape[0]} samples but confidence has {n_samples}; "
            "pass one confidence score per sample."
        )
    if y_pred.ndim not in (1, 2):
        raise ValueError(
            "y_pred must hold predicted labels, shape (n_samples,), or class "
            f"probabilities, shape (n_samples, n_classes); got shape {y_pred.shape}."
        )
    return y_true, y_pred


def _check_probabilities(y_true, y_proba, labels, loss_name):
    """Return probabilities as float64 and the index of each sample's true class."""
    if y_proba.ndim != 2:
        raise ValueError(
            f"loss={loss_name!r} needs y_pred to hold class probabilities of shape "
            "(n_samples, n_classes); for a binary problem with positive-class "
            "probabilities p pass np.column_stack([1 - p, p])."
        )
    y_proba = check_array(y_proba, dtype=np.float64, input_name="y_pred")
    if np.any(y_proba < 0) or np.any(y_proba > 1):
        raise ValueError("y_pred probabilities must lie in [0, 1].")
    classes = np.unique(y_true) if labels is None else column_or_1d(labels, dtype=None)
    if labels is not None and np.unique(classes).shape[0] != classes.shape[0]:
        raise ValueError("labels must not contain duplicates.")
    if classes.shape[0] != y_proba.shape[1]:
        raise ValueError(
            f"y_pred has {y_proba.shape[1]} probability columns but "
            + (
                f"y_true contains {classes.shape[0]} classes; pass labels= listing "
                "the class of every column."
                if labels is None
                else f"labels lists {classes.shape[0]} classes."
            )
        )
    if labels is None:  # np.unique is sorted already
        true_column = np.searchsorted(classes, y_true)
    else:
        order = np.argsort(classes)
        true_column = order[
            np.clip(np.searchsorted(classes, y_true, sorter=order), 0, len(order) - 1)
        ]
    true_column = np.minimum(true_column, classes.shape[0] - 1)
    unseen = classes[true_column] != y_true
    if np.any(unseen):
        raise ValueError(
            f"y_true contains labels {np.unique(y_true[unseen]).tolist()} that are not "
            "among the probability columns' labels."
        )
    return y_proba, true_column, classes


def _zero_one_loss(y_true, y_pred, labels):
    if y_pred.ndim == 2:
        y_proba, _, classes = _check_probabilities(y_true, y_pred, labels, "zero_one")
        y_pred = classes[np.argmax(y_proba, axis=1)]
    return (y_true != y_pred).astype(np.float64)


def _log_loss(y_true, y_pred, labels):
    y_proba, true_column, _ = _check_probabilities(y_true, y_pred, labels, "log_loss")
    eps = np.finfo(np.float64).eps
    true_proba = y_proba[np.arange(y_proba.shape[0]), true_column]
    return -np.log(np.clip(true_proba, eps, 1.0))


def _brier_loss(y_true, y_pred, labels):
    y_proba, true_column, _ = _check_probabilities(y_true, y_pred, labels, "brier")
    squared = y_proba**2
    rows = np.arange(y_proba.shape[0])
    squared[rows, true_column] = (1.0 - y_proba[rows, true_column]) ** 2
    loss = squared.sum(axis=1)
    # Same scaling as sklearn.metrics.brier_score_loss: binary problems are
    # halved so that the loss equals (p_positive - y)^2.
    return loss / 2.0 if y_proba.shape[1] < 3 else loss


_NAMED_LOSSES = {
    "zero_one": _zero_one_loss,
    "log_loss": _log_loss,
    "brier": _brier_loss,
}


def _resolve_loss(y_true, y_pred, loss, n_samples, labels=None):
    """Per-sample losses (float64, finite, non-negative) for any accepted ``loss``."""
    if isinstance(loss, str):
        y_true, y_pred = _check_labels_and_predictions(y_true, y_pred, n_samples, loss)
        values = _NAMED_LOSSES[loss](y_true, y_pred, labels)
    elif callable(loss):
        y_true, y_pred = _check_labels_and_predictions(
            y_true, y_pred, n_samples, getattr(loss, "__name__", "callable")
        )
        values = loss(y_true, y_pred)
    else:
        values = loss
    return _check_nonnegative_1d(values, "loss", n_samples)


def _validate_risk_inputs(
    y_true, y_pred, confidence, *, loss, sample_weight, labels=None
):
    """Validate the common inputs of every risk metric.

    Returns
    -------
    confidence, losses : ndarray of shape (n_samples,), float64
    sample_weight : ndarray of shape (n_samples,), float64, or None for unit weights
    """
    confidence = _check_confidence(confidence)
    n_samples = confidence.shape[0]
    losses = _resolve_loss(y_true, y_pred, loss, n_samples, labels=labels)
    sample_weight = _check_sample_weight(sample_weight, n_samples)
    return confidence, losses, sample_weight


def _check_binary_failures(losses):
    if not np.all((losses == 0) | (losses == 1)):
        raise ValueError(
            "This metric ranks failures against correct predictions, so it needs a "
            "0/1 loss (1 = failure); got loss values outside {0, 1}."
        )
    return losses
