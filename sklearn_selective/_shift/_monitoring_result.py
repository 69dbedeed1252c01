"""The per-chunk result of :meth:`PerformanceMonitor.estimate`."""

import dataclasses
from typing import NamedTuple

import numpy as np
from sklearn.utils import column_or_1d

from .._utils._json_ready import json_ready as plain
from .._utils._results import ResultMixin, import_pandas
from .._utils._sklearn import check_matplotlib_support
from .._utils._validation import check_labels_match_classes, count_missing_labels
from ._chunk_inputs import drift_cells
from ._class_estimates import CLASS_ARRAYS, COST_ARRAYS, realised_class_table
from ._timeline import plot_timeline, timeline_rows

# The estimated arrays of a result, one value per chunk (NaN where undefined).
RESULT_ARRAYS = (
    "coverage",
    "accuracy",
    "accuracy_lower",
    "accuracy_upper",
    "selective_accuracy",
    "selective_accuracy_lower",
    "selective_accuracy_upper",
    "expected_accuracy_lower",
    "expected_accuracy_upper",
    "expected_selective_accuracy_lower",
    "expected_selective_accuracy_upper",
    "novel_share",
    "novel_share_limit",
    "drift_score",
    "drift_threshold",
    "clipped_share",
    "repeated_share",
)
FRAME_COLUMNS = (
    "start",
    "stop",
    "n_samples",
    *RESULT_ARRAYS,
    *COST_ARRAYS,
    "alert",
    "alerted_by",
    "chunk_method",
    "estimate_reliable",
    "drifted_features",
)


class MonitoredSamples(NamedTuple):
    """What a result keeps of the monitored samples (not public): their
    predictions, acceptance and chunk, the estimator's costs, and the
    per-class values (:class:`ClassValues`, computed when first read)."""

    y_pred: np.ndarray
    accepted: np.ndarray
    chunk_id: np.ndarray
    costs: tuple | None = None
    class_values: object = None


def _class_property(name):
    """A per-class value (or the cost) of the result, computed when first read."""
    return property(
        lambda self: self._class_value(name),
        doc=f"``{name}``: see the class attributes (computed when first read).",
    )


