"""The metrics an accumulator computes: one table from name to metric object.

Each metric is a function of the accumulated tie groups (and, for E-AURC and NAURC,
of the oracle's groups). It returns what the public function of the same name
returns on all the data seen, by the same ``*_from_stats`` function of the metric
core, and bounds the exact value over every order of the samples of merged groups
by evaluating that function on the two extreme orders of
:func:`~._table.arrangement`.
"""

from numbers import Real

import numpy as np
from scipy.special import xlogy
from sklearn.exceptions import UndefinedMetricWarning

from ..._utils._validation import _check_frequency_total
from ..._utils._warnings import warn
from .._core._alpha import ALPHA_ESTIMATORS
from .._core._area_options import _aurc_value, check_coverage_range
from .._core._group_stats import (
    augrc_from_stats,
    aurc_from_stats,
    coverage_at_risk_from_stats,
    descending_curve,
    failure_auc_from_stats,
    rescaled_stats,
    sele_from_stats,
    selective_risk_at_coverage_from_stats,
    times_power_of_two,
)
from .._core._oracle import (
    naurc_from_values,
)
from .._core._partial import partial_augrc_from_stats
from ._table import arrangement, is_oracle_order

# An optimal ranking leaves a rounding residue below this share of the oracle's
# AURC, which E-AURC reports as 0 (the rule of ``e_aurc``).
_OPTIMAL_RESIDUE = 2.0**-30
# Bounds are widened by this share of their magnitude (and of the terms of a
# difference): the two extreme orders are evaluated in floating point, the exact
# value by other sums.
ROUNDING_MARGIN = 2.0**-36
# The default of a keyword the caller must give.
_REQUIRED = object()


# --------------------------------------------------------------------------------------
# Options: each keyword a metric accepts, with its check.
# --------------------------------------------------------------------------------------
def _one_of(choices):
    def check(name, value):
        if not (isinstance(value, str) and value in choices):
            raise ValueError(f"{name} must be one of {sorted(choices)}; got {value!r}.")
        return value

    return check


def _real_in(low, high, low_open):
    def check(name, value):
        if isinstance(value, bool) or not isinstance(value, Real):
            raise ValueError(f"{name} must be a real number; got {value!r}.")
        value = float(value)
        above = value > low if low_open else value >= low
        if not (above and value <= high):
            left = "(" if low_open else "["
            raise ValueError(f"{name} must be in {left}{low}, {high}]; got {value!r}.")
        return value

    return check


def _coverage_range(name, value):
    return None if value is None else check_coverage_range(value)


def _not_class_balanced(name, value):
    if value:
        raise ValueError(
            "class_balanced=True needs the true class of every sample, which an "
            "accumulator does not keep: the class-averaged risk is not a function "
            "of the tie groups. Compute it in memory, or pass class_balanced=False."
        )
    return False


_PLUG_IN = set(ALPHA_ESTIMATORS)
_OPTIONS = {
    "aurc_estimator": _one_of(_PLUG_IN | {"trapezoid"}),
    "coverage_range": _coverage_range,
    "class_balanced": _not_class_balanced,
    "oracle": _one_of({"empirical", "asymptotic"}),
    "coverage": _real_in(0.0, 1.0, low_open=True),
    "risk": _real_in(0.0, np.inf, low_open=False),
    "tpr": _real_in(0.0, 1.0, low_open=True),
}


