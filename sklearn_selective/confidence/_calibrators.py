"""Calibrators of class probabilities: one room for every calibration the
products fit on held-out (validation or reference) probabilities.

Two kinds, one interface each:

- **Calibrators of a probability matrix**, fitted once on one weighting:
  ``fit(proba, y_index, weights)`` and ``transform(proba)`` on probability
  matrices ``(n_samples, n_classes)`` with class indices ``y_index``
  (:class:`TemperatureCalibrator`, :class:`IsotonicCalibrator`, named in
  :data:`CALIBRATORS`; the cost rule of ``SelectiveClassifier`` uses them).
- **Calibrators batched over weightings**, fitted at once for every row of a
  matrix of sample weights ``counts`` ``(n_rows, n_samples)`` (row 0 the data
  itself, the other rows bootstrap resamples, as the performance monitor
  needs): the constructor fits, ``predict(..., rows)`` evaluates the fits of
  ``rows`` (a slice) on new values, shape ``(len(rows), n)`` (``(len(rows),
  n, n_classes)`` for whole matrices). A *column* calibrates one score against
  a binary outcome (:class:`IsotonicColumn`, :class:`PlattColumn`);
  :class:`OneVsRest` calibrates every class's probability against the class
  with one column kind, :class:`TopLabelPerClass` the probability of the
  predicted class against correctness, per predicted class.
"""

import math

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.sparse import csr_matrix
from scipy.special import log_softmax
from sklearn.isotonic import IsotonicRegression, isotonic_regression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedShuffleSplit

try:  # scipy >= 1.12: the same PAVA behind a wrapper 12x lighter per call
    from scipy.optimize import isotonic_regression as _scipy_isotonic_regression
except ImportError:  # pragma: no cover (the minimum versions)
    _scipy_isotonic_regression = None

_TINY = np.finfo(np.float64).tiny
# From this many rows of fits on, :meth:`IsotonicColumn.predict` interpolates
# by a sparse product rather than by gathers.
_SPARSE_ROWS = 8


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


# ----------------------------------------------------------------------------------
# Calibrators batched over weightings (rows of ``counts``)
# ----------------------------------------------------------------------------------
def _tie_totals(values, *weighted):
    """The distinct ``values`` (ascending) and the per-value totals of each array
    of ``weighted`` (shape ``(..., n)``): one sort, ties summed in sorted order."""
    order = np.argsort(values)
    sorted_values = values[order]
    is_start = np.empty(sorted_values.shape[0], dtype=bool)
    is_start[:1] = True
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=is_start[1:])
    starts = np.flatnonzero(is_start)
    totals = []
    for array in weighted:
        in_order = array.take(order, axis=-1)
        if starts.shape[0] < sorted_values.shape[0]:
            in_order = np.add.reduceat(in_order, starts, axis=-1)
        totals.append(in_order)
    return sorted_values[starts], totals


def increasing_fit(values, weights):
    """The weighted isotonic (increasing) regression of ``values`` in [0, 1].

    scipy's, where it has one, else scikit-learn's: both pool adjacent
    violators exactly; bounding an isotonic fit to [0, 1] is clipping it.
    """
    if _scipy_isotonic_regression is None:
        return isotonic_regression(values, sample_weight=weights, y_min=0.0, y_max=1.0)
    return np.clip(_scipy_isotonic_regression(values, weights=weights).x, 0.0, 1.0)


