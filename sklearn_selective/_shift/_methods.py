"""Label-free estimates of accuracy and selective accuracy, batched over resamples.

Every method is fitted once per reference weight vector: row 0 of ``counts`` is
the reference itself (all ones), rows 1..B are bootstrap resamples (how often
each reference sample was drawn). A fitted method turns a chunk's model outputs
into a per-sample *proxy of correctness* for each row; the estimate is the
(resample-weighted) mean of the proxy over the chunk (accuracy) or over its
accepted samples (selective accuracy). So the point estimate, the bootstrap
interval and the reference band are the same computation.
"""

import numpy as np

from ..confidence._calibrators import IsotonicColumn, OneVsRest
from ..metrics._core._group_stats import group_ties
from ._accuracy_estimates import _atc_thresholds
from ._label_shift import consistent_with_label_shift, em_prior


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
    on the reference labels, the calibrated rows are renormalised to sum to
    one, and the proxy is the calibrated probability of the predicted class
    (the calibration step of NannyML's CBPE).
    """

    needs_proba = True

    def __init__(self, reference, correct, counts, y_index):
        accepted = reference.accepted
        self.columns = OneVsRest(IsotonicColumn, reference.proba, y_index, counts)
        self.selective = OneVsRest(
            IsotonicColumn,
            reference.proba[accepted],
            y_index[accepted],
            counts[:, accepted],
        )

    @staticmethod
    def _calibrated_pred(columns, chunk, rows):
        calibrated = columns.predict_proba(chunk.proba, rows)
        return np.take_along_axis(calibrated, chunk.pred_index[None, :, None], axis=-1)[
            ..., 0
        ]

    def proxies(self, chunk, rows):
        return (
            self._calibrated_pred(self.columns, chunk, rows),
            self._calibrated_pred(self.selective, chunk, rows),
        )


class _LabelShiftEM(_CalibratedAverageConfidence):
    """Average confidence under the chunk's class prior, estimated by EM.

    The posteriors are the reference's per-class isotonic calibration (as for
    ``"cbpe"``); EM (Saerens et al. 2002) reweights them to the prior that
    makes them consistent with the chunk; the proxy is the reweighted
    probability of the predicted class, for the accuracy and, on the accepted
    samples, the selective accuracy. The prior is re-estimated for every
    weighting of the chunk (its bootstrap resamples too).
    """

    uses_chunk_weights = True

    def __init__(self, reference, correct, counts, y_index):
        self.columns = OneVsRest(IsotonicColumn, reference.proba, y_index, counts)
        k = reference.proba.shape[1]
        counts = np.asarray(counts, dtype=np.float64)
        hits = np.stack([counts[:, y_index == j].sum(axis=1) for j in range(k)], 1)
        self.prior = hits / hits.sum(axis=1, keepdims=True)

    def chunk_prior(self, chunk):
        """The chunk's class prior, by EM with the reference's fit."""
        proba = self.columns.predict_proba(chunk.proba, slice(0, 1))
        prior, _ = em_prior(proba, self.prior[:1], np.ones(proba.shape[:2]))
        return prior[0]

    def proxies(self, chunk, rows, weights=None):
        proba = self.columns.predict_proba(chunk.proba, rows)
        if weights is None:
            weights = np.ones(proba.shape[:2])
        weights = np.broadcast_to(np.asarray(weights, np.float64), proba.shape[:2])
        _, posterior = em_prior(proba, self.prior[rows], weights)
        picked = np.take_along_axis(
            posterior, chunk.pred_index[None, :, None], axis=-1
        )[..., 0]
        return picked, picked


METHODS = {
    "atc": _ATC,
    "ac": _AverageConfidence,
    "doc": _DifferenceOfConfidences,
    "calibrated_ac": _TopLabelCalibratedConfidence,
    "cbpe": _CalibratedAverageConfidence,
    "label_shift_em": _LabelShiftEM,
}


class FittedMethods:
    """The fitted method of a monitor, or for ``"auto"`` the two it picks from.

    ``bands`` is the method whose reference proxies give the bands;
    :meth:`for_chunk` says which method estimates a chunk.
    """

    def __init__(self, name, reference, correct, counts, y_index):
        self.name = name
        self._data = (reference, correct, counts, y_index)
        self.fitted = {}
        self.bands = self.get("calibrated_ac" if name == "auto" else name)

    def get(self, name):
        """The method ``name``, fitted on first use (``"auto"`` fits its EM
        adjustment only once a chunk's inputs move)."""
        if name not in self.fitted:
            self.fitted[name] = METHODS[name](*self._data)
        return self.fitted[name]

    def for_chunk(self, chunk, drift_scores, calibration_labels, drifted):
        """``(method, its name, the chunk's EM prior or NaN)``.

        ``"auto"`` takes the label-shift adjusted estimate when the inputs
        moved (``drifted``: the drift signal fired) and reweighting the
        reference by the chunk's estimated prior makes the domain classifier's
        held-out scores indistinguishable from the chunk's (a label shift
        explains the move); the calibrated average confidence otherwise
        (and without a domain classifier). The prior is estimated for every
        chunk of ``"label_shift_em"``, and for the chunks of ``"auto"`` whose
        inputs moved.
        """
        if self.name != "auto":
            prior = np.nan
            if self.name == "label_shift_em":
                prior = self.bands.chunk_prior(chunk)
            return self.bands, self.name, prior
        if not drifted:
            return self.bands, "calibrated_ac", np.nan
        label_shift = self.get("label_shift_em")
        prior = label_shift.chunk_prior(chunk)
        name = "calibrated_ac"
        if consistent_with_label_shift(
            *drift_scores, prior / label_shift.prior[0], calibration_labels
        ):
            name = "label_shift_em"
        return self.get(name), name, prior


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
