"""``rejection_cost``: Chow's rule on validation data, and the choice of the
cheapest candidate that the cost rule shares."""

import math

import numpy as np

from .._curve import _RELATIVE_TOLERANCE, ThresholdFit
from ._base import CurvePolicy


def lowest_cost_index(total_cost, reject_all_cost):
    """Index of the cheapest candidate, ``None`` when abstaining on everything is
    cheaper. Costs within a relative 1e-12 are ties (float rounding must not
    decide): ties go to the larger coverage, and to predicting over abstaining."""
    scale = max(float(np.max(np.abs(total_cost))), abs(reject_all_cost), 1e-300)
    tolerance = _RELATIVE_TOLERANCE * scale
    best = int(np.flatnonzero(total_cost <= total_cost.min() + tolerance)[-1])
    if reject_all_cost < total_cost[best] - tolerance:
        return None
    return best


class RejectionCost(CurvePolicy):
    """Chow's rule: minimise the mean validation cost, where a rejected sample
    costs ``rejection_cost`` and an accepted one its loss."""

    name = "rejection_cost"

    def __init__(self, rejection_cost):
        self.rejection_cost = rejection_cost

    def fit_curve(self, curve):
        cost = self.rejection_cost
        rejected_weight = curve.total_weight - curve.accepted_weight
        total = curve.accepted_loss + cost * rejected_weight
        best = lowest_cost_index(total, cost * curve.total_weight)
        if best is None:
            return ThresholdFit(math.inf, 0.0, math.nan)
        return curve.at(best)