class IsotonicColumn:
    """Isotonic calibration of one score against a binary outcome, per row of
    ``counts``.

    Each row's isotonic fit is stored on the grid of the distinct fitted
    values (``on_grid``, shape ``(rows, n_distinct)``), so evaluating all rows
    on new values is one gather: linear interpolation between grid points
    equals IsotonicRegression's linear interpolation between its knots
    (clipped outside the fitted range). Rows without weight give NaN.
    """

    def __init__(self, values, outcome, counts):
        counts = np.asarray(counts)
        self.grid, (weight, hits) = _tie_totals(
            values, counts.astype(np.float64), counts * outcome
        )
        self.on_grid = np.full(weight.shape, np.nan)
        for row, (row_weight, row_hits) in enumerate(zip(weight, hits, strict=True)):
            keep = row_weight > 0
            if not keep.any():
                continue
            fitted = increasing_fit(row_hits[keep] / row_weight[keep], row_weight[keep])
            self.on_grid[row] = np.interp(self.grid, self.grid[keep], fitted)
        self._knots = {}

    def knots(self, row):
        """``(grid, fitted)`` of row ``row``'s fit at the ends of its constant
        runs only: an isotonic fit is flat between them, so numpy's
        interpolation on these points equals the one on the whole grid to the
        last bit (a flat segment gives its value exactly), with a search over
        a few dozen points rather than every distinct reference value."""
        if row not in self._knots:
            fitted = self.on_grid[row]
            flat = fitted[1:] == fitted[:-1]
            keep = np.ones(fitted.shape[0], dtype=bool)
            keep[1:-1] = ~(flat[:-1] & flat[1:])
            self._knots[row] = (self.grid[keep], fitted[keep])
        return self._knots[row]

    def predict(self, values, rows):
        """Calibrated ``values`` for each row in ``rows``, shape ``(rows, n)``."""
        on_grid = self.on_grid[rows]
        if on_grid.shape[0] == 1:  # one fit: numpy's own interpolation
            (row,) = range(self.on_grid.shape[0])[rows]
            return np.interp(values, *self.knots(row))[None, :]
        last = self.grid.shape[0] - 1
        above = np.searchsorted(self.grid, values, side="right")
        high = np.minimum(above, last)
        low = np.maximum(above - 1, 0)
        span = self.grid[high] - self.grid[low]
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(span > 0, (values - self.grid[low]) / span, 0.0)
        if on_grid.shape[0] < _SPARSE_ROWS:
            return on_grid[:, low] * (1.0 - share) + on_grid[:, high] * share
        # Many rows: one sparse product (two weights per value) instead of two
        # gathers of (rows, n), the same sums, several times faster.
        n = values.shape[0]
        interpolation = csr_matrix(
            (
                np.concatenate([1.0 - share, share]),
                (np.tile(np.arange(n), 2), np.concatenate([low, high])),
            ),
            shape=(n, self.grid.shape[0]),
        )
        return (interpolation @ on_grid.T).T


def logit(p):
    """``log(p / (1 - p))``, with ``p`` kept 1e-12 inside (0, 1)."""
    p = np.clip(p, 1e-12, 1.0 - 1e-12)
    return np.log(p) - np.log1p(-p)


class PlattColumn:
    """Platt scaling of one score against a binary outcome, per row of ``counts``.

    ``P(outcome | p) = sigmoid(a + b logit(p))``, fitted by Newton's method on
    the weighted log-loss with Platt's (1999) smoothed targets ``(n+ + 1) /
    (n+ + 2)`` and ``1 / (n- + 2)``, which keep the fit finite when every
    outcome is the same. Rows with less than two samples' weight give NaN.
    """

    def __init__(self, values, outcome, counts, max_iter=50):
        z = logit(values)[None, :]
        w = np.asarray(counts, dtype=np.float64)
        self._positives = (w * outcome).sum(axis=1)
        self._negatives = w.sum(axis=1) - self._positives
        # Row 0 (the unweighted data) first; the resamples start from its fit.
        a, b = self._newton(z, outcome, w[:1], np.zeros(1), np.ones(1), max_iter)
        a, b = self._newton(
            z,
            outcome,
            w,
            np.full(w.shape[0], a[0]),
            np.full(w.shape[0], b[0]),
            max_iter,
        )
        scarce = w.sum(axis=1) < 2
        self.a, self.b = np.where(scarce, np.nan, a), np.where(scarce, np.nan, b)

    @staticmethod
    def _targets(outcome, positives, negatives):
        """Platt's smoothed targets ``(rows, n)`` of ``outcome`` for rows with
        ``positives`` and ``negatives`` (their weights, shape ``(rows,)``)."""
        return np.where(
            outcome[None, :],
            ((positives + 1) / (positives + 2))[:, None],
            (1 / (negatives + 2))[:, None],
        )

    @staticmethod
    def _newton(z, outcome, w, a, b, max_iter):
        positives = (w * outcome).sum(axis=1)
        target = PlattColumn._targets(outcome, positives, w.sum(axis=1) - positives)
        a, b = np.nan_to_num(a), np.nan_to_num(b, nan=1.0)
        for _ in range(max_iter):
            mu = 1.0 / (1.0 + np.exp(-(a[:, None] + b[:, None] * z)))
            gap, curvature = w * (target - mu), w * mu * (1.0 - mu) + 1e-12
            g_a, g_b = gap.sum(axis=1), (gap * z).sum(axis=1)
            h_aa = curvature.sum(axis=1)
            h_ab, h_bb = (curvature * z).sum(axis=1), (curvature * z**2).sum(axis=1)
            det = h_aa * h_bb - h_ab**2
            with np.errstate(invalid="ignore", divide="ignore"):
                step_a = np.where(det > 0, (h_bb * g_a - h_ab * g_b) / det, g_a / h_aa)
                step_b = np.where(det > 0, (h_aa * g_b - h_ab * g_a) / det, 0.0)
            size = np.maximum(1.0, np.hypot(step_a, step_b) / 5.0)  # damped
            a, b = a + step_a / size, b + step_b / size
            if np.nanmax(np.abs(np.r_[step_a, step_b])) < 1e-8:
                break
        return a, b

    def predict(self, values, rows):
        """Calibrated ``values`` for each row in ``rows``, shape ``(rows, n)``."""
        z = logit(values)[None, :]
        return 1.0 / (1.0 + np.exp(-(self.a[rows, None] + self.b[rows, None] * z)))

    def target(self, outcome, rows):
        """The smoothed targets ``(rows, n)`` the fit of each row in ``rows``
        (a slice) gave ``outcome``: on the samples of the fit, their weighted mean
        minus the prediction's is 0 (the intercept's score equation)."""
        return self._targets(outcome, self._positives[rows], self._negatives[rows])


