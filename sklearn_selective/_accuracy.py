"""Label-free accuracy estimation under shift: ATC and its baselines.

The functional forms (:func:`atc_accuracy`, :func:`average_confidence_accuracy`,
:func:`doc_accuracy`) take probabilities; the estimators fit a scikit-learn
classifier and collect its held-out source scores exactly as
:class:`~sklearn_selective.SelectiveClassifier` does.
"""

import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, _fit_context
from sklearn.calibration import CalibratedClassifierCV
from sklearn.utils import check_array, column_or_1d
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    RealNotInt,
    validate_params,
)
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, indexable

from ._held_out import HeldOutScoresMixin
from .confidence import get_confidence_function, predict_with_confidence
from .confidence._functions import model_output_of
from .metrics._bootstrap import _bootstrap_indices, _check_generator, _counts
from .metrics._core import group_ties
from .metrics._docstrings import fill_doc
from .metrics._validation import _check_sample_weight

# ----------------------------------------------------------------------------
# The ATC rule on score arrays (batched over weight vectors)
# ----------------------------------------------------------------------------


def _atc_thresholds(groups, correct, weights):
    """ATC thresholds ([ATC] Eq. 2) for one or a batch of weight vectors.

    ``t`` is the observed score whose share of source weight strictly below it
    is closest to the source error; ties of that distance go to the lowest
    score. Scores are grouped by value, so tied scores are one candidate.
    ``weights`` has shape ``(n,)`` or ``(b, n)``; a candidate must carry
    weight (for a bootstrap resample: it must have been drawn). ``groups`` are
    the tie groups of the scores (sorted once for every weight vector).

    The distance is compared in weight units, ``|error weight - weight below|``,
    never after dividing by the total: for integer weights (and bootstrap
    counts) it is then exact, so a tie of the distance is a tie and the rule
    "lowest score" decides it, not the rounding of two quotients.
    """
    group_weight = groups.weight(weights)
    error_weight = groups.sum(weights * (1.0 - correct)).sum(axis=-1, keepdims=True)
    below = np.cumsum(group_weight, axis=-1)
    below = np.concatenate([np.zeros((*below.shape[:-1], 1)), below[..., :-1]], axis=-1)
    distance = np.where(group_weight > 0, np.abs(error_weight - below), np.inf)
    return groups.values[np.argmin(distance, axis=-1)]


class _SortedScores:
    """Target scores sorted once; weighted share at or above any thresholds."""

    def __init__(self, scores, sample_weight):
        order = np.argsort(scores)
        self.scores = scores[order]
        weight = (
            np.ones_like(self.scores) if sample_weight is None else sample_weight[order]
        )
        self.weight_below = np.concatenate([[0.0], np.cumsum(weight)])

    def share_at_or_above(self, thresholds):
        index = np.searchsorted(self.scores, thresholds, side="left")
        total = self.weight_below[-1]
        return (total - self.weight_below[index]) / total


def _warn_degenerate_source(accuracy):
    if accuracy in (0.0, 1.0):
        outcome = "correct" if accuracy == 1.0 else "wrong"
        where = "lowest" if accuracy == 1.0 else "highest"
        warnings.warn(
            f"Every source prediction is {outcome}: the ATC threshold is the "
            f"{where} source score, so the estimate only reflects target scores "
            "outside the source range. Use more (or harder) source data.",
            UserWarning,
            stacklevel=4,
        )


def _fit_atc(scores, correct, sample_weight, n_bootstrap, random_state):
    """Point threshold, bootstrap thresholds and the source accuracy."""
    weights = np.ones_like(scores) if sample_weight is None else sample_weight
    accuracy = float(np.average(correct, weights=weights))
    _warn_degenerate_source(accuracy)
    groups = group_ties(scores)
    threshold = float(_atc_thresholds(groups, correct, weights))
    if n_bootstrap == 0:
        return threshold, np.array([threshold]), accuracy
    rng = _check_generator(random_state)
    blocks = []
    for indices in _bootstrap_indices(rng, scores.shape[0], n_bootstrap):
        counts = _counts(indices, scores.shape[0]) * weights
        blocks.append(_atc_thresholds(groups, correct, counts))
    return threshold, np.concatenate(blocks), accuracy


def _interval(values, confidence_level):
    tail = (1 - confidence_level) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return float(low), float(high)


