"""Label-free estimates of accuracy and selective accuracy, batched over resamples.

Every method is fitted once per reference weight vector: row 0 of ``counts`` is
the reference itself (all ones), rows 1..B are bootstrap resamples (how often
each reference sample was drawn). A fitted method turns a chunk's model outputs
into a per-sample *proxy of correctness* for each row; the estimate is the
(resample-weighted) mean of the proxy over the chunk (accuracy) or over its
accepted samples (selective accuracy). So the point estimate, the bootstrap
interval and the reference band are the same computation.
"""

from functools import cached_property

import numpy as np

from .._utils._draws import _MONITOR_BLOCK_ELEMENTS, _rows_per_block
from .._utils._sklearn import safe_indexing
from .._utils._validation import all_finite
from ..confidence._calibrators import IsotonicColumn, OneVsRest, helped_columns
from ..metrics._core._group_stats import group_ties
from ._accuracy_estimates import _atc_thresholds, _warn_tied_source
from ._density_ratio import density_ratio
from ._importance_weights import BasePrediction
from ._label_shift import (
    class_residuals,
    em_prior,
    shift_posterior,
)


# ----------------------------------------------------------------------------
# ATC: the only dependency on the ATC core (kept in one function for merges)
# ----------------------------------------------------------------------------
def _atc_threshold_batch(scores, correct, counts):
    """ATC thresholds ([ATC] Eq. 2) for each row of ``counts``; NaN for empty rows."""
    counts = np.asarray(counts, dtype=np.float64)
    empty = counts.sum(axis=1) == 0
    if scores.shape[0] == 0:
        return np.full(counts.shape[0], np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        thresholds = _atc_thresholds(group_ties(scores), correct, counts)
    return np.where(empty, np.nan, np.asarray(thresholds, dtype=np.float64))


def _reached(scores, thresholds):
    """``scores >= t`` per row of thresholds, as float; NaN where t is NaN."""
    reached = (scores[None, :] >= thresholds[:, None]).astype(np.float64)
    reached[np.isnan(thresholds)] = np.nan
    return reached


def _weighted_means(values, counts):
    """Per-row mean of ``values`` (b, n) under weights ``counts`` (b, n)."""
    total = counts.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts * values).sum(axis=1) / total


class _ATC:
    """Average thresholded confidence, on the acceptance score.

    Accuracy: the share of chunk scores at or above the threshold fitted on all
    reference samples. Selective accuracy: the share of accepted chunk samples
    at or above the threshold fitted on the *accepted* reference samples only
    (ATC conditioned on the acceptance region, SPEC §8).
    """

    needs_proba = False

    def __init__(self, reference, correct, counts, y_index):
        accepted = reference.accepted
        _warn_tied_source(reference.score)
        self.threshold = _atc_threshold_batch(reference.score, correct, counts)
        self.selective_threshold = _atc_threshold_batch(
            reference.score[accepted], correct[accepted], counts[:, accepted]
        )

    def proxies(self, chunk, rows):
        return (
            _reached(chunk.score, self.threshold[rows]),
            _reached(chunk.score, self.selective_threshold[rows]),
        )


class _AverageConfidence:
    """Mean probability of the predicted class (the MSP of an argmax prediction)."""

    needs_proba = True

    def __init__(self, reference, correct, counts, y_index):
        pass

    def proxies(self, chunk, rows):
        proba = chunk.proba_pred[None, :]
        return proba, proba


class _DifferenceOfConfidences:
    """Reference accuracy minus the drop in mean confidence (DoC).

    The per-sample proxy is ``p_i + (acc_ref - conf_ref)``, whose mean is the
    DoC estimate; the selective version uses the accepted reference samples.
    """

    needs_proba = True

    def __init__(self, reference, correct, counts, y_index):
        gap = correct - reference.proba_pred
        accepted = reference.accepted
        self.offset = _weighted_means(gap[None, :], counts)
        self.selective_offset = _weighted_means(
            gap[None, accepted], counts[:, accepted]
        )

    def proxies(self, chunk, rows):
        proba = chunk.proba_pred[None, :]
        return (
            proba + self.offset[rows, None],
            proba + self.selective_offset[rows, None],
        )


class _TopLabelCalibratedConfidence:
    """Average confidence after top-label isotonic calibration on the reference.

    The probability of the predicted class is calibrated against correctness
    by isotonic regression on the reference (top-label calibration); the proxy
    is the calibrated value. On the reference its mean is the reference
    accuracy exactly (isotonic regression preserves block sums).
    """

    needs_proba = True

    def __init__(self, reference, correct, counts, y_index):
        accepted = reference.accepted
        self.column = IsotonicColumn(reference.proba_pred, correct, counts)
        self.selective = IsotonicColumn(
            reference.proba_pred[accepted], correct[accepted], counts[:, accepted]
        )

    def proxies(self, chunk, rows):
        return (
            self.column.predict(chunk.proba_pred, rows),
            self.selective.predict(chunk.proba_pred, rows),
        )


