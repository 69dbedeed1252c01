"""The threshold policies of :class:`~sklearn_selective.SelectiveClassifier`,
one room each, and the one resolver of the estimator's parameters.

Each policy is an object with one interface (``_base.ThresholdPolicy``):
``prepare`` the pooled validation predictions, ``fit`` them to a
``ThresholdFit`` and the validation table it chose from. The policies on a
risk-coverage curve (``TargetCoverage``, ``TargetRisk``, ``GuaranteedRisk``,
``RejectionCost``) also fit a bare ``_ValidationCurve`` (``fit_curve``), so that
per class (``PerClass``, a wrapper around any of them) and a cascade reuse them;
the cost rule (``CostRule``) is another policy, on probabilities.
"""

from ._base import CurvePolicy, ThresholdPolicy
from ._cost_rule import CostRule
from ._guaranteed_risk import GuaranteedRisk
from ._per_class import PerClass
from ._rejection_cost import RejectionCost
from ._resolver import POLICY_CONSTRAINTS, POLICY_PARAMETERS, resolve_policy
from ._target_coverage import TargetCoverage
from ._target_risk import TargetRisk

__all__ = [
    "POLICY_CONSTRAINTS",
    "POLICY_PARAMETERS",
    "CostRule",
    "CurvePolicy",
    "GuaranteedRisk",
    "PerClass",
    "RejectionCost",
    "TargetCoverage",
    "TargetRisk",
    "ThresholdPolicy",
    "resolve_policy",
]
