"""Abstention thresholds fitted on validation confidences: the four policies of
:class:`~sklearn_selective.SelectiveClassifier`.

Each policy takes the validation confidences, 0/1 losses and sample weights and
returns a :class:`ThresholdFit`. Every policy works on the risk-coverage curve of
the metrics core (one sort, tied confidences grouped), so that a threshold is always
one of the distinct validation confidences (or ``inf``: abstain on everything).
"""

import math
import warnings
from typing import NamedTuple

import numpy as np
from scipy.stats import beta

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


def fit_target_coverage(curve, target_coverage):
    """The largest threshold whose validation coverage is at least the target."""
    reached = curve.coverage >= target_coverage * (1 - _RELATIVE_TOLERANCE)
    return curve.at(int(np.argmax(reached)))


def fit_target_risk(curve, target_risk):
    """The lowest threshold whose empirical selective risk is at most the target."""
    feasible = np.flatnonzero(curve.risk <= target_risk * (1 + _RELATIVE_TOLERANCE))
    if feasible.size == 0:
        return _abstain_on_everything(
            f"No threshold has a validation selective risk <= {target_risk}."
        )
    return curve.at(int(feasible[-1]))


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


def fit_rejection_cost(curve, rejection_cost):
    """Chow's rule on validation data: minimise the mean cost, where a rejected
    sample costs ``rejection_cost`` and an accepted one its loss."""
    rejected_weight = curve.total_weight - curve.accepted_weight
    total = curve.accepted_loss + rejection_cost * rejected_weight
    best = lowest_cost_index(total, rejection_cost * curve.total_weight)
    if best is None:
        return ThresholdFit(math.inf, 0.0, math.nan)
    return curve.at(best)


def clopper_pearson_upper(n_failures, n_trials, alpha):
    """One-sided upper confidence bound, level ``1 - alpha``, of a binomial rate."""
    n_failures, n_trials = np.asarray(n_failures), np.asarray(n_trials)
    with np.errstate(invalid="ignore"):
        bound = beta.ppf(1 - alpha, n_failures + 1, n_trials - n_failures)
    return np.where(n_failures >= n_trials, 1.0, bound)


def sgr_n_tests(n_thresholds):
    """Number of bound evaluations of the binary search over ``n_thresholds``."""
    return max(1, math.ceil(math.log2(n_thresholds + 1)))


def min_samples_for_guarantee(target_risk, confidence_level, n_tests):
    """Fewest validation samples for which zero failures can certify the target."""
    # Upper bound with 0 failures in m trials: 1 - (delta / k)^(1/m) < target, where
    # delta = 1 - confidence_level is the failure probability.
    delta = 1 - confidence_level
    return math.floor(math.log(delta / n_tests) / math.log1p(-target_risk)) + 1


class TooFewSamplesError(ValueError):
    """The validation data are too few to certify the target risk at all."""


def fit_guaranteed_risk(curve, target_risk, confidence_level, level_text=None):
    """SGR (Geifman & El-Yaniv 2017): binary search over the distinct thresholds for
    the lowest one whose Clopper-Pearson upper bound on the selective risk, at level
    ``1 - delta / k`` (``delta = 1 - confidence_level``) for the ``k`` tests of the
    search, is below ``target_risk``.

    With probability at least ``confidence_level`` over the validation sample, the
    selective risk of the returned threshold on new data is at most the target.
    Assumes unit weights (binomial counts) and 0/1 losses. ``level_text`` says
    in messages where ``confidence_level`` comes from when the caller changed it
    (the per-class Bonferroni split).
    """
    if level_text is None:
        level_text = f"confidence_level={confidence_level}"
    n_thresholds = curve.thresholds.shape[0]
    n_tests = sgr_n_tests(n_thresholds)
    n_samples = round(curve.total_weight)
    needed = min_samples_for_guarantee(target_risk, confidence_level, n_tests)
    if n_samples < needed:
        raise TooFewSamplesError(
            f"A selective risk <= {target_risk} with {level_text} "
            f"cannot be certified from {n_samples} validation "
            f"samples: even with no error at all, at least {needed} are needed. Use "
            "more validation data (a larger cv fraction or held-out set), a larger "
            "target_risk or a smaller confidence_level."
        )
    alpha = (1 - confidence_level) / n_tests
    # lo: largest index known feasible (-1: accept nothing); hi: smallest known not.
    lo, hi, lo_bound = -1, n_thresholds, None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        bound = float(
            clopper_pearson_upper(
                round(curve.accepted_loss[mid]),
                round(curve.accepted_weight[mid]),
                alpha,
            )
        )
        if bound < target_risk:
            lo, lo_bound = mid, bound
        else:
            hi = mid
    if lo < 0:
        return _abstain_on_everything(
            f"No threshold certifies a selective risk <= {target_risk} with "
            f"{level_text} on this validation data."
        )
    return curve.at(lo, risk_bound=lo_bound)


POLICIES = {
    "target_coverage": fit_target_coverage,
    "target_risk": fit_target_risk,
    "guaranteed_risk": fit_guaranteed_risk,
    "rejection_cost": fit_rejection_cost,
}


def curve_table(curve):
    """Every candidate threshold with its validation coverage and selective risk."""
    return {
        "threshold": curve.thresholds,
        "coverage": curve.coverage,
        "risk": curve.risk,
    }


