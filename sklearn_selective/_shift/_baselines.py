"""The accuracy estimators' shared fit, and the baselines of ATC.

:class:`AverageConfidenceEstimator` (mean MSP) and :class:`DoCEstimator`
(difference of confidences, and its regression form) share with
:class:`~sklearn_selective.ATCEstimator` one base class: fit a classifier,
collect its held-out source scores exactly as
:class:`~sklearn_selective.SelectiveClassifier` does, estimate on targets.
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin
from sklearn.utils import column_or_1d
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, indexable

from .._utils._docstrings import fill_doc
from .._utils._held_out import HeldOutScoresMixin
from .._utils._sklearn import HasMethods, Interval, RealNotInt, fit_context
from .._utils._validation import (
    _check_sample_weight,
    check_labels_match_classes,
    count_missing_labels,
)
from ..confidence import predict_with_confidence
from ..confidence._feature_space import held_out_inference
from ._difference_of_confidences import _doc_estimate, _fit_doc_regression

_REGRESSION_ATTRIBUTES = (
    "regression_coef_",
    "regression_intercept_",
    "shift_doc_",
    "shift_accuracy_drop_",
)


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

    @fit_context(prefer_skip_nested_validation=False)  # estimator not validated
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
        sample_weight = _check_sample_weight(sample_weight, y.shape[0], reference="y")
        routed = self._fit_params(sample_weight, fit_params)
        csf, csf_params = self._csf()
        held_out = self._fit_held_out(
            X,
            y,
            routed,
            held_out_inference(csf, csf_params),
            estimator=self._base_estimator(),
        )
        self.estimator_ = held_out.estimator
        # A feature-space CSF by name is fitted on the deployed model's inputs.
        self._deployed_csf = (held_out.inference.csf, held_out.inference.csf_params)
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
        ``csf`` or ``n_resamples`` by estimation error; score on labelled
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
        if count_missing_labels(y):
            raise ValueError("y contains NaN (missing labels); drop those samples.")
        check_labels_match_classes(y, self.classes_)
        y_pred = self.estimator_.predict(X)
        if y.shape[0] != y_pred.shape[0]:
            raise ValueError(
                f"y has {y.shape[0]} labels but X has {y_pred.shape[0]} samples; "
                "pass one label per sample."
            )
        weight = _check_sample_weight(sample_weight, y.shape[0], reference="y")
        accuracy = np.average(y_pred == y, weights=weight)
        estimate = self.estimate_accuracy(X, sample_weight=weight)
        return -float(abs(estimate - accuracy))

    def _target_scores(self, X, sample_weight):
        check_is_fitted(self, self._fitted_attribute)
        csf, csf_params = self._deployed_csf
        _, confidence = predict_with_confidence(self.estimator_, X, csf, csf_params)
        return confidence, _check_sample_weight(
            sample_weight, confidence.shape[0], reference="X"
        )


@fill_doc
class AverageConfidenceEstimator(_BaseAccuracyEstimator):
    """Estimate accuracy on unlabelled data by the average maximum probability.

    A baseline for :class:`ATCEstimator`: right only when the classifier is
    calibrated on the target, which a shift usually breaks.

    Parameters
    ----------
    %(baseline_estimator_and_cv)s

    Attributes
    ----------
    %(baseline_fitted)s

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

    After :meth:`fit`, :meth:`fit_regression` turns this difference form
    into the *regression* DoC: from several labelled shifted sets it learns
    the line ``drop = intercept + slope * DoC`` between the difference of
    confidences and the accuracy drop, which :meth:`estimate_accuracy` then
    uses (Guillory et al. 2021; Maaz et al. Sec. 1.1 and 3.1).

    Parameters
    ----------
    %(baseline_estimator_and_cv)s

    Attributes
    ----------
    %(baseline_fitted)s

    source_confidence_ : float
        The mean held-out source MSP.

    regression_coef_ : float
        Slope of the regression DoC line (only after :meth:`fit_regression`;
        the difference form is slope 1, intercept 0).

    regression_intercept_ : float
        Intercept of the regression DoC line (only after
        :meth:`fit_regression`).

    shift_doc_ : ndarray of shape (n_sets,)
        Difference of confidences of each labelled shifted set (only after
        :meth:`fit_regression`).

    shift_accuracy_drop_ : ndarray of shape (n_sets,)
        Source accuracy minus each shifted set's accuracy (only after
        :meth:`fit_regression`).

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
    .. [2] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Sec. 1.1 and 3.1.

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

    The regression form, from labelled sets under stronger and weaker
    (here: additive noise) shifts:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> noisy = [X[350:450] + rng.normal(scale=s * X.std(axis=0), size=(100, 30))
    ...          for s in (0.5, 1.0, 2.0)]
    >>> doc = doc.fit_regression([(Xs, y[350:450]) for Xs in noisy])
    >>> doc.shift_doc_.shape
    (3,)
    >>> 0 <= doc.estimate_accuracy(X[450:] + rng.normal(size=X[450:].shape)) <= 1
    True
    """

    def _fit_source(self, scores, correct, sample_weight):
        super()._fit_source(scores, correct, sample_weight)
        for name in _REGRESSION_ATTRIBUTES:  # a new fit starts without regression
            self.__dict__.pop(name, None)

    def fit_regression(self, shifted_sets):
        """Learn the regression DoC from labelled shifted sets.

        For each set, the difference of confidences ``DoC = source_confidence_
        - mean MSP on the set`` and the accuracy drop ``source_accuracy_ -
        accuracy on the set`` of the fitted classifier; then the least-squares
        line ``drop = intercept + slope * DoC`` through these points. From then
        on :meth:`estimate_accuracy` returns ``source_accuracy_ - (intercept +
        slope * DoC_target)``, clipped to ``[0, 1]``; a new :meth:`fit` returns
        to the difference form.

        Parameters
        ----------
        shifted_sets : list of tuples
            At least two labelled shifted sets with different DoCs, each
            ``(X, y)`` or ``(X, y, sample_weight)``. They should span the kind
            and the strength of shift expected on the targets (the line is
            extrapolated otherwise), and must not be the source data.

        Returns
        -------
        self : object
            The estimator, with the regression learnt.
        """
        check_is_fitted(self, self._fitted_attribute)
        if not isinstance(shifted_sets, (list, tuple)):
            raise TypeError(
                "shifted_sets must be a list of (X, y) or (X, y, sample_weight) "
                f"tuples; got {type(shifted_sets).__name__}."
            )
        statistics = np.array(
            [
                self._shifted_set_statistics(shifted, index)
                for index, shifted in enumerate(shifted_sets)
            ]
        ).reshape(-1, 2)
        docs = self.source_confidence_ - statistics[:, 1]
        drops = self.source_accuracy_ - statistics[:, 0]
        slope, intercept = _fit_doc_regression(docs, drops)
        self.regression_coef_, self.regression_intercept_ = slope, intercept
        self.shift_doc_, self.shift_accuracy_drop_ = docs, drops
        return self

    def _shifted_set_statistics(self, shifted, index):
        """(accuracy, mean MSP) of the classifier on one labelled shifted set."""
        name = f"shifted_sets[{index}]"
        if not isinstance(shifted, (tuple, list)) or len(shifted) not in (2, 3):
            raise ValueError(
                f"{name} must be a tuple (X, y) or (X, y, sample_weight); got "
                f"{type(shifted).__name__}."
            )
        X, y, *weight = shifted
        y = column_or_1d(y, dtype=None)
        check_labels_match_classes(y, self.classes_, f"{name}[1]")
        y_pred, confidence = predict_with_confidence(self.estimator_, X, "msp")
        if y.shape[0] != y_pred.shape[0]:
            raise ValueError(
                f"{name}: y has {y.shape[0]} labels but X has {y_pred.shape[0]} "
                "samples; pass one label per sample."
            )
        weight = _check_sample_weight(
            weight[0] if weight else None, y.shape[0], reference="y"
        )
        return (
            np.average(y_pred == y, weights=weight),
            np.average(confidence, weights=weight),
        )

    def estimate_accuracy(self, X, *, sample_weight=None):
        """Source accuracy minus the (predicted) drop in accuracy.

        The drop is the difference of mean MSP between source and target, or,
        after :meth:`fit_regression`, the regression line at that difference.

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
            self.source_accuracy_,
            self.source_confidence_,
            target_confidence,
            getattr(self, "regression_coef_", 1.0),
            getattr(self, "regression_intercept_", 0.0),
        )
