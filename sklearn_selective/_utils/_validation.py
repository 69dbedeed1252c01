"""Validation of metric inputs and resolution of the per-sample loss.

Every message names the argument the user passed and says what to do. The common
case (a 1-D numeric ndarray) is validated with a few O(1) checks and one
reduction; anything else goes through :func:`sklearn.utils.check_array`, whose
raw numpy errors are rewritten to name the argument.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_array, column_or_1d

from ._row_blocks import check_probabilities

# Raw numpy / scikit-learn messages that do not say which argument is wrong, and
# the advice that replaces them.
_ARRAY_ERROR_HINTS = {
    "complex": "must be real-valued; got complex numbers",
    "Complex": "must be real-valued; got complex numbers",
    "could not convert": "must hold numbers only; convert or drop the entries "
    "that are not numbers",
    "Unable to convert array of bytes/strings": "must hold numbers only; convert "
    "or drop the entries that are not numbers",
    "inhomogeneous": "is ragged (its rows have different lengths); pass a "
    "rectangular array",
    "setting an array element with a sequence": "is ragged (its rows have "
    "different lengths); pass a rectangular array",
    "argument must be a string or a": "must hold numbers only; convert or drop "
    "the entries that are not numbers",
}


def _check_array(values, name, **params):
    """:func:`check_array` whose errors always name the argument ``name``."""
    try:
        return check_array(values, input_name=name, **params)
    except (ValueError, TypeError) as error:
        message = str(error)
        for pattern, advice in _ARRAY_ERROR_HINTS.items():
            if pattern in message:
                raise ValueError(f"{name} {advice} ({message}).") from error
        if name in message:
            raise
        raise type(error)(f"Invalid {name}: {message}") from error


def _as_float_1d(values, name):
    """``values`` as a finite float64 1-D array (no length check). A column
    vector ``(n_samples, 1)``, as many models and frameworks output, is one
    value per sample too (the rule of the command line's files)."""
    if (
        type(values) is np.ndarray
        and values.ndim == 1
        and values.size
        and values.dtype.kind in "fiub"
    ):
        if values.dtype != np.float64:
            values = values.astype(np.float64)
        if np.isfinite(values).all():  # otherwise check_array says which
            return values
    values = _check_array(
        values, name, ensure_2d=False, dtype=np.float64, ensure_all_finite=False
    )
    _check_finite(values, name)
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.ndim != 1:
        raise ValueError(
            f"{name} must hold one value per sample, of shape (n_samples,) or "
            f"(n_samples, 1); got shape {values.shape}."
        )
    return values


def _check_finite(values, name):
    """Refuse NaN and infinity, saying how many and where the first one is."""
    bad = ~np.isfinite(values)
    if bad.any():
        first = np.unravel_index(int(np.argmax(bad)), values.shape)
        where = first[0] if values.ndim == 1 else tuple(int(i) for i in first)
        kind = "NaN" if np.isnan(values[first]) else "infinity"
        raise ValueError(
            f"{name} contains {kind}: {np.count_nonzero(bad)} of {values.size} "
            f"values are not finite (NaN or infinity), the first at position "
            f"{where}. Drop or impute those samples: every {name} must be a "
            "finite number."
        )


def _check_confidence(confidence):
    confidence = _as_float_1d(confidence, "confidence")
    return confidence


def _check_nonnegative_1d(values, name, n_samples, reference="confidence"):
    values = _as_float_1d(values, name)
    if values.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {values.shape[0]} entries but {reference} has "
            f"{n_samples}; pass one value per sample."
        )
    if values.min() < 0:
        raise ValueError(f"{name} must be non-negative; found {values.min()!r}.")
    return values


def _check_sample_weight(
    sample_weight, n_samples, name="sample_weight", reference="confidence"
):
    """Validated float64 weights, or None (unit weights) when None is given.

    ``name`` is the argument the user passed and ``reference`` the argument whose
    length it must match; both appear in the messages.
    """
    if sample_weight is None:
        return None
    sample_weight = _check_nonnegative_1d(sample_weight, name, n_samples, reference)
    if not sample_weight.any():
        raise ValueError(
            f"{name} sums to zero: at least one sample needs a positive weight."
        )
    return sample_weight


