"""The deployed model's inference: the class index and confidence of each
prediction, by the fast MSP path or, held out, with the probabilities the cost
rule reads."""

from functools import partial

import numpy as np
from sklearn.frozen import FrozenEstimator
from sklearn.utils import Bunch

from .._utils._row_blocks import probability_tolerance
from ._classes import class_index

# Rows per block of the fast MSP path: a block and its temporaries stay in cache.
_BLOCK_ROWS = 1 << 13


def msp_decision(proba):
    """Argmax index and maximum of each row of class probabilities, in one pass.

    Each cache-sized block of rows is transposed once, so that the maximum and
    the index are element-wise operations on contiguous class rows (numpy's
    ``argmax`` over short rows pays a per-row overhead). Ties go to the first
    maximal class, as with ``argmax``. The maxima are checked to be
    probabilities (finite, within ``[1 / n_classes, 1]`` up to the tolerance of
    the CSFs: a maximum below ``1 / n_classes`` means a row cannot sum to 1);
    NaN anywhere in a row propagates to its maximum.
    """
    proba = np.asarray(proba)
    n_rows, n_classes = proba.shape
    index = np.empty(n_rows, dtype=np.intp)
    maximum = np.empty(n_rows, dtype=np.float64)
    size = min(n_rows, _BLOCK_ROWS)
    columns = np.empty((n_classes, size))
    is_best = np.empty(size, dtype=bool)
    # Small indices while scanning: less memory traffic than intp.
    small_index = np.empty(size, dtype=np.min_scalar_type(max(n_classes - 1, 0)))
    for start in range(0, n_rows, _BLOCK_ROWS):
        block = proba[start : start + _BLOCK_ROWS]
        rows = block.shape[0]
        transposed = columns[:, :rows]
        np.copyto(transposed, block.T)
        best = maximum[start : start + rows]
        np.max(transposed, axis=0, out=best)
        best_index, mask = small_index[:rows], is_best[:rows]
        best_index.fill(n_classes - 1)
        for column in range(n_classes - 2, -1, -1):
            np.equal(transposed[column], best, out=mask)
            np.copyto(best_index, column, where=mask)
        index[start : start + rows] = best_index
    _check_maxima(maximum, n_classes, proba.dtype)
    return index, maximum


def _check_maxima(maximum, n_classes, dtype):
    tol = probability_tolerance(dtype, n_classes)
    if n_classes and not (
        maximum.min(initial=np.inf) >= 1 / n_classes - tol
        and maximum.max(initial=-np.inf) <= 1 + tol
    ):
        raise ValueError(
            "The classifier's predict_proba returned rows that are not probability "
            "vectors (NaN, values above 1, or rows that cannot sum to 1); the "
            "'msp' confidence needs probabilities. Check the classifier, or use a "
            "CSF on its decision_function such as csf='max_logit'."
        )


def _predict_proba_and_msp(estimator, X, classes=None):
    """Held-out inference of the cost rule: argmax, MSP and the probabilities,
    with a column for each of ``classes`` (all the labels of ``y``): a fold's
    model that never saw a class gives it probability 0, as
    :func:`sklearn.model_selection.cross_val_predict` does."""
    proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    if classes is not None and len(estimator.classes_) < len(classes):
        full = np.zeros((proba.shape[0], len(classes)))
        full[:, class_index(classes, estimator.classes_)] = proba
        proba = full
        index, maximum = msp_decision(proba)
        return classes[index], maximum, proba
    index, maximum = msp_decision(proba)
    return estimator.classes_[index], maximum, proba


def held_out_proba_inference(estimator, y):
    """The held-out inference of the cost rule for ``estimator`` fitted on ``y``:
    every fold's probabilities get a column for every label of ``y`` (a training
    fold may lack a class); a ``FrozenEstimator``'s classes are fixed."""
    classes = None if isinstance(estimator, FrozenEstimator) else np.unique(y)
    return partial(_predict_proba_and_msp, classes=classes)


def validation_predictions(held_out, y, sample_weight, policy):
    """The per-sample arrays of the held-out predictions a policy fits on:
    ``y_true``, ``y_pred``, ``confidence``, ``weights`` and, for a policy that
    needs them, the probabilities ``proba``."""
    indices = held_out.indices
    validation = Bunch(
        y_true=y[indices],
        y_pred=held_out.y_pred,
        confidence=held_out.confidence,
        weights=None if sample_weight is None else sample_weight[indices],
    )
    if policy.needs_proba:
        validation.proba = held_out.outputs[2]
    return validation
