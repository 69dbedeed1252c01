"""Helpers of :class:`~sklearn_selective.SelectiveClassifier` that are not policies:
the reject label's checks, class indices, the fast MSP path of ``predict``, and
the per-fold results table.
"""

from numbers import Integral, Real

import numpy as np

from .._utils._blockwise import probability_tolerance

_STRING_KINDS = "US"


def _is_string_array(values):
    if values.dtype.kind in _STRING_KINDS:
        return True
    return values.dtype.kind == "O" and all(isinstance(v, str) for v in values)


def _suggest_reject_label(classes):
    if _is_string_array(classes):
        candidates = ("abstain", "rejected", "__abstain__")
        return next(c for c in candidates if c not in set(classes.tolist()))
    if classes.dtype.kind in "iuf":
        return -1 if -1 not in classes else int(np.floor(classes.min())) - 1
    return None


def check_reject_label(reject_label, classes):
    """Raise unless ``reject_label`` has the classes' type and is not a class."""
    if reject_label is None:
        return
    suggestion = _suggest_reject_label(classes)
    advice = (
        f"e.g. reject_label={suggestion!r}"
        if suggestion is not None
        else "or leave reject_label=None and use predict_accept"
    )
    is_number = isinstance(reject_label, Real) and not isinstance(
        reject_label, (bool, np.bool_)
    )
    if classes.dtype.kind == "b":
        problem = "the classes are booleans, so no other label of their type exists"
    elif _is_string_array(classes) and not isinstance(reject_label, str):
        problem = "the classes are strings, so the reject label must be a string"
    elif classes.dtype.kind in "iu" and not (
        isinstance(reject_label, Integral)
        or (is_number and float(reject_label).is_integer())
    ):
        problem = "the classes are integers, so the reject label must be an integer"
    elif classes.dtype.kind == "f" and not is_number:
        problem = "the classes are numbers, so the reject label must be a number"
    elif reject_label in classes.tolist():
        problem = "it is one of the classes"
    else:
        return
    raise ValueError(
        f"reject_label={reject_label!r} is not usable: {problem} (classes_ = "
        f"{classes.tolist()[:10]}{' ...' if len(classes) > 10 else ''}). Choose a "
        f"label of the classes' type that no class uses, {advice}."
    )


def class_index(classes, labels):
    """Index in ``classes`` of each label; ``None`` for unknown labels."""
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]
    position = np.searchsorted(sorted_classes, labels)
    position = np.minimum(position, len(classes) - 1)
    if not np.array_equal(sorted_classes[position], labels):
        return None
    return order[position]


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


def labels_or_reject(classes, index, accepted, reject_label):
    """The class of each index, ``reject_label`` where not accepted (one gather)."""
    label = np.asarray(reject_label)
    if classes.dtype.kind == "O":
        extended = np.empty(len(classes) + 1, dtype=object)
        extended[:-1] = classes
        extended[-1] = reject_label
    else:
        dtype = np.result_type(classes.dtype, label.dtype)  # strings: the longer
        extended = np.append(classes.astype(dtype), label.astype(dtype))
    return extended[np.where(accepted, index, len(classes))]


def cv_results(fold_fits, fold_sizes, costs=None):
    """Per-fold thresholds, coverages and risks, with their mean and spread."""
    results = {"n_samples": np.asarray(fold_sizes)}
    names = ["threshold", "coverage", "risk"]
    columns = {name: [getattr(fit, name) for fit in fold_fits] for name in names}
    if fold_fits[0].risk_bound is not None:
        columns["risk_bound"] = [fit.risk_bound for fit in fold_fits]
    if costs is not None:
        columns["cost"] = costs
    with np.errstate(invalid="ignore"):
        for name, values in columns.items():
            values = np.asarray(values, dtype=np.float64)
            results[name] = values
            results[f"mean_{name}"] = np.mean(values, axis=0)
            results[f"std_{name}"] = np.std(values, axis=0)
    return results
