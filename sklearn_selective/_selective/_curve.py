"""The validation risk-coverage curve the threshold policies read, and the fit
they return."""

import math
import warnings
from typing import NamedTuple

import numpy as np

from ..metrics._core._group_stats import GroupStats, descending_curve, group_ties

# Coverage and risk are ratios of float sums: compare with a relative tolerance so
# that e.g. 9 of 10 samples meets a target coverage of 0.9.
_RELATIVE_TOLERANCE = 1e-12


class ThresholdFit(NamedTuple):
    threshold: float
    coverage: float
    risk: float
    risk_bound: float | None = None


class _ValidationCurve(NamedTuple):
    """Risk-coverage curve at the distinct validation confidences, decreasing."""

    thresholds: np.ndarray
    accepted_weight: np.ndarray
    accepted_loss: np.ndarray
    total_weight: float

    @classmethod
    def from_samples(cls, confidence, losses, sample_weight):
        groups = group_ties(confidence)
        stats = GroupStats.from_samples(groups, losses, sample_weight)
        accepted_weight, accepted_loss, keep = descending_curve(stats)
        return cls(
            groups.values[keep][::-1],
            accepted_weight,
            accepted_loss,
            float(accepted_weight[-1]),
        )

    @property
    def coverage(self):
        return self.accepted_weight / self.total_weight

    @property
    def risk(self):
        return self.accepted_loss / self.accepted_weight

    def at(self, index, risk_bound=None):
        """The fit that accepts every confidence down to ``thresholds[index]``."""
        return ThresholdFit(
            float(self.thresholds[index]),
            float(self.coverage[index]),
            float(self.risk[index]),
            risk_bound,
        )


def _abstain_on_everything(reason, risk_bound=math.nan):
    warnings.warn(
        f"{reason} The classifier abstains on every sample (threshold_ = inf).",
        UserWarning,
        stacklevel=4,
    )
    return ThresholdFit(math.inf, 0.0, math.nan, risk_bound)


def curve_table(curve):
    """Every candidate threshold with its validation coverage and selective risk."""
    return {
        "threshold": curve.thresholds,
        "coverage": curve.coverage,
        "risk": curve.risk,
    }
