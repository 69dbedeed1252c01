"""Abstention thresholds fitted on validation confidences: the policies of
:class:`~sklearn_selective.SelectiveClassifier`.

Each policy takes the validation confidences, 0/1 losses and sample weights and
returns a :class:`ThresholdFit`. Every policy works on the risk-coverage curve of
the metrics core (one sort, tied confidences grouped), so that a threshold is always
one of the distinct validation confidences (or ``inf``: abstain on everything).
The risk guarantees live in ``_guarantees``.
"""

import math
import warnings

import numpy as np

from ..exceptions import TooFewSamplesError
from ._curve import (
    _RELATIVE_TOLERANCE,
    ThresholdFit,
    _abstain_on_everything,
    _ValidationCurve,
    curve_table,
)
from ._guarantees import fit_guarantee


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


POLICIES = {
    "target_coverage": fit_target_coverage,
    "target_risk": fit_target_risk,
    "guaranteed_risk": fit_guarantee,
    "rejection_cost": fit_rejection_cost,
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


def _warn_fallbacks(policy, fallbacks, max_abstention_rate=None):
    if not fallbacks:
        return
    what = (
        "abstain on every prediction of these classes"
        if policy == "guaranteed_risk"
        else "use the global threshold (the same policy on all classes)"
    )
    if policy == "guaranteed_risk" and max_abstention_rate is not None:
        what += (
            f", so the abstention rate <= {max_abstention_rate} is NOT certified "
            "(their predictions all go to review)"
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
        except TooFewSamplesError as error:
            reason = (
                "too few to certify the target risk for one class (at least "
                f"{error.needed} needed)"
            )
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
    _warn_fallbacks(policy, fallbacks, params.get("max_abstention_rate"))
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
