"""From the arrays of a file to labels, predictions and confidences (``evaluate``).

A file holds the true labels and one of: class probabilities, logits (the
model's raw scores, e.g. exported from PyTorch or JAX), or a prediction and a
confidence per sample. Labels are matched to the probability or logit columns
as text, or as numbers when both sides are numbers (pandas writes ``0.0`` for
``0``); a label without a column is an error that names it.
"""

from typing import NamedTuple

import numpy as np

from .._utils._row_blocks import probability_tolerance
from .._utils._validation import label_positions
from ..confidence import get_confidence_function
from ._files import InputError

# With --renormalize, rows off by more than this are divided by their sum;
# float32 rows and probabilities written with 6 decimals stay untouched.
_RESCALE_ABOVE = 1e-4


class Predictions(NamedTuple):
    y_true: np.ndarray  # codes into labels (or the labels themselves)
    y_pred: np.ndarray
    confidence: np.ndarray
    proba: np.ndarray | None
    labels: np.ndarray | None
    n_rescaled: int = 0
    is_ood: np.ndarray | None = None  # --ood-column


class Scores(NamedTuple):
    """Probabilities or logits of shape (n, k) (or (n,) for binary problems).

    An ``"ensemble"`` holds the probabilities of several models, (m, n, k).
    """

    kind: str  # "proba", "logits" or "ensemble"
    values: np.ndarray
    labels: np.ndarray
    source: str  # how the user names them: "columns proba_<label>", "array 'proba'"
    columns: tuple = ()  # CSV: the name of each column, e.g. ("proba_0", "proba_1")

    @property
    def n_samples(self):
        return self.values.shape[self.kind == "ensemble"]


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
    """The first ``limit`` values for a message: numbers plain, text quoted."""
    values = np.asarray(values).tolist()
    shown = [
        f"{value:g}" if isinstance(value, float) else repr(value)
        for value in values[:limit]
    ]
    return ", ".join(shown) + (", ..." if len(values) > limit else "")


def _codes(y_true, labels, source, label_name):
    """Index of each true label among ``labels``; InputError naming the unmatched."""
    label_keys, label_numeric = _keys(labels)
    true_keys, true_numeric = _keys(y_true)
    if label_numeric != true_numeric:  # compare as text, e.g. '1' vs 'cat'
        label_keys = np.char.strip(np.asarray(labels).astype(str))
        true_keys = np.char.strip(np.asarray(y_true).astype(str))
    sorted_labels = np.sort(label_keys, kind="stable")
    repeated = sorted_labels[1:][sorted_labels[1:] == sorted_labels[:-1]]
    if repeated.size:
        raise InputError(
            f"the {source} name one label more than once: "
            f"{_show(np.asarray(labels)[label_keys == repeated[0]])} (numerically "
            "equal labels are the same label)"
        )
    # O(n log k): one binary search per sample among the k labels.
    index, known = label_positions(label_keys, true_keys)
    missing = ~known
    if missing.any():
        raise InputError(
            f"{label_name} holds label(s) {_show(np.unique(true_keys[missing]))} "
            f"without a column among the {source} (labels {_show(label_keys, 10)}); "
            "give every class a column"
        )
    return index


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
            f"one probability or logit ({source}) describes a binary problem, the "
            f"label {_show(positive_key)} against one other, but y_true holds "
            f"{others.shape[0]} other labels ({_show(others)}); "
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
def _finite(values, table, scores):
    """``values``, or an InputError naming the first non-finite value's place."""
    bad = ~np.isfinite(values)
    if bad.any():
        rows = bad
        while rows.ndim > 1:  # samples are the last axis but one
            rows = rows.any(axis=-1) if rows.ndim == 2 else rows.any(axis=0)
        row = int(np.flatnonzero(rows)[0])
        where = f"{table.path}, {scores.source}, {table.locate(row)}"
        if scores.columns:  # CSV: the column itself
            column = 0 if bad.ndim == 1 else int(np.flatnonzero(bad[row])[0])
            where = table.where(scores.columns[column], row)
        raise InputError(f"{where}: NaN or infinity")
    return values