class AccumulatedMetric:
    """A metric of the accumulated groups. Subclasses define ``value`` and, when
    the metric can be bounded, ``extremes`` (the values on the two extreme
    orders, in any order)."""

    #: keyword -> default
    defaults = {}
    #: the total weight is a sample size (finite-sample AURC estimators, SELE)
    frequency_weights = False
    #: the metric needs 0/1 losses
    binary = False
    scalar = True
    #: keywords without a default
    required = ()

    def __init__(self, name):
        self.name = name

    def options(self, kwargs):
        unknown = sorted(set(kwargs) - set(self.defaults))
        if unknown:
            accepted = ", ".join(sorted(self.defaults)) or "none"
            raise TypeError(
                f"compute({self.name!r}) got unexpected keyword argument(s) "
                f"{', '.join(unknown)}; it accepts: {accepted}."
            )
        missing = [key for key in self.required if key not in kwargs]
        if missing:
            raise TypeError(
                f"compute({self.name!r}) needs the keyword argument {missing[0]}, "
                f"e.g. compute({self.name!r}, {missing[0]}=0.8)."
            )
        options = dict(self.defaults)
        for key, value in kwargs.items():
            options[key] = _OPTIONS[key](key, value)
        return options

    def check(self, seen):
        if self.frequency_weights:
            _check_frequency_total(seen.groups.weight)
        if self.binary and not seen.binary:
            raise ValueError(
                f"{self.name} ranks failures against correct predictions, so it "
                "needs a 0/1 loss (1 = failure); the accumulator has seen loss "
                "values outside {0, 1}."
            )

    def bounds(self, seen, options):
        """``(lower, upper)`` of the exact value over every order of the samples
        of the merged groups."""
        first, second = self.extremes(seen, options)
        if np.isnan(first) or np.isnan(second):
            return float("nan"), float("nan")
        return min(first, second), max(first, second)

    def extremes(self, seen, options):
        raise ValueError(
            f"bounds({self.name!r}) is not available: only the scalar metrics "
            f"{', '.join(sorted(BOUNDED))} are bounded (for the curves, bound the "
            "working points you need)."
        )


class GroupMetric(AccumulatedMetric):
    """``function(stats, **options)`` of the groups' totals."""

    def __init__(self, name, function, defaults, *, frequency_weights=False):
        super().__init__(name)
        self.function = function
        self.defaults = defaults
        self.required = tuple(
            key for key, value in defaults.items() if value is _REQUIRED
        )
        self.frequency_weights = frequency_weights

    def value(self, seen, options):
        return float(self.function(seen.groups.stats(), **options))

    def extremes(self, seen, options):
        return tuple(
            float(self.function(arrangement(seen.groups, on_top), **options))
            for on_top in (False, True)
        )


class FailureAUC(GroupMetric):
    """The failure AUROC (UQ-AUC), or the OOD AUROC with the OOD indicator as
    the loss; ``nan`` with a warning when one kind of sample is missing."""

    binary = True

    def __init__(self, name, message):
        super().__init__(name, failure_auc_from_stats, {})
        self.message = message

    def value(self, seen, options):
        value = super().value(seen, options)
        if np.isnan(value):
            warn(self.message, UndefinedMetricWarning)
        return value


class FprAtTpr(AccumulatedMetric):
    """Share of the OOD weight (the loss) accepted at the first threshold, most
    confident first, that accepts a share ``tpr`` of the in-distribution weight."""

    binary = True
    defaults = {"tpr": 0.95}

    def value(self, seen, options):
        weight, ood, _ = descending_curve(seen.groups.stats())
        in_distribution = weight - ood
        total_in, total_ood = in_distribution[-1], ood[-1]
        if not (total_in > 0 and total_ood > 0):
            warn(
                "The OOD metrics need both in-distribution (loss 0) and "
                "out-of-distribution (loss 1) samples with positive weight; "
                "returning nan.",
                UndefinedMetricWarning,
            )
            return float("nan")
        tpr = in_distribution / total_in
        reached = np.flatnonzero(tpr >= options["tpr"] * (1 - 1e-12))[0]
        return float(ood[reached] / total_ood)


def _aurc(stats, aurc_estimator, coverage_range, class_balanced):
    return _aurc_value(stats, aurc_estimator, *check_coverage_range(coverage_range))


def _augrc(stats, coverage_range, class_balanced):
    if coverage_range is None:
        return augrc_from_stats(stats)
    return partial_augrc_from_stats(stats, check_coverage_range(coverage_range))


