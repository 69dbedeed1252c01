"""SelectiveClassifier: a classifier that abstains below a fitted confidence."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    MetaEstimatorMixin,
    _fit_context,
)
from sklearn.metrics import get_scorer as sklearn_get_scorer
from sklearn.utils import column_or_1d
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _estimator_has,
    check_is_fitted,
    indexable,
)

from . import _thresholds
from ._held_out import HeldOutScoresMixin
from .confidence import predict_with_confidence
from .confidence._model_output import check_csf_supported
from .metrics import get_scorer, get_scorer_names
from .metrics._validation import _check_sample_weight

_POLICIES = {
    "target_coverage": _thresholds.fit_target_coverage,
    "target_risk": _thresholds.fit_target_risk,
    "guaranteed_risk": _thresholds.fit_guaranteed_risk,
    "rejection_cost": _thresholds.fit_rejection_cost,
}
_DEFAULT_TARGET_COVERAGE = 0.9


class SelectiveClassifier(
    HeldOutScoresMixin, MetaEstimatorMixin, ClassifierMixin, BaseEstimator
):
    """Classifier that abstains when its confidence is below a fitted threshold.

    The wrapped classifier (or :class:`~sklearn.pipeline.Pipeline`) predicts as
    usual; a confidence score function (CSF) scores each prediction, and a
    sample is **accepted** iff its confidence is ``>= threshold_``. The
    threshold is fitted on validation data — out-of-fold predictions of a
    cross-validation, or all of ``fit``'s data for an already fitted model
    wrapped in :class:`~sklearn.frozen.FrozenEstimator` — by exactly one policy:

    - ``target_coverage``: the largest threshold whose validation coverage is at
      least the target;
    - ``target_risk`` (without ``delta``): the lowest threshold whose empirical
      validation selective risk (error rate of the accepted samples) is at most
      the target;
    - ``target_risk`` with ``delta``: the SGR algorithm of Geifman and El-Yaniv:
      the lowest threshold for which a one-sided Clopper-Pearson bound certifies
      a selective risk at most ``target_risk`` with probability ``1 - delta``
      (``delta`` is split over the tests of a binary search, tied confidences
      count as one threshold). See the Notes for when the guarantee holds;
    - ``rejection_cost``: Chow's rule, the threshold minimising the validation
      mean cost when an error costs 1 and an abstention ``rejection_cost``.

    When none is set, ``target_coverage=0.9`` is used.

    Parameters
    ----------
    estimator : estimator instance
        The classifier, unfitted, or fitted and wrapped in
        :class:`~sklearn.frozen.FrozenEstimator` (then all of ``fit``'s data is
        used as validation data and the model is not refitted).

    csf : str or callable, default="msp"
        Confidence score function, a name from
        :func:`~sklearn_selective.confidence.get_confidence_function_names` or a
        callable (see :mod:`sklearn_selective.confidence`). Higher = more
        confident.

    csf_params : dict, default=None
        Keyword arguments of the CSF, e.g. ``{"temperature": 2.0}`` for
        ``"energy"``.

    target_coverage : float in (0, 1], default=None
        Target fraction of accepted samples.

    target_risk : float in [0, 1), default=None
        Target selective risk (error rate among accepted samples).

    delta : float in (0, 1), default=None
        With ``target_risk``: the guarantee fails with probability at most
        ``delta``.

    rejection_cost : float > 0, default=None
        Cost of an abstention relative to the cost 1 of an error.

    cv : int, cross-validation generator, iterable or float, default=None
        How validation predictions are produced (ignored for a
        ``FrozenEstimator``):

        - None: 5-fold stratified cross-validation;
        - int: that many stratified folds;
        - float in (0, 1): one stratified split holding out that fraction;
        - a splitter or an iterable of (train, test) index arrays.

        The threshold is fitted on the pooled out-of-fold predictions.

    refit : bool, default=True
        Whether to refit the classifier on all the data once the threshold is
        fitted. With ``refit=False`` the model fitted on the training part of a
        single split is kept (required for a guarantee, see Notes).

    reject_label : object, default=None
        If set, :meth:`predict` returns this label (e.g. ``-1`` or
        ``"abstain"``) for rejected samples; otherwise it returns the
        classifier's prediction for every sample and :meth:`predict_accept`
        tells which are accepted.

    n_jobs : int, default=None
        Number of jobs fitting the cross-validation folds in parallel.

    random_state : int, RandomState instance or None, default=None
        Seed of the split when ``cv`` is a float.

    scoring : str or callable, default="neg_augrc"
        What :meth:`score` returns, and so what ``GridSearchCV`` maximises
        when it is given no ``scoring``: a name from
        :func:`sklearn_selective.metrics.get_scorer_names` (evaluated with
        this classifier's own CSF), any scikit-learn scorer name such as
        ``"accuracy"``, or a callable ``scorer(estimator, X, y)``. The default,
        the negated AUGRC, judges the predictions and the CSF ranking together
        over all thresholds, as the AUGRC paper recommends for choosing a
        model and a CSF; it does not depend on ``threshold_``.

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted classifier used to predict.

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    threshold_ : float
        Samples with confidence ``>= threshold_`` are accepted; ``inf`` when the
        classifier abstains on everything.

    coverage_ : float
        Weighted share of validation samples accepted at ``threshold_``.

    risk_ : float
        Validation selective risk at ``threshold_`` (``nan`` at zero coverage).

    risk_bound_ : float or None
        The certified upper bound on the selective risk (guarantee policy only;
        ``nan`` when no threshold could be certified and the classifier
        abstains on every sample; None for the other policies).

    policy_ : str
        The policy that fitted the threshold: ``"target_coverage"``,
        ``"target_risk"``, ``"guaranteed_risk"`` or ``"rejection_cost"``.

    n_features_in_ : int
        Number of features seen during fit (when the classifier records it).

    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit (when the classifier records them).

    See Also
    --------
    sklearn_selective.metrics.risk_coverage_curve : The curve the policies
        read their threshold from.
    sklearn.model_selection.TunedThresholdClassifierCV : The scikit-learn
        meta-estimator this one is modelled on.

    Notes
    -----
    **When the guarantee holds.** The SGR bound certifies the model whose
    validation scores it saw, on data drawn from the same distribution as the
    validation data, with probability ``1 - delta`` over that validation sample.
    It says nothing about a model refitted afterwards, nor about out-of-fold
    scores of several different models. So ``delta`` is only accepted when the
    certified model is the deployed one: either a ``FrozenEstimator`` with
    held-out data passed to ``fit``, or a single split (``cv`` a float or a
    one-split splitter) with ``refit=False``. Any other combination raises a
    ``ValueError``. Sample weights are not supported with ``delta`` (the bound
    counts samples).

    References
    ----------
    Geifman and El-Yaniv. "Selective Classification for Deep Neural Networks."
    NeurIPS 2017 (SGR). Chow. "On optimum recognition error and reject
    tradeoff." IEEE Trans. Inf. Theory, 1970.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_selective import SelectiveClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> clf = SelectiveClassifier(model, target_coverage=0.8, random_state=0)
    >>> clf = clf.fit(X[:400], y[:400])
    >>> round(clf.coverage_, 2), round(clf.risk_, 3)
    (0.8, 0.003)
    >>> accepted = clf.predict_accept(X[400:])
    >>> round(float(accepted.mean()), 2)
    0.69
    """

    _fitted_attribute = "threshold_"

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"])],
        "csf": [str, callable],
        "csf_params": [dict, None],
        "target_coverage": [Interval(Real, 0, 1, closed="right"), None],
        "target_risk": [Interval(Real, 0, 1, closed="left"), None],
        "delta": [Interval(Real, 0, 1, closed="neither"), None],
        "rejection_cost": [Interval(Real, 0, None, closed="neither"), None],
        "cv": ["cv_object", Interval(RealNotInt, 0.0, 1.0, closed="neither")],
        "refit": ["boolean"],
        "reject_label": "no_validation",
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
        "scoring": [str, callable],
    }

    def __init__(
        self,
        estimator,
        *,
        csf="msp",
        csf_params=None,
        target_coverage=None,
        target_risk=None,
        delta=None,
        rejection_cost=None,
        cv=None,
        refit=True,
        reject_label=None,
        n_jobs=None,
        random_state=None,
        scoring="neg_augrc",
    ):
        self.estimator = estimator
        self.csf = csf
        self.csf_params = csf_params
        self.target_coverage = target_coverage
        self.target_risk = target_risk
        self.delta = delta
        self.rejection_cost = rejection_cost
        self.cv = cv
        self.refit = refit
        self.reject_label = reject_label
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.scoring = scoring

    # ----------------------------------------------------------------------------
    # Checks of the parameters that depend on each other
    # ----------------------------------------------------------------------------
    def _policy(self):
        """Name and keyword arguments of the single active threshold policy."""
        given = {
            name: value
            for name, value in (
                ("target_coverage", self.target_coverage),
                ("target_risk", self.target_risk),
                ("rejection_cost", self.rejection_cost),
            )
            if value is not None
        }
        if len(given) > 1:
            raise ValueError(
                f"Set exactly one threshold policy; got {sorted(given)}. Use "
                "target_coverage, target_risk (optionally with delta) or "
                "rejection_cost, and leave the others None."
            )
        if self.delta is not None and "target_risk" not in given:
            raise ValueError(
                "delta is the failure probability of a risk guarantee and needs "
                "target_risk; set target_risk or remove delta."
            )
        if not given:
            return "target_coverage", {"target_coverage": _DEFAULT_TARGET_COVERAGE}
        if self.delta is not None:
            return "guaranteed_risk", {
                "target_risk": self.target_risk,
                "delta": self.delta,
            }
        ((name, value),) = given.items()
        return name, {name: value}

    def _check_guarantee_is_for_the_deployed_model(self, n_splits):
        """``n_splits`` is 0 for a FrozenEstimator (no split, nothing refitted)."""
        if n_splits == 0 or (not self.refit and n_splits == 1):
            return
        raise ValueError(
            "A risk guarantee (delta) holds only for the model whose validation "
            "scores were certified, so that model must be the one deployed. Either "
            "pass FrozenEstimator(fitted_model) and held-out data to fit, or use a "
            "single split with refit=False, e.g. cv=0.3, refit=False (fit on 70% of "
            "the data, certify on the other 30%)."
        )

    # ----------------------------------------------------------------------------
    # Fit
    # ----------------------------------------------------------------------------
    @_fit_context(prefer_skip_nested_validation=False)  # estimator not validated
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the classifier and the abstention threshold.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (all validation data for a ``FrozenEstimator``).

        y : array-like of shape (n_samples,)
            Target labels.

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, passed to the classifier's ``fit`` (or routed, with
            metadata routing enabled) and used by the threshold policies.

        **fit_params : dict
            Parameters passed to the classifier's ``fit`` (routed with metadata
            routing enabled).

        Returns
        -------
        self : object
            The fitted classifier.
        """
        check_classification_targets(y)
        X, y = indexable(X, y)
        y = column_or_1d(y, warn=True)
        policy, policy_params = self._policy()
        csf_params = self.csf_params or {}
        check_csf_supported(self.estimator, self.csf)
        sample_weight = _check_sample_weight(sample_weight, y.shape[0])
        if policy == "guaranteed_risk" and sample_weight is not None:
            raise ValueError(
                "sample_weight is not supported with delta: the risk guarantee is a "
                "binomial bound that counts validation samples."
            )
        routed = self._fit_params(sample_weight, fit_params)

        def check_guarantee(n_splits):
            if policy == "guaranteed_risk":
                self._check_guarantee_is_for_the_deployed_model(n_splits)

        held_out = self._fit_held_out(
            X, y, routed, self.csf, csf_params, before_fit=check_guarantee
        )
        self.estimator_ = held_out.estimator
        y_pred, confidence = held_out.y_pred, held_out.confidence
        validation = held_out.indices

        self.classes_ = self.estimator_.classes_
        if self.reject_label is not None and np.isin(self.reject_label, self.classes_):
            raise ValueError(
                f"reject_label={self.reject_label!r} is one of the classes; choose a "
                "label that no class uses, e.g. -1 or 'abstain'."
            )
        losses = (y_pred != y[validation]).astype(np.float64)
        weights = None if sample_weight is None else sample_weight[validation]
        curve = _thresholds._ValidationCurve.from_samples(confidence, losses, weights)
        fitted = _POLICIES[policy](curve, **policy_params)
        self.policy_ = policy
        self.threshold_ = fitted.threshold
        self.coverage_ = fitted.coverage
        self.risk_ = fitted.risk
        self.risk_bound_ = fitted.risk_bound
        return self

    # ----------------------------------------------------------------------------
    # Prediction
    # ----------------------------------------------------------------------------
    def _confidence_source(self):
        """The fitted model, CSF and CSF parameters behind the confidences."""
        check_is_fitted(self, "threshold_")
        return self.estimator_, self.csf, self.csf_params or {}

    def _predict_with_confidence(self, X):
        check_is_fitted(self, "threshold_")
        return predict_with_confidence(
            self.estimator_, X, self.csf, self.csf_params or {}
        )

    def confidence_score(self, X):
        """Confidence of each prediction (higher = more confident).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        confidence : ndarray of shape (n_samples,)
            CSF values; a sample is accepted iff ``confidence >= threshold_``.
        """
        return self._predict_with_confidence(X)[1]

    def predict_accept(self, X):
        """Whether each prediction is accepted (True) or rejected (False).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        accepted : ndarray of shape (n_samples,), dtype=bool
            ``confidence_score(X) >= threshold_``.
        """
        return self.confidence_score(X) >= self.threshold_

    def predict(self, X):
        """Predict class labels, or ``reject_label`` where the classifier abstains.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The classifier's predictions; rejected samples get ``reject_label``
            if it is set (the array then has ``object`` dtype when the label's
            type differs from the classes').
        """
        y_pred, confidence = self._predict_with_confidence(X)
        if self.reject_label is None:
            return y_pred
        rejected = confidence < self.threshold_
        try:
            dtype = np.result_type(y_pred, np.asarray(self.reject_label))
        except TypeError:
            dtype = np.dtype(object)
        if dtype.kind in "US" or (dtype.kind == "O" and y_pred.dtype.kind in "US"):
            dtype = np.dtype(object)  # strings of both kinds: never truncate
        output = y_pred.astype(dtype)
        output[rejected] = self.reject_label
        return output

    def score(self, X, y, sample_weight=None):
        """Score the classifier on labelled data, by ``scoring``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Test samples.

        y : array-like of shape (n_samples,)
            True labels; every label must be one of ``classes_``.

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            Greater is better; by default ``-augrc`` of the classifier's
            predictions (without abstention) and confidences on ``X``.
        """
        check_is_fitted(self, "threshold_")
        y = column_or_1d(y)
        unseen = ~np.isin(y, self.classes_)
        if unseen.any():
            raise ValueError(
                f"y contains labels unseen at fit: {np.unique(y[unseen]).tolist()} "
                f"(classes_ = {self.classes_.tolist()}). A selective risk is only "
                "defined for classes the classifier can predict; remove those "
                "samples or refit on data that contains them."
            )
        scorer = self.scoring
        if isinstance(scorer, str):
            if scorer in get_scorer_names():
                scorer = get_scorer(scorer)
            else:
                scorer = sklearn_get_scorer(scorer)
        if sample_weight is None:
            return float(scorer(self, X, y))
        return float(scorer(self, X, y, sample_weight=sample_weight))

    @available_if(
        _estimator_has("predict_proba", delegates=("estimator_", "estimator"))
    )
    def predict_proba(self, X):
        """Class probabilities of the underlying classifier (no abstention).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            ``estimator_.predict_proba(X)``.
        """
        check_is_fitted(self, "threshold_")
        return self.estimator_.predict_proba(X)

    @available_if(
        _estimator_has("predict_log_proba", delegates=("estimator_", "estimator"))
    )
    def predict_log_proba(self, X):
        """Log class probabilities of the underlying classifier.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            ``estimator_.predict_log_proba(X)``.
        """
        check_is_fitted(self, "threshold_")
        return self.estimator_.predict_log_proba(X)

    @available_if(
        _estimator_has("decision_function", delegates=("estimator_", "estimator"))
    )
    def decision_function(self, X):
        """Decision function of the underlying classifier.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        decision : ndarray of shape (n_samples,) or (n_samples, n_classes)
            ``estimator_.decision_function(X)``.
        """
        check_is_fitted(self, "threshold_")
        return self.estimator_.decision_function(X)
