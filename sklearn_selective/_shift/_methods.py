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
from sklearn.isotonic import isotonic_regression

try:  # scipy >= 1.12: the same PAVA behind a wrapper 12x lighter per call
    from scipy.optimize import isotonic_regression as _scipy_isotonic_regression
except ImportError:  # pragma: no cover (the minimum versions)
    _scipy_isotonic_regression = None

from ..metrics._core._group_stats import group_ties
from ._functions import _atc_thresholds
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


def _increasing_fit(values, weights):
    """The weighted isotonic (increasing) regression of ``values`` in [0, 1].

    scipy's, where it has one, else scikit-learn's: both pool adjacent
    violators exactly; bounding an isotonic fit to [0, 1] is clipping it.
    """
    if _scipy_isotonic_regression is None:
        return isotonic_regression(values, sample_weight=weights, y_min=0.0, y_max=1.0)
    return np.clip(_scipy_isotonic_regression(values, weights=weights).x, 0.0, 1.0)


class _IsotonicColumn:
    """One-vs-rest isotonic calibration of one probability column, per row.

    Each row's isotonic fit is stored on the grid of the distinct reference
    values (``on_grid``, shape ``(rows, n_distinct)``), so evaluating all rows
    on a chunk is one gather: linear interpolation between grid points equals
    IsotonicRegression's linear interpolation between its knots (clipped
    outside the reference range).
    """

    def __init__(self, values, is_class, counts):
        groups = group_ties(values)
        weight = groups.sum(counts.astype(np.float64))
        hits = groups.sum(counts * is_class)
        self.grid = groups.values
        self.on_grid = np.full(weight.shape, np.nan)
        for row, (row_weight, row_hits) in enumerate(zip(weight, hits, strict=True)):
            keep = row_weight > 0
            if not keep.any():
                continue
            fitted = _increasing_fit(
                row_hits[keep] / row_weight[keep], row_weight[keep]
            )
            self.on_grid[row] = np.interp(self.grid, self.grid[keep], fitted)

    def predict(self, values, rows):
        """Calibrated ``values`` for each row in ``rows``, shape ``(rows, n)``."""
        last = self.grid.shape[0] - 1
        above = np.searchsorted(self.grid, values, side="right")
        high = np.minimum(above, last)
        low = np.maximum(above - 1, 0)
        span = self.grid[high] - self.grid[low]
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(span > 0, (values - self.grid[low]) / span, 0.0)
        on_grid = self.on_grid[rows]
        return on_grid[:, low] * (1.0 - share) + on_grid[:, high] * share


def per_class_calibrators(proba, y_index, counts):
    """One-vs-rest isotonic calibration of every probability column, per row
    of ``counts``."""
    return [
        _IsotonicColumn(proba[:, j], y_index == j, counts)
        for j in range(proba.shape[1])
    ]


def calibrated_proba(columns, chunk, rows):
    """The calibrated, renormalised probabilities ``(rows, n, k)`` of a chunk; a
    sample calibrated to zero for every class keeps the model's probabilities."""
    calibrated = np.stack(
        [column.predict(chunk.proba[:, j], rows) for j, column in enumerate(columns)],
        axis=-1,
    )
    total = calibrated.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, calibrated / total, chunk.proba[None])


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
        self.column = _IsotonicColumn(reference.proba_pred, correct, counts)
        self.selective = _IsotonicColumn(
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
        self.columns = per_class_calibrators(reference.proba, y_index, counts)
        self.selective = per_class_calibrators(
            reference.proba[accepted], y_index[accepted], counts[:, accepted]
        )

    @staticmethod
    def _calibrated_pred(columns, chunk, rows):
        calibrated = calibrated_proba(columns, chunk, rows)
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
        self.columns = per_class_calibrators(reference.proba, y_index, counts)
        k = reference.proba.shape[1]
        counts = np.asarray(counts, dtype=np.float64)
        hits = np.stack([counts[:, y_index == j].sum(axis=1) for j in range(k)], 1)
        self.prior = hits / hits.sum(axis=1, keepdims=True)

    def chunk_prior(self, chunk):
        """The chunk's class prior, by EM with the reference's fit."""
        proba = calibrated_proba(self.columns, chunk, slice(0, 1))
        prior, _ = em_prior(proba, self.prior[:1], np.ones(proba.shape[:2]))
        return prior[0]

    def proxies(self, chunk, rows, weights=None):
        proba = calibrated_proba(self.columns, chunk, rows)
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
