"""Label-free accuracy estimation under shift: the ATC estimator.

:class:`ATCEstimator` fits a scikit-learn classifier and learns the ATC
threshold from its held-out source scores; the arithmetic on scores lives in
:mod:`._accuracy_estimates` (array-level helpers, shared with the performance
monitor) and the baselines in :mod:`._baselines`.
"""

import numpy as np
from sklearn.calibration import CalibratedClassifierCV

from .._utils._docstrings import fill_doc
from .._utils._param_validation import N_RESAMPLES
from ._accuracy_estimates import (
    _atc_interval,
    _fit_atc,
    _SortedScores,
    _target_seed,
)
from ._baselines import (
    _BaseAccuracyEstimator,
)


@fill_doc
class ATCEstimator(_BaseAccuracyEstimator):
    """Estimate accuracy on unlabelled data by Average Thresholded Confidence.

        ``fit`` learns, from held-out labelled source data, the score threshold
        whose share of source samples below it equals the source error ([ATC]
        Eq. 1-2); :meth:`estimate_accuracy` returns the share of target samples
        scoring at or above it (Eq. 3). With ``n_resamples > 0`` the threshold is
        also learnt on that many bootstrap resamples of the source scores; the
        estimate is the mean over them (Maaz et al.), and
        ``estimate_accuracy(..., return_interval=True)`` gives an interval for
        the target's population accuracy.

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

    n_resamples : int, default=0
        Number of bootstrap resamples of the source scores: the estimate is
        averaged over their thresholds, and they (with as many resamples of
        the target) give the interval. The averaging itself changes the
        variance little: in ``benchmarks/bench_atc.py`` (2,000 source
        samples, 200 resamples) it removed 0-2.5 % of the variance of the
        estimate for logistic regression and 5-13.5 % for gradient
        boosting (see the user guide).

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

    thresholds_ : ndarray of shape (n_resamples,) or (1,)
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

    Protocol: with an unfitted ``estimator`` the source scores are the pooled
    out-of-fold scores of ``cv`` and the deployed model is refit on all the
    data, whereas the papers learn the threshold on a held-out split with the
    deployed model itself (here: a ``FrozenEstimator`` fitted on the held-out
    part). In ``benchmarks/bench_atc.py`` (5 repetitions, 2,000 labelled
    samples) the pooled protocol had the smaller error without shift, under
    covariate selection and under label shift (mean absolute error 0.007-0.008
    against 0.012-0.013) and over-estimated by about one point more under
    additive noise; the user guide has the table.

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
    >>> atc = ATCEstimator(model, n_resamples=200, random_state=0)
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
        "n_resamples": [*N_RESAMPLES],
        "temperature_scaling": ["boolean"],
    }

    def __init__(
        self,
        estimator,
        *,
        csf="msp",
        csf_params=None,
        n_resamples=0,
        temperature_scaling=False,
        cv=None,
        refit=True,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.csf = csf
        self.csf_params = csf_params
        self.n_resamples = n_resamples
        self.temperature_scaling = temperature_scaling
        self.cv = cv
        self.refit = refit
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _csf(self):
        return self.csf, self.csf_params or {}

    def _base_estimator(self):
        if self.temperature_scaling:
            if not (
                hasattr(self.estimator, "predict_proba")
                or hasattr(self.estimator, "decision_function")
            ):
                raise ValueError(
                    f"temperature_scaling=True scales a classifier's probabilities "
                    f"or decision values, and estimator="
                    f"{type(self.estimator).__name__} has neither: pass a "
                    "classifier (e.g. LogisticRegression)."
                )
            return CalibratedClassifierCV(self.estimator, method="temperature")
        return self.estimator

    def _fit_source(self, scores, correct, sample_weight):
        self.threshold_, self.thresholds_, self.source_accuracy_ = _fit_atc(
            scores, correct, sample_weight, self.n_resamples, self.random_state
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
        if self.n_resamples == 0:
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
            ``n_resamples > 0``; the values of ranks ``(B + 1) a`` and ``(B +
            1) (1 - a)`` of the ``B = n_resamples``, ``a = (1 -
            confidence_level) / 2``) for the **population accuracy on the target
            distribution**: the accuracy the classifier would have on an
            unlimited number of new samples drawn like ``X``. Each of the
            ``n_resamples`` bootstrap thresholds of the source is paired with
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
        if self.n_resamples == 0:
            if return_interval:
                raise ValueError(
                    "An interval needs bootstrap resamples: set n_resamples, e.g. "
                    "n_resamples=200."
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