def fit_policy(policy, confidence, losses, weights, **params):
    """The policy's fit on the pooled validation curve, and that curve's table."""
    curve = _ValidationCurve.from_samples(confidence, losses, weights)
    return POLICIES[policy](curve, **params), curve_table(curve)


# ----------------------------------------------------------------------------------
# Per-class thresholds: the same policies on each predicted class's curve
# ----------------------------------------------------------------------------------
# A class needs at least this many validation predictions for a threshold of its own;
# fewer give a selective risk too noisy to act on.
MIN_CLASS_PREDICTIONS = 20


def _evaluate(confidence, losses, weights, threshold):
    """Coverage and selective risk of ``threshold`` on the given samples."""
    w = np.ones_like(losses) if weights is None else weights
    total, accepted = w.sum(), w * (confidence >= threshold)
    if total == 0:
        return math.nan, math.nan
    kept = accepted.sum()
    risk = (accepted * losses).sum() / kept if kept > 0 else math.nan
    return float(kept / total), float(risk)


def _class_fallback(policy, pooled, samples):
    """The fit of a class that cannot have a threshold of its own."""
    if policy == "guaranteed_risk":
        threshold, bound = math.inf, math.nan
    else:
        threshold, bound = pooled.threshold, None
    coverage, risk = _evaluate(*samples, threshold)
    return ThresholdFit(threshold, coverage, risk, bound)


def _warn_fallbacks(policy, fallbacks):
    if not fallbacks:
        return
    what = (
        "abstain on every prediction of these classes"
        if policy == "guaranteed_risk"
        else "use the global threshold (the same policy on all classes)"
    )
    listed = "; ".join(
        f"class {label!r}: {n} validation predictions, {reason}"
        for label, n, reason in fallbacks
    )
    warnings.warn(
        f"{len(fallbacks)} class(es) cannot have a threshold of their own and {what}"
        f": {listed}.",
        UserWarning,
        stacklevel=4,
    )


def _fit_one_class(policy, params, samples, pooled, n_classes):
    """``(fit, curve, fallback reason or None)`` of one class's predictions."""
    confidence, losses, weights = samples
    n_predictions = len(losses) if weights is None else int(np.count_nonzero(weights))
    if n_predictions < MIN_CLASS_PREDICTIONS:
        reason = f"fewer than {MIN_CLASS_PREDICTIONS}"
        return _class_fallback(policy, pooled, samples), None, reason
    curve = _ValidationCurve.from_samples(confidence, losses, weights)
    if policy == "guaranteed_risk":
        # Bonferroni: each class fails with probability (1 - level) / n_classes, so
        # all the classes' guarantees hold together with probability >= level.
        stated = params["confidence_level"]
        level = 1 - (1 - stated) / n_classes
        text = (
            f"per-class confidence level {level:.4g} (your confidence_level={stated} "
            f"split over the {n_classes} classes, Bonferroni, so that all hold "
            "together)"
        )
        params = {**params, "confidence_level": level, "level_text": text}
        try:
            return POLICIES[policy](curve, **params), curve, None
        except TooFewSamplesError:
            reason = "too few to certify the target risk for one class"
            return _class_fallback(policy, pooled, samples), curve, reason
    return POLICIES[policy](curve, **params), curve, None


def fit_per_class(policy, class_index, classes, confidence, losses, weights, **params):
    """The policy applied to the curve of each predicted class.

    ``class_index`` gives each validation prediction's index in ``classes``.
    Returns a :class:`ThresholdFit` of arrays aligned with ``classes`` and the
    concatenated per-class validation table (with a ``"class"`` column). A class
    with fewer than ``MIN_CLASS_PREDICTIONS`` validation predictions warns and
    falls back to the pooled threshold (to abstaining, for the guarantee policy,
    since a pooled threshold certifies nothing about one class). The guarantee
    policy holds family-wise over the classes by the Bonferroni correction.
    """
    n_classes = len(classes)
    pooled = None
    if policy != "guaranteed_risk":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pooled, _ = fit_policy(policy, confidence, losses, weights, **params)
    fits, tables, fallbacks = [], [], []
    for index, label in enumerate(classes):
        mask = class_index == index
        samples = (
            confidence[mask],
            losses[mask],
            None if weights is None else weights[mask],
        )
        fit, curve, reason = _fit_one_class(policy, params, samples, pooled, n_classes)
        if reason is not None:
            label = label.item() if isinstance(label, np.generic) else label
            fallbacks.append((label, int(mask.sum()), reason))
        fits.append(fit)
        if curve is not None:
            table = curve_table(curve)
            labels = classes[index : index + 1]
            table["class"] = np.repeat(labels, len(curve.thresholds))
            tables.append(table)
    _warn_fallbacks(policy, fallbacks)
    fields = {
        name: np.array([getattr(fit, name) for fit in fits], dtype=np.float64)
        for name in ("threshold", "coverage", "risk")
    }
    bound = None
    if policy == "guaranteed_risk":
        bound = np.array([fit.risk_bound for fit in fits], dtype=np.float64)
    keys = ("threshold", "coverage", "risk", "class")
    table = {
        key: np.concatenate([t[key] for t in tables])
        if tables
        else np.empty(0, dtype=classes.dtype if key == "class" else np.float64)
        for key in keys
    }
    return ThresholdFit(**fields, risk_bound=bound), table
