"""Whether a label-free estimate can be trusted on a chunk: the support rule.

Every label-free estimate extrapolates what the reference taught it: a
calibration learnt where the reference has data, re-weighted (at most) to
where the chunk has data. Where the chunk lies outside the reference's
support, nothing on the reference speaks for it, and the estimate can be
anywhere (on digits with Gaussian noise of standard deviation 2, 4 and 8 the
estimates stay at 0.91-0.94 while the accuracy falls to 0.75, 0.54 and 0.27).
Two input signals measure how much of the chunk is outside:

- ``novel_share``: the share of the chunk an outlier detector fitted on the
  reference flags, at a threshold that flags ``novelty_rate`` (5 % by
  default) of reference-like inputs;
- ``clipped_share``: the share of chunk samples whose cross-fitted density
  ratio ``p_chunk / p_reference`` reaches its clip (``max_ratio``, 20 by
  default; :mod:`._importance_weights`): inputs where the reference has next
  to no mass, so that no re-weighting of it can represent them.

**The rule.** A chunk's estimate is *reliable* unless ``novel_share >
max_novel_share`` (default 0.5: most of the chunk flagged where 5 % of
reference-like inputs are) or
``clipped_share > max_clipped_share`` (default 0.1). A signal that is NaN (not
computed, or undefined for a small chunk) does not make a chunk unreliable.
The levels are stated, not tested: they are large enough that a chunk drawn
like the reference passes them with near certainty (at 50 samples a share of
0.5 flagged at rate 0.05 has probability below 1e-14), and their rate on the
no-shift and noise-ramp chunks of ``benchmarks/bench_estimates.py`` is in its
output.
"""

import numpy as np

MAX_NOVEL_SHARE = 0.5
MAX_CLIPPED_SHARE = 0.1


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
    *,
    max_novel_share=MAX_NOVEL_SHARE,
    max_clipped_share=MAX_CLIPPED_SHARE,
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
    *,
    max_novel_share=MAX_NOVEL_SHARE,
    max_clipped_share=MAX_CLIPPED_SHARE,
):
    """Whether each chunk lies inside what the reference supports.

    ``False`` where ``novel_share > max_novel_share`` or ``clipped_share >
    max_clipped_share`` (the support rule of this module); NaN signals are
    not evidence against a chunk.

    Parameters
    ----------
    novel_share : float or array-like, default=NaN
        Per chunk, the share of samples the reference's outlier detector
        flags (``MonitoringResult.novel_share``).
    clipped_share : float or array-like, default=NaN
        Per chunk, the share of samples whose density ratio to the reference
        reaches its clip (``DensityRatio.clipped_share``).
    max_novel_share : float in [0, 1], default=0.5
        Largest ``novel_share`` of a reliable chunk.
    max_clipped_share : float in [0, 1], default=0.1
        Largest ``clipped_share`` of a reliable chunk.

    Returns
    -------
    reliable : ndarray of bool
        One value per chunk (the broadcast shape of the two signals).

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
        max_novel_share=max_novel_share,
        max_clipped_share=max_clipped_share,
    )
    return np.asarray(reasons == "", dtype=bool)
