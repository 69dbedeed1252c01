"""Per-class precision and recall among the accepted samples, and the mean cost.

Once its labels arrive, a chunk has, for each class ``k``, a realised
*selective precision* (the share of its accepted predictions of ``k`` that are
right), a realised *selective recall* (the share of its accepted samples of
true class ``k`` predicted ``k``) and, for a ``SelectiveClassifier`` with a cost
matrix ``C`` and rejection costs ``r``, a realised *cost* per sample
(``C[y, prediction]`` for an accepted sample, ``r[y]`` for a rejected one,
averaged over the chunk).

Without labels each is estimated from class probabilities calibrated on the
reference (on its accepted samples for the accepted chunk samples, on all of
them for the rejected ones). The predicted class gets its top-label calibrated
probability: Platt scaling of correctness on the probability of the predicted
class, over the reference samples predicted as that class (top-label
calibration as Gupta & Ramdas 2022 define it, conditional on the predicted
class). The other classes share the rest in the proportions of their
one-vs-rest Platt scalings. The estimates are the expected counts these
probabilities give: expected hits over predictions for the precision, over
the expected class count for the recall; the mean expected cost. Where the
chunk's estimate is label-shift adjusted (``"label_shift_em"``), the
probabilities are reweighted to the chunk's class prior estimated by EM; where
it is re-weighted to the chunk's inputs (``"importance_weighted"``), each
predicted class's top-label probability gets the doubly robust correction of
the accuracy's estimate: the reference's residual of its calibration among
the samples predicted as the class, re-weighted by the chunk's density ratio
(times the bootstrap counts) and shrunk by its noise
(:func:`._shrinkage.shrunk_correction`). Refitting the calibrations
under these weights instead, as before, erred more in
``benchmarks/bench_monitor.py`` (the mean over classes of the selective
precision / recall error over its six covariate-shift rows, 10 repetitions:
0.0379 / 0.0207 now, 0.0435 / 0.0263 refitted, 0.0379 / 0.0199 with no
re-weighting); on a model too smooth for its population, whose calibration
moves with the inputs (``tests/shift/test_class_estimates.py``, 5
repetitions), 0.030 / 0.027 now, 0.031 / 0.017 refitted, 0.053 / 0.046 with
none. The split of the rest among the other classes is the reference's:
refitted under the weights with the corrected top-label probability, the
recall erred more on the benchmark (0.026).

Other calibrations were tried in simulation (500 reference samples, chunks
of 200): NannyML CBPE's renormalised one-vs-rest isotonic calibration put the
precision 0.016 too high; the isotonic top-label calibration pooled over the
classes (as ``"calibrated_ac"`` has it) lets one class's over-confidence
cancel another's under-confidence; per class, the bootstrap of an isotonic
fit was too narrow (coverage 0.91-0.92).

The interval of each is a prediction interval for the realised value, by
simulation: for every bootstrap resample of the reference (the calibrations
refitted, and the EM prior re-estimated on a resample of the chunk),
``LABEL_DRAWS`` sets of labels are drawn for the chunk's samples from their
calibrated probabilities and the realised values are computed. The interval
of these values (its ends chosen for a discrete quantity:
:func:`discrete_interval`) covers the calibration's uncertainty and the label
noise together, without a normal approximation of a ratio of small counts.
(Several draws per resample: the 2.5 % and 97.5 % quantiles of only 200
values cover a new value about 94 % of the time.) It holds its level when
the calibrated probabilities are right on the chunk's distribution (no
shift, or a shift that keeps them calibrated); the coverage measured at 50
and 200 samples is in the user guide.
"""

import copy

import numpy as np

from .._utils._draws import (
    _LABEL_DRAW_BLOCK_ELEMENTS,
    _index_counts,
    _rows_per_block,
    stream_rng,
)
from .._utils._validation import label_positions
from ..confidence._calibrators import (
    IsotonicColumn,
    OneVsRest,
    PlattColumn,
    TopLabelPerClass,
    with_top_label,
)
from ._label_shift import em_prior
from ._shrinkage import shrunk_correction

# Label sets drawn per bootstrap resample of the reference.
LABEL_DRAWS = 5

CLASS_ARRAYS = (
    "selective_precision",
    "selective_precision_lower",
    "selective_precision_upper",
    "selective_recall",
    "selective_recall_lower",
    "selective_recall_upper",
)
COST_ARRAYS = ("cost", "cost_lower", "cost_upper")


