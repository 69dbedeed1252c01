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
_BLOCK_ELEMENTS = 1 << 16

# Rows of probabilities must sum to one within this absolute tolerance; it
# admits float32 rounding and values saved with ~5 significant digits.
PROBABILITY_TOLERANCE = 1e-4


def _as_float_array(values, name, ndim):
    """Return ``values`` as a float32/float64 ndarray of the expected rank."""
    array = np.asarray(values)
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


def check_probability_block(block, name="proba"):
    """Raise ``ValueError`` unless every row of ``block`` is a probability vector.

    ``block`` has classes on its last axis. NaN fails every comparison, so the
    range checks also reject NaN and infinity.
    """
    tol = PROBABILITY_TOLERANCE
    if not (block.min() >= -tol and block.max() <= 1 + tol):
        raise ValueError(
            f"{name} must hold probabilities in [0, 1] without NaN or infinity. "
            "Pass the output of predict_proba (or softmax your logits and use a "
            "logit-based CSF such as 'max_logit' on the raw values instead)."
        )
    row_sums = block @ np.ones(block.shape[-1])  # BLAS: much faster than sum
    if not np.all(np.abs(row_sums - 1) <= tol):
        worst = float(np.max(np.abs(row_sums - 1)))
        raise ValueError(
            f"Each row of {name} must sum to 1 (within {tol:g}); a row is off by "
            f"{worst:.3g}. Normalise with proba / proba.sum(axis=-1, keepdims=True)."
        )


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
        ``check(block)`` raises ``ValueError`` on invalid input.
    row_axis : int
        The samples axis: 0 for ``(n, k)``, 1 for ``(m, n, k)`` ensembles.

    Returns
    -------
    ndarray of shape (n_samples,), float64
    """
    n_rows = array.shape[row_axis]
    row_size = array.size // n_rows
    step = max(1, _BLOCK_ELEMENTS // row_size)
    out = np.empty(n_rows, dtype=np.float64)
    prefix = (slice(None),) * row_axis
    for start in range(0, n_rows, step):
        rows = slice(start, start + step)
        block = array[(*prefix, rows)].astype(np.float64, copy=False)
        check(block)
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
