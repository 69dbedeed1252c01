"""Importance-weighted calibration: label-free accuracy after covariate shift.

CBPE (NannyML) calibrates the model's probabilities on the labelled reference
and averages the calibrated probability of the predicted class over a chunk.
Under covariate shift ``P(y | x)`` stays but ``P(x)`` moves, and a calibration
fitted where the reference puts its mass is wrong where the chunk puts its
own: a model over-confident in a region the chunk visits more often is judged
by a calibration that hardly saw that region. Probabilistic Adaptive
Performance Estimation (PAPE; Białek et al. 2025) re-weights the reference by
the density ratio ``w(x) = p_chunk(x) / p_reference(x)`` before calibrating:
the weighted reference is distributed as the chunk, so the calibration learnt
on it holds on the chunk, and CBPE's average then estimates the chunk's
accuracy.

The density ratio is read off a domain classifier ``g(x) = P(chunk | x)``
trained to tell the two samples apart (Bayes' rule: ``w(x) = g / (1 - g) *
n_reference / n_chunk``). It is *cross-fitted*: the samples of each side are
cut into folds and each fold's ratios come from a classifier that did not see
it, so that a classifier which memorises its training samples does not
inflate their weights. The ratios are clipped to ``[1 / max_ratio,
max_ratio]``: a chunk sample at the upper clip lies where the reference has
(next to) no mass, and the share of such samples is the overlap signal of
:mod:`._reliability`.

Each estimate is a (weighted-calibrated) mean of per-sample probabilities of
correctness, so everything reuses one object, :class:`WeightedCalibration`:
an isotonic regression of the reference correctness on the confidence of the
predicted class (top-label calibration, Gupta & Ramdas 2022) with per-row
sample weights, each row a bootstrap resample of the reference times the
density ratio. Row 0 gives the estimate, the other rows the calibration's
uncertainty for the realised-value interval; the per-class precision and
recall among the accepted samples use the same weights with one calibration
per predicted class.

No failure on the reference (every accepted reference sample right) makes
every isotonic fit equal to one and every bootstrap interval zero wide; the
intervals are widened by :func:`._failure_floor.failure_floor_interval`.

References
----------
.. [1] J. Białek, W. Kuberski, N. Perrakis, A. Bifet. *Estimating Model
   Performance Under Covariate Shift Without Labels.* NeurIPS 2025,
   arXiv:2401.08348 (PAPE).
.. [2] NannyML. *Confidence-based Performance Estimation (CBPE).*
   https://nannyml.readthedocs.io
.. [3] M. Sugiyama, T. Suzuki, T. Kanamori. *Density Ratio Estimation in
   Machine Learning.* Cambridge University Press, 2012 (probabilistic
   classification, Ch. 4).
.. [4] C. Gupta, A. Ramdas. *Top-label calibration and multiclass-to-binary
   reductions.* ICLR 2022.
"""

from typing import NamedTuple

import numpy as np
from scipy.stats import norm
from sklearn.utils import check_random_state

# The package's isotonic calibrations under rows of weights (one room each).
from ..confidence._calibrators import (
    IsotonicColumn,
    OneVsRest,
    helped_columns,
)
from ._density_ratio import DensityRatio, _as_features, density_ratio
from ._failure_floor import failure_floor_interval
from ._shrinkage import include, shrunk_correction, unshrunk_correction


# ----------------------------------------------------------------------------
# Calibration under weights, and the estimates
# ----------------------------------------------------------------------------
def weighted_calibration(confidence, correct, weights):
    """Top-label isotonic calibration of ``confidence`` under per-row weights.

    Parameters
    ----------
    confidence : ndarray of shape (n_reference,)
        Probability of the predicted class on the reference.
    correct : ndarray of shape (n_reference,)
        1 where the prediction is right, else 0.
    weights : ndarray of shape (n_rows, n_reference)
        Sample weights of each fit (bootstrap counts times density ratios).

    Returns
    -------
    calibration : object
        ``predict(values, rows)`` gives the calibrated ``values`` of each row
        in ``rows``, shape ``(rows, n)``; ``grid`` and ``on_grid`` are the
        fitted values on the distinct reference confidences.
    """
    return IsotonicColumn(
        np.asarray(confidence, dtype=np.float64),
        np.asarray(correct, dtype=np.float64),
        np.asarray(weights, dtype=np.float64),
    )