def _check_scaled_sample_weight(
    sample_weight, n_samples, name="sample_weight", reference="confidence"
):
    """:func:`_check_sample_weight`, then :func:`scale_weights`: for the
    computations invariant to a common factor of the weights."""
    return scale_weights(
        _check_sample_weight(sample_weight, n_samples, name, reference)
    )


def _check_frequency_total(sample_weight):
    """The finite-sample AURC estimators, SELE and quantile bins treat weights as
    frequencies: their total is the sample size ``n``, a float64 not too small to
    compute with (a subnormal total overflowed the estimators' divisions)."""
    if sample_weight is None:
        return
    with np.errstate(over="ignore"):
        total = float(np.sum(sample_weight))
    if not np.isfinite(total):
        raise ValueError(
            "sample_weight sums to more than the largest float64 (about 1.8e308). "
            "The weights are read as frequencies here, so their total is the "
            "sample size; divide all the weights by one common factor."
        )
    if total < 2.0**-200:
        raise ValueError(
            f"sample_weight sums to {total:.3g}, too small a sample size to "
            "compute with (below 2**-200, about 6e-61). The weights are read as "
            "frequencies here, so their total is the sample size; multiply all "
            "the weights by one common factor so that they count samples (for "
            "example divide them by their mean)."
        )


def scale_weights(sample_weight):
    """``sample_weight`` times a power of two (exact) that brings its largest
    value into ``[0.5, 1)`` when it is extreme (above ``2**200``, or positive and
    below ``2**-200``), unchanged otherwise.

    For the metrics and policies that are invariant to a common factor of the
    weights: their sums can then neither overflow (``1e306`` per sample) nor
    lose every digit to subnormals (``1e-320``), which made every threshold a tie.
    """
    if sample_weight is None:
        return None
    top = float(sample_weight.max())
    if 2.0**-200 <= top <= 2.0**200:
        return sample_weight
    return np.ldexp(sample_weight, -int(np.frexp(top)[1]))


# ------------------------------------------------------------------------------------
# Labels
# ------------------------------------------------------------------------------------
def _as_labels(values, name, ndim=(1,)):
    """``values`` as an ndarray of labels (any dtype) of an accepted rank."""
    if type(values) is np.ndarray and values.ndim in ndim and values.size:
        return _check_no_missing_label(values, name)
    if ndim == (1,):
        try:
            labels = column_or_1d(_check_array(values, name, **_LABEL_PARAMS))
        except ValueError as error:
            if "shape" not in str(error) or name in str(error):
                raise
            raise ValueError(
                f"{name} must be a 1-D array of labels of shape (n_samples,); {error}"
            ) from error
        return _check_no_missing_label(labels, name)
    return _check_no_missing_label(_check_array(values, name, **_LABEL_PARAMS), name)


def all_finite(X):
    """Whether every value of the inputs ``X`` is finite (of a sparse matrix:
    its stored values), without a copy of a float array."""
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.dtype.kind in "biu":
        return True
    if values.dtype.kind not in "fc":
        values = values.astype(np.float64)
    return bool(np.isfinite(values).all())


def _is_missing(label):
    if label is None or type(label).__name__ == "NAType":  # pandas.NA
        return True
    try:
        return bool(label != label)  # NaN (and NaT): unequal to itself
    except (TypeError, ValueError):  # a label without a truth value: not NaN
        return False


def count_missing_labels(labels):
    """How many of ``labels`` are missing: NaN, None or pandas' NA (an empty
    CSV cell, a nullable column)."""
    if labels.dtype.kind in "fc":
        return int(np.count_nonzero(labels != labels))
    if labels.dtype.kind == "O":
        try:  # NaN is unequal to itself; None equals None, compared as objects
            missing = np.asarray(labels != labels, dtype=bool)
            return int(np.count_nonzero(missing | np.equal(labels, None)))
        except (TypeError, ValueError):  # pandas' NA: no truth value; per label
            return int(np.count_nonzero(np.frompyfunc(_is_missing, 1, 1)(labels)))
    return 0


def _check_no_missing_label(labels, name):
    """A missing label (NaN, None, pandas' NA) equals no label."""
    if labels.ndim == 1:
        missing = count_missing_labels(labels)
        if missing:
            raise ValueError(
                f"{name} contains NaN (a missing label) at {missing} "
                "position(s); every label must be known. Drop those samples or fill "
                "in their labels."
            )
    return labels