@dataclasses.dataclass(repr=False, eq=False)
class MonitoringResult(ResultMixin):
    """Per-chunk coverage and label-free accuracy estimates of a deployed model.

    Returned by :meth:`PerformanceMonitor.estimate`; every array attribute has
    one entry per chunk, in time order.

    Attributes
    ----------
    method : str
        The estimation method.

    confidence_level : float
        Level of the intervals and of the reference bands.

    start, stop : ndarray of shape (n_chunks,)
        Sample positions ``[start, stop)`` of each chunk (chunking by size or
        number), or the start of its period and of the next one (by time).

    n_samples : ndarray of shape (n_chunks,)
        Number of samples per chunk.

    coverage : ndarray of shape (n_chunks,)
        Share of the chunk the estimator accepts: exactly the mean of its
        ``predict_accept`` (no estimate; NaN for an empty chunk).

    accuracy, accuracy_lower, accuracy_upper : ndarray of shape (n_chunks,)
        Estimated accuracy of the predictions on all samples of the chunk, and
        a prediction interval at ``confidence_level`` for the chunk's
        *realised* accuracy (what :meth:`with_labels` measures): the estimate's
        uncertainty from the reference plus the label noise of the chunk's
        ``n`` samples (see ``PerformanceMonitor``, Notes). The estimate
        reads every sample; for a chunk of more than 16,384 samples, the
        bootstrap behind both intervals resamples a uniform sample of 16,384
        of them (its chunk part scaled to the chunk's size).

    selective_accuracy, selective_accuracy_lower, selective_accuracy_upper : \
ndarray of shape (n_chunks,)
        The same on the accepted samples only.

    expected_accuracy_lower, expected_accuracy_upper, \
expected_selective_accuracy_lower, expected_selective_accuracy_upper : \
ndarray of shape (n_chunks,)
        Percentile bootstrap intervals at ``confidence_level`` for the
        *expected* accuracies of the distribution the chunk is drawn from
        (paired resamples of the reference and the chunk; the values of ranks
        ``(B + 1) a`` and ``(B + 1) (1 - a)`` of the ``B = n_resamples``,
        ``a = (1 - confidence_level) / 2``); narrower than the realised-value
        intervals.

    novel_share, novel_share_limit : ndarray of shape (n_chunks,)
        Share of the chunk the monitor's novelty detector flags, and the
        largest share that raises no alert (NaN without a detector). Without
        shift about ``novelty_rate`` of a chunk is flagged. For a chunk of
        more than 16,384 samples, the share of a uniform sample of 16,384 of
        them (the alert's test is on that sample, so its level holds).

    drift_score, drift_threshold : ndarray of shape (n_chunks,)
        AUC of a domain classifier telling the chunk from the reference (0.5:
        indistinguishable, 1: fully separated) and the AUC above which the
        chunk alerts (NaN without a domain classifier). For a chunk of more
        than 16,384 samples, both are those of a uniform sample of 16,384 of
        them.

    accuracy_band, selective_accuracy_band : ndarray of shape (n_chunks, 2)
        The reference band of each chunk: where the estimate would fall on a
        chunk of the same size drawn from the reference data, each with
        probability ``1 - (1 - confidence_level) / k``, ``k`` the number of
        signals in use (the two estimates, and ``novel_share`` and
        ``drift_score`` when the monitor has them): the signals share the
        false-alert rate ``1 - confidence_level`` (Bonferroni, see ``alert``).
        Where ``"auto"`` adjusted on the model's outputs alone, the band of
        the unadjusted estimate moved by the adjustment.

    alert : ndarray of shape (n_chunks,), dtype=bool
        True when an estimate leaves its reference band or an input signal
        passes its threshold. Without shift a chunk raises a false alert with
        probability at most ``1 - confidence_level`` (Bonferroni).

    chunk_method : ndarray of shape (n_chunks,), dtype=object
        The method that estimated each chunk: ``method``, or with
        ``"auto"`` ``"label_shift_em"`` where a label shift explains the
        chunk's move (inputs or model outputs), ``"importance_weighted"``
        where it moved otherwise, ``"calibrated_ac"`` where it did not (empty
        string for a chunk without estimate).

    class_prior : ndarray of shape (n_chunks, n_classes)
        Each chunk's class prior estimated by EM (Saerens et al. 2002) with
        ``method="label_shift_em"``, and with ``"auto"`` for the chunks that
        moved (``drift_score`` alerted or the model's outputs moved); NaN
        otherwise. For a chunk of more than 65,536 samples, the EM prior of a
        uniform sample of 65,536 of them.

    classes : ndarray of shape (n_classes,)
        The estimator's classes (the columns of the per-class arrays).

    selective_precision, selective_precision_lower, \
selective_precision_upper : ndarray of shape (n_chunks, n_classes)
        Estimated precision of each class among the accepted samples (the
        share of accepted predictions of the class that are right), and a
        prediction interval at ``confidence_level`` for its realised value.
        NaN where the chunk has no accepted prediction of the class, fewer
        than ``min_chunk_size`` accepted samples, or no class probabilities.

    selective_recall, selective_recall_lower, selective_recall_upper : \
ndarray of shape (n_chunks, n_classes)
        Estimated recall of each class among the accepted samples (the share
        of accepted samples of the true class predicted as it), and a
        prediction interval for its realised value. The estimates use the
        class probabilities calibrated on the reference (reweighted to the
        chunk's ``class_prior`` where ``chunk_method`` is
        ``"label_shift_em"``); each interval covers the realised value when
        they are calibrated on the chunk (see ``PerformanceMonitor``, Notes).

    cost, cost_lower, cost_upper : ndarray of shape (n_chunks,)
        For a ``SelectiveClassifier`` with ``cost_matrix``: the estimated mean
        cost per sample of the chunk (``cost_matrix[y, prediction]`` for an
        accepted sample, ``rejection_cost`` of the true class for a rejected
        one) and a prediction interval for its realised value; NaN otherwise.
        The per-class values and the cost are computed the first time one of
        them is read.

    alerted_by : ndarray of shape (n_chunks,), dtype=object
        The signals that raised each chunk's alert: a tuple of names among
        ``"accuracy"``, ``"selective_accuracy"``, ``"novel_share"`` and
        ``"drift_score"``, in that order (empty without alert).

    partial : ndarray of shape (n_chunks,), dtype=bool
        True for a last chunk shorter than ``chunk_size``.

    reason : ndarray of shape (n_chunks,), dtype=object
        Why an estimate is NaN (empty string when none is).

    reference_accuracy, reference_selective_accuracy, reference_coverage : float
        The values measured on the labelled reference data.

    realised_accuracy, realised_selective_accuracy : ndarray of shape \
(n_chunks,) or None
        The accuracies measured once labels are known (:meth:`with_labels`).

    realised_selective_precision, realised_selective_recall : ndarray of \
shape (n_chunks, n_classes) or None
        The per-class values measured once labels are known.

    realised_cost : ndarray of shape (n_chunks,) or None
        The mean cost per sample measured once labels are known (NaN without
        ``cost_matrix``, or for a chunk with a label outside ``classes``).

    clipped_share : ndarray of shape (n_chunks,)
        Share of the chunk whose density ratio to the reference reaches its
        clip (20): inputs where the reference has next to no mass. Computed
        where the chunk's method re-weights the reference
        (``"importance_weighted"``); NaN elsewhere. For a chunk of more
        than 65,536 samples, the share of a uniform sample of 65,536 of them
        (on which the density ratio is fitted).

    repeated_share : ndarray of shape (n_chunks,)
        Share of the chunk's samples that repeat another of its samples (the
        same inputs, as the classifier sees them), less that share among as
        many reference samples, at least 0: 0.995 for one row sent 200 times
        (a stuck sensor), about 0 for a chunk drawn like the reference.
        Computed with the input signals (a novelty detector or a drift
        estimator) on dense inputs, on the signals' sample of a chunk of more
        than 16,384 samples; NaN elsewhere.

    estimate_reliable : ndarray of shape (n_chunks,), dtype=bool
        False where the input signals place the chunk outside what the
        reference supports (``novel_share > 0.5``, ``clipped_share > 0.1``
        or ``repeated_share > 0.5``; a signal that is NaN is no evidence):
        there the estimates extrapolate, or their samples are not
        independent draws, and can be far off whatever their intervals say.

    drifted_features : ndarray of shape (n_chunks,), dtype=object
        Per chunk, the per-feature two-sample tests of its inputs against
        the reference's (a ``FeatureDrift``: Kolmogorov-Smirnov or
        chi-square per feature, p-values adjusted over the features by
        Holm's procedure, so that an unmoved feature is listed with
        probability at most 5 % per chunk); None where the inputs are not a
        table of features (sparse, text). A chunk of more than 100 000
        rows is tested on 100 000 evenly spaced ones. In :meth:`to_frame` the drifted
        features (adjusted p < 0.05), most drifted first, as text: name
        (test, statistic, adjusted p-value), at most three and a count of
        the rest; in :meth:`to_dict` a list of records with ``feature``,
        ``test``, ``statistic``, ``p_value`` and ``adjusted_p_value``.

    stage_names : tuple of str or None
        For a :class:`~sklearn_selective.SelectiveCascade`: its stage names,
        then ``"person"``. None for any other model.

    stage_share : ndarray of shape (n_chunks, n_stages + 1) or None
        For a cascade: per chunk, the share of its samples each stage answers
        (as :meth:`SelectiveCascade.predict_stage
        <sklearn_selective.SelectiveCascade.predict_stage>` says), and last the
        share sent to a person (``1 - coverage``); NaN for a chunk without
        samples. In :meth:`to_frame` one column ``stage_share_<name>`` per
        stage and ``stage_share_person``, after ``coverage``.

    See Also
    --------
    PerformanceMonitor : Produces this result.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_selective import PerformanceMonitor
    >>> X, y = load_iris(return_X_y=True)
    >>> model = LogisticRegression(max_iter=1000).fit(X[::2], y[::2])
    >>> monitor = PerformanceMonitor(model, n_resamples=20, random_state=0)
    >>> result = monitor.fit(X[1::2], y[1::2]).estimate(X, n_chunks=3)
    >>> result.n_samples
    array([50, 50, 50])
    >>> result = result.with_labels(y)
    >>> result.realised_accuracy
    array([1.  , 0.96, 0.92])
    >>> result.selective_precision.shape  # chunks x classes
    (3, 3)
    >>> np.isnan(result.selective_precision[0])  # 50 irises, all predicted setosa
    array([False,  True,  True])
    >>> list(result.to_frame().columns[:4])
    ['start', 'stop', 'n_samples', 'coverage']
    """

    method: str
    confidence_level: float
    start: np.ndarray
    stop: np.ndarray
    n_samples: np.ndarray
    coverage: np.ndarray
    accuracy: np.ndarray
    accuracy_lower: np.ndarray
    accuracy_upper: np.ndarray
    selective_accuracy: np.ndarray
    selective_accuracy_lower: np.ndarray
    selective_accuracy_upper: np.ndarray
    expected_accuracy_lower: np.ndarray
    expected_accuracy_upper: np.ndarray
    expected_selective_accuracy_lower: np.ndarray
    expected_selective_accuracy_upper: np.ndarray
    novel_share: np.ndarray
    novel_share_limit: np.ndarray
    drift_score: np.ndarray
    drift_threshold: np.ndarray
    accuracy_band: np.ndarray
    selective_accuracy_band: np.ndarray
    alert: np.ndarray
    alerted_by: np.ndarray
    chunk_method: np.ndarray
    class_prior: np.ndarray
    classes: np.ndarray
    partial: np.ndarray
    reason: np.ndarray
    reference_accuracy: float
    reference_selective_accuracy: float
    reference_coverage: float
    realised_accuracy: np.ndarray | None = None
    realised_selective_accuracy: np.ndarray | None = None
    realised_selective_precision: np.ndarray | None = None
    realised_selective_recall: np.ndarray | None = None
    realised_cost: np.ndarray | None = None
    clipped_share: np.ndarray | None = None
    estimate_reliable: np.ndarray | None = None
    drifted_features: np.ndarray | None = None
    stage_names: tuple | None = None
    stage_share: np.ndarray | None = None
    repeated_share: np.ndarray | None = None

    # A result keeps no bootstrap distribution: to_dict has no options.
    _DICT_OPTIONS = ()
    # What the result keeps of the monitored samples; None when it was not made
    # by PerformanceMonitor.estimate (see _from_monitor).
    _samples = None

    @classmethod
    def _from_monitor(cls, samples, **fields):
        """A result of :meth:`PerformanceMonitor.estimate`, with its
        :class:`MonitoredSamples` (kept out of the public constructor)."""
        result = cls(**fields)
        result._samples = samples
        return result

    def _class_value(self, name):
        samples = self._samples
        class_values = None if samples is None else samples.class_values
        no_costs = name in COST_ARRAYS and (samples is None or samples.costs is None)
        if class_values is None or no_costs:  # NaN: nothing to compute
            shape = (self.n_chunks, self.classes.shape[0])
            return np.full(shape if name in CLASS_ARRAYS else shape[0], np.nan)
        return class_values.get()[name]

    selective_precision = _class_property("selective_precision")
    selective_precision_lower = _class_property("selective_precision_lower")
    selective_precision_upper = _class_property("selective_precision_upper")
    selective_recall = _class_property("selective_recall")
    selective_recall_lower = _class_property("selective_recall_lower")
    selective_recall_upper = _class_property("selective_recall_upper")
    cost = _class_property("cost")
    cost_lower = _class_property("cost_lower")
    cost_upper = _class_property("cost_upper")

    @property
    def n_chunks(self):
        """Number of chunks."""
        return self.n_samples.shape[0]

    def with_labels(self, y):
        """A copy with the realised accuracies, once the labels are known.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            True labels of the samples passed to
            :meth:`PerformanceMonitor.estimate`, in the same order.

        Returns
        -------
        result : MonitoringResult
            The same estimates with the ``realised_*`` values filled in (NaN
            for a chunk without samples, or without accepted samples).
        """
        samples = self._samples
        if samples is None:
            raise ValueError(
                "This MonitoringResult was not returned by "
                "PerformanceMonitor.estimate, so it holds no predictions to "
                "compare y with; call with_labels on the result of estimate."
            )
        y = column_or_1d(y, dtype=None)
        if y.shape[0] != samples.y_pred.shape[0]:
            raise ValueError(
                f"y has {y.shape[0]} labels but the monitored data had "
                f"{samples.y_pred.shape[0]} samples; pass one label per sample, in "
                "the order given to estimate."
            )
        if count_missing_labels(y):
            raise ValueError(
                "y contains NaN (missing labels); drop the unlabelled samples "
                "from both the data and y, or estimate them separately."
            )
        check_labels_match_classes(y, np.unique(samples.y_pred))
        correct = (y == samples.y_pred).astype(np.float64)
        ids, n_chunks, accepted = samples.chunk_id, self.n_chunks, samples.accepted
        n = np.bincount(ids, minlength=n_chunks)
        n_accepted = np.bincount(ids, accepted, minlength=n_chunks)
        hits = np.bincount(ids, correct, minlength=n_chunks)
        accepted_hits = np.bincount(ids, correct * accepted, minlength=n_chunks)
        with np.errstate(invalid="ignore", divide="ignore"):
            realised = np.where(n > 0, hits / n, np.nan)
            selective = np.where(n_accepted > 0, accepted_hits / n_accepted, np.nan)
        precision, recall, cost = realised_class_table(
            self.classes, samples, y, self.n_chunks
        )
        result = dataclasses.replace(
            self,
            realised_accuracy=realised,
            realised_selective_accuracy=selective,
            realised_selective_precision=precision,
            realised_selective_recall=recall,
            realised_cost=cost,
        )
        result._samples = samples
        return result

    def to_dict(self):
        """The result as plain, JSON-serialisable Python values.

        Returns
        -------
        data : dict
            ``method``, ``confidence_level``, the reference values
            (``reference_accuracy``, ``reference_selective_accuracy``,
            ``reference_coverage``) and ``chunks``: one dictionary per chunk
            with the columns of :meth:`to_frame`, and ``class_prior`` and the
            per-class arrays (lists, one value per class). Times are ISO 8601
            text (with their offset when time-zone aware), ``nan`` is ``None``.
        """
        columns = self._columns(structured=True)
        chunks = [
            {
                **{name: values[c] for name, values in columns.items()},
                **{
                    name: getattr(self, name)[c].tolist()
                    for name in ("class_prior", *self._class_columns())
                },
            }
            for c in range(self.n_chunks)
        ]
        return plain(
            {
                "method": self.method,
                "confidence_level": self.confidence_level,
                "reference_accuracy": self.reference_accuracy,
                "reference_selective_accuracy": self.reference_selective_accuracy,
                "reference_coverage": self.reference_coverage,
                "classes": self.classes.tolist(),
                "chunks": chunks,
            }
        )

    def _columns(self, structured=False):
        """The per-chunk columns; the feature drift as text, or with
        ``structured`` as lists of records (:func:`drift_cells`)."""
        columns = {name: getattr(self, name) for name in FRAME_COLUMNS}
        if self.stage_share is not None:  # a cascade's shares, after coverage
            shares = {
                f"stage_share_{name}": self.stage_share[:, k]
                for k, name in enumerate(self.stage_names)
            }
            after = list(columns).index("coverage") + 1
            items = list(columns.items())
            columns = dict(items[:after] + list(shares.items()) + items[after:])
        for name, missing in (
            ("clipped_share", np.nan),
            ("repeated_share", np.nan),
            ("estimate_reliable", True),
            ("drifted_features", None),
        ):
            if columns[name] is None:  # a result made by hand
                columns[name] = np.full(self.n_chunks, missing)
        columns["drifted_features"] = drift_cells(
            columns["drifted_features"], structured
        )
        columns["partial"] = self.partial
        columns["reason"] = self.reason
        if self.realised_accuracy is not None:
            columns["realised_accuracy"] = self.realised_accuracy
            columns["realised_selective_accuracy"] = self.realised_selective_accuracy
            columns["realised_cost"] = self.realised_cost
        return columns

    def _class_columns(self):
        names = list(CLASS_ARRAYS)
        if self.realised_selective_precision is not None:
            names += ["realised_selective_precision", "realised_selective_recall"]
        return names

    def to_frame(self, *, per_class=False):
        """The chunks as a pandas DataFrame, one row per chunk (or per chunk
        and class).

        Parameters
        ----------
        per_class : bool, default=False
            One row per chunk and class instead, with columns ``chunk``,
            ``class``, the ``selective_precision*`` and ``selective_recall*``
            estimates and intervals, and the realised values once labels are
            known.

        Returns
        -------
        frame : pandas.DataFrame
            Columns ``start``, ``stop``, ``n_samples``, ``coverage`` (for a
            cascade then ``stage_share_<name>`` per stage and
            ``stage_share_person``), ``accuracy``, ``accuracy_lower``,
            ``accuracy_upper``,
            ``selective_accuracy``, ``selective_accuracy_lower``,
            ``selective_accuracy_upper``, the ``expected_*`` intervals,
            ``novel_share``, ``novel_share_limit``, ``drift_score``,
            ``drift_threshold``, ``clipped_share``, ``repeated_share``, ``cost``,
            ``cost_lower``, ``cost_upper``, ``alert``, ``alerted_by``,
            ``chunk_method``, ``estimate_reliable``, ``drifted_features``
            (text), then ``partial`` and
            ``reason``, and ``realised_accuracy``,
            ``realised_selective_accuracy`` and ``realised_cost`` once labels
            are known.
        """
        pd = import_pandas("MonitoringResult")
        if not per_class:
            return pd.DataFrame(self._columns())
        n_classes = self.classes.shape[0]
        columns = {
            "chunk": np.repeat(np.arange(self.n_chunks), n_classes),
            "class": np.tile(self.classes, self.n_chunks),
        }
        for name in self._class_columns():
            columns[name] = getattr(self, name).ravel()
        return pd.DataFrame(columns)

    def __repr__(self):
        summary = (
            f"MonitoringResult(method={self.method!r}, n_chunks={self.n_chunks}, "
            f"alerts={int(self.alert.sum())}, confidence_level="
            f"{self.confidence_level}, reference accuracy="
            f"{self.reference_accuracy:.3f}, selective accuracy="
            f"{self.reference_selective_accuracy:.3f}, coverage="
            f"{self.reference_coverage:.3f})"
        )
        legend = (
            "(novel: share flagged by the novelty detector; drift: domain "
            "classifier AUC; ! alert, see alerted_by; * partial chunk; ? estimate "
            "not reliable)"
        )
        return "\n".join([summary, *timeline_rows(self, limit=10), legend])

    def plot(self, ax=None):
        """Draw the timeline: estimates with intervals, bands, alerts, coverage.

        Estimated accuracy and selective accuracy are lines with their
        intervals shaded; the reference bands are dotted; realised values (after
        :meth:`with_labels`) are markers; alerts raised by an estimate are red
        crosses on it, alerts raised by an input signal (``novel_share``,
        ``drift_score``) red triangles along the top; the coverage is a thin
        grey line on a second axis, drawn behind the accuracies. Chunks whose
        estimates are not reliable (``estimate_reliable`` False) are shaded
        grey and hatched; each chunk's (at most two) most drifted features
        are named along the bottom.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.

        Returns
        -------
        ax, coverage_ax : matplotlib Axes
            The accuracy axes and the twin axes of the coverage.
        """
        check_matplotlib_support("MonitoringResult.plot")
        return plot_timeline(self, ax)
