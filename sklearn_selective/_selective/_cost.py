"""Cost-sensitive abstention: the Bayes rule on probabilities and its empirical
margin (the calibration of held-out probabilities it relies on lives in
``confidence/_calibrators.py``).

With probabilities ``p`` over the true classes, a cost matrix ``C`` (``C[i, j]`` =
cost of predicting ``j`` when the truth is ``i``) and rejection costs ``r`` (one per
true class), predicting ``j`` is expected to cost ``(p @ C)[j]`` and abstaining
``p @ r``. The rule predicts the class of least expected cost and abstains when
abstaining is cheaper. Its *margin* ``p @ r - min_j (p @ C)[j]`` plays the part of
the confidence: the Bayes rule accepts iff ``margin >= 0``; the empirical variant
accepts iff ``margin >= t`` with ``t`` minimising the total validation cost.
"""

import math

import numpy as np

from ._curve import ThresholdFit, _ValidationCurve
from ._thresholds import lowest_cost_index


def cost_decision(proba, cost_matrix, rejection):
    """Index of the class of least expected cost (ties: the first) and the margin
    ``expected rejection cost - least expected prediction cost``."""
    expected = proba @ cost_matrix
    index = expected.argmin(axis=1)
    best = np.take_along_axis(expected, index[:, None], axis=1)[:, 0]
    return index, proba @ rejection - best


def fit_cost_margin(margin, accept_cost, reject_cost, weights, *, tune):
    """The margin threshold: 0 (Bayes rule) or, with ``tune``, the one minimising the
    total validation cost (ties: the larger coverage; ``inf`` when abstaining on
    everything is cheapest). Also returns the validation table of every candidate.
    """
    w = np.ones_like(margin) if weights is None else weights
    total_weight = w.sum()
    # Total cost = sum of rejection costs + sum over accepted of (accept - reject).
    reject_all = float((w * reject_cost).sum())
    curve = _ValidationCurve.from_samples(margin, accept_cost - reject_cost, weights)
    total = reject_all + curve.accepted_loss
    table = {
        "threshold": curve.thresholds,
        "coverage": curve.coverage,
        "cost": total / total_weight,
    }
    if not tune:
        return 0.0, table
    best = lowest_cost_index(total, reject_all)
    return (math.inf if best is None else float(curve.thresholds[best])), table


def evaluate_cost_rule(threshold, margin, accept_cost, reject_cost, errors, weights):
    """Coverage, selective 0/1 risk and mean cost of a margin threshold."""
    w = np.ones_like(margin) if weights is None else weights
    accepted = margin >= threshold
    kept = w[accepted].sum()
    risk = float((w * errors)[accepted].sum() / kept) if kept > 0 else math.nan
    cost = np.where(accepted, accept_cost, reject_cost)
    mean_cost = float((w * cost).sum() / w.sum())
    return ThresholdFit(float(threshold), float(kept / w.sum()), risk), mean_cost


def fit_cost_rule(validation, cost_matrix, rejection, *, tune):
    """The cost rule on validation predictions (``proba``, ``y_index``,
    ``weights``): its fit, its validation table and its mean cost."""
    index, margin = cost_decision(validation.proba, cost_matrix, rejection)
    truth = validation.y_index
    accept_cost, reject_cost = cost_matrix[truth, index], rejection[truth]
    weights = validation.weights
    threshold, table = fit_cost_margin(
        margin, accept_cost, reject_cost, weights, tune=tune
    )
    errors = (index != truth).astype(np.float64)
    fitted, mean_cost = evaluate_cost_rule(
        threshold, margin, accept_cost, reject_cost, errors, weights
    )
    return fitted, table, mean_cost