_LABEL_PARAMS = {"ensure_2d": False, "dtype": None, "ensure_all_finite": False}


def _label_kind(labels, name):
    """``"number"`` or ``"string"``; a mix of the two raises ``ValueError``."""
    kind = labels.dtype.kind
    if kind in "biuf":
        return "number"
    if kind in "US":
        return "string"
    kinds = {isinstance(label, str) for label in labels.ravel().tolist()}
    if len(kinds) > 1:
        raise ValueError(
            f"{name} mixes strings and numbers; use one type for every label "
            "(for example all strings, or all numbers)."
        )
    return "string" if True in kinds else "number"


def _check_same_label_type(y_true, other, other_name):
    """Raise like scikit-learn's ``Mix of label input types`` (strings and numbers).

    Numbers of different dtypes (``0`` and ``0.0``, ``True`` and ``1``) are the
    same label; a string never equals a number, so a mix would count every sample
    as an error.
    """
    true_kind = _label_kind(y_true, "y_true")
    other_kind = _label_kind(other, other_name)
    if true_kind != other_kind:
        raise ValueError(
            f"Mix of label input types (string and number): y_true holds "
            f"{true_kind}s but {other_name} holds {other_kind}s, so no label could "
            f"ever match. Convert one of them, e.g. y_true.astype(str) or "
            f"{other_name}.astype(int) (labels read from a CSV file are often "
            "strings or floats like 0.0)."
        )


def _check_discrete(labels, name):
    """Refuse continuous values where labels are expected: most often the
    confidence passed in the place of ``y_pred`` (or ``y_true``), which would
    count every sample as an error."""
    if labels.ndim == 1 and labels.dtype.kind == "f" and labels.size:
        fractional = np.flatnonzero(np.mod(labels, 1.0) != 0)
        if fractional.shape[0]:
            raise ValueError(
                f"{name} holds continuous values (e.g. {labels[fractional[0]]:.4g}) "
                "where labels are expected. The metrics take (y_true, y_pred, "
                f"confidence) in that order: did you pass the confidence as {name}? "
                "Class probabilities go in y_pred as an (n_samples, n_classes) "
                "array."
            )
    return labels


def check_labels_match_classes(y, classes, name="y"):
    """Raise when ``y`` holds strings and the model's classes numbers (or the
    reverse): no label could ever equal a prediction, so every sample would
    count as an error (e.g. a ``FrozenEstimator`` fitted on integer labels, fed
    string labels read from a file)."""
    y_kind = _label_kind(np.asarray(y), name)
    class_kind = _label_kind(np.asarray(classes), "classes_")
    if y_kind != class_kind:
        target = "str" if class_kind == "string" else "int"
        raise ValueError(
            f"{name} holds {y_kind}s but the model's classes_ are {class_kind}s "
            f"({np.asarray(classes)[:5].tolist()}), so no label could match a "
            f"prediction and every sample would count as an error. Convert {name} "
            f"to the type of the classes, e.g. {name}.astype({target})."
        )


def _check_labels_and_predictions(y_true, y_pred, n_samples, loss_name):
    if y_true is None or y_pred is None:
        raise ValueError(
            f"loss={loss_name!r} needs y_true and y_pred. If you only have per-sample "
            "losses, pass them as an array: loss=losses."
        )
    y_true = _as_labels(y_true, "y_true")
    y_pred = _as_labels(y_pred, "y_pred", ndim=(1, 2))
    if y_true.shape[0] != y_pred.shape[0]:
        raise ValueError(
            "y_true and y_pred have inconsistent numbers of samples: "
            f"[{y_true.shape[0]}, {y_pred.shape[0]}]; pass one prediction per label."
        )
    if y_true.shape[0] != n_samples:
        raise ValueError(
            f"y_true has {y_true.shape[0]} samples but confidence has {n_samples}; "
            "pass one confidence score per sample."
        )
    return y_true, y_pred


# ------------------------------------------------------------------------------------
# Probabilities
# ------------------------------------------------------------------------------------
_PROBABILITY_DTYPES = (np.float64, np.float32, np.float16)