class IdentityColumn:
    """One score left as it is, for every row of ``counts`` (the column kind of
    a class that calibration does not help, see :func:`isotonic_helps`)."""

    def __init__(self, values, outcome, counts):
        self.n_rows = np.shape(counts)[0]

    def predict(self, values, rows):
        """``values`` for each row in ``rows``, shape ``(rows, n)``."""
        return np.broadcast_to(values, (len(range(self.n_rows)[rows]), len(values)))


def _binned_calibration_error(values, outcome, n_bins):
    """Expected calibration error over ``n_bins`` bins of equal counts of the
    sorted ``values``."""
    order = np.argsort(values, kind="stable")
    edges = np.linspace(0, len(values), n_bins + 1).astype(int)
    values, outcome = values[order], outcome[order]
    gaps = np.add.reduceat(values - outcome, edges[:-1])
    return float(np.abs(gaps).sum() / len(values))


def isotonic_helps(values, outcome, random_state, n_splits=10, n_bins=10):
    """Whether isotonic calibration of one score lowers its calibration error
    on held-out samples (NannyML's test before calibrating a class in CBPE).

    ``n_splits`` stratified random splits hold out a tenth of the samples
    each; the calibration is fitted on the rest. The held-out samples of all
    splits are pooled, and the expected calibration error (``n_bins`` bins of
    equal counts) of the calibrated scores is compared with that of the raw
    ones. False where ``outcome`` is constant, where the score ranks it
    perfectly, or where there are too few samples to split.
    """
    outcome = np.asarray(outcome, dtype=bool)
    n_minority = min(outcome.sum(), (~outcome).sum())
    if n_minority < 2 or len(values) < 2 * n_bins:
        return False
    if roc_auc_score(outcome, values) > 0.999:
        return False
    splits = StratifiedShuffleSplit(
        n_splits=n_splits, test_size=0.1, random_state=random_state
    ).split(values, outcome)
    raw, calibrated, held_out = [], [], []
    for train, test in splits:
        column = IsotonicColumn(values[train], outcome[train], np.ones((1, len(train))))
        raw.append(values[test])
        calibrated.append(column.predict(values[test], slice(0, 1))[0])
        held_out.append(outcome[test])
    held_out = np.concatenate(held_out).astype(np.float64)
    before = _binned_calibration_error(np.concatenate(raw), held_out, n_bins)
    after = _binned_calibration_error(np.concatenate(calibrated), held_out, n_bins)
    return after < before


def helped_columns(proba, y_index, random_state=0):
    """The column kind of each class of ``proba``: :class:`IsotonicColumn` where
    :func:`isotonic_helps` (NannyML's test; in a binary problem one test, on
    the second class, decides for both columns), :class:`IdentityColumn`
    elsewhere. The splits are drawn from ``random_state`` (fixed by default,
    so that a reference always gets the same choice)."""
    n_classes = proba.shape[1]
    tested = [1] if n_classes == 2 else range(n_classes)
    helped = {
        j: isotonic_helps(proba[:, j], y_index == j, random_state) for j in tested
    }
    if n_classes == 2:
        helped[0] = helped[1]
    return [IsotonicColumn if helped[j] else IdentityColumn for j in range(n_classes)]