def _mean_weights(grid, values):
    """``a`` with ``mean(interp(values, grid, f)) == f @ a`` for every ``f``
    (clipped outside the grid): the chunk mean of all rows in one product."""
    last = grid.shape[0] - 1
    above = np.searchsorted(grid, values, side="right")
    high = np.minimum(above, last)
    low = np.maximum(above - 1, 0)
    span = grid[high] - grid[low]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(span > 0, (values - grid[low]) / span, 0.0)
    size = grid.shape[0]
    total = np.bincount(low, 1.0 - share, size) + np.bincount(high, share, size)
    return total / max(values.shape[0], 1)


class BasePrediction:
    """The base predictor of correctness on one side of the reference: CBPE's
    calibration of the model's probabilities (one-vs-rest isotonic,
    renormalised), with a class left uncalibrated where calibration does not
    lower its held-out calibration error (:func:`isotonic_helps`, NannyML's
    rule); the model's confidence where no class is calibrated.
    ``residual``: correctness minus the base's held-out prediction on each
    reference sample (cross-fitted on two folds, so that a calibration does
    not hide its own errors from the correction), one per row of
    ``counts``: each bootstrap row's folds are fitted under its counts, so
    that a resample's residual follows its base and the bootstrap carries
    the doubly robust estimate's variance, not the base's and the
    residual's each as if the other were fixed (row 0, unit counts, where a
    resample drew none of a fold's training samples)."""

    def __init__(self, proba, pred_index, y_index, counts, rng):
        n_samples = proba.shape[0]
        correct = (pred_index == y_index).astype(np.float64)
        confidence = proba[np.arange(n_samples), pred_index]
        folds = rng.permutation(np.arange(n_samples) % 2)
        self.kinds = helped_columns(proba, y_index)
        self.calibrated = IsotonicColumn in self.kinds
        self.columns = None
        self.residual = correct - confidence
        if not self.calibrated:
            return
        held_out = np.repeat(confidence[None, :], counts.shape[0], axis=0)
        for fold in range(2):
            train, test = folds != fold, folds == fold
            if train.sum() < 2 or not test.any():
                continue
            columns = OneVsRest(
                self.kinds, proba[train], y_index[train], counts[:, train]
            )
            picked = columns.predict_picked(proba[test], pred_index[test], slice(None))
            # a resample that drew none of the fold's training samples keeps
            # the unit-weight fit (row 0) for its held-out samples
            drew_none = counts[:, train].sum(axis=1) == 0
            picked[drew_none] = picked[0]
            held_out[:, test] = picked
        self.columns = OneVsRest(self.kinds, proba, y_index, counts)
        self.residual = correct - held_out

    def _residual(self, rows):
        """The residual of the reference rows ``rows`` (one for every row
        when the base is the model's confidence)."""
        return self.residual if self.residual.ndim == 1 else self.residual[rows]

    def correction(self, weights, rows=slice(None), shrink=True):
        """``k D`` of :func:`_doubly_robust_estimates` for each row of
        ``weights`` (the reference rows ``rows``, n_rows x n_reference): the
        row's residual of the base re-weighted to the chunk, shrunk by its
        noise; ``D`` with ``shrink=False`` (the intervals': :mod:`._shrinkage`)."""
        if shrink:
            return shrunk_correction(self._residual(rows), weights)
        return unshrunk_correction(self._residual(rows), weights)

    def noise_variance(self, ratio):
        """The per-sample variance of correctness around the corrected base
        on the chunk's distribution, ``sum w (r - D)^2 / sum w``: the
        reference's mean squared held-out residual ``r`` around the
        unshrunk correction ``D`` (the intervals' estimate), re-weighted by
        the density ratio ``w`` (no calibration assumed). A half's held-out
        residuals run a little larger than the whole reference's fit would,
        which widens the interval slightly."""
        residual = np.atleast_2d(self.residual)[0]  # the reference's own fit
        gap = residual - self.correction(ratio[None, :], slice(0, 1), False)[0]
        return float(np.sum(ratio * gap**2) / np.sum(ratio))

    def predict(self, proba, pred_index, rows=slice(None)):
        """The base of each chunk sample per reference row in ``rows`` (``(1,
        n)`` when the base is the model's confidence, the same for every
        row)."""
        if self.columns is None:
            return proba[np.arange(proba.shape[0]), pred_index][None, :]
        return self.columns.predict_picked(proba, pred_index, rows)