class Aurc(GroupMetric):
    def __init__(self):
        defaults = {
            "aurc_estimator": "harmonic",
            "coverage_range": None,
            "class_balanced": False,
        }
        super().__init__("aurc", _aurc, defaults, frequency_weights=True)

    def extremes(self, seen, options):
        # The trapezoid of FD-Shifts interpolates between the groups' points, so
        # splitting a group changes its curve: not a mean over orders.
        if options["aurc_estimator"] == "trapezoid":
            raise ValueError(
                "bounds('aurc') needs a plug-in estimator "
                f"({', '.join(sorted(_PLUG_IN))}): the trapezoid AURC is not a mean "
                "over the orders of tied samples, so merged groups do not bound it."
            )
        # A coverage range cuts the positions on the grid n - j of the sample
        # counts, and a group off that grid uses another extension of the
        # harmonic numbers: a group split at a real weight is not the sum of its
        # parts, so the two extreme orders do not bound the partial area.
        if options["coverage_range"] is not None and options["coverage_range"] != (
            0.0,
            1.0,
        ):
            raise ValueError(
                "bounds('aurc') of a coverage_range is not available: the partial "
                "plug-in areas are not additive over a split group. Bound the full "
                "AURC, or the AUGRC of the range."
            )
        return super().extremes(seen, options)


class ExcessAurc(AccumulatedMetric):
    """E-AURC (``normalise=False``) and NAURC: the AURC of the ranking against
    that of the oracle, from the accumulated table of losses."""

    frequency_weights = True

    def __init__(self, name, normalise):
        super().__init__(name)
        self.normalise = normalise
        self.defaults = {"aurc_estimator": "harmonic"}
        if not normalise:
            self.defaults["oracle"] = "empirical"

    def options(self, kwargs):
        options = super().options(kwargs)
        if self.normalise and options["aurc_estimator"] not in _PLUG_IN:
            raise ValueError(
                f"aurc_estimator must be one of {sorted(_PLUG_IN)} for naurc; got "
                f"{options['aurc_estimator']!r}."
            )
        return options

    def _asymptotic(self, seen):
        if not seen.binary:
            raise ValueError(
                "oracle='asymptotic' is the population AURC of a perfect ranking "
                "for the 0/1 loss: it needs 0/1 losses; the accumulator has seen "
                "loss values outside {0, 1}."
            )
        error = float(seen.groups.loss.sum() / seen.groups.weight.sum())
        return error + float(xlogy(1.0 - error, 1.0 - error))

    def value(self, seen, options):
        estimator = options["aurc_estimator"]
        value = _aurc_value(seen.groups.stats(), estimator, 0.0, 1.0)
        if options.get("oracle") == "asymptotic":
            return value - self._asymptotic(seen)
        oracle = seen.oracle.stats()
        oracle_value = _aurc_value(oracle, estimator, 0.0, 1.0)
        if estimator not in _PLUG_IN:  # the trapezoid, as e_aurc: not clipped
            return value - oracle_value
        excess = max(value - oracle_value, 0.0)
        optimal = excess <= _OPTIMAL_RESIDUE * oracle_value and is_oracle_order(
            seen.groups
        )
        if not self.normalise:
            return 0.0 if optimal else float(excess)
        normalised = float(naurc_from_values(value, oracle_value, oracle))
        if np.isnan(normalised):
            warn(
                "naurc is undefined when every sample has the same loss: every "
                "ranking is then as good as the oracle. Returning nan.",
                UndefinedMetricWarning,
            )
        return normalised * 0.0 if optimal else normalised

    def bounds(self, seen, options):
        estimator = options["aurc_estimator"]
        if estimator not in _PLUG_IN:
            raise ValueError(
                f"bounds({self.name!r}) needs a plug-in estimator "
                f"({', '.join(sorted(_PLUG_IN))}): the trapezoid AURC is not a mean "
                "over the orders of tied samples, so merged groups do not bound it."
            )
        low, high = (
            float(aurc_from_stats(arrangement(seen.groups, on_top), estimator))
            for on_top in (False, True)
        )
        if options.get("oracle") == "asymptotic":
            constant = self._asymptotic(seen)
            margin = ROUNDING_MARGIN * (abs(high) + abs(constant))
            return low - constant - margin, high - constant + margin
        oracle_low, oracle_high = (
            float(aurc_from_stats(arrangement(seen.oracle, on_top), estimator))
            for on_top in (False, True)
        )
        if not self.normalise:
            margin = ROUNDING_MARGIN * (high + oracle_high)
            lower = max(low - oracle_high - margin, 0.0)
            if lower <= _OPTIMAL_RESIDUE * oracle_high:  # the exact may be snapped
                lower = 0.0
            return lower, max(high - oracle_low + margin, 0.0)
        return self._naurc_bounds(seen, (low, high), (oracle_low, oracle_high))

    def _naurc_bounds(self, seen, values, oracle_values):
        # (A - O) / (R - O) with R the mean loss (exact) is increasing in A and
        # monotone in O (derivative (A - R) / (R - O)^2): extremes at corners.
        mean_loss = float(seen.groups.loss.sum() / seen.groups.weight.sum())
        if np.count_nonzero(seen.oracle.weight) < 2 or not (
            mean_loss - oracle_values[0] > 0
        ):
            return float("nan"), float("nan")
        corners = []
        for value in values:
            for oracle_value in oracle_values:
                room = mean_loss - oracle_value
                excess = max(value - oracle_value, 0.0)
                corners.append(excess / room if room > 0 else np.inf)
        lower = min(corners)
        if lower <= _OPTIMAL_RESIDUE:
            lower = 0.0
        return lower, max(corners)