class _CalibratedAverageConfidence:
    """Average confidence after per-class isotonic calibration on the reference.

    Each class's probability is calibrated one-vs-rest by isotonic regression
    on the reference labels where that lowers its held-out calibration error
    (:func:`helped_columns`, NannyML's test), the rows are renormalised to sum
    to one, and the proxy is the calibrated probability of the predicted class
    (the calibration step of NannyML's CBPE). The selective accuracy's
    calibration is fitted, and tested, on the accepted reference samples.
    """

    needs_proba = True

    def __init__(self, reference, correct, counts, y_index):
        accepted = reference.accepted
        self.columns = OneVsRest(
            helped_columns(reference.proba, y_index), reference.proba, y_index, counts
        )
        proba, y_accepted = reference.proba[accepted], y_index[accepted]
        self.selective = OneVsRest(
            helped_columns(proba, y_accepted), proba, y_accepted, counts[:, accepted]
        )

    def proxies(self, chunk, rows):
        return (
            self.columns.predict_picked(chunk.proba, chunk.pred_index, rows),
            self.selective.predict_picked(chunk.proba, chunk.pred_index, rows),
        )


# Above this many samples, what a chunk's method fits on the chunk reads a
# uniform sample of this many of its samples: the class prior (what
# ``"auto"`` tests and ``class_prior`` reports; EM passes over every sample it
# reads some 20 times) and the density ratio (its domain classifier's training
# samples and the clipped share it scores). The estimates then read every
# sample (``"label_shift_em"`` re-estimates the prior on each of them).
METHOD_SAMPLE_CAP = 2**16


# The folds of the reference that cross-validate ``"label_shift_em"``'s
# residuals per class, by position (sample i in fold i % RESIDUAL_FOLDS).
# Measured for issue 37 (10 repetitions, mean |error| of the EM estimate
# under label shift, accuracy / selective accuracy, bench_estimates.py's six
# settings and bench_monitor.py's four): residuals in-sample 0.0121 / 0.0130
# and 0.0100 / 0.0118, 2 folds 0.0099 / 0.0108 and 0.0096 / 0.0114, 5 folds
# 0.0107 / 0.0113 and 0.0097 / 0.0110. Without shift on chunks of 500 (the
# user guide has the numbers) in-sample residuals leave the estimate up to
# 0.004 too high, 2 folds over-correct by up to 0.005 / 0.006, 5 folds stay
# within 0.004 of the truth.
RESIDUAL_FOLDS = 5