class ReferenceSide(NamedTuple):
    """The reference samples of one estimate (all, or the accepted ones)."""

    mask: np.ndarray
    confidence: np.ndarray
    correct: np.ndarray
    base: BasePrediction


def _weighted_calibration_estimates(side, weights, proba, pred_index):
    """PAPE: the top-label isotonic calibration fitted under the weights,
    averaged over the chunk. Returns the estimate (row 0), the estimate
    per row and the per-sample variance of correctness around row 0's
    calibrated probabilities ``p`` (``mean p (1 - p)``)."""
    values = proba[np.arange(proba.shape[0]), pred_index]
    calibration = weighted_calibration(side.confidence, side.correct, weights)
    estimates = calibration.on_grid @ _mean_weights(calibration.grid, values)
    calibrated = calibration.predict(values, slice(0, 1))[0]
    return estimates[0], estimates, np.mean(calibrated * (1.0 - calibrated))


def _doubly_robust_estimates(side, weights, proba, pred_index):
    """The chunk's mean base prediction plus the reference's
    importance-weighted mean residual, shrunk by its noise.

    ``E = mean_chunk(b) + k D``: ``b`` the base prediction of correctness
    (:class:`BasePrediction`: the confidence or its CBPE calibration), ``D = sum w (c -
    b) / sum w`` its mean residual on the reference re-weighted to the chunk
    (importance weights ``w``: an unbiased estimate of the chunk's mean
    residual under covariate shift), and ``k = max(0, 1 - 2 s^2 / D^2)``,
    ``s^2 = sum w^2 (c - b - D)^2 / (sum w)^2`` the variance of ``D``: a
    positive-part James-Stein factor with the noise counted twice, so that
    the correction is dropped unless ``|D| > sqrt(2) s`` and shrunk when it
    barely stands out of its noise (weights with a small effective sample
    size otherwise add their variance to a base that already holds). With
    the confidence as base, ``w = 1`` and ``k = 1`` this is the difference of
    confidences (DoC) estimate. Returns the estimate (row 0), the unshrunk
    estimate per row, whose interval is the estimate's (:mod:`._shrinkage`),
    and the per-sample variance of correctness around it
    (:meth:`BasePrediction.noise_variance`).
    """
    base = side.base.predict(proba, pred_index).mean(axis=1)
    point = side.base.correction(weights[:1], slice(0, 1))[0] + base[0]
    estimates = base + side.base.correction(weights, shrink=False)
    noise = side.base.noise_variance(weights[0])
    return float(np.clip(point, 0.0, 1.0)), np.clip(estimates, 0.0, 1.0), noise


_ESTIMATORS = {
    "weighted_calibration": _weighted_calibration_estimates,
    "doubly_robust": _doubly_robust_estimates,
}


class ChunkEstimate(NamedTuple):
    """Importance-weighted estimates of one chunk (see
    :class:`ImportanceWeightedCBPE`)."""

    accuracy: float
    accuracy_lower: float
    accuracy_upper: float
    selective_accuracy: float
    selective_accuracy_lower: float
    selective_accuracy_upper: float
    selective_precision: np.ndarray  # (n_classes,)
    selective_recall: np.ndarray  # (n_classes,)
    clipped_share: float
    effective_size: float  # Kish's, of the accepted reference samples
    ratio: DensityRatio


def _bootstrap_counts(rng, n_samples, n_resamples):
    """Row 0: ones; rows 1..B: bootstrap counts of ``n_samples``."""
    counts = np.ones((n_resamples + 1, n_samples))
    if n_resamples:
        draws = rng.randint(0, n_samples, (n_resamples, n_samples))
        draws += (np.arange(n_resamples) * n_samples)[:, None]
        counts[1:] = np.bincount(
            draws.ravel(), minlength=n_resamples * n_samples
        ).reshape(n_resamples, n_samples)
    return counts


