"""From the arrays of a file to labels, predictions and confidences (``evaluate``).

A file holds the true labels and one of: class probabilities, logits (the
model's raw scores, e.g. exported from PyTorch or JAX), or a prediction and a
confidence per sample. Labels are matched to the probability or logit columns
as text, or as numbers when both sides are numbers (pandas writes ``0.0`` for
``0``); a label without a column is an error that names it.
"""

from typing import NamedTuple

import numpy as np

from ._cli_files import InputError
from .confidence import get_confidence_function

# Probabilities rounded to 3 decimals are off by at most 5e-4 per class.
ROUNDING_TOLERANCE_PER_CLASS = 5e-4
# Rows off by more than this are divided by their sum before scoring (a change no
# larger than the rounding that caused it); float32 rows stay untouched.
_RESCALE_ABOVE = 1e-6


class Predictions(NamedTuple):
    y_true: np.ndarray  # codes into labels (or the labels themselves)
    y_pred: np.ndarray
    confidence: np.ndarray
    proba: np.ndarray | None
    labels: np.ndarray | None
    n_rescaled: int = 0


class Scores(NamedTuple):
    """Probabilities or logits of shape (n, k) (or (n,) for binary problems)."""

    kind: str  # "proba" or "logits"
    values: np.ndarray
    labels: np.ndarray
    source: str  # how the user names them: "columns proba_<label>", "array 'proba'"


# ----------------------------------------------------------------------------
# Labels
# ----------------------------------------------------------------------------
def _keys(values):
    """Numbers as float64 when every value is one, else stripped text."""
    values = np.asarray(values)
    if values.dtype.kind in "biuf":
        return values.astype(np.float64), True
    text = np.char.strip(values.astype(str))
    try:
        return text.astype(np.float64), True
    except ValueError:
        return text, False


def _show(values, limit=5):
    values = [
        f"{value:g}" if isinstance(value, float) else repr(value)
        for value in np.asarray(values).tolist()[:limit]
    ]
    return ", ".join(values) + (", ..." if len(values) == limit else "")


def _codes(y_true, labels, source, label_name):
    """Index of each true label among ``labels``; InputError naming the unmatched."""
    label_keys, label_numeric = _keys(labels)
    true_keys, true_numeric = _keys(y_true)
    if label_numeric != true_numeric:  # compare as text, e.g. '1' vs 'cat'
        label_keys = np.char.strip(np.asarray(labels).astype(str))
        true_keys = np.char.strip(np.asarray(y_true).astype(str))
    unique_labels, first = np.unique(label_keys, return_index=True)
    if unique_labels.shape[0] != label_keys.shape[0]:
        repeated = np.delete(label_keys, first)[0]
        raise InputError(
            f"the {source} name one label more than once: "
            f"{_show(np.asarray(labels)[label_keys == repeated])} (numerically "
            "equal labels are the same label)"
        )
    unique_true, inverse = np.unique(true_keys, return_inverse=True)
    position = np.searchsorted(unique_labels, unique_true).clip(
        0, unique_labels.shape[0] - 1
    )
    missing = unique_labels[position] != unique_true
    if missing.any():
        raise InputError(
            f"{label_name} holds label(s) {_show(unique_true[missing])} without a "
            f"column among the {source} (labels {_show(label_keys, 10)}); "
            "give every class a column"
        )
    return np.argsort(label_keys, kind="stable")[position][inverse.ravel()]


def _binary_labels(y_true, positive, source):
    """The two labels of a single-column (sigmoid) file: (negative, positive)."""
    keys, numeric = _keys(y_true)
    positive_key, positive_numeric = _keys(np.asarray([positive]))
    if numeric != positive_numeric:
        keys = np.char.strip(np.asarray(y_true).astype(str))
        positive_key = np.char.strip(np.asarray([positive]).astype(str))
    others = np.setdiff1d(np.unique(keys), positive_key)
    if others.shape[0] > 1:
        raise InputError(
            f"one probability or logit ({source}) describes a binary problem, but "
            f"y_true holds {others.shape[0] + 1} labels ({_show(np.unique(keys))}); "
            "give every class a column"
        )
    if others.shape[0] == 1:
        return np.asarray([others[0], positive_key[0]])
    if positive_numeric and positive_key[0] in (0.0, 1.0):
        return np.asarray([1.0 - positive_key[0], positive_key[0]])
    raise InputError(
        f"y_true holds only the label of the single column ({source}); the other "
        "class is unknown: add its column"
    )


# ----------------------------------------------------------------------------
# Scores -> probabilities
# ----------------------------------------------------------------------------
def _finite(values, table, name):
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=-1) if bad.ndim > 1 else bad)[0])
        raise InputError(f"{table.path}, {name}, {table.locate(row)}: NaN or infinity")
    return values