class _LabelShiftEM(_CalibratedAverageConfidence):
    """Average confidence under the chunk's class prior, estimated by EM, with
    the reference's residuals per class.

    The posteriors are the reference's per-class isotonic calibration (of
    every class, unlike ``"cbpe"``: EM needs calibrated posteriors); EM
    (Saerens et al. 2002) reweights them to the prior that makes them
    consistent with the chunk. The proxy of a chunk sample is the
    reweighted probability ``g`` of its predicted class plus ``sum_k
    posterior(k) d_k``, with ``d_k`` the reference's mean of ``correct - g``
    over its samples of class ``k`` (its accepted samples of class ``k``, for
    the selective accuracy): at EM's fixed point the mean posterior is the
    prior, so the mean proxy is the label-shift identity of
    :mod:`._label_shift`. ``d`` is cross-validated (:data:`RESIDUAL_FOLDS`
    folds of the reference by position, each calibrated by the fit on the
    others), since the fit on all of it would leave residuals too small on
    its own samples. The prior is re-estimated for every weighting of the
    chunk (its bootstrap resamples too), and ``d`` for every resample of the
    reference and prior.
    """

    uses_chunk_weights = True

    def __init__(self, reference, correct, counts, y_index):
        self.columns = OneVsRest(IsotonicColumn, reference.proba, y_index, counts)
        k = reference.proba.shape[1]
        self.counts = np.asarray(counts, dtype=np.float64)
        self.one_hot = np.eye(k)[y_index]
        hits = self.counts @ self.one_hot
        self.prior = hits / hits.sum(axis=1, keepdims=True)
        self.reference = (reference, correct.astype(np.float64))
        self.y_index = y_index

    @cached_property
    def out_of_fold(self):
        """Each fold's samples calibrated by the fit on the other folds, per
        row (kept as values: one array the size of a calibration's grid,
        where the fits would take RESIDUAL_FOLDS of them). Fitted when first
        read: ``"auto"`` fits this method to test for a label shift, which
        needs only the prior."""
        reference, y_index = self.reference[0], self.y_index
        fold = np.arange(y_index.shape[0]) % RESIDUAL_FOLDS
        out_of_fold = np.empty((self.counts.shape[0], *reference.proba.shape))
        for f in range(RESIDUAL_FOLDS):
            columns = OneVsRest(
                IsotonicColumn, reference.proba, y_index, self.counts * (fold != f)
            )
            out_of_fold[:, fold == f] = columns.predict_proba(
                reference.proba[fold == f], slice(None)
            )
        return out_of_fold

    def chunk_prior(self, chunk, rng):
        """The chunk's class prior, by EM with the reference's fit; for a
        chunk of more than :data:`METHOD_SAMPLE_CAP` samples, on a uniform
        sample of that many (drawn from ``rng``)."""
        n_samples = chunk.proba.shape[0]
        if n_samples > METHOD_SAMPLE_CAP:
            sample = rng.choice(n_samples, METHOD_SAMPLE_CAP, replace=False)
            chunk = chunk.take(np.sort(sample))
        proba = self.columns.predict_proba(chunk.proba, slice(0, 1))
        prior, _ = em_prior(proba, self.prior[:1], np.ones(proba.shape[:2]))
        return prior[0]

    def residuals(self, rows, prior):
        """``(d, d_accepted)``, each (rows, k): the reference's mean residual
        per class of the posterior of the predicted class moved to ``prior``
        (on all, on the accepted samples), each fold of the reference
        calibrated by the fit on the others (in blocks of rows, to bound
        memory)."""
        reference, correct = self.reference
        accepted = reference.accepted
        step = _rows_per_block(reference.proba.size, _MONITOR_BLOCK_ELEMENTS)
        first, stop, _ = rows.indices(self.counts.shape[0])
        blocks = ([], [])
        for start in range(first, stop, step):
            block = slice(start, min(start + step, stop))
            moved = shift_posterior(
                self.out_of_fold[block],
                self.prior[block],
                prior[start - first : block.stop - first],
            )
            g = np.take_along_axis(moved, reference.pred_index[None, :, None], axis=-1)[
                ..., 0
            ]
            counts = self.counts[block]
            blocks[0].append(class_residuals(g, correct, self.one_hot, counts))
            blocks[1].append(
                class_residuals(
                    g[:, accepted],
                    correct[accepted],
                    self.one_hot[accepted],
                    counts[:, accepted],
                )
            )
        return tuple(np.concatenate(b) for b in blocks)

    def proxies(self, chunk, rows, weights=None):
        proba = self.columns.predict_proba(chunk.proba, rows)
        if weights is None:
            weights = np.ones(proba.shape[:2])
        weights = np.broadcast_to(np.asarray(weights, np.float64), proba.shape[:2])
        prior, posterior = em_prior(proba, self.prior[rows], weights)
        picked = np.take_along_axis(
            posterior, chunk.pred_index[None, :, None], axis=-1
        )[..., 0]
        return tuple(
            picked + np.einsum("rnk,rk->rn", posterior, d)
            for d in self.residuals(rows, prior)
        )


class _ImportanceWeighted:
    """CBPE re-weighted to the chunk's inputs (doubly robust, PAPE's weights).

    Per side (all reference samples, the accepted ones), a base prediction
    of correctness: the CBPE calibration of the probability of the predicted
    class, each class calibrated only where that lowers its held-out
    calibration error (:class:`BasePrediction`). A chunk's proxy is its base
    plus the reference's mean residual of the base re-weighted to the chunk
    by the cross-fitted, clipped density ratio of chunk to reference inputs
    (:func:`density_ratio`), shrunk by its noise
    (:meth:`BasePrediction.correction`).
    Unbound (:meth:`proxies`) the weights are one: the reference bands.
    :meth:`for_inputs` binds it to a chunk's inputs.
    """

    needs_proba = True
    needs_inputs = True

    def __init__(self, reference, correct, counts, y_index):
        self.counts = np.asarray(counts, dtype=np.float64)
        self._reference = (reference, y_index)
        self.sides = None
        self.features = None

    def fit_inputs(self, features, rng):
        """Keep the reference inputs (as the final classifier sees them) and
        fit the two bases (``rng`` cuts their folds)."""
        reference, y_index = self._reference
        if not all_finite(features):
            raise ValueError(NOT_FINITE.format("X_reference"))
        self.features = features
        everything = np.ones(reference.score.shape[0], dtype=bool)
        self.sides = tuple(
            (
                mask,
                BasePrediction(
                    reference.proba[mask],
                    reference.pred_index[mask],
                    y_index[mask],
                    self.counts[:, mask],
                    rng,
                ),
            )
            for mask in (everything, reference.accepted)
        )
        return self

    def proxies(self, chunk, rows, ratio=None, shrink=True):
        values = []
        for mask, base in self.sides:
            weights = self.counts[rows][:, mask]
            if ratio is not None:
                weights = weights * ratio[mask]
            correction = base.correction(weights, rows, shrink)
            prediction = base.predict(chunk.proba, chunk.pred_index, rows)
            values.append(prediction + correction[:, None])
        return tuple(values)

    def for_inputs(self, features, rng):
        """``(bound method, clipped share)`` for a chunk's finite inputs
        (:meth:`FittedMethods._choose` checks them, once): the method with the
        chunk's density ratio (unbound, NaN, for a chunk of fewer than two
        samples), fitted on a uniform sample of :data:`METHOD_SAMPLE_CAP`
        samples of a larger chunk."""
        n_samples = features.shape[0]
        if n_samples < 2:
            return self, np.nan
        if n_samples > METHOD_SAMPLE_CAP:
            sample = rng.choice(n_samples, METHOD_SAMPLE_CAP, replace=False)
            features = safe_indexing(features, np.sort(sample))
        ratio = density_ratio(
            self.features, features, random_state=int(rng.integers(2**31 - 1))
        )
        return _Reweighted(self, ratio.reference), ratio.clipped_share