class ImportanceWeightedCBPE:
    """CBPE on a reference re-weighted to each chunk's inputs (PAPE).

    ``fit`` keeps the labelled reference (the model's probabilities,
    predictions, labels, acceptance, and the inputs the domain classifier
    reads) and draws the bootstrap resamples once; :meth:`estimate` fits the
    density ratio of a chunk to the reference (:func:`density_ratio`), the
    top-label isotonic calibration of the reference under these weights
    (:func:`weighted_calibration`), and averages the calibrated probability
    of the predicted class over the chunk (accuracy) and its accepted samples
    (selective accuracy, calibrated on the accepted reference samples only)
    [1]_ [2]_.

    Parameters
    ----------
    classifier : classifier with ``predict_proba``, default=None
        The domain classifier of :func:`density_ratio` (None: its default).
    max_ratio : float > 1, default=20.0
        Clip of the density ratio.
    n_splits : int >= 2, default=2
        Folds of the cross-fitted density ratio.
    n_resamples : int >= 0, default=200
        Bootstrap resamples of the reference for the intervals (0: none).
    confidence_level : float in (0, 1), default=0.95
        Level of the intervals.
    estimator : {"doubly_robust", "weighted_calibration"}, default="doubly_robust"
        ``"weighted_calibration"``: PAPE's, the top-label isotonic
        calibration fitted under the weights, averaged over the chunk.
        ``"doubly_robust"``: the chunk's mean base prediction of
        correctness (its CBPE calibration, each class calibrated only where
        that lowers its held-out calibration error, as NannyML does) plus the
        importance-weighted mean residual of the base on the reference,
        shrunk by its noise (:func:`_doubly_robust_estimates`);
        it erred less in ``benchmarks/bench_estimates.py`` (the calibration
        re-fitted on the few effective samples of strong weights is noisy).
    failure_floor : bool, default=True
        Widen the intervals by :func:`failure_floor_interval` (False: the
        normal interval alone, for comparison).
    random_state : int, RandomState instance or None, default=None
        Seed of the resamples and of the density ratio's folds.

    Notes
    -----
    The interval is a prediction interval for the chunk's *realised*
    accuracy, ``E +- z sqrt(V + v / n)``: ``V`` the variance of the estimate
    over bootstrap resamples of the reference (each weighted by the density
    ratio, the chunk held fixed; for ``"doubly_robust"`` each resample's
    held-out residuals refitted under its counts), ``v`` the per-sample
    variance of correctness around the estimate (``"doubly_robust"``: the
    reference's held-out residuals around the correction, re-weighted by the
    ratio; ``"weighted_calibration"``: ``mean(p (1 - p))`` of the chunk's
    calibrated probabilities ``p``); widened by
    :func:`failure_floor_interval` with the reference's weighted failure count
    and Kish's effective size, so that a reference without failures does not
    give a zero-width interval. For ``"doubly_robust"`` the interval is the
    unshrunk estimate's (``E`` its value, ``V`` its variance), widened to
    include the shrunk point (:mod:`._shrinkage`). The density ratio is
    held fixed across resamples: its own uncertainty is not in ``V``.

    The per-class selective precision and recall are point estimates: the
    predicted class of each accepted sample gets its weighted top-label
    calibration fitted on the accepted reference samples predicted as that
    class (the pooled calibration where the reference has none), the other
    classes share the rest in the proportions of the model's probabilities.

    References
    ----------
    .. [1] J. Białek, W. Kuberski, N. Perrakis, A. Bifet. *Estimating Model
       Performance Under Covariate Shift Without Labels.* NeurIPS 2025,
       arXiv:2401.08348.
    .. [2] NannyML. *Confidence-based Performance Estimation (CBPE).*
       https://nannyml.readthedocs.io

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_selective._shift._importance_weights import (
    ...     ImportanceWeightedCBPE)
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(3000, 2))
    >>> y = (X[:, 0] + rng.logistic(size=3000) > 0).astype(int)
    >>> model = LogisticRegression().fit(X[:1000], y[:1000])
    >>> ref, chunk = slice(1000, 2000), slice(2000, 3000)
    >>> estimator = ImportanceWeightedCBPE(n_resamples=50, random_state=0)
    >>> estimator = estimator.fit(X[ref], model.predict_proba(X[ref]),
    ...                           model.predict(X[ref]), y[ref])
    >>> result = estimator.estimate(X[chunk], model.predict_proba(X[chunk]),
    ...                             model.predict(X[chunk]))
    >>> realised = np.mean(model.predict(X[chunk]) == y[chunk])
    >>> bool(result.accuracy_lower <= realised <= result.accuracy_upper)
    True
    """

    def __init__(
        self,
        *,
        classifier=None,
        max_ratio=20.0,
        n_splits=2,
        n_resamples=200,
        confidence_level=0.95,
        estimator="doubly_robust",
        failure_floor=True,
        random_state=None,
    ):
        self.classifier = classifier
        self.max_ratio = max_ratio
        self.n_splits = n_splits
        self.n_resamples = n_resamples
        self.confidence_level = confidence_level
        self.estimator = estimator
        self.failure_floor = failure_floor
        self.random_state = random_state

    def fit(self, reference_features, proba, pred_index, y_index, accepted=None):
        """Keep the labelled reference.

        Parameters
        ----------
        reference_features : {ndarray, sparse matrix} of shape (n, n_features)
            The reference inputs the domain classifier reads.
        proba : ndarray of shape (n, n_classes)
            The model's class probabilities on the reference.
        pred_index : ndarray of shape (n,)
            Index (column of ``proba``) of each prediction.
        y_index : ndarray of shape (n,)
            Index of each true label.
        accepted : ndarray of bool of shape (n,), default=None
            Which predictions the classifier accepts (None: all).

        Returns
        -------
        self : ImportanceWeightedCBPE
        """
        self.proba_, self.pred_index_ = _check_outputs(proba, pred_index, "proba")
        n_samples, n_classes = self.proba_.shape
        y_index = np.asarray(y_index).astype(np.intp, copy=False)
        if y_index.shape != (n_samples,):
            raise ValueError(
                f"y_index has shape {y_index.shape}; pass one label index per "
                f"reference sample ({n_samples})."
            )
        self.accepted_ = _check_accepted(accepted, n_samples, "accepted")
        if not self.accepted_.any():
            raise ValueError("accepted is all False; accept some reference samples.")
        self.features_ = _as_features(reference_features, "reference_features")
        if self.features_.shape[0] != n_samples:
            raise ValueError(
                f"reference_features has {self.features_.shape[0]} rows but proba "
                f"has {n_samples}; pass the same samples."
            )
        self.confidence_ = self.proba_[np.arange(n_samples), self.pred_index_]
        self.correct_ = (self.pred_index_ == y_index).astype(np.float64)
        self.n_classes_ = n_classes
        self._rng = check_random_state(self.random_state)
        self.counts_ = _bootstrap_counts(self._rng, n_samples, int(self.n_resamples))
        self.sides_ = tuple(
            ReferenceSide(
                mask,
                self.confidence_[mask],
                self.correct_[mask],
                BasePrediction(
                    self.proba_[mask],
                    self.pred_index_[mask],
                    y_index[mask],
                    self.counts_[:, mask],
                    self._rng,
                ),
            )
            for mask in (np.ones(n_samples, dtype=bool), self.accepted_)
        )
        return self

    def estimate(self, chunk_features, proba, pred_index, accepted=None):
        """The importance-weighted estimates of one chunk.

        Parameters
        ----------
        chunk_features : {ndarray, sparse matrix} of shape (m, n_features)
            The chunk's inputs (same features as the reference's).
        proba : ndarray of shape (m, n_classes)
            The model's class probabilities on the chunk.
        pred_index : ndarray of shape (m,)
            Index of each prediction.
        accepted : ndarray of bool of shape (m,), default=None
            Which predictions are accepted (None: all).

        Returns
        -------
        estimate : ChunkEstimate
            The estimates, their realised-value intervals, the per-class
            values, and the density ratio with its overlap diagnostics.
        """
        proba, pred_index = _check_outputs(proba, pred_index, "proba")
        accepted = _check_accepted(accepted, proba.shape[0], "accepted")
        ratio = density_ratio(
            self.features_,
            chunk_features,
            classifier=self.classifier,
            max_ratio=self.max_ratio,
            n_splits=self.n_splits,
            random_state=self._rng.randint(2**31 - 1),
        )
        values = []
        for side, chunk in zip(
            self.sides_, (np.ones_like(accepted), accepted), strict=True
        ):
            values.extend(
                self._side(side, ratio.reference, proba[chunk], pred_index[chunk])
            )
        precision, recall = self._class_values(
            ratio.reference, proba, pred_index, accepted
        )
        return ChunkEstimate(
            *values,
            selective_precision=precision,
            selective_recall=recall,
            clipped_share=ratio.clipped_share,
            effective_size=ratio.effective_size(self.accepted_),
            ratio=ratio,
        )

    def _side(self, side, ratio, proba, pred_index):
        """``(estimate, lower, upper)`` of the accuracy on one side."""
        n = proba.shape[0]
        if n == 0:
            return np.nan, np.nan, np.nan
        weights = self.counts_[:, side.mask] * ratio[side.mask]
        correct = side.correct
        point, estimates, noise = _ESTIMATORS[self.estimator](
            side, weights, proba, pred_index
        )
        centre = float(estimates[0])
        if weights.shape[0] < 3:
            return point, np.nan, np.nan
        variance = np.var(estimates[1:], ddof=1) + noise / n
        half_width = norm.ppf(0.5 + self.confidence_level / 2.0) * np.sqrt(variance)
        low, high = max(centre - half_width, 0.0), min(centre + half_width, 1.0)
        if self.failure_floor:
            w = weights[0]
            n_effective = w.sum() ** 2 / np.sum(w**2)
            failure_rate = np.sum(w * (1.0 - correct)) / w.sum()
            low, high = failure_floor_interval(
                low,
                high,
                n,
                failure_rate * n_effective,
                n_effective,
                self.confidence_level,
            )
        return point, *include((low, high), point)

    def _class_values(self, ratio, proba, pred_index, accepted):
        """Selective precision and recall per class (point estimates)."""
        k = self.n_classes_
        reference = self.accepted_
        weights = ratio[None, reference]
        pooled = weighted_calibration(
            self.confidence_[reference], self.correct_[reference], weights
        )
        proba, pred = proba[accepted], pred_index[accepted]
        confidence = proba[np.arange(pred.shape[0]), pred]
        top = pooled.predict(confidence, slice(0, 1))[0]
        reference_pred = self.pred_index_[reference]
        for j in np.intersect1d(np.unique(pred), np.unique(reference_pred)):
            on_reference, on_chunk = reference_pred == j, pred == j
            calibration = weighted_calibration(
                self.confidence_[reference][on_reference],
                self.correct_[reference][on_reference],
                weights[:, on_reference],
            )
            top[on_chunk] = calibration.predict(confidence[on_chunk], slice(0, 1))[0]
        one_hot = pred[:, None] == np.arange(k)[None, :]
        others = np.where(one_hot, 0.0, proba)
        total = others.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(total > 0, others / total, 1.0 / max(k - 1, 1))
            full = np.where(one_hot, top[:, None], (1.0 - top[:, None]) * share)
            hits = (full * one_hot).sum(axis=0)
            predicted = one_hot.sum(axis=0)
            expected = full.sum(axis=0)
            precision = np.where(predicted > 0, hits / predicted, np.nan)
            recall = np.where(expected > 0, hits / expected, np.nan)
        return precision, recall


def _check_outputs(proba, pred_index, name):
    proba = np.asarray(proba, dtype=np.float64)
    if proba.ndim != 2:
        raise ValueError(
            f"{name} must be 2-dimensional (n_samples, n_classes); got shape "
            f"{proba.shape}."
        )
    pred_index = np.asarray(pred_index)
    if pred_index.shape != (proba.shape[0],):
        raise ValueError(
            f"pred_index has shape {pred_index.shape}; pass one prediction index "
            f"per row of {name} ({proba.shape[0]})."
        )
    pred_index = pred_index.astype(np.intp, copy=False)
    if pred_index.size and (pred_index.min() < 0 or pred_index.max() >= proba.shape[1]):
        raise ValueError(
            f"pred_index must index the columns of {name} (0..{proba.shape[1] - 1})."
        )
    return proba, pred_index


def _check_accepted(accepted, n_samples, name):
    if accepted is None:
        return np.ones(n_samples, dtype=bool)
    accepted = np.asarray(accepted, dtype=bool)
    if accepted.shape != (n_samples,):
        raise ValueError(
            f"{name} has shape {accepted.shape}; pass one bool per sample "
            f"({n_samples})."
        )
    return accepted
