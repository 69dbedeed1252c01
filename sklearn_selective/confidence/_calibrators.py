"""Calibrators of class probabilities: one room for every calibration the
products fit on held-out (validation or reference) probabilities.

Each calibrator has ``fit(proba, y_index, weights)`` and ``transform(proba)``
on probability matrices ``(n_samples, n_classes)`` with class indices
``y_index``.
"""

import math

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import log_softmax
from sklearn.isotonic import IsotonicRegression

_TINY = np.finfo(np.float64).tiny


# ----------------------------------------------------------------------------------
class TemperatureCalibrator:
    """Softmax of ``log(p) / T``, with ``T`` minimising the weighted log loss."""

    def fit(self, proba, y_index, weights):
        logits = np.log(proba + _TINY)
        w = np.ones(len(y_index)) if weights is None else weights
        rows = np.arange(len(y_index))

        def nll(log_t):
            scaled = log_softmax(logits / math.exp(log_t), axis=1)
            return -float((w * scaled[rows, y_index]).sum())

        self.temperature_ = math.exp(
            minimize_scalar(nll, bounds=(-5.0, 5.0), method="bounded").x
        )
        return self

    def transform(self, proba):
        return np.exp(log_softmax(np.log(proba + _TINY) / self.temperature_, axis=1))


class IsotonicCalibrator:
    """One-vs-rest isotonic regression per class, rows renormalised (as
    :class:`~sklearn.calibration.CalibratedClassifierCV` does)."""

    def fit(self, proba, y_index, weights):
        n_classes = proba.shape[1]
        columns = [1] if n_classes == 2 else range(n_classes)
        self.regressions_ = {
            j: IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(
                proba[:, j], (y_index == j).astype(np.float64), sample_weight=weights
            )
            for j in columns
        }
        return self

    def transform(self, proba):
        if proba.shape[1] == 2:
            positive = self.regressions_[1].predict(proba[:, 1])
            return np.column_stack([1 - positive, positive])
        calibrated = np.column_stack(
            [self.regressions_[j].predict(proba[:, j]) for j in range(proba.shape[1])]
        )
        sums = calibrated.sum(axis=1, keepdims=True)
        uniform = np.full_like(calibrated, 1 / proba.shape[1])
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(sums > 0, calibrated / sums, uniform)


CALIBRATORS = {"temperature": TemperatureCalibrator, "isotonic": IsotonicCalibrator}