class Curve(AccumulatedMetric):
    """``(coverage, risk, thresholds)`` as :func:`risk_coverage_curve` returns
    them, the threshold of a merged group being its smallest confidence (the
    threshold that accepts it whole)."""

    scalar = False

    def __init__(self, name, generalized):
        super().__init__(name)
        self.generalized = generalized

    def value(self, seen, options):
        scaled, exponent = rescaled_stats(seen.groups.stats())
        accepted_weight, risk, _ = descending_curve(scaled)
        total = accepted_weight[-1]
        risk = risk / (total if self.generalized else accepted_weight)
        risk = times_power_of_two(risk, exponent)
        return accepted_weight / total, risk, seen.groups.low[::-1].copy()


def _selective_risk(stats, coverage):
    return selective_risk_at_coverage_from_stats(stats, coverage)


def _coverage_at_risk(stats, risk):
    return coverage_at_risk_from_stats(stats, risk)


_UQ_UNDEFINED = (
    "uq_auc is undefined when every weighted prediction is correct, or every one "
    "is wrong: there is no pair to rank. Returning nan."
)
_OOD_UNDEFINED = (
    "The OOD metrics need both in-distribution (loss 0) and out-of-distribution "
    "(loss 1) samples with positive weight; returning nan."
)

METRICS = {
    metric.name: metric
    for metric in (
        Aurc(),
        GroupMetric(
            "augrc",
            _augrc,
            {"coverage_range": None, "class_balanced": False},
        ),
        GroupMetric("sele", sele_from_stats, {}, frequency_weights=True),
        ExcessAurc("e_aurc", normalise=False),
        ExcessAurc("naurc", normalise=True),
        FailureAUC("uq_auc", _UQ_UNDEFINED),
        FailureAUC("ood_auroc", _OOD_UNDEFINED),
        FprAtTpr("fpr_at_tpr"),
        GroupMetric(
            "selective_risk_at_coverage", _selective_risk, {"coverage": _REQUIRED}
        ),
        GroupMetric("coverage_at_risk", _coverage_at_risk, {"risk": _REQUIRED}),
        Curve("risk_coverage_curve", generalized=False),
        Curve("generalized_risk_coverage_curve", generalized=True),
    )
}
BOUNDED = {
    name
    for name, metric in METRICS.items()
    if metric.scalar and type(metric).extremes is not AccumulatedMetric.extremes
} | {"e_aurc", "naurc"}
