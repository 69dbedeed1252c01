"""Per-class thresholds: any curve policy applied to each predicted class's
validation curve. The wrapper owns what per class adds: the class index of each
prediction, the policy's level split over the classes (Bonferroni for a
guarantee), and the fallback of a class too small for a threshold of its own."""

import warnings

import numpy as np

from ..._utils._warnings import warn
from ...exceptions import GuaranteeNotMetWarning, TooFewSamplesError
from .._classes import class_index
from .._curve import ThresholdFit, _ValidationCurve, evaluate_threshold
from ._base import ThresholdPolicy

# A class needs at least this many validation predictions for a threshold of its own;
# fewer give a selective risk too noisy to act on.
MIN_CLASS_PREDICTIONS = 20

# The start of the warning a fallback gives (a fold's fit silences it by it).
FALLBACK_WARNING = r"\d+ class\(es\) cannot have a threshold of their own"


class PerClass(ThresholdPolicy):
    """``policy`` on the curve of each predicted class; fits are arrays
    aligned with the classes, and the table has a ``"class"`` column."""

    def __init__(self, policy):
        self.policy = policy
        self.name = policy.name
        self.certifies = policy.certifies
        self.needs_validation = policy.needs_validation

    def check_estimator(self, estimator, csf):
        self.policy.check_estimator(estimator, csf)

    def check_deployed(self, n_splits, refit):
        self.policy.check_deployed(n_splits, refit)

    def prepare(self, validation, classes):
        validation = self.policy.prepare(validation, classes)
        validation.class_index = class_index(classes, validation.y_pred)
        self.classes_ = classes
        return validation

    def fit(self, validation):
        return self.fit_samples(
            validation.confidence,
            validation.losses,
            validation.weights,
            validation.class_index,
            self.classes_,
        )

    def fit_without_validation(self, classes):
        fit = self.policy.fit_without_validation(classes)
        return ThresholdFit(*(np.full(len(classes), value) for value in fit[:3]))

    def fit_samples(self, confidence, losses, weights, class_index, classes):
        """The policy on the samples of each class (``class_index`` gives each
        sample's index in ``classes``): ``(ThresholdFit of arrays, table)``."""
        policy = self.policy.for_one_of(len(classes))
        pooled = _Pooled(self.policy, confidence, losses, weights)
        fits, tables, fallbacks = [], [], []
        for index, label in enumerate(classes):
            mask = class_index == index
            samples = (confidence[mask], losses[mask], _subset(weights, mask))
            fit, curve, reason = self._fit_one_class(policy, samples, pooled)
            if reason is not None:
                label = label.item() if isinstance(label, np.generic) else label
                fallbacks.append((label, int(mask.sum()), reason))
            fits.append(fit)
            if curve is not None:
                table = curve.table()
                table["class"] = np.repeat(
                    classes[index : index + 1], len(curve.thresholds)
                )
                tables.append(table)
        self._warn_fallbacks(fallbacks)
        return self._stack(fits), _concatenate(tables, classes.dtype)

    def _fit_one_class(self, policy, samples, pooled):
        """``(fit, curve, fallback reason or None)`` of one class's predictions."""
        confidence, losses, weights = samples
        n = len(losses) if weights is None else int(np.count_nonzero(weights))
        if n < MIN_CLASS_PREDICTIONS:
            reason = f"fewer than {MIN_CLASS_PREDICTIONS}"
            return self._fallback(pooled, samples), None, reason
        curve = _ValidationCurve.from_samples(confidence, losses, weights)
        try:
            return policy.fit_curve(curve), curve, None
        except TooFewSamplesError as error:
            reason = (
                "too few to certify the target risk for one class (at least "
                f"{error.needed} needed)"
            )
            return self._fallback(pooled, samples), curve, reason

    def _fallback(self, pooled, samples):
        threshold, bound = self.policy.fallback(pooled)
        return evaluate_threshold(threshold, *samples)._replace(risk_bound=bound)

    def _warn_fallbacks(self, fallbacks):
        if not fallbacks:
            return
        listed = "; ".join(
            f"class {label!r}: {n} validation predictions, {reason}"
            for label, n, reason in fallbacks
        )
        warn(
            f"{len(fallbacks)} class(es) cannot have a threshold of their own and "
            f"{self.policy.fallback_text}: {listed}."
        )

    def _stack(self, fits):
        fields = {
            name: np.array([getattr(fit, name) for fit in fits], dtype=np.float64)
            for name in ("threshold", "coverage", "risk")
        }
        bound = None
        if self.certifies:
            bound = np.array([fit.risk_bound for fit in fits], dtype=np.float64)
        return ThresholdFit(**fields, risk_bound=bound)


class _Pooled:
    """The policy's fit on all the classes together, computed when a class
    first falls back to it; its warning (if any) is the classes' business."""

    def __init__(self, policy, confidence, losses, weights):
        self._args = (policy, confidence, losses, weights)
        self._fit = None

    def __call__(self):
        if self._fit is None:
            policy, *samples = self._args
            with warnings.catch_warnings():
                # A pooled target the data cannot meet abstains: the class
                # that falls back to it is named in the fallback warning.
                warnings.simplefilter("ignore", GuaranteeNotMetWarning)
                self._fit = policy.fit_curve(_ValidationCurve.from_samples(*samples))
        return self._fit


def _subset(weights, mask):
    return None if weights is None else weights[mask]


def _concatenate(tables, class_dtype):
    keys = ("threshold", "coverage", "risk", "class")
    return {
        key: np.concatenate([t[key] for t in tables])
        if tables
        else np.empty(0, dtype=class_dtype if key == "class" else np.float64)
        for key in keys
    }