class OneVsRest:
    """Each class's probability calibrated against the class by ``column`` (a
    column kind: :class:`IsotonicColumn`, :class:`PlattColumn` or
    :class:`IdentityColumn`; or a sequence of kinds, one per class), per row
    of ``counts``."""

    def __init__(self, column, proba, y_index, counts):
        n_classes = proba.shape[1]
        kinds = column if isinstance(column, (list, tuple)) else [column] * n_classes
        self.columns = [
            kind(proba[:, j], y_index == j, counts) for j, kind in enumerate(kinds)
        ]

    def predict(self, proba, rows):
        """The calibrated columns ``(rows, n, k)``, not renormalised."""
        columns = [c.predict(proba[:, j], rows) for j, c in enumerate(self.columns)]
        return np.stack(np.broadcast_arrays(*columns), axis=-1)

    def predict_proba(self, proba, rows):
        """The calibrated rows renormalised to sum to one ``(rows, n, k)``; a
        sample calibrated to zero for every class keeps its probabilities."""
        calibrated = self.predict(proba, rows)
        total = calibrated.sum(axis=-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, calibrated / total, proba[None])

    def predict_picked(self, proba, index, rows):
        """The column ``index`` (n,) of each sample of :meth:`predict_proba`,
        ``(rows, n)``, without building the whole matrix: that class's
        calibrated column over the sum of all of them."""
        parts = [c.predict(proba[:, j], rows) for j, c in enumerate(self.columns)]
        if len(parts) > 1:  # a new array: parts[0] may be a read-only view
            total = np.add(parts[0], parts[1], dtype=np.float64)
        else:
            total = np.array(parts[0], dtype=np.float64)
        for part in parts[2:]:
            total += part
        shape = total.shape
        picked = np.array(np.broadcast_to(parts[0], shape), order="K")
        for j, part in enumerate(parts[1:], start=1):
            np.copyto(picked, part, where=index == j)
        positive = total > 0
        np.divide(picked, total, out=picked, where=positive)
        if not positive.all():  # a sample calibrated to zero keeps its own
            own = proba[np.arange(proba.shape[0]), index]
            np.copyto(picked, np.broadcast_to(own, shape), where=~positive)
        return np.ascontiguousarray(picked)


class TopLabelPerClass:
    """Top-label calibration per predicted class: for each class,
    :class:`PlattColumn` of correctness on the probability of the
    predicted class over the samples predicted as it (top-label calibration
    as Gupta & Ramdas 2022 define it), per row of ``counts``; the same pooled
    over all predictions where a row has too few samples predicted as the
    class (NaN from the class's own fit)."""

    def __init__(self, proba_pred, pred_index, correct, counts):
        self.pooled = PlattColumn(proba_pred, correct, counts)
        self.columns = {}
        for k in np.unique(pred_index):
            members = pred_index == k
            self.columns[k] = PlattColumn(
                proba_pred[members], correct[members], counts[:, members]
            )

    def predict(self, proba_pred, pred_index, rows):
        """Calibrated probability of each prediction ``(rows, n)``."""
        calibrated = self.pooled.predict(proba_pred, rows)
        for k, column in self.columns.items():
            members = pred_index == k
            if members.any():
                own = column.predict(proba_pred[members], rows)
                calibrated[:, members] = np.where(
                    np.isnan(own), calibrated[:, members], own
                )
        return calibrated

    def residual(self, proba_pred, pred_index, correct, rows):
        """``(rows, n)`` for the rows of ``rows`` (a slice): per sample of
        the fit, the smoothed target its class's own fit gave it
        (:meth:`PlattColumn.target`) minus its calibrated probability; NaN
        where that fit is NaN (a row with less than two samples' weight of the
        class). The residuals of a class average 0 under the counts of its
        fit, so that a correction by them re-weighted by ones changes nothing;
        against the correctness itself Platt's smoothing would leave ``1 / (n
        + 2)`` (``1 / 15`` for 13 samples, all right)."""
        residual = np.full((len(self.pooled.a[rows]), len(correct)), np.nan)
        for k, column in self.columns.items():
            members = pred_index == k
            if members.any():
                target = column.target(correct[members], rows)
                residual[:, members] = target - column.predict(
                    proba_pred[members], rows
                )
        return residual


def with_top_label(proba, top, pred_index):
    """Probabilities ``(r, n, k)`` whose predicted class has the top-label
    calibrated probability ``top`` (r, n), the other classes sharing the rest
    in the proportions of ``proba`` (evenly where those are all zero)."""
    n_classes = proba.shape[-1]
    picked = pred_index[:, None] == np.arange(n_classes)[None, :]
    others = np.where(picked, 0.0, proba)
    total = others.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(
            total > 0, others / total, np.where(picked, 0.0, 1.0 / (n_classes - 1))
        )
    return np.where(picked, top[..., None], (1.0 - top[..., None]) * share)
