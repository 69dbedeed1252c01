"""The interface every threshold policy shares.

A policy is resolved once from the estimator's parameters
(:func:`~._resolver.resolve_policy`) and then asked, never named: the estimator
reads its attributes (``name`` for ``policy_``, ``needs_validation``,
``needs_proba``, ``certifies``) and calls its methods. The policies on a
risk-coverage curve of 0/1 losses (:class:`CurvePolicy`) fit on a
:class:`~.._curve._ValidationCurve` alone, so that a policy can be fitted on
any curve of confidences, losses and weights, without the estimator (the per
class wrapper fits one per class; a cascade one per stage).
"""

import math

import numpy as np

from ..._utils._validation import _check_scaled_sample_weight
from ...confidence._model_output import check_csf_supported
from .._curve import ThresholdFit, _ValidationCurve


def check_has_confidence(estimator):
    """Refuse an estimator whose predictions have no confidence at all."""
    if not (
        hasattr(estimator, "predict_proba") or hasattr(estimator, "decision_function")
    ):
        raise ValueError(
            f"estimator={type(estimator).__name__} has neither predict_proba nor "
            "decision_function, so its predictions have no confidence: "
            "SelectiveClassifier needs a classifier (e.g. LogisticRegression, or a "
            "Pipeline ending with one)."
        )


class ThresholdPolicy:
    """A threshold policy: ``prepare`` the pooled validation predictions once,
    then ``fit`` them (or any subset of them, a fold) to a
    :class:`~.._curve.ThresholdFit` and the validation table it chose from.

    ``validation`` is a :class:`~sklearn.utils.Bunch` of per-sample arrays:
    ``y_true``, ``y_pred``, ``confidence``, ``weights`` (or None) and, for a
    policy that ``needs_proba``, the held-out probabilities ``proba``.
    """

    #: The value of the estimator's ``policy_``.
    name = None
    #: Whether the threshold is certified (refuses sample weights and any model
    #: but the certified one).
    certifies = False
    #: Whether held-out probabilities are needed (instead of a CSF).
    needs_proba = False
    #: Whether validation data are needed at all.
    needs_validation = True
    #: The fitted probability calibration (the cost rule's).
    calibrator_ = None

    def check_estimator(self, estimator, csf):
        """Raise when ``estimator`` cannot serve this policy with ``csf``."""
        check_has_confidence(estimator)
        check_csf_supported(estimator, csf)

    def check_sample_weight(self, sample_weight, y):
        """``fit``'s sample weights as the policy reads them (None for none)."""
        if sample_weight is None:
            return None
        weights = np.asarray(sample_weight)
        if weights.ndim == 1 and weights.shape[0] != y.shape[0]:
            raise ValueError(
                f"sample_weight has {weights.shape[0]} entries but y has "
                f"{y.shape[0]}; pass one weight per sample."
            )
        # The policies are invariant to a common factor of the weights: extreme
        # ones are scaled exactly, so that their sums neither overflow nor vanish.
        weights = _check_scaled_sample_weight(weights, y.shape[0], reference="y")
        if self.certifies:
            raise ValueError(
                "sample_weight is not supported with confidence_level: the risk "
                "guarantee is a binomial bound that counts validation samples."
            )
        return weights

    def check_deployed(self, n_splits, refit):
        """Raise when the fitted threshold would not hold for the deployed model
        (``n_splits`` is 0 for a FrozenEstimator)."""

    def prepare(self, validation, classes):
        """The per-sample arrays this policy fits on, from the pooled validation
        predictions (fitted parts, such as a calibration, are fitted here)."""
        validation.losses = (validation.y_pred != validation.y_true).astype(np.float64)
        return validation

    def fit(self, validation):
        """``(ThresholdFit, table)`` on prepared validation predictions."""
        raise NotImplementedError

    def fit_without_validation(self, classes):
        """The fit of a policy that needs no validation data (accept everything)."""
        return ThresholdFit(-math.inf, 1.0, math.nan)


class CurvePolicy(ThresholdPolicy):
    """A policy that chooses a threshold on the validation risk-coverage curve."""

    def fit(self, validation):
        curve = _ValidationCurve.from_samples(
            validation.confidence, validation.losses, validation.weights
        )
        return self.fit_curve(curve), curve.table()

    def fit_curve(self, curve):
        """The :class:`~.._curve.ThresholdFit` of this policy on ``curve``."""
        raise NotImplementedError

    # Per class (see ``_per_class.PerClass``).
    #: What a class too small for a threshold of its own does, in the warning.
    fallback_text = "use the global threshold (the same policy on all classes)"

    def for_one_of(self, n_classes):
        """The policy applied to one class of ``n_classes`` (itself, unless the
        level must be split)."""
        return self

    def fallback(self, pooled):
        """``(threshold, risk_bound)`` of a class too small for a threshold of
        its own; ``pooled()`` gives the fit on all the classes."""
        return pooled().threshold, None
