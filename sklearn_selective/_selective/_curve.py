"""The validation risk-coverage curve the threshold policies read, the fit they
return, and the one evaluation of a threshold on samples."""

import math
from typing import NamedTuple

import numpy as np

from .._utils._warnings import warn
from ..exceptions import GuaranteeNotMetWarning
from ..metrics._core._group_stats import GroupStats, descending_curve, group_ties

# Coverage and risk are ratios of float sums: compare with a relative tolerance so
# that e.g. 9 of 10 samples meets a target coverage of 0.9.
_RELATIVE_TOLERANCE = 1e-12

ABSTAINS = "The classifier abstains on every sample (threshold_ = inf)."


class ThresholdFit(NamedTuple):
    """What a policy fitted: the threshold and its validation coverage and
    selective risk; ``risk_bound`` for a guarantee, ``cost`` (mean validation
    cost) for the cost rule. Arrays aligned with the classes per class."""

    threshold: float
    coverage: float
    risk: float
    risk_bound: float | None = None
    cost: float | None = None


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

    def table(self):
        """Every candidate threshold with its validation coverage and risk."""
        return {
            "threshold": self.thresholds,
            "coverage": self.coverage,
            "risk": self.risk,
        }


def evaluate_threshold(threshold, confidence, losses, weights=None, costs=None):
    """The :class:`ThresholdFit` of accepting ``confidence >= threshold``.

    Coverage is the accepted share of the weights, the risk the weighted mean of
    ``losses`` over the accepted samples (``nan`` when none is, both ``nan``
    without samples); with ``costs = (accept_cost, reject_cost)`` per sample,
    ``cost`` is the weighted mean cost of the decisions.
    """
    w = np.ones_like(losses, dtype=np.float64) if weights is None else weights
    accepted = confidence >= threshold
    total, kept = w.sum(), w[accepted].sum()
    if total == 0:
        return ThresholdFit(float(threshold), math.nan, math.nan)
    risk = float((w * losses)[accepted].sum() / kept) if kept > 0 else math.nan
    cost = None
    if costs is not None:
        cost = float((w * np.where(accepted, *costs)).sum() / total)
    return ThresholdFit(float(threshold), float(kept / total), risk, cost=cost)


def abstain_on_everything(message, risk_bound=math.nan):
    """The fit that abstains on every sample, after a
    :class:`~sklearn_selective.exceptions.GuaranteeNotMetWarning` saying why."""
    warn(message, GuaranteeNotMetWarning)
    return ThresholdFit(math.inf, 0.0, math.nan, risk_bound)
