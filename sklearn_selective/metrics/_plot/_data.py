"""The data of RiskCoverageDisplay: curves, their references, groups, line points."""

import numpy as np

from ..._utils._sklearn import InvalidParameterError
from .. import (
    augrc,
    aurc,
    generalized_risk_coverage_curve,
    risk_coverage_curve,
)

# kind -> (curve function, metric shown in the legend, its name, y-axis label)
KINDS = {
    "selective": (risk_coverage_curve, aurc, "AURC", "Selective risk"),
    "generalized": (
        generalized_risk_coverage_curve,
        augrc,
        "AUGRC",
        "Generalized risk",
    ),
}

# Coverages added to a selective curve so that its shape inside wide tie groups
# (the 0/1 oracle has two) is drawn, not a chord between the groups' ends.
_COVERAGE_GRID = np.linspace(0.0, 1.0, 257)


def check_kind(kind):
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {sorted(KINDS)}, got {kind!r}.")


def selective_line(coverage, risk):
    """Points of the expected selective risk at every coverage in ``[0, 1]``.

    Accepting a fraction of a tie group means accepting a random part of it
    (the tie convention of every metric here), so the accepted loss grows
    linearly in the coverage ``c`` inside a group and the selective risk is
    that loss divided by ``c``: a hyperbola, not the chord between the group's
    ends. This is :func:`~sklearn_selective.metrics.selective_risk_at_coverage`
    at every drawn coverage; at coverage 0 it is the limit, the most confident
    group's mean loss. The curve's own points are drawn exactly.
    """
    coverage = np.asarray(coverage, dtype=float)
    risk = np.asarray(risk, dtype=float)
    x = np.union1d(coverage, _COVERAGE_GRID[coverage.max() >= _COVERAGE_GRID])
    accepted_loss = np.interp(x, np.r_[0.0, coverage], np.r_[0.0, coverage * risk])
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(x > 0, accepted_loss / x, risk[0])
    at_point = np.searchsorted(coverage, x).clip(max=len(coverage) - 1)
    exact = coverage[at_point] == x
    y[exact] = risk[at_point[exact]]
    return x, y


def curve_data(confidence, losses, sample_weight, *, kind, aurc_estimator):
    """The data of one curve: the curve, its area, its references."""
    curve, metric, _, _ = KINDS[kind]
    coverage, risk, thresholds = curve(
        None, None, confidence, loss=losses, sample_weight=sample_weight
    )
    oracle_coverage, oracle_risk, _ = curve(
        None, None, -losses, loss=losses, sample_weight=sample_weight
    )
    metric_kwargs = {"aurc_estimator": aurc_estimator} if kind == "selective" else {}
    try:
        value = metric(
            None,
            None,
            confidence,
            loss=losses,
            sample_weight=sample_weight,
            **metric_kwargs,
        )
    except InvalidParameterError as error:
        raise ValueError(str(error)) from None
    return {
        "coverage": coverage,
        "risk": risk,
        "thresholds": thresholds,
        "metric_value": value,
        "mean_loss": float(np.average(losses, weights=sample_weight)),
        "oracle_coverage": oracle_coverage,
        "oracle_risk": oracle_risk,
    }


def display_data(confidence, losses, sample_weight, *, groups, name, **params):
    """Display arguments: one curve, or one curve per group."""
    if groups is None:
        return {
            "name": name,
            **curve_data(confidence, losses, sample_weight, **params),
        }
    groups = np.asarray(groups)
    if groups.shape != confidence.shape:
        raise ValueError(
            f"groups must have shape ({len(confidence)},), one group label per "
            f"sample; got shape {groups.shape}."
        )
    labels, index = np.unique(groups, return_inverse=True)
    curves = []
    for position, label in enumerate(labels.tolist()):
        members = index == position
        weights = None if sample_weight is None else sample_weight[members]
        if weights is not None and not weights.sum() > 0:
            raise ValueError(
                f"Group {label!r} of groups has a total sample_weight of 0; "
                "drop its samples or give them positive weight."
            )
        curves.append(
            curve_data(confidence[members], losses[members], weights, **params)
        )
    prefix = "" if name is None else f"{name}, "
    display_params = {key: [c[key] for c in curves] for key in curves[0]}
    return {
        "name": [f"{prefix}group {label}" for label in labels.tolist()],
        **display_params,
    }
