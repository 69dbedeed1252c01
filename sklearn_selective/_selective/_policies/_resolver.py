"""The one resolver: the interdependent policy parameters of
:class:`~sklearn_selective.SelectiveClassifier`, read once, to one policy object.

Checked in ``fit`` (scikit-learn's convention: ``__init__`` stores parameters
as given), with messages that name the parameters the user set.
"""

from numbers import Real

import numpy as np

from ..._utils._sklearn import Interval, StrOptions
from ...confidence._calibrators import CALIBRATORS
from .._guarantees import PROCEDURES
from ._cost_rule import CostRule
from ._guaranteed_risk import GuaranteedRisk
from ._per_class import PerClass
from ._rejection_cost import RejectionCost
from ._target_coverage import TargetCoverage
from ._target_risk import TargetRisk

DEFAULT_TARGET_COVERAGE = 0.9

# The estimator's parameters the resolver reads.
POLICY_PARAMETERS = (
    "target_coverage",
    "target_risk",
    "confidence_level",
    "max_abstention_rate",
    "guarantee",
    "rejection_cost",
    "threshold_per_class",
    "cost_matrix",
    "cost_rule",
    "calibration",
)

# The estimator's constraints of these parameters (their ranges alone; how they
# combine is checked by ``resolve_policy``).
POLICY_CONSTRAINTS = {
    "target_coverage": [Interval(Real, 0, 1, closed="right"), None],
    "target_risk": [Interval(Real, 0, 1, closed="left"), None],
    "confidence_level": [Interval(Real, 0, 1, closed="neither"), None],
    "max_abstention_rate": [Interval(Real, 0, 1, closed="neither"), None],
    "guarantee": [StrOptions(set(PROCEDURES))],
    "rejection_cost": [Interval(Real, 0, None, closed="neither"), "array-like", None],
    "threshold_per_class": ["boolean"],
    "cost_matrix": ["array-like", callable, None],
    "cost_rule": [StrOptions({"bayes", "empirical"})],
    "calibration": [StrOptions(set(CALIBRATORS)), None],
}

# The policy of each parameter that sets one alone.
_SINGLE = {
    "target_coverage": TargetCoverage,
    "target_risk": TargetRisk,
    "rejection_cost": RejectionCost,
}


def resolve_policy(
    *,
    target_coverage=None,
    target_risk=None,
    confidence_level=None,
    max_abstention_rate=None,
    guarantee="fixed_sequence",
    rejection_cost=None,
    threshold_per_class=False,
    cost_matrix=None,
    cost_rule="bayes",
    calibration=None,
):
    """The single active policy (a :class:`~._base.ThresholdPolicy`) of these
    parameter values (the defaults are the estimator's); ``ValueError`` naming
    the parameters of any combination that is not one policy."""
    if cost_matrix is not None:
        _check_cost_rule(
            target_coverage,
            target_risk,
            confidence_level,
            max_abstention_rate,
            threshold_per_class,
            rejection_cost,
        )
        tune = cost_rule == "empirical"
        return CostRule(cost_matrix, rejection_cost, tune=tune, calibration=calibration)
    _check_no_cost_rule_params(calibration, cost_rule, rejection_cost)
    given = {
        name: value
        for name, value in (
            ("target_coverage", target_coverage),
            ("target_risk", target_risk),
            ("rejection_cost", rejection_cost),
        )
        if value is not None
    }
    if len(given) > 1:
        raise ValueError(
            f"Set exactly one threshold policy; got {sorted(given)}. Use "
            "target_coverage, target_risk (optionally with confidence_level) "
            "or rejection_cost, and leave the others None."
        )
    if confidence_level is not None and "target_risk" not in given:
        raise ValueError(
            "confidence_level is the probability that a risk guarantee holds "
            "and needs target_risk; set target_risk or remove confidence_level."
        )
    _check_guarantee_params(max_abstention_rate, confidence_level, guarantee)
    if not given:
        policy = TargetCoverage(DEFAULT_TARGET_COVERAGE)
    elif confidence_level is not None:
        _check_certifiable(target_risk)
        procedure = PROCEDURES[guarantee](**_cap(max_abstention_rate))
        policy = GuaranteedRisk(target_risk, confidence_level, procedure)
    else:
        ((name, value),) = given.items()
        policy = _SINGLE[name](value)
    return PerClass(policy) if threshold_per_class else policy


def _cap(max_abstention_rate):
    if max_abstention_rate is None:
        return {}
    return {"max_abstention_rate": max_abstention_rate}


def _check_no_cost_rule_params(calibration, cost_rule, rejection_cost):
    if calibration is not None:
        raise ValueError(
            f"calibration={calibration!r} applies to the cost rule only; "
            "set cost_matrix (and rejection_cost) or remove calibration."
        )
    if cost_rule != "bayes":
        raise ValueError(
            f"cost_rule={cost_rule!r} applies to the cost rule only; set "
            "cost_matrix (and rejection_cost) or leave cost_rule='bayes'."
        )
    if rejection_cost is not None and np.ndim(rejection_cost) > 0:
        raise ValueError(
            "rejection_cost with one value per class needs cost_matrix (the "
            "cost of each error); without it, rejection_cost is one number, "
            "the cost of an abstention relative to an error's cost 1."
        )


def _check_guarantee_params(max_abstention_rate, confidence_level, guarantee):
    if max_abstention_rate is None:
        return
    if confidence_level is None:
        raise ValueError(
            "max_abstention_rate is a constraint certified together with the "
            "risk guarantee: set target_risk and confidence_level too (e.g. "
            "target_risk=0.02, confidence_level=0.95, max_abstention_rate=0.3)."
        )
    if guarantee != "fixed_sequence":
        raise ValueError(
            f"max_abstention_rate needs guarantee='fixed_sequence'; "
            f"guarantee={guarantee!r} (SGR) certifies the risk alone."
        )


def _check_certifiable(target_risk):
    """A zero risk is never certified: with no error among ``n`` accepted
    samples the Clopper-Pearson bound is ``1 - alpha ** (1 / n) > 0``."""
    if target_risk == 0:
        raise ValueError(
            "target_risk=0 cannot be certified with confidence_level: with no "
            "error among n accepted validation samples the Clopper-Pearson upper "
            "bound on the selective risk is 1 - (1 - confidence_level) ** (1 / n), "
            "positive for every finite n (and the exact binomial test of a zero "
            "risk never rejects), so no validation set certifies a zero risk. Set "
            "a positive target_risk (e.g. 0.01), or remove confidence_level for "
            "the lowest threshold without a validation error."
        )


def _check_cost_rule(
    target_coverage,
    target_risk,
    confidence_level,
    max_abstention_rate,
    threshold_per_class,
    rejection_cost,
):
    others = [
        name
        for name, value in (
            ("target_coverage", target_coverage),
            ("target_risk", target_risk),
            ("confidence_level", confidence_level),
            ("max_abstention_rate", max_abstention_rate),
        )
        if value is not None
    ]
    if others:
        raise ValueError(
            f"cost_matrix is a policy of its own; remove {others} (the cost "
            "rule abstains where abstaining is cheaper)."
        )
    if threshold_per_class:
        raise ValueError(
            "threshold_per_class=True does not apply to cost_matrix: the cost "
            "rule already weighs every class by its own costs. Use per-class "
            "rejection_cost values instead."
        )
    if rejection_cost is None:
        raise ValueError(
            "cost_matrix needs rejection_cost, the cost of abstaining (a "
            "scalar or one value per true class); e.g. rejection_cost=0.3."
        )