def check_probabilities(proba, source, renormalize=False):
    """Probability rows within the documented tolerance, rescaled to sum to 1.

    Returns ``(proba, n_rescaled)``.
    """
    n_classes = proba.shape[1]
    if proba.min() < 0 or (not renormalize and proba.max() > 1 + _RESCALE_ABOVE):
        row = int(np.flatnonzero(((proba < 0) | (proba > 1)).any(axis=1))[0])
        raise InputError(
            f"the {source} hold values outside [0, 1] (row {row}: "
            f"{_show(proba[row].tolist())}); if they are logits, name them "
            "logit_<label> (CSV) or 'logits' (NPZ)"
        )
    sums = proba.sum(axis=1)
    off = np.abs(sums - 1)
    tolerance = ROUNDING_TOLERANCE_PER_CLASS * n_classes
    if not renormalize and off.max() > tolerance:
        row = int(np.argmax(off))
        raise InputError(
            f"each row of the {source} must sum to 1 (within {tolerance:g}, what "
            f"rounding to 3 decimals can cause); row {row} sums to {sums[row]:.6g}. "
            "Pass --renormalize to divide each row by its sum"
        )
    rescale = off > _RESCALE_ABOVE
    if renormalize and not (sums[rescale] > 0).all():
        raise InputError(f"--renormalize: a row of the {source} sums to 0")
    if rescale.any():
        proba = proba.copy()
        proba[rescale] /= sums[rescale, None]
    return proba, int(rescale.sum())


def softmax(logits):
    shifted = logits - logits.max(axis=1, keepdims=True)
    np.exp(shifted, out=shifted)
    shifted /= shifted.sum(axis=1, keepdims=True)
    return shifted


def _two_columns(scores):
    """A single sigmoid probability or logit as two columns (negative, positive)."""
    values = scores.values.reshape(-1)
    if scores.kind == "proba":
        return np.column_stack([1 - values, values])
    half = 0.5 * values  # scikit-learn's binary decision_function convention
    return np.column_stack([-half, half])


# ----------------------------------------------------------------------------
# CSF
# ----------------------------------------------------------------------------
_CSF_INPUTS = {
    "predict_proba": "probabilities",
    "decision_function": "logits",
    "ensemble_proba": "ensemble",
}


def confidences(csf, proba, logits, source):
    """The CSF applied to what it reads; a message that says what the file lacks."""
    function = get_confidence_function(csf)
    needs = _CSF_INPUTS[getattr(function, "model_output", "predict_proba")]
    if needs == "probabilities":
        return function(proba)
    if needs == "logits" and logits is not None:
        return function(logits)
    if needs == "logits":
        raise InputError(
            f"--csf {csf} reads logits, but the file holds probabilities ({source}). "
            "Export the logits (CSV columns logit_<label>, NPZ array 'logits'), or "
            "use a probability CSF such as msp, margin or negative_entropy"
        )
    raise InputError(
        f"--csf {csf} scores an ensemble (the probabilities of several models), "
        "which evaluate does not read; use a probability CSF such as msp, or a "
        "logit CSF such as max_logit with logit columns"
    )


def build_predictions(table, y_true, scores, options):
    """Labels, predictions and confidences from true labels and scores."""
    values = _finite(scores.values.astype(np.float64), table, scores.source)
    labels = scores.labels
    if values.ndim == 1 or values.shape[1] == 1:
        labels = _binary_labels(y_true, labels.reshape(-1)[-1], scores.source)
        values = _two_columns(scores._replace(values=values))
    if labels.shape[0] != values.shape[1]:
        raise InputError(
            f"{table.path}: 'labels' has {labels.shape[0]} entries but the "
            f"{scores.source} have {values.shape[1]} columns"
        )
    codes = _codes(y_true, labels, scores.source, "y_true")
    n_rescaled, logits = 0, None
    if scores.kind == "logits":
        logits, proba = values, softmax(values)
    else:
        proba, n_rescaled = check_probabilities(
            values, scores.source, options.renormalize
        )
    confidence = confidences(options.csf, proba, logits, scores.source)
    y_pred = proba.argmax(axis=1)
    return Predictions(
        codes, y_pred, confidence, proba, np.arange(labels.shape[0]), n_rescaled
    )


def align_pred(y_true, y_pred):
    """True and predicted labels as comparable arrays (numbers or text)."""
    true_keys, true_numeric = _keys(y_true)
    pred_keys, pred_numeric = _keys(y_pred)
    if true_numeric != pred_numeric:
        kinds = {True: "numbers", False: "text"}
        raise InputError(
            f"y_true holds {kinds[true_numeric]} and y_pred {kinds[pred_numeric]} "
            f"(e.g. {_show(true_keys, 2)} vs {_show(pred_keys, 2)}); the labels "
            "must be of one kind"
        )
    return true_keys, pred_keys
