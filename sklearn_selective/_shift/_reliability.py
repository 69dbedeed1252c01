"""Whether a label-free estimate can be trusted on a chunk: the support rule.

Every label-free estimate extrapolates what the reference taught it: a
calibration learnt where the reference has data, re-weighted (at most) to
where the chunk has data. Where the chunk lies outside the reference's
support, nothing on the reference speaks for it, and the estimate can be
anywhere (on digits with Gaussian noise of standard deviation 2, 4 and 8 the
estimates stay at 0.91-0.94 while the accuracy falls to 0.75, 0.54 and 0.27).
Three input signals say whether the reference speaks for a chunk:

- ``novel_share``: the share of the chunk an outlier detector fitted on the
  reference flags, at a threshold that flags ``novelty_rate`` (5 % by
  default) of reference-like inputs;
- ``clipped_share``: the share of chunk samples whose cross-fitted density
  ratio ``p_chunk / p_reference`` reaches its clip (``max_ratio``, 20 by
  default; :mod:`._importance_weights`): inputs where the reference has next
  to no mass, so that no re-weighting of it can represent them;
- ``repeated_share``: the share of the chunk's samples that repeat another of
  its samples, beyond that share in a sample of the reference of the same
  size (:func:`excess_repeated_share`): a stuck sensor or a replayed record
  sends one input many times, which the reference never does. Every interval
  takes the samples of a chunk as independent draws, and copies are not (one
  row repeated 200 times is one draw: its realised accuracy is 0 or 1).

**The rule.** A chunk's estimate is *reliable* unless ``novel_share >
max_novel_share`` (default 0.5: most of the chunk flagged where 5 % of
reference-like inputs are),
``clipped_share > max_clipped_share`` (default 0.1) or ``repeated_share >
max_repeated_share`` (default 0.5: most of the chunk copies). A signal that is
NaN (not computed, or undefined for a small chunk) does not make a chunk
unreliable. The levels are stated, not tested: they are large enough that a
chunk drawn like the reference passes them with near certainty (at 50 samples
a share of 0.5 flagged at rate 0.05 has probability below 1e-14), and their
rate on the no-shift and noise-ramp chunks of ``benchmarks/bench_estimates.py``
is in its output.
"""

import numpy as np

MAX_NOVEL_SHARE = 0.5
MAX_CLIPPED_SHARE = 0.1
MAX_REPEATED_SHARE = 0.5


def _repeated_share(rows):
    """The share of the rows of a dense numeric array that repeat an earlier
    row, byte for byte (NaN equals itself)."""
    rows = np.ascontiguousarray(rows)
    n_rows = rows.shape[0]
    keys = rows.reshape(n_rows, -1)
    keys = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1])))
    return 1.0 - np.unique(keys.ravel()).shape[0] / n_rows


def excess_repeated_share(chunk, reference, rng):
    """``repeated_share`` of a chunk: the share of its rows that repeat
    another of its rows, less that share among as many rows of the reference,
    at least 0.

    Both sides are read at the same size, ``min(len(chunk), len(reference))``
    (a uniform sample of the larger one, drawn by ``rng``): with inputs that
    repeat by nature (a few categorical features) the share grows with the
    size, and the reference's at that size is what a chunk drawn like it
    shows. NaN for a sparse matrix, inputs that are not numbers, or fewer than
    two rows on a side.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective._shift._reliability import excess_repeated_share
    >>> rng = np.random.default_rng(0)
    >>> reference = rng.normal(size=(500, 3))
    >>> stuck = np.repeat(reference[:1], 200, axis=0)  # one row, 200 times
    >>> float(excess_repeated_share(stuck, reference, rng))
    0.995
    >>> float(excess_repeated_share(reference[:200], reference, rng))
    0.0
    """
    sides = [chunk, reference]
    numeric = all(
        isinstance(side, np.ndarray) and side.dtype.kind in "biuf" for side in sides
    )
    size = min(side.shape[0] for side in sides)
    if not numeric or size < 2:
        return np.nan
    for i, side in enumerate(sides):
        if side.shape[0] > size:
            sides[i] = side[np.sort(rng.choice(side.shape[0], size, replace=False))]
    return max(0.0, _repeated_share(sides[0]) - _repeated_share(sides[1]))


def _share(values, name):
    values = np.asarray(values, dtype=np.float64)
    if np.any(values[np.isfinite(values)] < 0) or np.any(values > 1):
        raise ValueError(f"{name} must hold shares in [0, 1] (or NaN).")
    return values


