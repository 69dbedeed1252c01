"""``target_risk`` without a confidence level: the lowest threshold whose
empirical validation selective risk is within the target."""

import numpy as np

from .._curve import _RELATIVE_TOLERANCE, ABSTAINS, abstain_on_everything
from ._base import CurvePolicy


class TargetRisk(CurvePolicy):
    """The lowest threshold whose empirical selective risk is at most
    ``target_risk``; abstains on everything, with a ``GuaranteeNotMetWarning``,
    when none is."""

    name = "target_risk"

    def __init__(self, target_risk):
        self.target_risk = target_risk

    def fit_curve(self, curve):
        target = self.target_risk
        feasible = np.flatnonzero(curve.risk <= target * (1 + _RELATIVE_TOLERANCE))
        if feasible.size == 0:
            return abstain_on_everything(
                f"No threshold has a validation selective risk <= {target}. {ABSTAINS}"
            )
        return curve.at(int(feasible[-1]))