def check_file_probabilities(proba, source, renormalize=False, locate=str):
    """Probability rows within the tolerance of the Python API (used as given),
    or, with ``renormalize``, every row off by more than 1e-4 divided by its sum.

    ``locate(i)`` names the place of row ``i`` in the file. Returns
    ``(proba, n_rescaled)``.
    """
    tolerance = probability_tolerance(proba.dtype, proba.shape[1])
    entry = tolerance / proba.shape[1]
    outside = (proba < 0) if renormalize else ((proba < -entry) | (proba > 1 + entry))
    if outside.any():
        row = int(np.flatnonzero(outside.any(axis=1))[0])
        raise InputError(
            f"the {source} hold values outside [0, 1] ({locate(row)}: "
            f"{_show(proba[row].tolist())}); if they are logits, name them "
            "logit_<label> (CSV) or 'logits' (NPZ)"
        )
    sums = proba.sum(axis=1, dtype=np.float64)
    off = np.abs(sums - 1)
    if not renormalize:
        if off.max() > tolerance:
            row = int(np.argmax(off))
            raise InputError(
                f"each row of the {source} must sum to 1 (within {tolerance:g} = "
                "n_classes * 1e-3, what rounding to 3 decimals can cause); "
                f"{locate(row)} sums to {sums[row]:.6g}. "
                "Pass --renormalize to divide each row by its sum"
            )
        return proba, 0
    rescale = off > _RESCALE_ABOVE
    if not (sums[rescale] > 0).all():
        raise InputError(f"--renormalize: a row of the {source} sums to 0")
    if rescale.any():
        proba = proba.astype(np.float64)
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


def confidences(csf, proba, logits, source, members=None):
    """The CSF applied to what it reads; a message that says what the file lacks."""
    function = get_confidence_function(csf)
    needs = _CSF_INPUTS[getattr(function, "model_output", "predict_proba")]
    if needs == "probabilities":
        return function(proba)
    if needs == "logits" and logits is not None:
        return function(logits)
    if needs == "ensemble" and members is not None:
        return function(members)
    if needs == "logits":
        raise InputError(
            f"--csf {csf} reads logits, but the file holds probabilities ({source}). "
            "Export the logits (CSV columns logit_<label>, NPZ array 'logits'), or "
            "use a probability CSF such as msp, margin or negative_entropy"
        )
    raise InputError(
        f"--csf {csf} scores an ensemble: it reads the probabilities of several "
        "models, an NPZ array 'proba' of shape (n_members, n_samples, n_classes); "
        f"the file holds one model's ({source}). Use a probability CSF such as msp"
    )


def _ensemble_predictions(table, y_true, scores, options):
    """An ensemble (m, n, k): every member checked, the prediction of the mean."""
    members = _finite(scores.values.astype(np.float64), table, scores)
    n_members, n_samples, n_classes = members.shape
    if n_classes == 1 or scores.labels.shape[0] != n_classes:
        raise InputError(
            f"{table.path}: an ensemble 'proba' needs one column per class and "
            f"'labels' ({scores.labels.shape[0]} entries) one label per column"
        )

    def locate(row):  # rows of the (m * n, k) stack
        return f"member {row // n_samples}, {table.locate(row % n_samples)}"

    flat, n_rescaled = check_file_probabilities(
        members.reshape(-1, n_classes), scores.source, options.renormalize, locate
    )
    members = flat.reshape(n_members, n_samples, n_classes)
    proba = members.mean(axis=0)
    codes = _codes(y_true, scores.labels, scores.source, "y_true")
    confidence = confidences(options.csf, proba, None, scores.source, members)
    return Predictions(
        codes,
        proba.argmax(axis=1),
        confidence,
        proba,
        np.arange(n_classes),
        n_rescaled,
    )


def build_predictions(table, y_true, scores, options):
    """Labels, predictions and confidences from true labels and scores."""
    if scores.kind == "ensemble":
        return _ensemble_predictions(table, y_true, scores, options)
    values = _finite(scores.values.astype(np.float64), table, scores)
    labels = scores.labels
    if values.ndim == 1 or values.shape[1] == 1:
        if labels.shape[0] == 1:  # a CSV column names the positive class only
            labels = _binary_labels(y_true, labels[0], scores.source)
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
        proba, n_rescaled = check_file_probabilities(
            values, scores.source, options.renormalize, table.locate
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
    for name, keys, numeric in (
        ("y_true", true_keys, true_numeric),
        ("y_pred", pred_keys, pred_numeric),
    ):
        if numeric and np.isnan(keys).any():
            raise InputError(f"{name} holds NaN; every sample needs a label")
    if true_numeric != pred_numeric:
        kinds = {True: "numbers", False: "text"}
        raise InputError(
            f"y_true holds {kinds[true_numeric]} and y_pred {kinds[pred_numeric]} "
            f"(e.g. {_show(true_keys, 2)} vs {_show(pred_keys, 2)}); the labels "
            "must be of one kind"
        )
    return true_keys, pred_keys
