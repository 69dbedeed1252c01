"""``target_coverage``: the largest threshold whose validation coverage reaches
the target."""

import numpy as np

from .._curve import _RELATIVE_TOLERANCE
from ._base import CurvePolicy


class TargetCoverage(CurvePolicy):
    """The largest threshold whose validation coverage is at least
    ``target_coverage``; ``1.0`` accepts everything and needs no validation."""

    name = "target_coverage"

    def __init__(self, target_coverage):
        self.target_coverage = target_coverage
        self.needs_validation = target_coverage != 1.0

    def fit_curve(self, curve):
        target = self.target_coverage
        reached = curve.coverage >= target * (1 - _RELATIVE_TOLERANCE)
        return curve.at(int(np.argmax(reached)))
