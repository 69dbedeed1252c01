"""SelectiveClassifier: a classifier that abstains below a fitted confidence.
Its parameters resolve to one policy (``_policies``); every prediction method
reads one decision (``_decision``)."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.utils import Bunch, column_or_1d
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import indexable

from .._utils._held_out import HeldOutScoresMixin
from .._utils._sklearn import HasMethods, Interval, RealNotInt, fit_context
from .._utils._validation import check_labels_match_classes
from ..confidence._feature_space import fit_for_deployment, held_out_inference
from . import _inner_outputs, _scoring
from ._cv_results import fold_results
from ._decision import abstention_decision
from ._inference import held_out_proba_inference, validation_predictions
from ._novelty import fit_novelty
from ._policies import POLICY_CONSTRAINTS, POLICY_PARAMETERS, resolve_policy
from ._reject_label import check_reject_label, labels_or_reject

_REASONS = np.array(
    ["accepted", "low_confidence", "novel", "novel_and_low_confidence"], dtype=object
)


class SelectiveClassifier(
    HeldOutScoresMixin,
    MetaEstimatorMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Classifier that abstains when its confidence is below a fitted threshold.

    The wrapped classifier (or :class:`~sklearn.pipeline.Pipeline`) predicts as
    usual; a confidence score function (CSF) scores each prediction, and a
    sample is **accepted** iff its confidence is ``>= threshold_``. The
    threshold is fitted on validation data (out-of-fold predictions, or all of
    ``fit``'s data for a model in :class:`~sklearn.frozen.FrozenEstimator`) by
    exactly one policy:
    ``target_coverage`` (``0.9`` when none is set), ``target_risk``,
    ``target_risk`` with ``confidence_level`` (a guarantee, optionally with
    ``max_abstention_rate``), ``rejection_cost`` (Chow's rule), or
    ``cost_matrix`` with ``rejection_cost`` (the cost-sensitive Bayes rule).
    Each parameter says what its policy does. With ``threshold_per_class=True``
    the first four are applied to each predicted class separately.

    Read more in the :ref:`thresholds_guide`.

    Parameters
    ----------
    estimator : estimator instance
        The classifier, unfitted, or fitted and wrapped in
        :class:`~sklearn.frozen.FrozenEstimator` (then all of ``fit``'s data is
        used as validation data and the model is not refitted).

    csf : str or callable, default="msp"
        Confidence score function (higher = more confident; not used with
        ``cost_matrix``): a name from
        :func:`~sklearn_selective.confidence.get_confidence_function_names` or a
        callable. ``"mahalanobis"`` and ``"knn_distance"`` are fitted on each
        training fold's inputs, then the deployed model's (without
        ``sample_weight``); for a ``FrozenEstimator``, pass
        :func:`~sklearn_selective.confidence.fit_feature_confidence` instead.

    csf_params : dict, default=None
        Keyword arguments of the CSF, e.g. ``{"temperature": 2.0}``.

    target_coverage : float in (0, 1], default=None
        The largest threshold whose validation coverage (share of accepted
        samples) is at least this. ``1.0`` accepts all (``threshold_ = -inf``)
        and fits the classifier once, without ``cv``: the cheap way to choose a
        model and a CSF by AUGRC in a search (:ref:`model_selection_guide`).

    target_risk : float in [0, 1), default=None
        Without ``confidence_level``: the lowest threshold whose empirical
        validation selective risk (error rate of the accepted samples) is at
        most this; abstains on everything, with a ``GuaranteeNotMetWarning``,
        when none is. With ``confidence_level``: the risk the guarantee
        certifies (positive: no finite validation set certifies a zero risk).

    confidence_level : float in (0, 1), default=None
        With ``target_risk``: with probability at least ``confidence_level``
        over the validation draw, every constraint (the selective risk, and the
        abstention rate with ``max_abstention_rate``) holds on the population
        at once, for all the classes together per class (Bonferroni); the
        threshold of most coverage that all certify is kept. See the Notes.

    max_abstention_rate : float in (0, 1), default=None
        With ``target_risk`` and ``confidence_level`` (and the fixed sequence):
        the review capacity, the largest share of samples sent to a human,
        certified with the risk (the level split in half; per class, each
        class's rate). When the thresholds that certify the risk abstain more,
        the classifier abstains on everything with a ``GuaranteeNotMetWarning``.

    novelty_detector : estimator, default=None
        An unfitted outlier detector (``IsolationForest``, ...: ``fit`` and
        ``score_samples``, higher = more normal), fitted on 80 % of ``fit``'s
        inputs as the final classifier sees them, its threshold the
        ``novelty_rate`` quantile of its scores on the other 20 %. A sample is
        accepted iff confident **and** not novel (:meth:`rejection_reason`);
        guarantees certify the confidence threshold, not these rejections.

    novelty_rate : float in [0, 1), default=0.01
        About the share of in-distribution samples flagged novel (0: none).

    guarantee : {"fixed_sequence", "sgr"}, default="fixed_sequence"
        How the guarantee is certified: Learn-then-Test (Angelopoulos et al.
        2021) with exact binomial p-values and fixed-sequence walks toward more
        coverage from ``m0, 3 m0, 9 m0, ...`` accepted validation samples (see
        Notes), or the SGR binary search (Geifman and El-Yaniv 2017), kept for
        reproduction, which certifies less coverage at the same level
        (``benchmarks/bench_guarantees.py``).

    rejection_cost : float > 0 or array-like of shape (n_classes,), default=None
        Cost of an abstention. Without ``cost_matrix``: one number, relative to
        the cost 1 of an error (Chow's rule). With ``cost_matrix``: a scalar or
        one value per true class, aligned with ``classes_``.

    threshold_per_class : bool, default=False
        Apply the policy to each predicted class's validation predictions (e.g.
        every class keeps ``target_coverage`` of its predictions, or has a
        selective risk, one minus precision, at most ``target_risk``);
        ``threshold_``, ``coverage_``, ``risk_`` and ``risk_bound_`` become
        arrays aligned with ``classes_``. A class with fewer than 20 validation
        predictions warns and uses the global threshold or, for the guarantee,
        abstains.

    cost_matrix : array-like of shape (n_classes, n_classes) or callable, \
            default=None
        ``cost_matrix[i, j]`` is the cost of predicting class ``j`` when the
        truth is class ``i`` (rows and columns aligned with ``classes_``), or
        a callable ``cost_matrix(classes_) -> array`` (e.g. costs growing with
        the distance of ordinal labels). Needs ``rejection_cost`` and a
        classifier with ``predict_proba``.

    cost_rule : {"bayes", "empirical"}, default="bayes"
        With ``cost_matrix``: ``"bayes"`` abstains iff the expected rejection
        cost is below the least expected prediction cost (``threshold_ = 0`` on
        the margin, their difference); ``"empirical"`` tunes the margin
        threshold to minimise the total validation cost (robust to
        miscalibrated probabilities).

    calibration : {"temperature", "isotonic"}, default=None
        With ``cost_matrix``: calibrate the probabilities on the validation
        predictions before the cost rule reads them (temperature scaling of
        ``log p``, or one-vs-rest isotonic regression renormalised).

    cv : int, cross-validation generator, iterable or float, default=None
        How validation predictions are produced (ignored for a
        ``FrozenEstimator`` and for ``target_coverage=1.0``): None for 5
        stratified folds, an int for that many, a float in (0, 1) for one
        stratified split holding out that fraction, or a splitter or an
        iterable of (train, test) index arrays. The threshold is fitted on the
        pooled out-of-fold predictions.

    refit : bool, default=True
        Whether to refit the classifier on all the data after the threshold;
        ``False`` keeps the model of a single split's training part (which a
        guarantee needs, see Notes).

    reject_label : object, default=None
        If set, :meth:`predict` returns this label for rejected samples (of the
        classes' type and no class, e.g. ``-1`` or ``"abstain"``); otherwise it
        predicts every sample and :meth:`predict_accept` tells which are kept.

    store_cv_results : bool, default=False
        Whether to fit the policy on each fold's held-out predictions too
        (``cv_results_``).

    n_jobs : int, default=None
        Number of jobs fitting the cross-validation folds in parallel.

    random_state : int, RandomState instance or None, default=None
        Seed of the split when ``cv`` is a float.

    scoring : str or callable, default="neg_augrc"
        What :meth:`score` returns (and ``GridSearchCV`` maximises without a
        ``scoring`` of its own): a name from
        :func:`sklearn_selective.metrics.get_scorer_names` (with this
        classifier's CSF), a scikit-learn scorer name such as ``"accuracy"``,
        or a callable ``scorer(estimator, X, y)``. The default, the negated
        AUGRC, judges the predictions and the CSF ranking over all thresholds
        (the AUGRC paper's advice for choosing a model and a CSF), whatever
        ``threshold_``.

    Attributes
    ----------
    estimator_ : estimator instance
        The fitted classifier used to predict.

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    threshold_ : float or ndarray of shape (n_classes,)
        Samples with confidence ``>= threshold_`` are accepted (``inf``: none,
        ``-inf``: all); per predicted class with ``threshold_per_class=True``;
        the margin threshold with ``cost_matrix`` (``0.0`` for the Bayes rule).

    coverage_ : float or ndarray of shape (n_classes,)
        Weighted share of validation samples accepted at ``threshold_`` (per
        class: of the validation samples predicted as that class).

    risk_ : float or ndarray of shape (n_classes,)
        Validation selective risk (0/1 error of the accepted samples) at
        ``threshold_``; ``nan`` at zero coverage and for ``target_coverage=1``.

    risk_bound_ : float, ndarray of shape (n_classes,) or None
        The certified bound on the selective risk (at most ``target_risk``):
        the Clopper-Pearson bound at the level of the test that certified the
        threshold, ``nan`` when none could be; None for the other policies.

    cost_ : float or None
        Mean validation cost of the cost rule (None without ``cost_matrix``).

    csf_ : str, callable or FeatureConfidence
        The CSF of the deployed model: ``csf``, or for ``"mahalanobis"`` and
        ``"knn_distance"`` the score fitted on its training inputs.

    novelty_detector_ : estimator or None
        The fitted novelty detector (None without ``novelty_detector``).

    novelty_threshold_ : float or None
        A sample is novel iff its detector score is below it.

    calibrator_ : object or None
        The fitted probability calibration (None without ``calibration``).

    policy_ : str
        The policy that fitted the threshold: ``"target_coverage"``,
        ``"target_risk"``, ``"guaranteed_risk"``, ``"rejection_cost"`` or
        ``"cost_rule"``.

    validation_curve_ : Bunch or None
        The table the policy chose from (pass it to ``pandas.DataFrame``): each
        candidate ``"threshold"`` (decreasing), its ``"coverage"`` and ``"risk"``
        (per class: a block per class, a ``"class"`` column; with
        ``cost_matrix``: ``"coverage"`` and mean ``"cost"`` per margin
        threshold). None for ``target_coverage=1.0``.

    cv_results_ : dict of ndarray or None
        With ``store_cv_results=True``, the policy fitted on each fold's held-out
        predictions alone: ``"threshold"``, ``"coverage"``, ``"risk"`` (and
        ``"risk_bound"``, ``"cost"`` where they apply) of shape ``(n_folds,)``
        or ``(n_folds, n_classes)``, their ``"mean_*"`` and ``"std_*"``, and
        ``"n_samples"``. One "fold" for a ``FrozenEstimator``.

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
    **When the guarantee holds.** It certifies the model whose validation
    scores it saw, on data from the validation data's distribution; it says
    nothing about a refitted model, nor about out-of-fold scores of several
    models. So ``confidence_level`` needs the deployed model to be the
    certified one: a ``FrozenEstimator`` with held-out data passed to ``fit``,
    or a single split (``cv`` a float or a one-split splitter) with
    ``refit=False``; anything else raises a ``ValueError``, as do sample
    weights (the bound counts samples).

    **Fixed-sequence testing** (``guarantee="fixed_sequence"``). At a threshold
    with ``n`` accepted validation samples of which ``k`` are wrong, ``P(Bin(n,
    target_risk) <= k)`` is an exact p-value of "the selective risk exceeds the
    target". Tests in an order fixed before the labels are seen, each at the
    full level, stopping at the first that does not reject, keep the
    family-wise error at that level. Below ``m0 = ceil(log(alpha / S) /
    log(1 - target_risk))`` accepted samples even no error cannot reject, so
    ``S`` walks (the fewest that leave room for all the starts) start at ``m0,
    3 m0, 9 m0, ...`` accepted samples, up to the validation size, each at
    ``alpha / S`` (Bonferroni; ``alpha = 1 - confidence_level``, half of it
    with ``max_abstention_rate``), toward more coverage. The abstention rate
    is walked from full coverage toward less. When
    no threshold is certified, ``fit`` succeeds and abstains on everything with
    a ``GuaranteeNotMetWarning``; when the validation data are too few even
    with no error, it raises ``TooFewSamplesError``. The user guide proves the
    level and ``benchmarks/bench_guarantees.py`` measures it.

    References
    ----------
    Angelopoulos, Bates, Candès, Jordan and Lei. "Learn then Test: Calibrating
    Predictive Algorithms to Achieve Risk Control." arXiv:2110.01052, 2021.
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
        **POLICY_CONSTRAINTS,
        "novelty_detector": [HasMethods(["fit", "score_samples"]), None],
        "novelty_rate": [Interval(Real, 0, 1, closed="left")],
        "cv": ["cv_object", Interval(RealNotInt, 0.0, 1.0, closed="neither")],
        "refit": ["boolean"],
        "reject_label": "no_validation",
        "store_cv_results": ["boolean"],
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
        confidence_level=None,
        max_abstention_rate=None,
        guarantee="fixed_sequence",
        novelty_detector=None,
        novelty_rate=0.01,
        rejection_cost=None,
        threshold_per_class=False,
        cost_matrix=None,
        cost_rule="bayes",
        calibration=None,
        cv=None,
        refit=True,
        reject_label=None,
        store_cv_results=False,
        n_jobs=None,
        random_state=None,
        scoring="neg_augrc",
    ):
        self.estimator = estimator
        self.csf = csf
        self.csf_params = csf_params
        self.target_coverage = target_coverage
        self.target_risk = target_risk
        self.confidence_level = confidence_level
        self.max_abstention_rate = max_abstention_rate
        self.guarantee = guarantee
        self.novelty_detector = novelty_detector
        self.novelty_rate = novelty_rate
        self.rejection_cost = rejection_cost
        self.threshold_per_class = threshold_per_class
        self.cost_matrix = cost_matrix
        self.cost_rule = cost_rule
        self.calibration = calibration
        self.cv = cv
        self.refit = refit
        self.reject_label = reject_label
        self.store_cv_results = store_cv_results
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.scoring = scoring

    @fit_context(prefer_skip_nested_validation=False)  # estimator not validated
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the classifier and the abstention rule.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (all validation data for a ``FrozenEstimator``).

        y : array-like of shape (n_samples,)
            Target labels.

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, for the classifier's ``fit`` and the policies.

        **fit_params : dict
            Parameters of the classifier's ``fit`` (routed, with routing on).

        Returns
        -------
        self : object
            The fitted classifier.
        """
        check_classification_targets(y)
        X, y = indexable(X, y)
        y = column_or_1d(y, warn=True)
        params = {name: getattr(self, name) for name in POLICY_PARAMETERS}
        policy = resolve_policy(**params)
        policy.check_estimator(self.estimator, self.csf)
        sample_weight = policy.check_sample_weight(sample_weight, y)
        routed = self._fit_params(sample_weight, fit_params)
        self.policy_, self._threshold_policy = policy.name, policy
        self.cost_ = self.risk_bound_ = self.calibrator_ = None
        self.validation_curve_ = self.cv_results_ = None
        if policy.needs_validation:
            self._fit_on_held_out(X, y, routed, sample_weight, policy)
        else:  # target_coverage=1: accept every sample, no validation data
            self.estimator_ = clone(self.estimator).fit(X, y, **routed.estimator.fit)
            self.csf_ = fit_for_deployment(
                self.csf, self.estimator_, X, y, self.csf_params
            )
            self.classes_ = self.estimator_.classes_
            check_reject_label(self.reject_label, self.classes_)
            fitted = policy.fit_without_validation(self.classes_)
            self.threshold_, self.coverage_, self.risk_ = fitted[:3]
        self.novelty_detector_, self.novelty_threshold_ = fit_novelty(
            self.novelty_detector,
            self.estimator_,
            X,
            self.novelty_rate,
            self.random_state,
        )
        return self

    def _fit_on_held_out(self, X, y, routed, sample_weight, policy):
        """The model on held-out splits, and the policy on its predictions."""
        held_out = self._fit_held_out(
            X,
            y,
            routed,
            held_out_proba_inference(self.estimator, y)
            if policy.needs_proba
            else held_out_inference(self.csf, self.csf_params),
            before_fit=lambda n_splits: policy.check_deployed(n_splits, self.refit),
        )
        self.estimator_ = held_out.estimator
        self.csf_ = getattr(held_out.inference, "csf", self.csf)
        self.classes_ = self.estimator_.classes_
        check_labels_match_classes(y, self.classes_)
        check_reject_label(self.reject_label, self.classes_)
        validation = validation_predictions(held_out, y, sample_weight, policy)
        validation = policy.prepare(validation, self.classes_)
        self.calibrator_ = policy.calibrator_
        fitted, table = policy.fit(validation)
        self.threshold_, self.coverage_, self.risk_ = fitted[:3]
        self.risk_bound_, self.cost_ = fitted.risk_bound, fitted.cost
        self.validation_curve_ = Bunch(**table)
        if self.store_cv_results:
            self.cv_results_ = fold_results(policy, validation, held_out.fold_sizes)

    def decide(self, X):
        """Every part of the abstention decision, from one inference.

        The one decision behind every prediction method: use it when several
        are needed (the monitor, the scorers and the command line read
        acceptance through it), so that the model predicts once.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        decision : :class:`~sklearn.utils.Bunch`
            With ``y_pred`` (the classifier's prediction for every sample,
            never ``reject_label``), ``confidence`` (as
            :meth:`confidence_score`), ``novel`` (as :meth:`predict_novel`)
            and ``accepted`` (as :meth:`predict_accept`: confident enough and
            not novel), each of shape ``(n_samples,)``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn_selective import SelectiveClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> clf = SelectiveClassifier(LogisticRegression(), target_coverage=0.8)
        >>> decision = clf.fit(X[::2], y[::2]).decide(X[1::2])
        >>> bool((decision.accepted == clf.predict_accept(X[1::2])).all())
        True
        """
        decision = abstention_decision(self, X)
        return Bunch(
            y_pred=self.classes_[decision.index],
            confidence=decision.confidence,
            novel=decision.novel,
            accepted=decision.accepted,
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
            CSF values, accepted iff ``>= threshold_`` (of the predicted class
            per class); with ``cost_matrix``, the margin by which abstaining is
            expected to cost more than the cheapest prediction.
        """
        return abstention_decision(self, X, novelty=False).confidence

    def predict_accept(self, X):
        """Whether each prediction is accepted (True) or rejected (False).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        accepted : ndarray of shape (n_samples,), dtype=bool
            ``confidence_score(X) >= threshold_`` (per predicted class with
            ``threshold_per_class=True``) and, with a ``novelty_detector``,
            not :meth:`predict_novel`.
        """
        return abstention_decision(self, X).accepted

    def predict_novel(self, X):
        """Whether the novelty detector flags each sample (all False without one).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        novel : ndarray of shape (n_samples,), dtype=bool
            ``novelty_detector_.score_samples`` of the inputs the classifier
            sees below ``novelty_threshold_``.
        """
        return abstention_decision(self, X).novel

    def rejection_reason(self, X):
        """Why each sample is rejected, or ``"accepted"``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        reason : ndarray of shape (n_samples,), dtype=object
            ``"accepted"``; ``"low_confidence"`` (below the threshold);
            ``"novel"`` (flagged by the novelty detector, confident enough);
            ``"novel_and_low_confidence"``.
        """
        decision = abstention_decision(self, X)
        return _REASONS[(~decision.confident).astype(int) + 2 * decision.novel]

    def predict(self, X):
        """Predict class labels, or ``reject_label`` where the classifier abstains.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The classifier's predictions (with ``cost_matrix``: the class of
            least expected cost), ``reject_label`` (if set) where rejected.
        """
        decision = abstention_decision(self, X, novelty=self.reject_label is not None)
        if self.reject_label is None:
            return self.classes_[decision.index]
        return labels_or_reject(
            self.classes_, decision.index, decision.accepted, self.reject_label
        )

    # Judged by ``scoring``; the inner classifier's outputs, passed through.
    score = _scoring.score
    predict_proba = _inner_outputs.predict_proba
    predict_log_proba = _inner_outputs.predict_log_proba
    decision_function = _inner_outputs.decision_function