def realised_class_values(y_index, pred_index, accepted, n_classes, costs):
    """Selective precision and recall per class, and the mean cost, per row.

    ``y_index`` (r, n) are class indices of the true labels (``-1`` for a label
    outside the classes: a wrong prediction of no class, and an undefined
    cost); ``pred_index`` (n,) the predictions, ``accepted`` (n,) bool.
    Returns ``precision (r, k)``, ``recall (r, k)`` (NaN where undefined) and
    ``cost (r,)`` (NaN without ``costs``, or with a label outside the classes).
    """
    rows = y_index.shape[0]
    predicted = np.bincount(pred_index[accepted], minlength=n_classes)
    truth = y_index[:, accepted]
    pred = pred_index[accepted]
    right = (truth == pred[None, :]).astype(np.float64)
    hits = right @ (pred[:, None] == np.arange(n_classes)[None, :])
    offset = (np.arange(rows) * (n_classes + 1))[:, None]
    true_counts = np.bincount(
        (truth + 1 + offset).ravel(), minlength=rows * (n_classes + 1)
    ).reshape(rows, n_classes + 1)[:, 1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(predicted > 0, hits / predicted, np.nan)
        recall = np.where(true_counts > 0, hits / true_counts, np.nan)
    cost = np.full(rows, np.nan)
    if costs is not None:
        matrix, rejection = costs
        known = y_index >= 0
        safe = np.where(known, y_index, 0)
        each = np.where(accepted, matrix[safe, pred_index], rejection[safe])
        cost = np.where(known.all(axis=1), each.mean(axis=1), np.nan)
    return precision, recall, cost


def realised_class_table(classes, samples, y, n_chunks):
    """Per chunk, the realised :func:`realised_class_values` of the monitored
    ``samples`` (a ``MonitoredSamples``) with labels ``y``: precision and
    recall ``(n_chunks, k)``, cost ``(n_chunks,)``."""
    position, known = label_positions(classes, y)
    y_index = np.where(known, position, -1)
    pred_index = label_positions(classes, samples.y_pred)[0]
    n_classes = classes.shape[0]
    precision = np.full((n_chunks, n_classes), np.nan)
    recall = np.full((n_chunks, n_classes), np.nan)
    cost = np.full(n_chunks, np.nan)
    for c in range(n_chunks):  # one pass per chunk, vectorised within
        members = samples.chunk_id == c
        if members.any():
            values = realised_class_values(
                y_index[None, members],
                pred_index[members],
                samples.accepted[members],
                n_classes,
                samples.costs,
            )
            precision[c], recall[c], cost[c] = (v[0] for v in values)
    return precision, recall, cost


def _expected_values(proba, pred_index, accepted, costs):
    """The estimates from calibrated probabilities ``proba`` (1, n, k)."""
    n_classes = proba.shape[-1]
    on_accepted = proba[0, accepted]
    pred = pred_index[accepted]
    one_hot = pred[:, None] == np.arange(n_classes)[None, :]
    hits = (on_accepted * one_hot).sum(axis=0)
    predicted = one_hot.sum(axis=0)
    expected_counts = on_accepted.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(predicted > 0, hits / predicted, np.nan)
        recall = np.where(expected_counts > 0, hits / expected_counts, np.nan)
    cost = np.nan
    if costs is not None:
        matrix, rejection = costs
        accept_cost = np.take_along_axis(proba[0] @ matrix, pred_index[:, None], 1)
        cost = float(np.where(accepted, accept_cost[:, 0], proba[0] @ rejection).mean())
    return precision, recall, cost


def _draw_labels(rng, proba, n_draws=1):
    """``n_draws`` labels per sample and row drawn from ``proba`` (r, n, k):
    shape ``(n_draws * r, n)``, the draws of one row ``r`` apart."""
    cumulative = np.cumsum(proba, axis=-1)
    uniform = rng.random((n_draws, *proba.shape[:2], 1))
    drawn = (cumulative[None] < uniform).sum(axis=-1)
    return np.minimum(drawn, proba.shape[-1] - 1).reshape(-1, proba.shape[1])


class ClassEstimates:
    """Per-class selective precision and recall, and the mean cost, of chunks.

    Fitted on the reference model outputs, its labels (class indices) and the
    bootstrap counts of the monitor (row 0 the reference itself); ``costs`` is
    ``(cost_matrix, rejection_cost)`` of a cost-sensitive estimator, or None.
    """

    def __init__(self, reference, y_index, counts, costs):
        accepted = reference.accepted
        correct = reference.pred_index == y_index
        proba_pred, pred_index = reference.proba_pred, reference.pred_index
        self.top = TopLabelPerClass(proba_pred, pred_index, correct, counts)
        self.accepted_top = TopLabelPerClass(
            proba_pred[accepted],
            pred_index[accepted],
            correct[accepted],
            counts[:, accepted],
        )
        # The split of the rest among the other classes, per resample.
        self.split = OneVsRest(PlattColumn, reference.proba, y_index, counts)
        self.accepted_split = OneVsRest(
            PlattColumn,
            reference.proba[accepted],
            y_index[accepted],
            counts[:, accepted],
        )
        # EM's input, as for "label_shift_em": the one-vs-rest isotonic
        # calibration of the reference (row 0), so that the prior is the
        # result's class_prior.
        self.columns = OneVsRest(IsotonicColumn, reference.proba, y_index, counts[:1])
        n_classes = reference.proba.shape[1]
        counts = np.asarray(counts, dtype=np.float64)
        frequencies = np.stack(
            [counts[:, y_index == j].sum(axis=1) for j in range(n_classes)], axis=1
        )
        self.prior = frequencies / frequencies.sum(axis=1, keepdims=True)
        self.costs = costs
        self.n_rows = counts.shape[0]
        self._reference = (proba_pred, pred_index, correct, accepted, counts)
        self.corrections = None

    def reweighted(self, ratio):
        """These estimates for a chunk whose reference is re-weighted by the
        density ratio ``ratio`` (one per reference sample): the top-label
        calibrated probability of each predicted class plus the reference's
        residual of that calibration among the samples predicted as the
        class, re-weighted to the chunk and shrunk by its noise
        (:func:`shrunk_correction`: the doubly robust form of the accuracy's
        importance-weighted estimate, per predicted class); the split of the
        rest among the other classes as on the reference."""
        shifted = copy.copy(self)
        everything = np.ones(self._reference[1].shape[0], dtype=bool)
        shifted.corrections = tuple(
            self._corrections(top, ratio, members)
            for top, members in (
                (self.top, everything),
                (self.accepted_top, self._reference[3]),
            )
        )
        return shifted

    def _corrections(self, top, ratio, members):
        """``(rows, k)``: per row of counts and predicted class, the shrunk
        re-weighted mean residual of that row's ``top`` on the reference
        ``members`` (each bootstrap row's residual is its own fit's, so that
        the resamples carry the whole estimate's variability)."""
        proba_pred, pred_index, correct, _, counts = (
            array[..., members] for array in self._reference
        )
        residual = top.residual(proba_pred, pred_index, correct, slice(None))
        weights = counts * ratio[members]
        table = np.zeros((self.n_rows, self.prior.shape[1]))
        for k in np.unique(pred_index):  # one per class
            own = pred_index == k
            table[:, k] = shrunk_correction(residual[:, own], weights[:, own])
        return np.nan_to_num(table)

    def _proba(self, chunk, rows, label_shift, rng=None):
        """Calibrated probabilities ``(rows, n, k)`` of the chunk's samples;
        with ``rng``, the EM prior is estimated on resamples of the chunk."""
        on_accepted = chunk.accepted[None, :, None]
        one_vs_rest = np.where(
            on_accepted,
            self.accepted_split.predict(chunk.proba, rows),
            self.split.predict(chunk.proba, rows),
        )
        proba_pred, pred_index = chunk.proba_pred, chunk.pred_index
        top = np.where(
            on_accepted[..., 0],
            self.accepted_top.predict(proba_pred, pred_index, rows),
            self.top.predict(proba_pred, pred_index, rows),
        )
        if self.corrections is not None:
            everything, accepted = (c[rows][:, pred_index] for c in self.corrections)
            shift = np.where(on_accepted[..., 0], accepted, everything)
            top = np.clip(top + shift, 0.0, 1.0)
        proba = with_top_label(one_vs_rest, top, pred_index)
        if not label_shift:
            return proba
        reference_prior = self.prior[rows]
        n_rows, n_samples = proba.shape[:2]
        weights = np.ones((n_rows, n_samples))
        if rng is not None:
            weights = _index_counts(rng, n_samples, n_rows)
        everything = self.columns.predict_proba(chunk.proba, slice(0, 1))
        prior, _ = em_prior(everything, reference_prior, weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(reference_prior > 0, prior / reference_prior, 0.0)
            shifted = proba * ratio[:, None, :]
            total = shifted.sum(axis=-1, keepdims=True)
            return np.where(total > 0, shifted / total, proba)

    def estimate(self, chunk, rng, label_shift, confidence_level):
        """The estimates of one chunk and their realised-value intervals.

        Returns a dict keyed by :data:`CLASS_ARRAYS` (arrays of shape
        ``(n_classes,)``) and :data:`COST_ARRAYS` (floats).
        """
        pred, accepted = chunk.pred_index, chunk.accepted
        precision, recall, cost = _expected_values(
            self._proba(chunk, slice(0, 1), label_shift), pred, accepted, self.costs
        )
        draws = [[], [], []]
        n_samples, n_classes = chunk.proba.shape
        step = _rows_per_block(
            LABEL_DRAWS * n_samples * n_classes, _LABEL_DRAW_BLOCK_ELEMENTS
        )
        for start in range(1, self.n_rows, step):
            rows = slice(start, min(start + step, self.n_rows))
            proba = self._proba(chunk, rows, label_shift, rng)
            labels = _draw_labels(rng, proba, LABEL_DRAWS)
            values = realised_class_values(
                labels, pred, accepted, n_classes, self.costs
            )
            for kept, value in zip(draws, values, strict=True):
                kept.append(value)
        values = {"selective_precision": precision, "selective_recall": recall}
        values["cost"] = cost
        for name, kept in zip(
            ("selective_precision", "selective_recall", "cost"), draws, strict=True
        ):
            low, high = _intervals(kept, values[name], confidence_level)
            values[f"{name}_lower"], values[f"{name}_upper"] = low, high
        return values


def _closest(left_out, target):
    """Index whose mass left out is closest to ``target`` (ties: the first)."""
    return np.argmin(np.abs(left_out - target))


def discrete_interval(values, confidence_level):
    """The interval of simulated values of a discrete quantity that leaves out
    the mass closest to ``1 - confidence_level``, split as evenly between the
    tails as the atoms allow.

    A realised precision over 12 predictions takes 13 values, and the top one
    (all right) often has half the mass: the percentile interval keeps whole
    atoms at its ends and, at the boundary, leaves out nothing above, so it
    covered 0.98 at 50 samples in simulation. Here one end leaves out the mass
    closest to its share, ``(1 - confidence_level) / 2``, and the other the
    mass closest to what is left of ``1 - confidence_level``; of the two
    orders (low end first, high end first), the one whose total is closest to
    ``1 - confidence_level`` (ties: the more even split, then the low end
    first). So what one end cannot leave out (an atom too heavy to drop) goes
    to the other, and what it leaves out beyond its share comes off the
    other's, and the coverage is nominal on average. (Moving only the
    shortfall left out 5.5 % of the cost's draws at 50 samples: exact
    coverage of the realised cost 0.943, 0.945 with the true class
    probabilities; moving both ends by the other's first gap at once could
    drop nothing when both overshot.) With distinct values it is the
    percentile interval (nearest rank).
    """
    atoms, counts = np.unique(values, return_counts=True)
    cumulative = np.cumsum(counts)
    tail = (1.0 - confidence_level) / 2.0 * cumulative[-1]  # in values
    below = cumulative - counts  # left out below each atom taken as the end
    above = (cumulative[-1] - cumulative)[::-1]  # above each, from the top
    low = _closest(below, tail)  # the low end first, then the high end
    low_first = (low, _closest(above, max(2 * tail - below[low], 0.0)))
    high = _closest(above, tail)  # the high end first, then the low end
    high_first = (_closest(below, max(2 * tail - above[high], 0.0)), high)

    def gaps(ends):  # how far from 1 - confidence_level, and how uneven
        left_out = below[ends[0]], above[ends[1]]
        return abs(sum(left_out) - 2 * tail), abs(left_out[0] - left_out[1])

    low, high = min((low_first, high_first), key=gaps)  # ties: the low end first
    high = atoms.shape[0] - 1 - high
    return float(atoms[low]), float(atoms[max(high, low)])


def _intervals(draws, point, confidence_level):
    """:func:`discrete_interval` of the realised values drawn (the defined
    ones), widened to hold the estimate; NaN where the estimate is undefined
    or fewer than two draws are defined."""
    point = np.asarray(point, dtype=np.float64)
    lower, upper = np.full(point.shape, np.nan), np.full(point.shape, np.nan)
    if draws:
        draws = np.concatenate(draws).reshape(-1, *point.shape)
        for index in np.ndindex(point.shape):  # one per class
            column = draws[(slice(None), *index)]
            column = column[np.isfinite(column)]
            if np.isfinite(point[index]) and column.shape[0] >= 2:
                lower[index], upper[index] = discrete_interval(column, confidence_level)
    # The estimate (an expectation, not a value the realised one can take) is
    # kept inside: this widens an interval only between the values it holds.
    return np.minimum(lower, point), np.maximum(upper, point)


class ClassValues:
    """The per-class values of a monitoring result, computed on first use.

    ``estimator`` holds the monitor's fitted :class:`ClassEstimates` (fitted
    on first use too); ``outputs`` the model outputs of the monitored data,
    ``members`` each chunk's samples, ``estimated`` whether a chunk has
    enough samples for estimates and ``selective`` enough accepted ones,
    ``label_shift`` whether its estimate is label-shift adjusted, ``seed``
    the monitor's seed (chunk ``c`` draws from ``[seed, 4, c]``).
    """

    def __init__(self, estimator, outputs, members, estimated, selective, **fixed):
        self.estimator, self.outputs, self.members = estimator, outputs, members
        self.estimated, self.selective = estimated, selective
        self.fixed = fixed  # label_shift, seed, confidence_level, n_classes
        self._values = None

    @classmethod
    def of_chunks(cls, estimator, outputs, members, min_chunk_size, **fixed):
        """The per-class values of the chunks ``members`` (None without
        ``estimator``: a model without probabilities); a chunk (its accepted
        samples) below ``min_chunk_size`` gets none."""
        if estimator is None:
            return None
        sizes = np.array([len(m) for m in members])
        accepted = np.array([outputs.accepted[m].sum() for m in members])
        return cls(
            estimator,
            outputs,
            members,
            sizes >= min_chunk_size,
            accepted >= min_chunk_size,
            **fixed,
        )

    def get(self):
        """The dict of :data:`CLASS_ARRAYS` and :data:`COST_ARRAYS`."""
        if self._values is None:
            self._values = self._compute()
        return self._values

    def _compute(self):
        fixed = self.fixed
        n_chunks = len(self.members)
        values = {
            name: np.full((n_chunks, fixed["n_classes"]), np.nan)
            for name in CLASS_ARRAYS
        }
        values.update({name: np.full(n_chunks, np.nan) for name in COST_ARRAYS})
        ratios = fixed.get("ratios") or [None] * n_chunks
        for c in np.flatnonzero(self.estimated):
            estimates = self.estimator.for_ratio(ratios[c]).estimate(
                self.outputs.take(self.members[c]),
                stream_rng(fixed["seed"], "class_estimates", c),
                fixed["label_shift"][c],
                fixed["confidence_level"],
            )
            names = (*CLASS_ARRAYS, *COST_ARRAYS) if self.selective[c] else COST_ARRAYS
            for name in names:
                values[name][c] = estimates[name]
        return values


class LazyClassEstimates:
    """:class:`ClassEstimates` fitted on first use (most monitoring runs never
    read the per-class values)."""

    def __init__(self, reference, y_index, counts, costs):
        self.arguments = (reference, y_index, counts, costs)
        self._fitted = None

    def get(self):
        if self._fitted is None:
            self._fitted = ClassEstimates(*self.arguments)
        return self._fitted

    def for_ratio(self, ratio):
        """The estimates of a chunk whose reference is re-weighted by the
        density ratio ``ratio`` (one per reference sample):
        :meth:`ClassEstimates.reweighted` (None: the unweighted ones)."""
        if ratio is None:
            return self.get()
        return self.get().reweighted(ratio)
