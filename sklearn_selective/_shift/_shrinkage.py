"""The shrinkage of the re-weighted correction of ``"importance_weighted"``.

The doubly robust estimate adds to the chunk's mean base prediction the
reference's residual of the base re-weighted to the chunk, ``D``, shrunk by
its noise to ``k D`` (:func:`shrunk_correction`; the per-class values shrink
their corrections alike). The shrinkage lowers the estimate's variance and
leaves a bias toward the base that a bootstrap of the shrunk estimate does
not see: where ``D`` barely stands out of its noise the resamples shrink it
too, and their interval sits on the biased side (moved by one at 200
samples in ``bench_coverage.py``, the expected-value intervals of the
shrunk estimate covered 0.913 / 0.903 of 600 population values). The
intervals are therefore those of the unshrunk estimate
(:func:`unshrunk_correction`), unbiased under covariate shift, widened to
include the shrunk point (:func:`include`; 0.952 / 0.948 of 1000 in that
setting, the monitoring guide).
"""

import numpy as np


def shrunk_correction(residual, weights):
    """``k D`` of the doubly robust estimate (the module) for each row of
    ``weights`` (n_rows, n_reference): the importance-weighted mean
    ``residual`` (n_reference,) or (n_rows, n_reference) of the base, shrunk
    by its noise; ``k = max(0, 1 - 2 s^2 / D^2)`` with ``s^2`` the variance
    of ``D`` (:func:`._importance_weights._doubly_robust_estimates`)."""
    shift, noise = _correction_parts(residual, weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        keep = np.where(shift != 0, np.maximum(0.0, 1.0 - 2.0 * noise / shift**2), 0.0)
    return keep * shift


def unshrunk_correction(residual, weights):
    """``D``, the correction :func:`shrunk_correction` shrinks (0 where no
    weight is positive): the intervals' (the module)."""
    return np.nan_to_num(_correction_parts(residual, weights)[0])


def include(interval, point):
    """``interval`` widened to include ``point`` (the shrunk estimate, whose
    interval is the unshrunk one's: the module); undefined stays undefined."""
    low, high = interval
    if not (np.isfinite(low) and np.isfinite(high) and np.isfinite(point)):
        return low, high
    return min(low, point), max(high, point)


def _correction_parts(residual, weights):
    """``(D, s^2)`` of :func:`shrunk_correction`, per row of ``weights``."""
    residual = np.atleast_2d(residual)  # one residual, or one per row
    total = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        shift = (weights * residual).sum(axis=1) / total
        noise = (weights**2 * (residual - shift[:, None]) ** 2).sum(axis=1) / total**2
    return shift, noise
