"""Validation and block-wise evaluation shared by every confidence function.

A CSF reads its input a few times (a maximum, a logarithm, a row sum). Done on
the whole ``(n, k)`` array each pass streams it from memory again; done on row
blocks that fit in cache, the passes after the first are nearly free and the
temporaries stay small. So every CSF is a *kernel* on a float64 block, and
:func:`apply_blockwise` validates each block and runs the kernel on it.
"""

import numpy as np

# Elements per block: large enough that the per-block Python overhead is
# negligible, small enough that a block and its temporaries stay in L2 cache.
_ROW_BLOCK_MAX_ELEMENTS = 1 << 16

# Probabilities are accepted within a tolerance of the exact constraints
# (0 <= p <= 1 and rows summing to 1) that grows with the input's precision and
# the number of classes k:
#
#     tol = k * max(eps(dtype), PROBABILITY_RESOLUTION)
#
# each entry in [-tol_entry, 1 + tol_entry] with tol_entry = tol / k, each row
# sum within tol of 1. eps(dtype) is the machine epsilon of the array's dtype
# (2**-10 for float16, 2**-23 for float32, 2**-52 for float64 and for
# integers). An entry rounded to d significant bits is off by at most eps / 2,
# a row of k entries by k eps / 2, and renormalising in that precision adds as
# much again; rounding to 3 decimals (what a CSV export often keeps) moves each
# entry by at most 5e-4 = half of PROBABILITY_RESOLUTION. Both fit with a
# margin of about two. Rows within the tolerance are used as given, by the
# Python API and by the command line alike (which renormalises only when told
# to, with --renormalize): one rule, so a file and the arrays read from it give
# the same numbers.
PROBABILITY_RESOLUTION = 1e-3


def probability_tolerance(dtype, n_classes):
    """Absolute tolerance of a row sum: ``n_classes * max(eps(dtype), 1e-3)``."""
    dtype = np.dtype(dtype)
    eps = np.finfo(dtype).eps if dtype.kind == "f" else np.finfo(np.float64).eps
    return n_classes * max(float(eps), PROBABILITY_RESOLUTION)


def _as_float_array(values, name, ndim):
    """Return ``values`` as a float32/float64 ndarray of the expected rank."""
    try:
        array = np.asarray(values)
    except ValueError as error:  # ragged nested lists
        raise ValueError(
            f"{name} is ragged (its rows have different lengths); pass a "
            f"rectangular array ({error})."
        ) from error
    if array.dtype.kind not in "fiub":
        raise ValueError(
            f"{name} must be numeric; got an array of dtype {array.dtype}."
        )
    if array.dtype.kind != "f":
        array = array.astype(np.float64)
    if array.ndim not in ndim:
        shapes = " or ".join(_SHAPES[d] for d in ndim)
        raise ValueError(
            f"{name} must have shape {shapes}; got an array of shape {array.shape}."
        )
    if array.size == 0 or array.shape[-1] == 0:
        raise ValueError(
            f"{name} is empty (shape {array.shape}); pass at least one sample "
            "and one class."
        )
    return array


_SHAPES = {
    1: "(n_samples,)",
    2: "(n_samples, n_classes)",
    3: "(n_members, n_samples, n_classes)",
}


def check_probability_block(block, name="proba", dtype=None):
    """Raise ``ValueError`` unless every row of ``block`` is a probability vector.

    ``block`` has classes on its last axis; ``dtype`` is the precision the values
    were given in (default: ``block.dtype``), which sets the tolerance of
    :func:`probability_tolerance`. NaN fails every comparison, so the range
    checks also reject NaN and infinity. This is the one check of probabilities
    used by the confidence functions and by the metrics.
    """
    n_classes = block.shape[-1]
    tol = probability_tolerance(block.dtype if dtype is None else dtype, n_classes)
    entry_tol = tol / n_classes
    if not (block.min() >= -entry_tol and block.max() <= 1 + entry_tol):
        raise ValueError(
            f"{name} must hold probabilities that lie in [0, 1], without NaN or "
            "infinity. Pass the output of predict_proba (or softmax your logits "
            "and use a logit-based CSF such as 'max_logit' on the raw values "
            "instead)."
        )
    # BLAS, in float64 whatever the input precision: much faster than sum.
    row_sums = np.dot(block, np.ones(n_classes))
    if not (row_sums.min() >= 1 - tol and row_sums.max() <= 1 + tol):  # NaN fails
        deviation = np.abs(row_sums - 1)
        raise ValueError(
            f"Each row of {name} must sum to 1 (within {tol:.3g} = n_classes * "
            f"max(eps, 1e-3) for {n_classes} classes); a row is off by "
            f"{float(np.max(deviation)):.3g}. Normalise the rows in float64: "
            "p = p / p.sum(axis=-1, keepdims=True)."
        )


def check_probabilities(array, name="proba"):
    """:func:`check_probability_block` on row blocks of a whole 2-d array.

    Validates in cache-sized blocks so that no temporary of the array's size is
    made; the tolerance follows ``array.dtype``.
    """
    step = max(1, _ROW_BLOCK_MAX_ELEMENTS // max(1, array.shape[-1]))
    for start in range(0, array.shape[0], step):
        check_probability_block(array[start : start + step], name, array.dtype)


def check_finite_block(block, name="logits"):
    """Raise ``ValueError`` if ``block`` contains NaN or infinity."""
    if not np.isfinite(block).all():
        raise ValueError(f"{name} contain NaN or infinity; every logit must be finite.")


def apply_blockwise(kernel, array, check, *, row_axis=0, **params):
    """Run ``kernel(block, **params)`` on float64 row blocks of ``array``.

    Parameters
    ----------
    kernel : callable
        Maps a float64 block (rows on ``row_axis``) to one float per row.
    array : ndarray
        Validated float array (float32 blocks are converted one at a time).
    check : callable
        ``check(block)`` raises ``ValueError`` on invalid input; it sees the
        block in the input's dtype, before the conversion to float64.
    row_axis : int
        The samples axis: 0 for ``(n, k)``, 1 for ``(m, n, k)`` ensembles.

    Returns
    -------
    ndarray of shape (n_samples,), float64
    """
    n_rows = array.shape[row_axis]
    row_size = array.size // n_rows
    step = max(1, _ROW_BLOCK_MAX_ELEMENTS // row_size)
    out = np.empty(n_rows, dtype=np.float64)
    prefix = (slice(None),) * row_axis
    for start in range(0, n_rows, step):
        rows = slice(start, start + step)
        block = array[(*prefix, rows)]
        check(block)  # in the input's precision, which sets the tolerance
        block = block.astype(np.float64, copy=False)
        out[rows] = kernel(block, **params)
    return out


# Below this many classes, a maximum over columns beats numpy's row reduction,
# which pays a per-row overhead on short rows.
_COLUMNWISE_MAX_CLASSES = 16


def row_max(values):
    """Maximum over the last axis of a 2-d or 3-d block."""
    n_classes = values.shape[-1]
    if n_classes > _COLUMNWISE_MAX_CLASSES:
        return values.max(axis=-1)
    result = values[..., 0].copy()
    for column in range(1, n_classes):
        np.maximum(result, values[..., column], out=result)
    return result