def _level(value, name):
    if not (isinstance(value, int | float | np.floating) and 0 <= value <= 1):
        raise ValueError(f"{name} must be a number in [0, 1]; got {value!r}.")
    return float(value)


def unreliable_reasons(
    novel_share=np.nan,
    clipped_share=np.nan,
    repeated_share=np.nan,
    *,
    max_novel_share=MAX_NOVEL_SHARE,
    max_clipped_share=MAX_CLIPPED_SHARE,
    max_repeated_share=MAX_REPEATED_SHARE,
):
    """Why each chunk's estimate is not reliable ("" where it is).

    Parameters are those of :func:`estimate_reliable`.

    Returns
    -------
    reasons : ndarray of str objects
        Per chunk, e.g. ``"novel_share 0.62 > 0.50"``, the failed checks joined
        by ``", "``; ``""`` for a reliable chunk.

    Examples
    --------
    >>> from sklearn_selective._shift._reliability import unreliable_reasons
    >>> unreliable_reasons([0.04, 0.62], [0.0, 0.35]).tolist()
    ['', 'novel_share 0.62 > 0.50, clipped_share 0.35 > 0.10']
    """
    checks = (
        ("novel_share", _share(novel_share, "novel_share"), max_novel_share),
        ("clipped_share", _share(clipped_share, "clipped_share"), max_clipped_share),
        (
            "repeated_share",
            _share(repeated_share, "repeated_share"),
            max_repeated_share,
        ),
    )
    shape = np.broadcast_shapes(*(values.shape for _, values, _ in checks))
    reasons = np.full(shape, "", dtype=object)
    for name, values, level in checks:
        level = _level(level, f"max_{name}")
        values = np.broadcast_to(values, shape)
        with np.errstate(invalid="ignore"):
            failed = values > level  # NaN compares False: unknown is no failure
        text = np.array([f"{name} {v:.2f} > {level:.2f}" for v in values[failed]])
        joined = np.where(reasons[failed] == "", "", reasons[failed] + ", ")
        reasons[failed] = (joined.astype(object) + text).astype(object)
    return reasons


def estimate_reliable(
    novel_share=np.nan,
    clipped_share=np.nan,
    repeated_share=np.nan,
    *,
    max_novel_share=MAX_NOVEL_SHARE,
    max_clipped_share=MAX_CLIPPED_SHARE,
    max_repeated_share=MAX_REPEATED_SHARE,
):
    """Whether each chunk lies inside what the reference supports.

    ``False`` where ``novel_share > max_novel_share``, ``clipped_share >
    max_clipped_share`` or ``repeated_share > max_repeated_share`` (the
    support rule of this module); NaN signals are not evidence against a
    chunk.

    Parameters
    ----------
    novel_share : float or array-like, default=NaN
        Per chunk, the share of samples the reference's outlier detector
        flags (``MonitoringResult.novel_share``).
    clipped_share : float or array-like, default=NaN
        Per chunk, the share of samples whose density ratio to the reference
        reaches its clip (``DensityRatio.clipped_share``).
    repeated_share : float or array-like, default=NaN
        Per chunk, the share of samples that repeat another, beyond the
        reference's (:func:`excess_repeated_share`).
    max_novel_share : float in [0, 1], default=0.5
        Largest ``novel_share`` of a reliable chunk.
    max_clipped_share : float in [0, 1], default=0.1
        Largest ``clipped_share`` of a reliable chunk.
    max_repeated_share : float in [0, 1], default=0.5
        Largest ``repeated_share`` of a reliable chunk.

    Returns
    -------
    reliable : ndarray of bool
        One value per chunk (the broadcast shape of the signals).

    See Also
    --------
    unreliable_reasons : Which check failed, with the numbers.

    Examples
    --------
    >>> from sklearn_selective._shift._reliability import estimate_reliable
    >>> estimate_reliable([0.04, 0.62, float("nan")], [0.0, 0.0, 0.5]).tolist()
    [True, False, False]
    """
    reasons = unreliable_reasons(
        novel_share,
        clipped_share,
        repeated_share,
        max_novel_share=max_novel_share,
        max_clipped_share=max_clipped_share,
        max_repeated_share=max_repeated_share,
    )
    return np.asarray(reasons == "", dtype=bool)
