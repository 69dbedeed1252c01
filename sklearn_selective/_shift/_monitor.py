"""Watching a deployed (abstaining) classifier without labels."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._utils._draws import stream_rng
from .._utils._param_validation import N_RESAMPLES
from .._utils._sklearn import (
    HasMethods,
    Interval,
    StrOptions,
    fit_context,
    safe_indexing,
)
from ..metrics._dask import is_dask_input
from ._chunk_estimates import (
    ChunkTable,
    bootstrap_estimates,
    record_estimate,
    reference_counts,
)
from ._chunk_inputs import ChunkInputs, object_array, reliability
from ._chunks import chunk_rows, make_chunks, undefined_reason, warn_undefined
from ._class_estimates import ClassValues, LazyClassEstimates
from ._label_shift import warn_unseen_classes
from ._method_choice import FittedMethods
from ._methods import METHODS
from ._monitored_outputs import (
    check_monitored,
    estimator_costs,
    model_outputs,
    reference_labels,
    stage_shares,
)
from ._monitoring_result import MonitoredSamples, MonitoringResult
from ._on_dask import estimate_on_dask
from ._realised import ReferenceRealised
from ._signals import (
    InputSignals,
    ReferenceBands,
    check_drift_estimator,
    monitored_inputs,
)

_DEFAULT_METHOD = "auto"


class PerformanceMonitor(BaseEstimator):
    """Per-chunk coverage and label-free accuracy of a deployed classifier.

    ``fit`` learns, on labelled held-out *reference* data, how the model's
    confidences relate to its correctness; :meth:`estimate` then reports, for
    each chunk of unlabelled production data,

    - the **coverage**: the share of samples the estimator accepts (exact, no
      labels needed: the mean of its ``predict_accept``);
    - the estimated **accuracy** of its predictions on all samples;
    - the estimated **selective accuracy**: the accuracy on the accepted
      samples only;

    each estimate with a bootstrap interval; per class, the estimated
    precision and recall among the accepted samples, and for a
    ``SelectiveClassifier`` with ``cost_matrix`` the estimated mean cost per
    sample, each with a prediction interval for its realised value; and two
    signals of the inputs, which move when the model's confidence does not:

    - ``novel_share``: the share of the chunk an outlier detector fitted on
      the reference inputs flags;
    - ``drift_score``: the AUC of a domain classifier telling the chunk from
      the reference.

    A chunk alerts when an estimate leaves the band it would stay in if the
    data were like the reference, or an input signal passes its threshold.

    Parameters
    ----------
    estimator : fitted classifier
        A fitted :class:`~sklearn_selective.SelectiveClassifier` (its own CSF
        and threshold decide acceptance), or any fitted classifier: then every
        sample is accepted and the selective accuracy equals the accuracy.

    method : {"auto", "calibrated_ac", "label_shift_em", "cbpe", \
"importance_weighted", "atc", "ac", "doc"}, default="auto"
        How the accuracies are estimated; for the selective accuracy every
        method is fitted on the accepted reference samples only (but the
        calibration ``"label_shift_em"`` reweights, fitted on all):

        - ``"auto"`` (the default): for a chunk that moved (``drift_score``
          alerts, or a test says the model's probabilities moved),
          ``"label_shift_em"`` where a label shift explains the move (the
          reference, reweighted by the chunk's estimated prior, is
          indistinguishable from it by the drift signal's domain classifier)
          and ``"importance_weighted"`` where it does not; for the other
          chunks (and without a ``drift_estimator``) ``"calibrated_ac"``.
          Re-weighting cut its error over 12 covariate shifts by a fifth,
          and under label shift it errs a third to a sixteenth as much as
          ``"calibrated_ac"`` (benchmarks in the user guide);
        - ``"calibrated_ac"``: the probability of the predicted class,
          calibrated against correctness by isotonic regression on the
          reference (top-label calibration), averaged over all / accepted
          samples;
        - ``"label_shift_em"``: the class prior of each chunk estimated by EM
          (Saerens et al. 2002) on the one-vs-rest isotonic calibration; the
          mean reweighted probability of the predicted class, corrected by
          its cross-validated residual per class on the reference; exact
          under label shift, biased under covariate shift (which also moves
          the prior EM sees);
        - ``"cbpe"``: each class's probability calibrated one-vs-rest by
          isotonic regression where that lowers its calibration error on
          held-out reference samples (NannyML's test: 10 splits holding out
          a tenth, 10 bins of equal counts), renormalised, then the
          calibrated probability of the predicted class averaged (NannyML's
          CBPE calibration); slightly biased without shift;
        - ``"importance_weighted"``: CBPE re-weighted to each chunk's
          inputs, for covariate shift (PAPE, Białek et al. 2025 [5]_): the
          chunk's mean *base* prediction of correctness (the CBPE
          calibration of the probability of the predicted class, as
          ``"cbpe"``) plus the reference's mean residual of the base
          re-weighted by the density ratio of chunk to reference inputs (a
          logistic regression on the standardised inputs the final
          classifier sees and their squares, cross-fitted on two folds,
          clipped to ``[1/20, 20]``), shrunk where it barely stands out of
          its noise (doubly robust). It assumes that ``P(y | x)`` holds and
          that the chunk lies where the reference has data; it fails under
          concept shift, under label shift (``"label_shift_em"`` is exact
          there) and outside the reference's support (``clipped_share`` and
          ``estimate_reliable`` say so). The per-class values and the cost
          use the same weights;
        - ``"atc"``: average thresholded confidence on the CSF score;
        - ``"ac"``: the average probability of the predicted class;
        - ``"doc"``: the reference accuracy minus the drop in average
          confidence.

        All but ``"atc"`` need ``predict_proba``.

    csf : str or callable, default=None
        Confidence score function of a plain classifier (the score ``"atc"``
        thresholds); None selects ``"msp"`` (``"max_logit"`` without
        ``predict_proba``). Must be None for a ``SelectiveClassifier``, which
        uses its own.

    csf_params : dict, default=None
        Keyword arguments of ``csf``.

    novelty_detector : "auto", estimator or None, default="auto"
        The outlier detector behind ``novel_share``, fitted on half of the
        reference inputs as the final classifier sees them (after a
        Pipeline's transformers); ``"auto"`` is an ``IsolationForest`` of 50
        trees; any scikit-learn detector with ``score_samples`` works. None:
        no ``novel_share`` signal.

    novelty_rate : float in (0, 1), default=0.05
        Share of reference inputs the detector's threshold flags (a conformal
        threshold on the other half of the reference).

    drift_estimator : "auto", classifier or None, default="auto"
        The domain classifier behind ``drift_score``: per chunk it is fitted
        to tell half of the reference from half of the chunk, and its AUC on
        the other halves is the drift score (at most 2000 samples of each
        side train it). ``"auto"`` is an ``ExtraTreesClassifier`` of 30 trees
        (a ``LogisticRegression`` for sparse inputs). Any other must be a
        classifier with ``predict_proba`` or ``decision_function`` (checked
        by ``fit``). None: no ``drift_score`` signal.

    confidence_level : float in (0, 1), default=0.95
        Level of the intervals; ``1 - confidence_level`` is the false-alert
        rate per chunk without shift, shared by all signals.

    n_resamples : int, default=200
        Bootstrap resamples, each of the reference and of the chunk; 0 gives
        point estimates without intervals (bands and alerts remain). A chunk
        above 16,384 samples is resampled through a uniform sample of that
        many (its estimates read every sample; see the user guide).

    min_chunk_size : int, default=10
        Chunks with fewer samples (or fewer accepted samples, for the selective
        accuracy) get NaN estimates and a warning.

    random_state : int, RandomState instance or None, default=None
        Seed of every random draw (resamples, input signals, density ratio,
        ``"auto"``'s test of the outputs), one stream per purpose and chunk.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The estimator's classes.

    n_reference_ : int
        Number of reference samples.

    reference_accuracy_, reference_selective_accuracy_, reference_coverage_ : float
        Accuracy, selective accuracy and coverage measured on the reference.

    See Also
    --------
    MonitoringResult : What :meth:`estimate` returns.
    ATCEstimator : Label-free accuracy of a classifier that does not abstain.
    SelectiveClassifier : The abstaining classifier being watched.

    Notes
    -----
    Every method assumes that the relation between the model's confidence and
    its correctness learnt on the reference still holds (covariate shift that
    does not make the model over-confident). Under concept shift (the labels
    change for the same inputs) the confidences do not move and every estimate
    stays near the reference accuracy, however far the true accuracy drops.

    Two intervals, for two quantities. ``accuracy_lower/upper`` (and the
    selective ones) are prediction intervals for the chunk's *realised*
    accuracy, the number :meth:`MonitoringResult.with_labels` measures once the
    labels arrive: ``E +- z sqrt(V_ref + v / n)``, with ``V_ref`` the variance
    of the estimate over bootstrap resamples of the reference (the chunk held
    fixed) and ``v`` the per-sample variance of correctness around the
    method's proxy, from an isotonic regression of the reference correctness on
    the CSF score (label noise, and for ``"atc"`` its 0/1 proxy; for
    ``"importance_weighted"``, the reference's held-out residuals of its base
    re-weighted to the chunk). The ``expected_*`` intervals are percentile
    intervals (ranks ``(B + 1) a``) of the estimates over paired resamples of
    the reference and the chunk: they cover the expected accuracy of the
    chunk's distribution. Both hold their level when the method is unbiased
    on it (measured in the user guide, "What each interval covers").

    Every estimate is a mean of per-sample proxies of correctness. The
    reference band of a chunk of ``n`` samples (``n`` accepted ones for the
    selective accuracy) is where the mean of ``n`` proxies drawn from the
    reference falls, for a two-sample comparison of means: normal quantiles
    with the Cornish-Fisher correction for skewness (the means of small
    chunks are skewed).

    The per-class precision and recall among the accepted samples, and the
    cost, are ratios of expected counts under class probabilities calibrated
    on the reference: the predicted class gets its top-label calibrated
    probability (Platt scaling of correctness on the probability of the
    predicted class, per predicted class [4]_), the other classes share the
    rest in the proportions of their one-vs-rest Platt scalings; reweighted
    to the chunk's class prior where ``chunk_method`` is
    ``"label_shift_em"``; corrected, per predicted class, as the accuracy
    is where it is ``"importance_weighted"``. Their intervals hold the
    realised values simulated by drawing labels from these probabilities,
    refitted on every bootstrap resample of the reference (see the user
    guide). They are computed the first time they are read.

    A realised-value interval is never narrower than the reference's
    failures support: where the reference (its accepted samples, for the
    selective accuracy) has fewer than 10 failures, the interval is widened
    to the Beta-binomial predictive interval of the chunk's failures under a
    Jeffreys prior centred on the estimate (a reference without failure
    would otherwise give ``[1, 1]``). Where ``chunk_method`` is
    ``"importance_weighted"`` both intervals are those of its unshrunk
    correction (the shrinkage leaves a bias a bootstrap misses), widened to
    include the estimate.

    Every chunk also says whether its estimates can be trusted and which
    inputs moved: ``estimate_reliable`` (False where ``novel_share`` or
    ``clipped_share`` places the chunk outside the reference's support, or
    most of its samples are copies: ``repeated_share``) and
    ``drifted_features`` (a test per input feature, p-values adjusted by
    Holm's procedure over the features); see :class:`MonitoringResult`.

    ``alert`` is raised when any signal leaves its band: the two estimates'
    bands and, when used, ``novel_share`` (a Beta-binomial test of the share
    flagged, exact) and ``drift_score`` (a Mann-Whitney test of the domain
    classifier's held-out AUC). Each of the ``k`` signals is given
    ``(1 - confidence_level) / k``, so that without shift a chunk alerts with
    probability at most ``1 - confidence_level`` (Bonferroni); the rate
    measured in simulation is in the user guide.

    References
    ----------
    .. [1] S. Garg, S. Balakrishnan, Z. C. Lipton, B. Neyshabur, H. Sedghi.
       *Leveraging Unlabeled Data to Predict Out-of-Distribution Performance.*
       ICLR 2022, Eq. 1-3.
    .. [2] NannyML. *Confidence-based Performance Estimation (CBPE).*
       https://nannyml.readthedocs.io
    .. [3] M. Saerens, P. Latinne, C. Decaestecker. *Adjusting the Outputs of
       a Classifier to New a Priori Probabilities: A Simple Procedure.*
       Neural Computation 14(1), 2002.
    .. [4] C. Gupta, A. Ramdas. *Top-label calibration and multiclass-to-binary
       reductions.* ICLR 2022 (the definition of top-label calibration).
    .. [5] J. Białek, W. Kuberski, N. Perrakis, A. Bifet. *Estimating Model
       Performance Under Covariate Shift Without Labels.* NeurIPS 2025,
       arXiv:2401.08348 (PAPE).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.frozen import FrozenEstimator
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_selective import PerformanceMonitor, SelectiveClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> model = model.fit(X[:200], y[:200])
    >>> clf = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.9)
    >>> clf = clf.fit(X[200:350], y[200:350])
    >>> monitor = PerformanceMonitor(clf, random_state=0).fit(X[200:350], y[200:350])
    >>> result = monitor.estimate(X[350:], chunk_size=100)
    >>> result.n_samples
    array([100, 100,  19])
    >>> bool(result.partial[-1])
    True
    >>> bool((result.coverage[:2] == [clf.predict_accept(X[350:450]).mean(),
    ...                               clf.predict_accept(X[450:550]).mean()]).all())
    True
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["predict"])],
        "method": [StrOptions({"auto", *METHODS})],
        "csf": [str, callable, None],
        "csf_params": [dict, None],
        "novelty_detector": [
            StrOptions({"auto"}),
            HasMethods(["fit", "score_samples"]),
            None,
        ],
        "novelty_rate": [Interval(Real, 0, 1, closed="neither")],
        "drift_estimator": [
            StrOptions({"auto"}),
            HasMethods(["fit", "predict_proba"]),
            HasMethods(["fit", "decision_function"]),
            None,
        ],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "n_resamples": [*N_RESAMPLES],
        "min_chunk_size": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator,
        *,
        method=_DEFAULT_METHOD,
        csf=None,
        csf_params=None,
        novelty_detector="auto",
        novelty_rate=0.05,
        drift_estimator="auto",
        confidence_level=0.95,
        n_resamples=200,
        min_chunk_size=10,
        random_state=None,
    ):
        self.estimator = estimator
        self.method = method
        self.csf = csf
        self.csf_params = csf_params
        self.novelty_detector = novelty_detector
        self.novelty_rate = novelty_rate
        self.drift_estimator = drift_estimator
        self.confidence_level = confidence_level
        self.n_resamples = n_resamples
        self.min_chunk_size = min_chunk_size
        self.random_state = random_state

    # ----------------------------------------------------------------------------
    # Fit
    # ----------------------------------------------------------------------------
    def _signals_used(self):
        return self.novelty_detector is not None or self.drift_estimator is not None

    def _needs_proba(self):
        return self.method == "auto" or METHODS[self.method].needs_proba

    def _outputs(self, X, name):
        return model_outputs(
            self.estimator, X, name, self.csf, self.csf_params, self._needs_proba()
        )

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X_reference, y_reference):
        """Learn the link between confidence and correctness on labelled data.

        Parameters
        ----------
        X_reference : {array-like, sparse matrix} of shape (n_samples, n_features)
            Labelled reference data the estimator was not trained on (e.g. its
            validation data), from the distribution it was meant for.

        y_reference : array-like of shape (n_samples,)
            True labels of the reference data.

        Returns
        -------
        self : object
            The fitted monitor.
        """
        check_monitored(self.estimator, self.csf, self.method, self._needs_proba())
        check_drift_estimator(self.drift_estimator)
        reference = self._outputs(X_reference, "X_reference")
        n_samples = reference.score.shape[0]
        y, y_index = reference_labels(self.estimator, y_reference, n_samples)
        if not reference.accepted.any():
            raise ValueError(
                "The estimator accepts none of the reference samples, so its "
                "selective accuracy cannot be learnt; use more reference data or "
                "a lower threshold."
            )
        correct = (reference.y_pred == y).astype(np.float64)
        self._seed = check_random_state(self.random_state).randint(2**31 - 1)
        rng = stream_rng(self._seed, "reference_resamples")
        counts = reference_counts(rng, n_samples, self.n_resamples)
        features, inputs = None, None
        if self._signals_used() or FittedMethods.needs_inputs(self.method):
            features = monitored_inputs(self.estimator, X_reference)
            inputs = (features, stream_rng(self._seed, "importance_weights"))
        self._signals = InputSignals(
            self.novelty_detector, self.drift_estimator, self.novelty_rate, self._seed
        )
        if self._signals.n_signals:
            self._signals.fit(features, y_index)
        adjusts = self.drift_estimator is not None  # "auto" moves on its signal
        warn_unseen_classes(self.method, self.estimator.classes_, y_index, adjusts)
        self._methods = FittedMethods(
            self.method, reference, correct, counts, y_index, inputs, adjusts
        )
        self._method = self._methods.bands
        self._class_estimates = None
        if reference.proba is not None:
            self._class_estimates = LazyClassEstimates(
                reference, y_index, counts, estimator_costs(self.estimator)
            )
        self._bands = ReferenceBands.of_method(self._method, reference)
        self._realised = ReferenceRealised.fit(
            reference.score, correct, reference.accepted
        )
        self._chunk_inputs = ChunkInputs(X_reference)
        self.classes_ = self.estimator.classes_
        self.n_reference_ = n_samples
        self.reference_accuracy_ = float(correct.mean())
        self.reference_selective_accuracy_ = float(correct[reference.accepted].mean())
        self.reference_coverage_ = float(reference.accepted.mean())
        return self

    # ----------------------------------------------------------------------------
    # Estimate
    # ----------------------------------------------------------------------------
    def _signal_alpha(self):
        """Each signal's share of the false-alert rate (Bonferroni): the two
        bands and the input signals in use."""
        return (1.0 - self.confidence_level) / (2 + self._signals.n_signals)

    def estimate(
        self, X, *, chunk_size=None, n_chunks=None, timestamps=None, freq=None
    ):
        """Coverage and estimated accuracies of each chunk of unlabelled data.

        Chunk by one rule: ``chunk_size`` (consecutive chunks of that many
        samples; a shorter last chunk is kept and flagged ``partial``),
        ``n_chunks`` (that many consecutive chunks of near-equal size), or
        ``timestamps`` with ``freq`` (one chunk per calendar period, empty
        periods included; needs pandas). Without any, ``X`` is one chunk
        (one chunk per partition for a Dask collection, whose chunks run on
        the cluster, one task each, and give the in-memory result; see the
        :ref:`scaling_guide`).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array, dask DataFrame} of shape \
                (n_samples, n_features)
            Unlabelled production data, in time order.

        chunk_size : int, default=None
            Samples per chunk.

        n_chunks : int, default=None
            Number of chunks.

        timestamps : array-like of shape (n_samples,), default=None
            Time of each sample: dates ``pandas.to_datetime`` reads (not
            numbers: unix seconds are ``pd.to_datetime(t, unit="s")``).

        freq : str, default=None
            The period of a chunk: ``"D"``, ``"W"``, ``"M"`` (or ``"ME"``), ``"h"``,
            or a multiple (``"2h"`` steps from midnight, as resample does).

        Returns
        -------
        result : MonitoringResult
            One entry per chunk.

        Warns
        -----
        UndefinedMetricWarning
            When a chunk has fewer than ``min_chunk_size`` samples (or
            accepted samples): its estimates are NaN and ``reason`` says why.
        """
        check_is_fitted(self, "n_reference_")
        if is_dask_input(X):
            return estimate_on_dask(self, X, chunk_size, n_chunks, timestamps, freq)
        outputs = self._outputs(X, "X")
        features = None
        if self._signals.n_signals or FittedMethods.needs_inputs(self.method):
            features = monitored_inputs(self.estimator, X)
        n_samples = outputs.score.shape[0]
        chunks = make_chunks(n_samples, chunk_size, n_chunks, timestamps, freq)
        table = ChunkTable(len(chunks.members), self.classes_.shape[0])
        for c, members in enumerate(chunks.members):
            table.drifts[c] = self._chunk_inputs.drift(X, members)
            rows = chunk_rows(members)
            chunk_features = None
            if features is not None:
                chunk_features = safe_indexing(features, rows)
            self._estimate_chunk(table, c, outputs.take(rows), chunk_features)
        warn_undefined(table.reasons)
        return self._result(table, chunks, outputs)

    def _estimate_chunk(self, table, c, chunk, features):
        """Fill row ``c`` of ``table``: coverage, input signals, estimates
        (``features``: the chunk's inputs as the classifier sees them, None
        when neither a signal nor the method reads them)."""
        n_samples, n_accepted = chunk.score.shape[0], int(chunk.accepted.sum())
        if n_samples:
            table.values["coverage"][c] = chunk.accepted.mean()
        table.reasons[c] = undefined_reason(n_samples, n_accepted, self.min_chunk_size)
        if n_samples < self.min_chunk_size:
            return
        drift_scores = None
        if self._signals.n_signals:
            rng = stream_rng(self._seed, "signals", c)
            table.fired[c], drift_scores = self._signals.evaluate(
                table.values, c, features, rng, self._signal_alpha()
            )
        labels = getattr(self._signals, "calibration_labels", None)
        chosen = self._methods.for_chunk(
            chunk,
            (drift_scores, labels, "drift_score" in table.fired[c]),
            features,
            tuple(
                stream_rng(self._seed, s, c) for s in ("density_ratio", "outputs_moved")
            ),
        )
        method, table.chosen[c], table.priors[c] = chosen[:3]
        table.values["clipped_share"][c] = chosen.clipped_share
        table.ratios[c] = getattr(method, "ratio", None)
        rng = stream_rng(self._seed, "chunk_resamples", c)
        estimates = bootstrap_estimates(method, chunk, rng, self.n_resamples)
        fit = (method, self._realised, self.confidence_level)
        for selective in (0, 1) if n_accepted >= self.min_chunk_size else (0,):
            record_estimate(
                table.values, c, chunk, selective, estimates[selective], fit
            )
        # two-sided, each band at the level of one signal
        table.bands[c] = self._bands(n_samples, n_accepted, self._signal_alpha())
        table.move_bands(c, chosen.unadjusted)

    def _result(self, table, chunks, outputs):
        """The :class:`MonitoringResult` of the chunks in ``table``."""
        alerted_by = table.alerted_by()
        n_chunks = len(chunks.members)
        stages = stage_shares(self.estimator, outputs.stage, chunks.chunk_id, n_chunks)
        samples = MonitoredSamples(
            outputs.y_pred,
            outputs.accepted,
            chunks.chunk_id,
            estimator_costs(self.estimator),
            ClassValues.of_chunks(
                self._class_estimates,
                outputs,
                chunks.members,
                self.min_chunk_size,
                label_shift=table.chosen == "label_shift_em",
                ratios=table.ratios,
                seed=self._seed,
                confidence_level=self.confidence_level,
                n_classes=self.classes_.shape[0],
            ),
        )
        return MonitoringResult._from_monitor(
            samples,
            method=self.method,
            confidence_level=self.confidence_level,
            start=chunks.start,
            stop=chunks.stop,
            n_samples=np.array([len(m) for m in chunks.members]),
            accuracy_band=table.bands[:, 0],
            selective_accuracy_band=table.bands[:, 1],
            alert=np.array([bool(names) for names in alerted_by], dtype=bool),
            alerted_by=alerted_by,
            chunk_method=table.chosen,
            class_prior=table.priors,
            classes=self.classes_,
            partial=chunks.partial,
            reason=table.reasons,
            reference_accuracy=self.reference_accuracy_,
            reference_selective_accuracy=self.reference_selective_accuracy_,
            reference_coverage=self.reference_coverage_,
            estimate_reliable=reliability(table.values),
            drifted_features=object_array(table.drifts),
            stage_names=stages[0],
            stage_share=stages[1],
            **table.values,
        )