# ----------------------------------------------------------------------------
# Functional forms
# ----------------------------------------------------------------------------
def _probability_csf(score):
    if model_output_of(score) != "predict_proba":
        raise ValueError(
            f"score={score!r} reads {model_output_of(score)}; from probabilities "
            "only a probability-based score function can be computed (e.g. 'msp', "
            "'negative_entropy'). Use ATCEstimator with a fitted model instead."
        )
    return get_confidence_function(score)


def _source_predictions(y_source, proba_source, labels):
    y_source = column_or_1d(y_source, dtype=None)
    proba_source = check_array(proba_source, input_name="proba_source")
    if proba_source.shape[0] != y_source.shape[0]:
        raise ValueError(
            f"y_source and proba_source must have the same number of samples; got "
            f"{y_source.shape[0]} and {proba_source.shape[0]}."
        )
    labels = np.unique(y_source) if labels is None else np.asarray(labels)
    if labels.shape[0] != proba_source.shape[1]:
        raise ValueError(
            f"proba_source has {proba_source.shape[1]} columns but there are "
            f"{labels.shape[0]} labels ({labels.tolist()}); pass labels= with the "
            "class of each column (e.g. the model's classes_)."
        )
    unseen = ~np.isin(y_source, labels)
    if unseen.any():
        raise ValueError(
            f"y_source contains labels absent from labels: "
            f"{np.unique(y_source[unseen]).tolist()}."
        )
    correct = (labels[proba_source.argmax(axis=1)] == y_source).astype(np.float64)
    return proba_source, correct


def _check_target(proba_target, proba_source):
    proba_target = check_array(proba_target, input_name="proba_target")
    if proba_target.shape[1] != proba_source.shape[1]:
        raise ValueError(
            f"proba_target has {proba_target.shape[1]} columns, proba_source "
            f"{proba_source.shape[1]}: both must hold the same classes."
        )
    return proba_target


_FUNCTIONAL_CONSTRAINTS = {
    "y_source": ["array-like"],
    "proba_source": ["array-like"],
    "proba_target": ["array-like"],
    "labels": ["array-like", None],
    "sample_weight": ["array-like", None],
    "target_sample_weight": ["array-like", None],
}


@validate_params(
    {**_FUNCTIONAL_CONSTRAINTS, "score": [str, callable], "score_params": [dict, None]},
    prefer_skip_nested_validation=True,
)
def atc_accuracy(
    y_source,
    proba_source,
    proba_target,
    *,
    score="msp",
    score_params=None,
    labels=None,
    sample_weight=None,
    target_sample_weight=None,
):
    """Average Thresholded Confidence: target accuracy from source labels only.

    On labelled source data, the threshold ``t`` is the observed score whose
    share of source samples scoring below it is closest to the source error
    ([ATC] Eq. 1-2; tied scores form one candidate, ties of the distance go to
    the lowest score). The estimated target accuracy is the share of target
    samples scoring ``>= t`` (one minus [ATC] Eq. 3).

    Parameters
    ----------
    y_source : array-like of shape (n_source,)
        True labels of the source (validation) samples.

    proba_source : array-like of shape (n_source, n_classes)
        The model's class probabilities on the source samples; the prediction
        is their argmax.

    proba_target : array-like of shape (n_target, n_classes)
        Class probabilities on the unlabelled target samples.

    score : str or callable, default="msp"
        A probability-based score function of
        :mod:`sklearn_selective.confidence`: ``"msp"`` is ATC-MC and
        ``"negative_entropy"`` ATC-NE of Garg et al.

    score_params : dict, default=None
        Keyword arguments of the score function.

    labels : array-like of shape (n_classes,), default=None
        The class of each probability column; defaults to the sorted unique
        values of ``y_source``.

    sample_weight : array-like of shape (n_source,), default=None
        Source sample weights.

    target_sample_weight : array-like of shape (n_target,), default=None
        Target sample weights.

    Returns
    -------
    accuracy : float
        The estimated target accuracy, in ``[0, 1]``.

    Warns
    -----
    UserWarning
        When every source prediction is correct (or wrong): the threshold is
        then the lowest (highest) source score and the estimate only counts
        target samples scoring outside the source range as errors (correct).

    See Also
    --------
    ATCEstimator : The same from a fitted model, with bootstrap averaging.
    average_confidence_accuracy, doc_accuracy : Baselines.

    References
    ----------
    .. [1] S. Garg, S. Balakrishnan, Z. C. Lipton, B. Neyshabur, H. Sedghi.
       *Leveraging Unlabeled Data to Predict Out-of-Distribution Performance.*
       ICLR 2022.
    .. [2] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Eq. 1-3.

    Examples
    --------
    >>> from sklearn_selective import atc_accuracy
    >>> y_source = [0, 0, 1, 1]
    >>> proba_source = [[0.9, 0.1], [0.6, 0.4], [0.3, 0.7], [0.55, 0.45]]
    >>> proba_target = [[0.95, 0.05], [0.5, 0.5], [0.2, 0.8], [0.58, 0.42]]
    >>> atc_accuracy(y_source, proba_source, proba_target)
    0.5
    """
    proba_source, correct = _source_predictions(y_source, proba_source, labels)
    proba_target = _check_target(proba_target, proba_source)
    function = _probability_csf(score)
    scores = function(proba_source, **(score_params or {}))
    target_scores = function(proba_target, **(score_params or {}))
    sample_weight = _check_sample_weight(sample_weight, scores.shape[0])
    target_weight = _check_sample_weight(target_sample_weight, target_scores.shape[0])
    threshold, _, _ = _fit_atc(scores, correct, sample_weight, 0, None)
    return float(
        _SortedScores(target_scores, target_weight).share_at_or_above(threshold)
    )


