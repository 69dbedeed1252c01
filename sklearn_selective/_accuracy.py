"""Label-free accuracy estimation under shift: the estimators.

:class:`ATCEstimator`, :class:`AverageConfidenceEstimator` and
:class:`DoCEstimator` fit a scikit-learn classifier and collect its held-out
source scores exactly as :class:`~sklearn_selective.SelectiveClassifier` does;
the arithmetic on scores lives in :mod:`._accuracy_functions`.
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, _fit_context
from sklearn.calibration import CalibratedClassifierCV
from sklearn.utils import column_or_1d
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, indexable

from ._accuracy_functions import (  # noqa: F401 (array-level API of the monitor)
    _atc_interval,
    _atc_thresholds,
    _doc_estimate,
    _fit_atc,
    _SortedScores,
    _target_seed,
    atc_accuracy,
    average_confidence_accuracy,
    doc_accuracy,
)
from ._held_out import HeldOutScoresMixin
from .confidence import predict_with_confidence
from .metrics._docstrings import fill_doc
from .metrics._validation import _check_sample_weight


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

    def _csf(self):
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
        csf, csf_params = self._csf()
        held_out = self._fit_held_out(
            X, y, routed, csf, csf_params, estimator=self._base_estimator()
        )
        self.estimator_ = held_out.estimator
        self.classes_ = self.estimator_.classes_
        correct = (held_out.y_pred == y[held_out.indices]).astype(np.float64)
        weights = None if sample_weight is None else sample_weight[held_out.indices]
        self._fit_source(held_out.confidence, correct, weights)
        return self

    def score(self, X, y, sample_weight=None):
        """Negative absolute error of the accuracy estimate on labelled data.

        An accuracy estimator's task is to estimate the classifier's accuracy,
        so its score (greater is better, as for every scikit-learn ``score``)
        is ``-|estimate_accuracy(X) - accuracy of estimator_ on (X, y)|``.
        This lets :class:`~sklearn.model_selection.GridSearchCV` choose, e.g.,
        ``csf`` or ``n_bootstrap`` by estimation error; score on labelled
        *shifted* data when the estimator is meant for shifts (i.i.d.
        cross-validation folds only measure the no-shift error). The
        classifier's own accuracy is ``estimator_.score(X, y)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Labelled target samples.

        y : array-like of shape (n_samples,)
            Their true labels.

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, for the estimate and the true accuracy alike.

        Returns
        -------
        score : float
            ``-|estimated - true accuracy|``, at most 0.
        """
        check_is_fitted(self, self._fitted_attribute)
        y = column_or_1d(y, dtype=None)
        y_pred = self.estimator_.predict(X)
        if y.shape[0] != y_pred.shape[0]:
            raise ValueError(
                f"y has {y.shape[0]} labels but X has {y_pred.shape[0]} samples; "
                "pass one label per sample."
            )
        weight = _check_sample_weight(sample_weight, y.shape[0])
        accuracy = np.average(y_pred == y, weights=weight)
        estimate = self.estimate_accuracy(X, sample_weight=weight)
        return -float(abs(estimate - accuracy))

    def _target_scores(self, X, sample_weight):
        check_is_fitted(self, self._fitted_attribute)
        csf, csf_params = self._csf()
        _, confidence = predict_with_confidence(self.estimator_, X, csf, csf_params)
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

        csf : str or callable, default="msp"
            Any score function of :mod:`sklearn_selective.confidence` (ATC-MC is
            ``"msp"``, ATC-NE ``"negative_entropy"``). In binary problems every
            probability-based score gives the same estimate (Theorem 1).

        csf_params : dict, default=None
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
        "csf": [str, callable],
        "csf_params": [dict, None],
        "n_bootstrap": [Interval(Integral, 0, None, closed="left")],
        "temperature_scaling": ["boolean"],
    }

    def __init__(
        self,
        estimator,
        *,
        csf="msp",
        csf_params=None,
        n_bootstrap=0,
        temperature_scaling=False,
        cv=None,
        refit=True,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.csf = csf
        self.csf_params = csf_params
        self.n_bootstrap = n_bootstrap
        self.temperature_scaling = temperature_scaling
        self.cv = cv
        self.refit = refit
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _csf(self):
        return self.csf, self.csf_params or {}

    def _base_estimator(self):
        if self.temperature_scaling:
            return CalibratedClassifierCV(self.estimator, method="temperature")
        return self.estimator

    def _fit_source(self, scores, correct, sample_weight):
        self.threshold_, self.thresholds_, self.source_accuracy_ = _fit_atc(
            scores, correct, sample_weight, self.n_bootstrap, self.random_state
        )
        self._target_seed = _target_seed(self.random_state)

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
            Also return a percentile bootstrap interval (needs
            ``n_bootstrap > 0``) for the **population accuracy on the target
            distribution**: the accuracy the classifier would have on an
            unlimited number of new samples drawn like ``X``. Each of the
            ``n_bootstrap`` bootstrap thresholds of the source is paired with
            a bootstrap resample of the target samples, so the interval
            includes both the uncertainty of the threshold (finite source
            data) and the sampling of the target set. It assumes what ATC
            assumes (the shift keeps the link between score and correctness);
            it does not cover the error of a shift that breaks it, and it is
            not an interval for the accuracy on these particular samples,
            whose realised correctness varies around the population value.
            The resamples are drawn from ``random_state`` (reproducible for an
            integer).

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
            rng = np.random.default_rng(self._target_seed)
            interval = _atc_interval(
                self.thresholds_, scores, weight, rng, confidence_level
            )
            return estimate, interval
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
