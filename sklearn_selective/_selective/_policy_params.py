"""The policy parameters of :class:`~sklearn_selective.SelectiveClassifier`:
which single policy is active, and whether the estimator can serve it.

Checked in ``fit`` (scikit-learn's convention: ``__init__`` stores parameters
as given), with messages that name the parameters the user set.
"""

import numpy as np

from ..confidence._model_output import check_csf_supported

DEFAULT_TARGET_COVERAGE = 0.9


class PolicyParamsMixin:
    """Needs the parameters of ``SelectiveClassifier``."""

    # ----------------------------------------------------------------------------
    # Checks of the parameters that depend on each other
    # ----------------------------------------------------------------------------
    def _policy(self):
        """Name and keyword arguments of the single active policy."""
        if self.cost_matrix is not None:
            return self._cost_policy()
        if self.calibration is not None:
            raise ValueError(
                f"calibration={self.calibration!r} applies to the cost rule only; "
                "set cost_matrix (and rejection_cost) or remove calibration."
            )
        if self.cost_rule != "bayes":
            raise ValueError(
                f"cost_rule={self.cost_rule!r} applies to the cost rule only; set "
                "cost_matrix (and rejection_cost) or leave cost_rule='bayes'."
            )
        if self.rejection_cost is not None and np.ndim(self.rejection_cost) > 0:
            raise ValueError(
                "rejection_cost with one value per class needs cost_matrix (the "
                "cost of each error); without it, rejection_cost is one number, "
                "the cost of an abstention relative to an error's cost 1."
            )
        given = {
            name: value
            for name, value in (
                ("target_coverage", self.target_coverage),
                ("target_risk", self.target_risk),
                ("rejection_cost", self.rejection_cost),
            )
            if value is not None
        }
        if len(given) > 1:
            raise ValueError(
                f"Set exactly one threshold policy; got {sorted(given)}. Use "
                "target_coverage, target_risk (optionally with confidence_level) "
                "or rejection_cost, and leave the others None."
            )
        if self.confidence_level is not None and "target_risk" not in given:
            raise ValueError(
                "confidence_level is the probability that a risk guarantee holds "
                "and needs target_risk; set target_risk or remove confidence_level."
            )
        self._check_guarantee_params()
        if not given:
            return "target_coverage", {"target_coverage": DEFAULT_TARGET_COVERAGE}
        if self.confidence_level is not None:
            params = {
                "target_risk": self.target_risk,
                "confidence_level": self.confidence_level,
                "guarantee": self.guarantee,
            }
            if self.max_abstention_rate is not None:
                params["max_abstention_rate"] = self.max_abstention_rate
            return "guaranteed_risk", params
        ((name, value),) = given.items()
        return name, {name: value}

    def _check_guarantee_params(self):
        if self.max_abstention_rate is None:
            return
        if self.confidence_level is None:
            raise ValueError(
                "max_abstention_rate is a constraint certified together with the "
                "risk guarantee: set target_risk and confidence_level too (e.g. "
                "target_risk=0.02, confidence_level=0.95, max_abstention_rate=0.3)."
            )
        if self.guarantee != "fixed_sequence":
            raise ValueError(
                f"max_abstention_rate needs guarantee='fixed_sequence'; "
                f"guarantee={self.guarantee!r} (SGR) certifies the risk alone."
            )

    def _cost_policy(self):
        others = [
            name
            for name in (
                "target_coverage",
                "target_risk",
                "confidence_level",
                "max_abstention_rate",
            )
            if getattr(self, name) is not None
        ]
        if others:
            raise ValueError(
                f"cost_matrix is a policy of its own; remove {others} (the cost "
                "rule abstains where abstaining is cheaper)."
            )
        if self.threshold_per_class:
            raise ValueError(
                "threshold_per_class=True does not apply to cost_matrix: the cost "
                "rule already weighs every class by its own costs. Use per-class "
                "rejection_cost values instead."
            )
        if self.rejection_cost is None:
            raise ValueError(
                "cost_matrix needs rejection_cost, the cost of abstaining (a "
                "scalar or one value per true class); e.g. rejection_cost=0.3."
            )
        return "cost_rule", {}

    def _check_guarantee_is_for_the_deployed_model(self, n_splits):
        """``n_splits`` is 0 for a FrozenEstimator (no split, nothing refitted)."""
        if n_splits == 0 or (not self.refit and n_splits == 1):
            return
        raise ValueError(
            "A risk guarantee (confidence_level) holds only for the model whose "
            "validation scores were certified, so that model must be the one "
            "deployed. Either pass FrozenEstimator(fitted_model) and held-out data "
            "to fit, or use a single split with refit=False, e.g. cv=0.3, "
            "refit=False (fit on 70% of the data, certify on the other 30%)."
        )

    def _check_estimator(self, policy):
        estimator = self.estimator
        name = type(estimator).__name__
        if not (
            hasattr(estimator, "predict_proba")
            or hasattr(estimator, "decision_function")
        ):
            raise ValueError(
                f"estimator={name} has neither predict_proba nor decision_function, "
                "so its predictions have no confidence: SelectiveClassifier needs a "
                "classifier (e.g. LogisticRegression, or a Pipeline ending with one)."
            )
        if policy == "cost_rule" and not hasattr(estimator, "predict_proba"):
            raise ValueError(
                f"cost_matrix needs class probabilities, but estimator={name} has "
                "no predict_proba. Wrap it in CalibratedClassifierCV, or use "
                "rejection_cost without cost_matrix."
            )
        if policy != "cost_rule":
            check_csf_supported(estimator, self.csf)
