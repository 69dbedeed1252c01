"""Intervals for a chunk's realised accuracy: label noise on top of the estimate.

Once its labels are known, a chunk of ``n`` samples has a realised accuracy
``R = mean(c_i)``, ``c_i`` the correctness of sample ``i``; a method estimates it
by ``E = mean(p_i)``, the mean of its per-sample proxies (a calibrated
probability, or ATC's ``1{score >= t}``). With ``q_i = P(correct | x_i)``,

    R - E = mean(c_i - q_i) + mean(q_i - p_i) + (what E learnt on the reference),

where the first term is label noise, variance ``mean(q_i (1 - q_i)) / n`` given
the inputs; the second is zero on average for an unbiased method but varies
from chunk to chunk, variance ``Var(q - p) / n`` (large for ATC, whose proxy is
0 or 1; small for a calibrated probability); the third is estimated by the
bootstrap of the reference with the chunk held fixed. ``q_i`` comes from an
isotonic regression of the reference correctness on the CSF score (any
method, any score). The interval is ``E +- z sqrt(...)``: a prediction interval
for the realised value, valid when the method is unbiased on the chunk's
distribution.
"""

from typing import NamedTuple

import numpy as np
from scipy.stats import norm

from ..confidence._calibrators import IsotonicColumn


def fit_correctness(score, correct):
    """``q(score) = P(correct | score)`` by isotonic regression on the reference
    (clipped outside the reference's scores, as scikit-learn's
    ``IsotonicRegression(out_of_bounds="clip")``)."""
    score = np.asarray(score, dtype=np.float64)
    correct = np.asarray(correct, dtype=np.float64)
    return IsotonicColumn(score, correct, np.ones((1, score.shape[0])))


class ReferenceRealised(NamedTuple):
    """What a realised-value interval reads from the reference, per side
    (all samples, accepted samples): the fits of correctness on the score
    (:func:`fit_correctness`) and the ``(failures, samples)`` counts."""

    correctness: tuple
    failures: tuple

    @classmethod
    def fit(cls, score, correct, accepted):
        """From the reference's scores, correctness and acceptance."""
        sides = (np.ones(score.shape[0], dtype=bool), accepted)
        return cls(
            tuple(fit_correctness(score[side], correct[side]) for side in sides),
            tuple((side.sum() - correct[side].sum(), side.sum()) for side in sides),
        )


def noise_variance(model, score, proxies):
    """Per-sample variance of ``c_i - p_i`` over the chunk (see the module)."""
    if score.shape[0] == 0:
        return np.nan
    q = model.predict(score, slice(0, 1))[0]
    gap = q - proxies
    return float(np.mean(q * (1.0 - q) + (gap - gap.mean()) ** 2))


def realised_interval(point, refit_values, variance, n_samples, confidence_level):
    """Normal prediction interval of the realised accuracy, clipped to [0, 1].

    ``refit_values`` are the estimates under reference resamples with the chunk
    held fixed; ``variance`` the per-sample variance of its ``n_samples``.
    """
    refit_values = refit_values[np.isfinite(refit_values)]
    if refit_values.shape[0] < 2 or not np.isfinite(point) or n_samples == 0:
        return np.nan, np.nan
    z = norm.ppf(0.5 + confidence_level / 2.0)
    half_width = z * np.sqrt(np.var(refit_values, ddof=1) + variance / n_samples)
    return float(max(point - half_width, 0.0)), float(min(point + half_width, 1.0))