@validate_params(
    {"proba_target": ["array-like"], "target_sample_weight": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def average_confidence_accuracy(proba_target, *, target_sample_weight=None):
    """Average confidence: the mean maximum probability on the target.

    The simplest label-free estimate; right only for a calibrated model whose
    calibration survives the shift.

    Parameters
    ----------
    proba_target : array-like of shape (n_target, n_classes)
        Class probabilities on the unlabelled target samples.

    target_sample_weight : array-like of shape (n_target,), default=None
        Target sample weights.

    Returns
    -------
    accuracy : float
        The weighted mean of ``max_j p_j`` over the target.

    See Also
    --------
    atc_accuracy : Average thresholded confidence.
    AverageConfidenceEstimator : The same from a fitted model.

    References
    ----------
    .. [1] D. Hendrycks, K. Gimpel. *A Baseline for Detecting Misclassified and
       Out-of-Distribution Examples in Neural Networks.* ICLR 2017.

    Examples
    --------
    >>> from sklearn_selective import average_confidence_accuracy
    >>> average_confidence_accuracy([[0.9, 0.1], [0.6, 0.4]])
    0.75
    """
    confidence = get_confidence_function("msp")(proba_target)
    weight = _check_sample_weight(target_sample_weight, confidence.shape[0])
    return float(np.average(confidence, weights=weight))


@validate_params(_FUNCTIONAL_CONSTRAINTS, prefer_skip_nested_validation=True)
def doc_accuracy(
    y_source,
    proba_source,
    proba_target,
    *,
    labels=None,
    sample_weight=None,
    target_sample_weight=None,
):
    """Difference of confidences (DoC): source accuracy shifted by the change
    in average confidence.

    ``acc_target = acc_source - (mean MSP on source - mean MSP on target)``,
    clipped to ``[0, 1]`` (Guillory et al. 2021, the form without a fitted
    regression, which needs several labelled shifted sets).

    Parameters
    ----------
    y_source : array-like of shape (n_source,)
        True labels of the source (validation) samples.

    proba_source : array-like of shape (n_source, n_classes)
        Class probabilities on the source samples.

    proba_target : array-like of shape (n_target, n_classes)
        Class probabilities on the unlabelled target samples.

    labels : array-like of shape (n_classes,), default=None
        The class of each probability column; defaults to the sorted unique
        values of ``y_source``.

    sample_weight : array-like of shape (n_source,), default=None
        Source sample weights.

    target_sample_weight : array-like of shape (n_target,), default=None
        Target sample weights.

    Returns
    -------
    accuracy : float
        The estimated target accuracy.

    See Also
    --------
    atc_accuracy : Average thresholded confidence.
    DoCEstimator : The same from a fitted model.

    References
    ----------
    .. [1] D. Guillory, V. Shankar, S. Ebrahimi, T. Darrell, L. Schmidt.
       *Predicting with Confidence on Unseen Distributions.* ICCV 2021.

    Examples
    --------
    >>> from sklearn_selective import doc_accuracy
    >>> y_source = [0, 1]
    >>> proba_source = [[0.9, 0.1], [0.4, 0.6]]
    >>> round(doc_accuracy(y_source, proba_source, [[0.7, 0.3], [0.5, 0.5]]), 4)
    0.85
    """
    proba_source, correct = _source_predictions(y_source, proba_source, labels)
    proba_target = _check_target(proba_target, proba_source)
    msp = get_confidence_function("msp")
    source_confidence, target_confidence = msp(proba_source), msp(proba_target)
    source_weight = _check_sample_weight(sample_weight, correct.shape[0])
    target_weight = _check_sample_weight(
        target_sample_weight, target_confidence.shape[0]
    )
    return _doc_estimate(
        np.average(correct, weights=source_weight),
        np.average(source_confidence, weights=source_weight),
        np.average(target_confidence, weights=target_weight),
    )


def _doc_estimate(source_accuracy, source_confidence, target_confidence):
    """Source accuracy minus the drop in mean confidence, clipped to [0, 1]."""
    accuracy = source_accuracy - (source_confidence - target_confidence)
    return float(np.clip(accuracy, 0.0, 1.0))


# ----------------------------------------------------------------------------
# Estimators
# ----------------------------------------------------------------------------
class _BaseAccuracyEstimator(HeldOutScoresMixin, MetaEstimatorMixin, BaseEstimator):
    """Fit a classifier, keep its held-out source scores, estimate on targets."""

    _fitted_attribute = "source_accuracy_"

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"])],
        "cv": ["cv_object", Interval(RealNotInt, 0.0, 1.0, closed="neither")],
        "refit": ["boolean"],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def _score_function(self):
        return "msp", {}

    def _base_estimator(self):
        return self.estimator

    @_fit_context(prefer_skip_nested_validation=False)  # estimator not validated
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the classifier and learn from its held-out source scores.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Labelled source data (all validation data for a
            ``FrozenEstimator``).

        y : array-like of shape (n_samples,)
            Source labels.

        sample_weight : array-like of shape (n_samples,), default=None
            Source sample weights, passed to the classifier's ``fit`` (or
            routed, with metadata routing enabled) and used for the source
            statistics.

        **fit_params : dict
            Parameters passed to the classifier's ``fit``.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        check_classification_targets(y)
        X, y = indexable(X, y)
        y = column_or_1d(y, warn=True)
        sample_weight = _check_sample_weight(sample_weight, y.shape[0])
        routed = self._fit_params(sample_weight, fit_params)
        score, score_params = self._score_function()
        held_out = self._fit_held_out(
            X, y, routed, score, score_params, estimator=self._base_estimator()
        )
        self.estimator_ = held_out.estimator
        self.classes_ = self.estimator_.classes_
        correct = (held_out.y_pred == y[held_out.indices]).astype(np.float64)
        weights = None if sample_weight is None else sample_weight[held_out.indices]
        self._fit_source(held_out.confidence, correct, weights)
        return self

    def _target_scores(self, X, sample_weight):
        check_is_fitted(self, self._fitted_attribute)
        score, score_params = self._score_function()
        _, confidence = predict_with_confidence(self.estimator_, X, score, score_params)
        return confidence, _check_sample_weight(sample_weight, confidence.shape[0])


@fill_doc
class ATCEstimator(_BaseAccuracyEstimator):
    """Estimate accuracy on unlabelled data by Average Thresholded Confidence.

        ``fit`` learns, from held-out labelled source data, the score threshold
        whose share of source samples below it equals the source error ([ATC]
        Eq. 1-2); :meth:`estimate_accuracy` returns the share of target samples
        scoring at or above it (Eq. 3). With ``n_bootstrap > 0`` the threshold is
        also learnt on that many bootstrap resamples of the source scores and the
        estimate is the mean over them (Maaz et al.), which reduces its variance.

        Parameters
        ----------
        estimator : estimator instance
            The classifier, unfitted, or fitted and wrapped in
            :class:`~sklearn.frozen.FrozenEstimator` (then all of ``fit``'s data
            is source validation data).

        score : str or callable, default="msp"
            Any score function of :mod:`sklearn_selective.confidence` (ATC-MC is
            ``"msp"``, ATC-NE ``"negative_entropy"``). In binary problems every
            probability-based score gives the same estimate (Theorem 1).

        score_params : dict, default=None
            Keyword arguments of the score function.

        n_bootstrap : int, default=0
            Number of bootstrap resamples of the source scores to average over.

        temperature_scaling : bool, default=False
            Temperature-scale the classifier before scoring, as Garg et al. do: the
            classifier is wrapped in
            ``CalibratedClassifierCV(estimator, method="temperature")``, whose
            internal cross-validation (or, for a ``FrozenEstimator``, the training
            part of each split) fits the temperature.

    %(held_out_cv)s

    random_state : int, RandomState instance or None, default=None
        Seed of the bootstrap resamples and of a float ``cv`` split.

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted classifier (temperature-scaled if requested).

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    threshold_ : float
        The ATC threshold learnt on all held-out source scores.

    thresholds_ : ndarray of shape (n_bootstrap,) or (1,)
        The thresholds of the bootstrap resamples (``[threshold_]`` without).

    source_accuracy_ : float
        The held-out source accuracy.

    n_features_in_ : int
        Number of features seen during fit.

    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    atc_accuracy : The same from probabilities.
    AverageConfidenceEstimator, DoCEstimator : Baselines.

    Notes
    -----
    ATC assumes the shift leaves the relation between score and correctness
    intact. A shift that makes the model over-confident (e.g. inputs far from
    the training data with extreme probabilities) breaks it: ATC then
    over-estimates the accuracy, as every confidence-based estimator does.

    When every held-out source prediction is correct, the threshold is the
    lowest source score (a warning says so): target samples scoring below
    anything seen in the source count as errors, all others as correct. When
    every source prediction is wrong, the threshold is the highest source
    score.

    References
    ----------
    .. [1] S. Garg, S. Balakrishnan, Z. C. Lipton, B. Neyshabur, H. Sedghi.
       *Leveraging Unlabeled Data to Predict Out-of-Distribution Performance.*
       ICLR 2022.
    .. [2] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Eq. 1-3 and Sec. 3.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_selective import ATCEstimator
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> atc = ATCEstimator(model, n_bootstrap=200, random_state=0)
    >>> atc = atc.fit(X[:350], y[:350])
    >>> estimate, (low, high) = atc.estimate_accuracy(X[350:], return_interval=True)
    >>> true_accuracy = (atc.estimator_.predict(X[350:]) == y[350:]).mean()
    >>> bool(abs(estimate - true_accuracy) < 0.05), bool(low <= estimate <= high)
    (True, True)
    """

    _parameter_constraints: dict = {
        **_BaseAccuracyEstimator._parameter_constraints,
        "score": [str, callable],
        "score_params": [dict, None],
        "n_bootstrap": [Interval(Integral, 0, None, closed="left")],
        "temperature_scaling": ["boolean"],
    }

    def __init__(
        self,
        estimator,
        *,
        score="msp",
        score_params=None,
        n_bootstrap=0,
        temperature_scaling=False,
        cv=None,
        refit=True,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.score = score
        self.score_params = score_params
        self.n_bootstrap = n_bootstrap
        self.temperature_scaling = temperature_scaling
        self.cv = cv
        self.refit = refit
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _score_function(self):
        return self.score, self.score_params or {}

    def _base_estimator(self):
        if self.temperature_scaling:
            return CalibratedClassifierCV(self.estimator, method="temperature")
        return self.estimator

    def _fit_source(self, scores, correct, sample_weight):
        self.threshold_, self.thresholds_, self.source_accuracy_ = _fit_atc(
            scores, correct, sample_weight, self.n_bootstrap, self.random_state
        )

    def predict_correct(self, X):
        """Whether each target prediction counts as correct in the estimate.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Target samples.

        Returns
        -------
        correct : ndarray of shape (n_samples,)
            Without bootstrap, the boolean ``score >= threshold_``; with
            bootstrap, the share (float) of bootstrap thresholds the score
            reaches. Either way the (weighted) mean is the estimate.
        """
        scores, _ = self._target_scores(X, None)
        if self.n_bootstrap == 0:
            return scores >= self.threshold_
        thresholds = np.sort(self.thresholds_)
        reached = np.searchsorted(thresholds, scores, side="right")
        return reached / thresholds.shape[0]

    def estimate_accuracy(
        self, X, *, sample_weight=None, return_interval=False, confidence_level=0.95
    ):
        """Estimated accuracy of the classifier on unlabelled target data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Target samples.

        sample_weight : array-like of shape (n_samples,), default=None
            Target sample weights.

        return_interval : bool, default=False
            Also return the percentile interval of the bootstrap estimates
            (needs ``n_bootstrap > 0``). It reflects the uncertainty of the
            source threshold, not the sampling of the target set.

        confidence_level : float in (0, 1), default=0.95
            Level of the interval.

        Returns
        -------
        accuracy : float
            The estimate (the mean over bootstrap thresholds with bootstrap).

        interval : tuple of float
            ``(low, high)``, when ``return_interval=True``.
        """
        if not 0 < confidence_level < 1:
            raise ValueError(
                f"confidence_level must be in (0, 1); got {confidence_level}."
            )
        scores, weight = self._target_scores(X, sample_weight)
        sorted_scores = _SortedScores(scores, weight)
        if self.n_bootstrap == 0:
            if return_interval:
                raise ValueError(
                    "An interval needs bootstrap resamples: set n_bootstrap, e.g. "
                    "n_bootstrap=200."
                )
            return float(sorted_scores.share_at_or_above(self.threshold_))
        estimates = sorted_scores.share_at_or_above(self.thresholds_)
        estimate = float(estimates.mean())
        if return_interval:
            return estimate, _interval(estimates, confidence_level)
        return estimate


@fill_doc
class AverageConfidenceEstimator(_BaseAccuracyEstimator):
    """Estimate accuracy on unlabelled data by the average maximum probability.

        A baseline for :class:`ATCEstimator`: right only when the classifier is
        calibrated on the target, which a shift usually breaks.

        Parameters
        ----------
        estimator : estimator instance
            The probabilistic classifier, unfitted or wrapped in
            :class:`~sklearn.frozen.FrozenEstimator`.

    %(held_out_cv)s

    random_state : int, RandomState instance or None, default=None
        Seed of a float ``cv`` split.

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted classifier.

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    source_accuracy_ : float
        The held-out source accuracy.

    source_confidence_ : float
        The mean held-out source MSP (a calibration check: close to
        ``source_accuracy_`` for a calibrated model).

    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    average_confidence_accuracy : The same from probabilities.
    ATCEstimator : Average thresholded confidence.

    References
    ----------
    .. [1] D. Hendrycks, K. Gimpel. *A Baseline for Detecting Misclassified and
       Out-of-Distribution Examples in Neural Networks.* ICLR 2017.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_selective import AverageConfidenceEstimator
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> ac = AverageConfidenceEstimator(model).fit(X[:350], y[:350])
    >>> 0.8 < ac.estimate_accuracy(X[350:]) <= 1
    True
    """

    def __init__(
        self, estimator, *, cv=None, refit=True, n_jobs=None, random_state=None
    ):
        self.estimator = estimator
        self.cv = cv
        self.refit = refit
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _fit_source(self, scores, correct, sample_weight):
        self.source_accuracy_ = float(np.average(correct, weights=sample_weight))
        self.source_confidence_ = float(np.average(scores, weights=sample_weight))

    def estimate_accuracy(self, X, *, sample_weight=None):
        """Mean maximum probability on the target samples.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Target samples.

        sample_weight : array-like of shape (n_samples,), default=None
            Target sample weights.

        Returns
        -------
        accuracy : float
            The estimate.
        """
        scores, weight = self._target_scores(X, sample_weight)
        return float(np.average(scores, weights=weight))


@fill_doc
class DoCEstimator(AverageConfidenceEstimator):
    """Estimate accuracy on unlabelled data by the difference of confidences.

        ``acc_target = acc_source - (mean MSP on source - mean MSP on target)``,
        clipped to ``[0, 1]`` (Guillory et al. 2021). A baseline for
        :class:`ATCEstimator`.

        Parameters
        ----------
        estimator : estimator instance
            The probabilistic classifier, unfitted or wrapped in
            :class:`~sklearn.frozen.FrozenEstimator`.

    %(held_out_cv)s

    random_state : int, RandomState instance or None, default=None
        Seed of a float ``cv`` split.

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted classifier.

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    source_accuracy_ : float
        The held-out source accuracy.

    source_confidence_ : float
        The mean held-out source MSP.

    n_features_in_ : int
        Number of features seen during fit.

    See Also
    --------
    doc_accuracy : The same from probabilities.
    ATCEstimator : Average thresholded confidence.

    References
    ----------
    .. [1] D. Guillory, V. Shankar, S. Ebrahimi, T. Darrell, L. Schmidt.
       *Predicting with Confidence on Unseen Distributions.* ICCV 2021.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_selective import DoCEstimator
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> doc = DoCEstimator(model).fit(X[:350], y[:350])
    >>> 0.8 < doc.estimate_accuracy(X[350:]) <= 1
    True
    """

    def estimate_accuracy(self, X, *, sample_weight=None):
        """Source accuracy shifted by the change in mean MSP.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Target samples.

        sample_weight : array-like of shape (n_samples,), default=None
            Target sample weights.

        Returns
        -------
        accuracy : float
            The estimate, in ``[0, 1]``.
        """
        target_confidence = super().estimate_accuracy(X, sample_weight=sample_weight)
        return _doc_estimate(
            self.source_accuracy_, self.source_confidence_, target_confidence
        )
