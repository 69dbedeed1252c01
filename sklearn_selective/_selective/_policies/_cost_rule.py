"""``cost_matrix`` with ``rejection_cost``: cost-sensitive abstention, the Bayes
rule on probabilities and its empirical margin (the calibration of held-out
probabilities it may apply lives in ``confidence/_calibrators.py``).

With probabilities ``p`` over the true classes, a cost matrix ``C`` (``C[i, j]`` =
cost of predicting ``j`` when the truth is ``i``) and rejection costs ``r`` (one per
true class), predicting ``j`` is expected to cost ``(p @ C)[j]`` and abstaining
``p @ r``. The rule predicts the class of least expected cost and abstains when
abstaining is cheaper. Its *margin* ``p @ r - min_j (p @ C)[j]`` plays the part of
the confidence: the Bayes rule accepts iff ``margin >= 0``; the empirical variant
accepts iff ``margin >= t`` with ``t`` minimising the total validation cost.

Both rules are unchanged when every cost is multiplied by the same positive
number. Costs whose largest entry lies outside ``[2**-256, 2**256]`` are
therefore multiplied by a power of two that brings it into ``[0.5, 1)`` before
the rule: exactly (a power of two changes only the exponent), and without it
the expected costs of tiny entries (1e-320) lose their digits to underflow and
the validation totals of huge ones (1e308) overflow. The margin and its
threshold are then in those scaled units; the costs reported are the user's.
"""

import math

import numpy as np

from ..._utils._cost_matrix import check_costs
from ...confidence._calibrators import CALIBRATORS
from .._classes import class_index
from .._curve import _ValidationCurve, evaluate_threshold
from ._base import ThresholdPolicy, check_has_confidence
from ._rejection_cost import lowest_cost_index


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


_SAFE_EXPONENT = 256


def cost_exponent(cost_matrix, rejection):
    """``e`` such that the rule runs on the costs times ``2**-e``: 0 when the
    largest cost is 0 or within ``[2**-256, 2**256]``, else its binary exponent
    (which brings it into ``[0.5, 1)``)."""
    largest = max(float(cost_matrix.max(initial=0.0)), float(rejection.max()))
    exponent = int(np.frexp(largest)[1])
    return 0 if largest == 0 or abs(exponent) <= _SAFE_EXPONENT else exponent


def fit_cost_rule(validation, cost_matrix, rejection, *, tune):
    """The cost rule on validation predictions (``proba``, ``y_index``,
    ``weights``): its fit (with the mean cost) and its validation table."""
    index, margin = cost_decision(validation.proba, cost_matrix, rejection)
    truth = validation.y_index
    costs = (cost_matrix[truth, index], rejection[truth])
    weights = validation.weights
    threshold, table = fit_cost_margin(margin, *costs, weights, tune=tune)
    errors = (index != truth).astype(np.float64)
    return evaluate_threshold(threshold, margin, errors, weights, costs), table


class CostRule(ThresholdPolicy):
    """The cost rule: ``tune`` for the empirical margin, ``calibration`` a name of
    ``CALIBRATORS`` (or None) applied to the probabilities first."""

    name = "cost_rule"
    needs_proba = True

    def __init__(self, cost_matrix, rejection_cost, *, tune, calibration):
        self.cost_matrix = cost_matrix
        self.rejection_cost = rejection_cost
        self.tune = tune
        self.calibration = calibration

    def check_estimator(self, estimator, csf):
        check_has_confidence(estimator)
        if not hasattr(estimator, "predict_proba"):
            raise ValueError(
                f"cost_matrix needs class probabilities, but estimator="
                f"{type(estimator).__name__} has no predict_proba. Wrap it in "
                "CalibratedClassifierCV, or use rejection_cost without cost_matrix."
            )

    def prepare(self, validation, classes):
        """Class indices of the labels, the costs aligned with ``classes`` and
        the (calibrated) validation probabilities."""
        validation.y_index = class_index(classes, validation.y_true)
        if validation.y_index is None:
            raise ValueError(
                "y contains labels the classifier does not know (classes_ = "
                f"{classes.tolist()}); cost_matrix rows need every true "
                "label to be a class."
            )
        self.costs_ = check_costs(self.cost_matrix, self.rejection_cost, classes)
        self.exponent_ = cost_exponent(*self.costs_)
        self._scaled = tuple(np.ldexp(costs, -self.exponent_) for costs in self.costs_)
        if self.calibration is not None:
            self.calibrator_ = CALIBRATORS[self.calibration]().fit(
                validation.proba, validation.y_index, validation.weights
            )
            validation.proba = self.calibrator_.transform(validation.proba)
        return validation

    def fit(self, validation):
        fit, table = fit_cost_rule(validation, *self._scaled, tune=self.tune)
        # Back to the user's units: exact, as the scale is a power of two.
        table["cost"] = np.ldexp(table["cost"], self.exponent_)
        return fit._replace(cost=float(np.ldexp(fit.cost, self.exponent_))), table

    def decide(self, proba):
        """Class index of least expected cost and the margin of each row of the
        model's probabilities (calibrated as at fit)."""
        if self.calibrator_ is not None:
            proba = self.calibrator_.transform(proba)
        return cost_decision(np.asarray(proba, np.float64), *self._scaled)