def _as_probabilities(y_proba, name, loss_name):
    if y_proba.ndim != 2:
        context = "" if name == "y_proba" else f" for loss={loss_name!r}"
        raise ValueError(
            f"{name} must hold class probabilities of shape (n_samples, "
            f"n_classes){context}; got shape {y_proba.shape}. For a binary problem "
            "with positive-class probabilities p pass np.column_stack([1 - p, p])."
        )
    if not (type(y_proba) is np.ndarray and y_proba.dtype in _PROBABILITY_DTYPES):
        y_proba = _check_array(
            y_proba, name, dtype=list(_PROBABILITY_DTYPES), ensure_all_finite=False
        )
    check_probabilities(y_proba, name)
    return y_proba


def _dense_integer_classes(y_true):
    """``np.unique(y_true)`` and the index of each label in it, in O(n) with a
    count per integer value, for integer labels of a small range; else None."""
    if y_true.dtype.kind not in "iu" or y_true.dtype == np.uint64 or not y_true.size:
        return None
    low, high = int(y_true.min()), int(y_true.max())
    if high - low > max(1024, y_true.shape[0]):
        return None
    # In intp: y_true - low can overflow a narrow type (int8 from -100 to 100).
    shifted = np.subtract(y_true, low, dtype=np.intp) if low else y_true
    present = np.bincount(shifted) > 0
    if present.all():  # the common case: every value of the range is a class
        return np.arange(low, high + 1, dtype=y_true.dtype), shifted
    classes = np.flatnonzero(present) + low
    column = np.cumsum(present) - 1
    return classes.astype(y_true.dtype), np.take(column, shifted)


def _true_class_column(y_true, labels, n_columns, name):
    """Column of each sample's true class; the classes of the columns."""
    if labels is None:
        dense = _dense_integer_classes(y_true)
        if dense is not None:  # every class is present: no unseen label
            classes, true_column = dense
            if classes.shape[0] == n_columns:
                return true_column, classes
        classes = np.unique(y_true)
    else:
        classes = _as_labels(labels, "labels")
        _check_same_label_type(y_true, classes, "labels")
        if np.unique(classes).shape[0] != classes.shape[0]:
            raise ValueError("labels must not contain duplicates.")
    if classes.shape[0] != n_columns:
        raise ValueError(
            f"{name} has {n_columns} probability columns but "
            + (
                f"y_true contains {classes.shape[0]} classes; pass labels= listing "
                "the class of every column."
                if labels is None
                else f"labels lists {classes.shape[0]} classes."
            )
        )
    true_column, known = label_positions(classes, y_true)
    unseen = ~known
    if np.any(unseen):
        raise ValueError(
            f"y_true contains labels {np.unique(y_true[unseen]).tolist()} that are not "
            "among the probability columns' labels."
        )
    return true_column, classes


def label_positions(classes, labels):
    """``(index, known)``: the position of each of ``labels`` in ``classes``
    (distinct, in any order) by one binary search per label, and whether the
    label is among ``classes`` at all (where it is not, ``index`` is a valid
    but wrong position: check ``known`` first).

    Examples
    --------
    >>> import numpy as np
    >>> index, known = label_positions(np.array(["b", "a"]), np.array(["a", "c"]))
    >>> index.tolist(), known.tolist()
    ([1, 0], [True, False])
    """
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]
    position = np.searchsorted(sorted_classes, labels).clip(0, order.shape[0] - 1)
    return order[position], sorted_classes[position] == labels


def _check_probabilities(y_true, y_proba, labels, loss_name, name=None):
    """Validated probabilities (float16/32/64, as given), the column of each
    sample's true class, and the classes of the columns.

    Rows must pass :func:`sklearn_selective._utils._row_blocks.check_probabilities`,
    the check the confidence functions use, with its documented tolerance.
    """
    if name is None:
        name = "y_proba" if loss_name == "uq_c_index" else "y_pred"
    y_proba = _as_probabilities(y_proba, name, loss_name)
    true_column, classes = _true_class_column(y_true, labels, y_proba.shape[1], name)
    return y_proba, true_column, classes


