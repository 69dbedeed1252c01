"""The optional conventions of ``aurc``, ``augrc`` and ``e_aurc``: coverage ranges,
class-balanced risks, the trapezoid AURC and the asymptotic oracle of FD-Shifts.

The public functions keep their default computation in ``_core``; they call these
functions only when an option is used.
"""

from numbers import Real

import numpy as np
from scipy.special import xlogy

from ..._utils._validation import _check_binary_failures, _validate_risk_inputs
from ._balanced import balanced_losses, balanced_selective_risk
from ._group_stats import (
    GroupStats,
    augrc_from_stats,
    aurc_from_stats,
    group_ties,
)
from ._oracle import (
    oracle_stats,
)
from ._partial import (
    linear_segments_area,
    partial_augrc_from_stats,
    partial_aurc_from_stats,
    step_start,
    trapezoid_aurc_from_stats,
)

AURC_OPTION_ESTIMATORS = {"trapezoid"}
ORACLES = {"empirical", "asymptotic"}


def uses_area_options(metric_kwargs):
    """Whether ``metric_kwargs`` ask for one of the options computed here, which
    the bootstrap's vectorised path does not evaluate (it then calls the metric)."""
    return (
        metric_kwargs.get("coverage_range") is not None
        or bool(metric_kwargs.get("class_balanced", False))
        or metric_kwargs.get("oracle", "empirical") != "empirical"
        or metric_kwargs.get("aurc_estimator") in AURC_OPTION_ESTIMATORS
    )


def check_coverage_range(coverage_range):
    """``(low, high)`` as floats with ``0 <= low <= high <= 1``; None is ``(0, 1)``."""
    if coverage_range is None:
        return 0.0, 1.0
    values = tuple(coverage_range)
    if len(values) != 2 or not all(
        isinstance(v, Real) and not isinstance(v, bool) for v in values
    ):
        raise ValueError(
            "coverage_range must be a pair of numbers (low, high), e.g. (0.0, 0.5); "
            f"got {coverage_range!r}."
        )
    low, high = float(values[0]), float(values[1])
    if not 0.0 <= low <= high <= 1.0:
        raise ValueError(
            "coverage_range=(low, high) needs 0 <= low <= high <= 1; "
            f"got {coverage_range!r}."
        )
    return low, high


def _validated(
    y_true, y_pred, confidence, loss, sample_weight, labels, aurc_estimator=None
):
    # The plug-in AURC estimators treat the weights as frequencies.
    return _validate_risk_inputs(
        y_true,
        y_pred,
        confidence,
        loss=loss,
        sample_weight=sample_weight,
        labels=labels,
        frequency_weights=aurc_estimator not in (None, "trapezoid"),
    )


def _aurc_value(stats, aurc_estimator, low, high):
    if aurc_estimator == "trapezoid":
        return float(trapezoid_aurc_from_stats(stats, (low, high)))
    if (low, high) == (0.0, 1.0):
        return float(aurc_from_stats(stats, aurc_estimator))
    return float(partial_aurc_from_stats(stats, aurc_estimator, (low, high)))


def aurc_with_options(
    y_true,
    y_pred,
    confidence,
    *,
    loss,
    sample_weight,
    labels,
    aurc_estimator,
    coverage_range,
    class_balanced,
):
    """``aurc`` with ``aurc_estimator="trapezoid"``, a coverage range or class
    balance."""
    low, high = check_coverage_range(coverage_range)
    confidence, losses, sample_weight = _validated(
        y_true, y_pred, confidence, loss, sample_weight, labels, aurc_estimator
    )
    if class_balanced:
        if aurc_estimator != "trapezoid":
            raise ValueError(
                "class_balanced=True is the area under the class-averaged selective "
                "risk curve (FD-Shifts aurc_ba), which is not a weighted mean of "
                "per-sample losses like the plug-in estimators: pass "
                "aurc_estimator='trapezoid'."
            )
        weight, risk = balanced_selective_risk(
            y_true, confidence, losses, sample_weight
        )
        start = step_start(risk, weight)
        return float(linear_segments_area(weight, start, risk, (low, high)))
    stats = GroupStats.from_samples(group_ties(confidence), losses, sample_weight)
    return _aurc_value(stats, aurc_estimator, low, high)


def augrc_with_options(
    y_true,
    y_pred,
    confidence,
    *,
    loss,
    sample_weight,
    labels,
    coverage_range,
    class_balanced,
):
    """``augrc`` with a coverage range or class balance."""
    low, high = check_coverage_range(coverage_range)
    confidence, losses, sample_weight = _validated(
        y_true, y_pred, confidence, loss, sample_weight, labels
    )
    if class_balanced:
        losses = balanced_losses(y_true, losses, sample_weight)
    stats = GroupStats.from_samples(group_ties(confidence), losses, sample_weight)
    if coverage_range is None:
        return float(augrc_from_stats(stats))
    return float(partial_augrc_from_stats(stats, (low, high)))


def asymptotic_oracle(losses, sample_weight):
    """``err + (1 - err) ln(1 - err)``: the population AURC of a perfect ranking for
    the 0/1 loss with error rate ``err`` (``0 ln 0 = 0``)."""
    _check_binary_failures(losses)
    err = float(np.average(losses, weights=sample_weight))
    return err + float(xlogy(1.0 - err, 1.0 - err))


def e_aurc_with_options(
    y_true, y_pred, confidence, *, loss, sample_weight, labels, aurc_estimator, oracle
):
    """``e_aurc`` with ``aurc_estimator="trapezoid"`` or ``oracle="asymptotic"``."""
    confidence, losses, sample_weight = _validated(
        y_true, y_pred, confidence, loss, sample_weight, labels, aurc_estimator
    )
    stats = GroupStats.from_samples(group_ties(confidence), losses, sample_weight)
    value = _aurc_value(stats, aurc_estimator, 0.0, 1.0)
    if oracle == "asymptotic":
        return value - asymptotic_oracle(losses, sample_weight)
    return value - _aurc_value(
        oracle_stats(losses, sample_weight), aurc_estimator, 0.0, 1.0
    )
