"""``target_risk`` with ``confidence_level``: a risk certified by a guarantee
procedure (``_guarantees.PROCEDURES``), optionally with a review capacity."""

import math

from ._base import CurvePolicy


class GuaranteedRisk(CurvePolicy):
    """The threshold of most coverage that ``procedure`` certifies: with
    probability at least ``confidence_level`` over the validation draw, the
    selective risk is at most ``target_risk`` on the population (and the
    abstention rate at most the procedure's ``max_abstention_rate``).

    ``level_text`` says in messages where the level comes from when it is not
    the user's ``confidence_level`` (the per-class split).
    """

    name = "guaranteed_risk"
    certifies = True

    def __init__(self, target_risk, confidence_level, procedure, level_text=None):
        self.target_risk = target_risk
        self.confidence_level = confidence_level
        self.procedure = procedure
        self.level_text = level_text

    def check_deployed(self, n_splits, refit):
        if n_splits == 0 or (not refit and n_splits == 1):
            return
        raise ValueError(
            "A risk guarantee (confidence_level) holds only for the model whose "
            "validation scores were certified, so that model must be the one "
            "deployed. Either pass FrozenEstimator(fitted_model) and held-out data "
            "to fit, or use a single split with refit=False, e.g. cv=0.3, "
            "refit=False (fit on 70% of the data, certify on the other 30%)."
        )

    def fit_curve(self, curve):
        return self.procedure.certify(
            curve, self.target_risk, self.confidence_level, self.level_text
        )

    # Per class: the level is split, and a class that cannot be certified abstains.
    @property
    def fallback_text(self):
        text = "abstain on every prediction of these classes"
        cap = self.procedure.max_abstention_rate
        if cap is not None:
            text += (
                f", so the abstention rate <= {cap} is NOT certified (their "
                "predictions all go to review)"
            )
        return text

    def for_one_of(self, n_classes):
        """Bonferroni: each class fails with probability ``(1 - level) /
        n_classes``, so all the classes' guarantees hold together with
        probability at least the level."""
        stated = self.confidence_level
        level = 1 - (1 - stated) / n_classes
        text = (
            f"per-class confidence level {level:.4g} (your confidence_level={stated} "
            f"split over the {n_classes} classes, Bonferroni, so that all hold "
            "together)"
        )
        return GuaranteedRisk(self.target_risk, level, self.procedure, text)

    def fallback(self, pooled):
        # A pooled threshold certifies nothing about one class.
        return math.inf, math.nan