NOT_FINITE = (
    "{} contains NaN or infinity as the classifier sees it, so "
    "method='importance_weighted' cannot fit its density ratio (a logistic "
    "regression on those inputs). Impute them before the classifier (e.g. a "
    "SimpleImputer in its pipeline), or use method='auto' (which then takes "
    "'calibrated_ac') or method='calibrated_ac'."
)


class _Reweighted:
    """:class:`_ImportanceWeighted` bound to one chunk's density ratio, its
    correction shrunk (the estimate) or not (``shrink=False``: the
    intervals', :attr:`for_intervals`)."""

    needs_proba = True

    def __init__(self, method, ratio, shrink=True):
        self.method, self.ratio, self.shrink = method, ratio, shrink

    def proxies(self, chunk, rows):
        return self.method.proxies(chunk, rows, self.ratio, self.shrink)

    @property
    def for_intervals(self):
        """The method whose bootstrap gives the intervals: the unshrunk
        correction's (:mod:`._shrinkage`)."""
        return _Reweighted(self.method, self.ratio, shrink=False)

    def from_intervals(self, proxies):
        """Row 0's proxies from those of :attr:`for_intervals` (row 0): each
        side's own correction (shrunk, unless this is the unshrunk twin) in
        place of the unshrunk one, without predicting the chunk's base
        again."""
        shifted = []
        for (mask, base), values in zip(self.method.sides, proxies, strict=True):
            weights = self.ratio[None, mask]
            gap = base.correction(weights, slice(0, 1), self.shrink) - base.correction(
                weights, slice(0, 1), False
            )
            shifted.append(values + gap[:, None])
        return tuple(shifted)

    def noise_variances(self):
        """The per-sample variance of correctness around the intervals'
        (unshrunk) proxies on the chunk's distribution (all, accepted):
        :meth:`BasePrediction.noise_variance` under the ratio."""
        return tuple(
            base.noise_variance(self.ratio[mask]) for mask, base in self.method.sides
        )

    def effective_sizes(self):
        """Kish's effective size of the weighted reference (all, accepted)."""
        sizes = []
        for mask, _ in self.method.sides:
            weights = self.ratio[mask]
            sizes.append(float(weights.sum() ** 2 / np.sum(weights**2)))
        return tuple(sizes)


METHODS = {
    "atc": _ATC,
    "ac": _AverageConfidence,
    "doc": _DifferenceOfConfidences,
    "calibrated_ac": _TopLabelCalibratedConfidence,
    "cbpe": _CalibratedAverageConfidence,
    "label_shift_em": _LabelShiftEM,
    "importance_weighted": _ImportanceWeighted,
}


def estimates_for_rows(method, chunk, counts, rows):
    """Accuracy and selective accuracy for reference rows ``rows`` (a slice).

    ``counts`` (len(rows), m) weighs the chunk's samples (ones for the point
    estimate, resample counts for the bootstrap). Rows whose chunk resample has
    no accepted sample give NaN selective accuracy. Estimates are clipped to
    [0, 1] (DoC can leave it).
    """
    return weighted_estimates(method.proxies(chunk, rows), chunk, counts)


def weighted_estimates(proxies, chunk, counts):
    """:func:`estimates_for_rows` from the proxies ``method.proxies`` returned,
    so that several weightings of one block share them."""
    everything, selective = proxies
    counts = np.asarray(counts, dtype=np.float64)
    accepted = chunk.accepted
    accuracy = _weighted_means(np.broadcast_to(everything, counts.shape), counts)
    selective_counts = counts[:, accepted]
    selective = np.broadcast_to(selective, counts.shape)[:, accepted]
    selective_accuracy = _weighted_means(selective, selective_counts)
    return np.clip(accuracy, 0.0, 1.0), np.clip(selective_accuracy, 0.0, 1.0)