def _true_class_proba(y_proba, true_column):
    """Each row's probability of its true class, float64."""
    n_samples, n_classes = y_proba.shape
    if not y_proba.flags.c_contiguous:  # a flat view would copy the whole array
        true_proba = y_proba[np.arange(n_samples), true_column]
    else:  # faster than 2-d fancy indexing
        flat_index = np.arange(0, n_samples * n_classes, n_classes)
        flat_index += true_column.astype(np.intp, copy=False)
        true_proba = y_proba.reshape(-1).take(flat_index)
    return true_proba.astype(np.float64, copy=False)


def _zero_one_loss(y_true, y_pred, labels):
    _check_discrete(y_true, "y_true")
    if y_pred.ndim == 2:
        y_proba, _, classes = _check_probabilities(y_true, y_pred, labels, "zero_one")
        y_pred = classes[np.argmax(y_proba, axis=1)]
    else:
        _check_discrete(y_pred, "y_pred")
        _check_same_label_type(y_true, y_pred, "y_pred")
    return np.not_equal(y_true, y_pred).astype(np.float64)


def _log_loss(y_true, y_pred, labels):
    y_proba, true_column, _ = _check_probabilities(y_true, y_pred, labels, "log_loss")
    eps = np.finfo(np.float64).eps
    true_proba = _true_class_proba(y_proba, true_column)
    return -np.log(np.clip(true_proba, eps, 1.0))


def _brier_loss(y_true, y_pred, labels):
    y_proba, true_column, _ = _check_probabilities(y_true, y_pred, labels, "brier")
    squared = np.square(y_proba, dtype=np.float64)
    rows = np.arange(y_proba.shape[0])
    squared[rows, true_column] = np.square(
        1.0 - _true_class_proba(y_proba, true_column)
    )
    loss = squared.sum(axis=1)
    # Same scaling as sklearn.metrics.brier_score_loss: binary problems are
    # halved so that the loss equals (p_positive - y)^2.
    return loss / 2.0 if y_proba.shape[1] < 3 else loss


_NAMED_LOSSES = {
    "zero_one": _zero_one_loss,
    "log_loss": _log_loss,
    "brier": _brier_loss,
}


def _is_zero_one(loss):
    """Whether ``loss`` names the 0/1 loss, whose values are 0 or 1 by construction
    (``loss`` may be an array, which ``==`` would compare element-wise)."""
    return isinstance(loss, str) and loss == "zero_one"


def _resolve_loss(y_true, y_pred, loss, n_samples, labels=None):
    """Per-sample losses (float64, finite, non-negative) for any accepted ``loss``."""
    if isinstance(loss, str):
        y_true, y_pred = _check_labels_and_predictions(y_true, y_pred, n_samples, loss)
        # Finite and non-negative by construction.
        return _NAMED_LOSSES[loss](y_true, y_pred, labels)
    if callable(loss):
        y_true, y_pred = _check_labels_and_predictions(
            y_true, y_pred, n_samples, getattr(loss, "__name__", "callable")
        )
        loss = loss(y_true, y_pred)
    return _check_nonnegative_1d(loss, "loss", n_samples)


def _validate_risk_inputs(
    y_true,
    y_pred,
    confidence,
    *,
    loss,
    sample_weight,
    labels=None,
    frequency_weights=False,
):
    """Validate the common inputs of every risk metric.

    ``frequency_weights``: the metric needs the total weight as a sample size
    (the finite-sample AURC estimators and SELE), which must be a float64 not
    below ``2**-200``; otherwise the metric is invariant to a common factor of the
    weights, and extreme weights are scaled exactly (:func:`scale_weights`).

    Returns
    -------
    confidence, losses : ndarray of shape (n_samples,), float64
    sample_weight : ndarray of shape (n_samples,), float64, or None for unit weights
    """
    confidence = _check_confidence(confidence)
    n_samples = confidence.shape[0]
    losses = _resolve_loss(y_true, y_pred, loss, n_samples, labels=labels)
    sample_weight = _check_sample_weight(sample_weight, n_samples)
    if frequency_weights:
        _check_frequency_total(sample_weight)
    else:
        sample_weight = scale_weights(sample_weight)
    return confidence, losses, sample_weight


def _check_binary_failures(losses):
    if not np.all((losses == 0) | (losses == 1)):
        raise ValueError(
            "This metric ranks failures against correct predictions, so it needs a "
            "0/1 loss (1 = failure); got loss values outside {0, 1}."
        )
    return losses
