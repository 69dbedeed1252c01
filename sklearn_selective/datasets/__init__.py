"""Synthetic data with a known posterior, for checking uncertainty scores.

On real data the probability that a prediction is wrong is never observed; on
these generators it is known in closed form, so a confidence score function
can be compared with the ground truth it should track.
"""

from ._gaussian_mixture import make_gaussian_mixture_uq, uq_ground_truth

__all__ = ["make_gaussian_mixture_uq", "uq_ground_truth"]
