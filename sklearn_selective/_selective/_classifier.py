"""SelectiveClassifier: a classifier that abstains below a fitted confidence.

The meta-estimator resolves its parameters to one threshold policy
(``_policies``), fits it on held-out predictions, and keeps the fitted state;
every prediction method goes through one decision (:meth:`decide`).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin, clone
from sklearn.metrics import get_scorer as sklearn_get_scorer
from sklearn.utils import Bunch, column_or_1d
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, indexable

from .._utils._held_out import HeldOutScoresMixin
from .._utils._sklearn import (
    HasMethods,
    Interval,
    RealNotInt,
    StrOptions,
    estimator_has,
    fit_context,
    num_samples,
)
from .._utils._validation import (
    _check_scaled_sample_weight,
    check_labels_match_classes,
)
from ..confidence import FeatureConfidence, predict_with_confidence
from ..confidence._calibrators import CALIBRATORS
from ..confidence._feature_space import fit_for_deployment, held_out_inference
from ..confidence._model_output import classifier_inputs
from ..metrics import get_scorer, get_scorer_names
from ._classes import class_index
from ._cv_results import fold_results
from ._inference import held_out_proba_inference, msp_decision
from ._novelty import fit_novelty, is_novel
from ._policies import POLICY_PARAMETERS, resolve_policy
from ._reject_label import check_reject_label, labels_or_reject


def _check_fit_sample_weight(sample_weight, y):
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight)
    if weights.ndim == 1 and weights.shape[0] != y.shape[0]:
        raise ValueError(
            f"sample_weight has {weights.shape[0]} entries but y has "
            f"{y.shape[0]}; pass one weight per sample."
        )
    # The policies are invariant to a common factor of the weights: extreme
    # ones are scaled exactly, so that their sums neither overflow nor vanish.
    return _check_scaled_sample_weight(weights, y.shape[0], reference="y")


def _has_decision_function_without_costs(self):
    """With a cost matrix the prediction is not the decision function's argmax,
    so the inner decision function is not offered as this classifier's."""
    has = estimator_has("decision_function", delegates=("estimator_", "estimator"))
    return self.cost_matrix is None and has(self)


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
    threshold is fitted on validation data — out-of-fold predictions of a
    cross-validation, or all of ``fit``'s data for an already fitted model
    wrapped in :class:`~sklearn.frozen.FrozenEstimator` — by exactly one policy:

    - ``target_coverage``: the largest threshold whose validation coverage is at
      least the target. ``target_coverage=1.0`` accepts every sample
      (``threshold_ = -inf``) and needs no validation data: the classifier is
      fitted once, without ``cv`` — the cheap way to choose a model and a CSF by
      AUGRC in a search (see :ref:`model_selection_guide`);
    - ``target_risk`` (without ``confidence_level``): the lowest threshold whose
      empirical validation selective risk (error rate of the accepted samples)
      is at most the target;
    - ``target_risk`` with ``confidence_level``: a guarantee. With probability
      at least ``confidence_level`` over the validation draw, every stated
      constraint holds on the population at once: selective risk at most
      ``target_risk`` and, with ``max_abstention_rate``, an abstention rate at
      most that. ``guarantee="fixed_sequence"`` (default) is Learn-then-Test
      with exact binomial p-values and fixed-sequence tests along the threshold
      path, from nine starts at validation coverages 0.1 to 0.9 chosen without
      the labels; the threshold of most coverage that every constraint
      certifies is kept. ``guarantee="sgr"`` is the binary search of Geifman
      and El-Yaniv, kept for reproduction. See the Notes for when a guarantee
      holds;
    - ``rejection_cost``: Chow's rule, the threshold minimising the validation
      mean cost when an error costs 1 and an abstention ``rejection_cost``;
    - ``cost_matrix`` with ``rejection_cost``: the cost-sensitive Bayes rule on
      the classifier's probabilities: predict the class of least expected cost
      and abstain when abstaining is expected to cost less.

    When none is set, ``target_coverage=0.9`` is used. With
    ``threshold_per_class=True`` the first four policies are applied to each
    predicted class separately.

    Read more in the :ref:`thresholds_guide`.

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
        confident. Not used with ``cost_matrix``. The feature-space CSFs
        ``"mahalanobis"`` and ``"knn_distance"`` are fitted on the inputs the
        final classifier is trained on (each training fold's, then the
        deployed model's; they ignore ``sample_weight``); with a
        ``FrozenEstimator``, pass
        :func:`~sklearn_selective.confidence.fit_feature_confidence` instead.

    csf_params : dict, default=None
        Keyword arguments of the CSF, e.g. ``{"temperature": 2.0}`` for
        ``"energy"``.

    target_coverage : float in (0, 1], default=None
        Target fraction of accepted samples (``1.0``: accept all, fit once).

    target_risk : float in [0, 1), default=None
        Target selective risk (error rate among accepted samples).

    confidence_level : float in (0, 1), default=None
        With ``target_risk``: every constraint (the selective risk, and the
        abstention rate with ``max_abstention_rate``) holds on the population
        with probability at least ``confidence_level`` over the validation
        draw, all at once. With ``threshold_per_class=True`` it holds for all
        the classes together (Bonferroni correction over the classes).

    max_abstention_rate : float in (0, 1), default=None
        With ``target_risk`` and ``confidence_level``: the review capacity, the
        largest share of samples the classifier may send to a human. Certified
        together with the risk (the level is split in half between the two,
        Bonferroni); per class, each class's abstention rate is certified, which
        bounds the overall rate. When the thresholds that certify the risk
        abstain more than this, no threshold meets both and the classifier
        abstains on everything, with a warning. Needs
        ``guarantee="fixed_sequence"``.

    novelty_detector : estimator, default=None
        An unfitted scikit-learn outlier detector (``IsolationForest``,
        ``LocalOutlierFactor(novelty=True)``, ``OneClassSVM``,
        ``EllipticEnvelope``, ...; anything with ``fit`` and
        ``score_samples``, higher meaning more normal). It is fitted on 80 %
        of ``fit``'s inputs as the final classifier sees them (after a
        Pipeline's transformers), and its threshold is the ``novelty_rate``
        quantile of its scores on the other 20 %. A sample is then accepted
        iff it is confident enough **and** not novel; :meth:`rejection_reason`
        says which. Confidence fails far from the training data, where a model
        is often confidently wrong; the detector rejects what it has never
        seen. Guarantees (``confidence_level``) certify the confidence
        threshold on in-distribution data; the detector's rejections are not
        part of them.

    novelty_rate : float in [0, 1), default=0.01
        Share of in-distribution samples the detector's threshold flags as
        novel (about; 0 flags none).

    guarantee : {"fixed_sequence", "sgr"}, default="fixed_sequence"
        How the guarantee is certified: Learn-then-Test fixed-sequence testing
        (Angelopoulos et al. 2021), or the SGR binary search (Geifman and
        El-Yaniv 2017), which certifies less coverage at the same level
        (``benchmarks/bench_guarantees.py``).

    rejection_cost : float > 0 or array-like of shape (n_classes,), default=None
        Cost of an abstention. Without ``cost_matrix``: one number, relative to
        the cost 1 of an error (Chow's rule). With ``cost_matrix``: a scalar or
        one value per true class, aligned with ``classes_``.

    threshold_per_class : bool, default=False
        Apply the policy to each predicted class's validation predictions, so
        that e.g. every class keeps ``target_coverage`` of its predictions or
        has a selective risk (one minus precision) at most ``target_risk``.
        ``threshold_``, ``coverage_``, ``risk_`` and ``risk_bound_`` become
        arrays aligned with ``classes_``. A class with fewer than 20 validation
        predictions warns and uses the global threshold (the same policy on all
        classes) or, for the guarantee, abstains on that class.

    cost_matrix : array-like of shape (n_classes, n_classes) or callable, \
            default=None
        ``cost_matrix[i, j]`` is the cost of predicting class ``j`` when the
        truth is class ``i`` (rows and columns aligned with ``classes_``), or
        a callable ``cost_matrix(classes_) -> array`` (e.g. costs growing with
        the distance of ordinal labels). Needs ``rejection_cost`` and a
        classifier with ``predict_proba``.

    cost_rule : {"bayes", "empirical"}, default="bayes"
        With ``cost_matrix``: ``"bayes"`` abstains iff the expected rejection
        cost is below the least expected prediction cost (``threshold_ = 0``
        on their difference, the margin); ``"empirical"`` instead tunes the
        margin threshold on the validation predictions to minimise their total
        cost (robust to miscalibrated probabilities).

    calibration : {"temperature", "isotonic"}, default=None
        With ``cost_matrix``: calibrate the probabilities on the validation
        predictions before the cost rule reads them (temperature scaling of
        ``log p``, or one-vs-rest isotonic regression renormalised).

    cv : int, cross-validation generator, iterable or float, default=None
        How validation predictions are produced (ignored for a
        ``FrozenEstimator`` and for ``target_coverage=1.0``):

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
        If set, :meth:`predict` returns this label for rejected samples; it
        must have the classes' type (an integer such as ``-1`` for integer
        classes, a string such as ``"abstain"`` for string classes) and be no
        class. Otherwise :meth:`predict` returns the classifier's prediction
        for every sample and :meth:`predict_accept` tells which are accepted.

    store_cv_results : bool, default=False
        Whether to fit the policy on each fold's held-out predictions too and
        store the per-fold results in ``cv_results_``.

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

    threshold_ : float or ndarray of shape (n_classes,)
        Samples with confidence ``>= threshold_`` are accepted; ``inf`` when the
        classifier abstains on everything, ``-inf`` when it accepts everything.
        Per predicted class with ``threshold_per_class=True``; the margin
        threshold with ``cost_matrix`` (``0.0`` for the Bayes rule).

    coverage_ : float or ndarray of shape (n_classes,)
        Weighted share of validation samples accepted at ``threshold_`` (per
        class: of the validation samples predicted as that class).

    risk_ : float or ndarray of shape (n_classes,)
        Validation selective risk (0/1 error of the accepted samples) at
        ``threshold_`` (``nan`` at zero coverage, and for
        ``target_coverage=1.0``, which uses no validation data).

    risk_bound_ : float, ndarray of shape (n_classes,) or None
        The certified upper bound on the selective risk (guarantee policy only,
        at most ``target_risk``): the Clopper-Pearson bound at the level of the
        test that certified the threshold; ``nan`` when no threshold could be
        certified and the classifier abstains; None for the other policies.

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
        The validation table the policy chose from, for audit: every candidate
        threshold (``"threshold"``, decreasing) with its ``"coverage"`` and
        ``"risk"`` (with ``threshold_per_class``: one block per class, a
        ``"class"`` column, coverages within the class; with ``cost_matrix``:
        ``"coverage"`` and mean ``"cost"`` per margin threshold). Pass it to
        ``pandas.DataFrame`` for a table. None for ``target_coverage=1.0``.

    cv_results_ : dict of ndarray or None
        With ``store_cv_results=True``: the policy fitted on each fold's held-out
        predictions alone — ``"threshold"``, ``"coverage"``, ``"risk"`` (and
        ``"risk_bound"``, ``"cost"`` where they apply), shape ``(n_folds,)`` or
        ``(n_folds, n_classes)``, their ``"mean_*"`` and ``"std_*"`` over the
        folds, and ``"n_samples"`` per fold. One "fold" for a
        ``FrozenEstimator``. None otherwise.

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
    **When the guarantee holds.** The guarantee certifies the model whose
    validation scores it saw, on data drawn from the same distribution as the
    validation data, with probability at least ``confidence_level`` over that
    validation sample. It says nothing about a model refitted afterwards, nor
    about out-of-fold scores of several different models. So
    ``confidence_level`` is only accepted when the certified model is the
    deployed one: either a ``FrozenEstimator`` with held-out data passed to
    ``fit``, or a single split (``cv`` a float or a one-split splitter) with
    ``refit=False``. Any other combination raises a ``ValueError``. Sample
    weights are not supported with ``confidence_level`` (the bound counts
    samples).

    **Fixed-sequence testing** (``guarantee="fixed_sequence"``). At each
    threshold with ``n`` accepted validation samples of which ``k`` are wrong,
    ``P(Binomial(n, target_risk) <= k)`` is an exact p-value of "the selective
    risk exceeds the target" (conditional on ``n``). Tested in an order fixed
    before the labels are seen, each at the full level, stopping at the first
    test that does not reject, the family-wise error stays at the level without
    a correction along the path. Nine walks start at the thresholds of
    validation coverage 0.1, ..., 0.9, each at ``1/9`` of the level
    (Bonferroni), and go toward more coverage; the abstention rate is walked
    from full coverage toward less. The user guide proves the level and
    ``benchmarks/bench_guarantees.py`` measures it.

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
        "target_coverage": [Interval(Real, 0, 1, closed="right"), None],
        "target_risk": [Interval(Real, 0, 1, closed="left"), None],
        "confidence_level": [Interval(Real, 0, 1, closed="neither"), None],
        "max_abstention_rate": [Interval(Real, 0, 1, closed="neither"), None],
        "guarantee": [StrOptions({"fixed_sequence", "sgr"})],
        "novelty_detector": [HasMethods(["fit", "score_samples"]), None],
        "novelty_rate": [Interval(Real, 0, 1, closed="left")],
        "rejection_cost": [
            Interval(Real, 0, None, closed="neither"),
            "array-like",
            None,
        ],
        "threshold_per_class": ["boolean"],
        "cost_matrix": ["array-like", callable, None],
        "cost_rule": [StrOptions({"bayes", "empirical"})],
        "calibration": [StrOptions(set(CALIBRATORS)), None],
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

    # ----------------------------------------------------------------------------
    # Fit
    # ----------------------------------------------------------------------------
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
        policy = resolve_policy(
            **{name: getattr(self, name) for name in POLICY_PARAMETERS}
        )
        policy.check_estimator(self.estimator, self.csf)
        sample_weight = _check_fit_sample_weight(sample_weight, y)
        if policy.certifies and sample_weight is not None:
            raise ValueError(
                "sample_weight is not supported with confidence_level: the risk "
                "guarantee is a binomial bound that counts validation samples."
            )
        routed = self._fit_params(sample_weight, fit_params)
        self.policy_, self._threshold_policy = policy.name, policy
        self.cost_ = self.risk_bound_ = None
        if not policy.needs_validation:
            return self._fit_accept_all(X, y, routed, policy)
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
        validation = Bunch(
            y_true=y[held_out.indices],
            y_pred=held_out.y_pred,
            confidence=held_out.confidence,
            weights=None if sample_weight is None else sample_weight[held_out.indices],
        )
        if policy.needs_proba:
            validation.proba = held_out.outputs[2]
        validation = policy.prepare(validation, self.classes_)
        self.calibrator_ = policy.calibrator_
        fitted, table = policy.fit(validation)
        self.threshold_, self.coverage_, self.risk_ = fitted[:3]
        self.risk_bound_, self.cost_ = fitted.risk_bound, fitted.cost
        self.validation_curve_ = Bunch(**table)
        self.cv_results_ = None
        if self.store_cv_results:
            self.cv_results_ = fold_results(policy, validation, held_out.fold_sizes)
        return self._fit_novelty(X)

    def _fit_accept_all(self, X, y, routed, policy):
        """``target_coverage=1``: accept every sample; no validation data needed."""
        self.estimator_ = clone(self.estimator).fit(X, y, **routed.estimator.fit)
        self.csf_ = fit_for_deployment(self.csf, self.estimator_, X, y, self.csf_params)
        self.classes_ = self.estimator_.classes_
        check_reject_label(self.reject_label, self.classes_)
        self.calibrator_ = None
        fitted = policy.fit_without_validation(self.classes_)
        self.threshold_, self.coverage_, self.risk_ = fitted[:3]
        self.validation_curve_ = self.cv_results_ = None
        return self._fit_novelty(X)

    def _fit_novelty(self, X):
        """The novelty detector on the inputs the fitted classifier sees."""
        self.novelty_detector_ = self.novelty_threshold_ = None
        if self.novelty_detector is not None:
            features = classifier_inputs(self.estimator_, X)
            self.novelty_detector_, self.novelty_threshold_ = fit_novelty(
                self.novelty_detector, features, self.novelty_rate, self.random_state
            )
        return self

    # ----------------------------------------------------------------------------
    # Prediction
    # ----------------------------------------------------------------------------
    def _csf_params(self):
        """A fitted feature-space CSF holds its parameters."""
        if isinstance(self.csf_, FeatureConfidence):
            return {}
        return self.csf_params or {}

    def _decision(self, X, *, novelty=True):
        """The one decision behind every prediction method: the class index of
        each prediction, its confidence, whether it reaches the threshold
        (``confident``) and, with ``novelty``, whether it is ``novel`` and
        ``accepted`` (confident and not novel). One inference of the model."""
        check_is_fitted(self, "threshold_")
        policy = self._threshold_policy
        if policy.needs_proba:
            index, confidence = policy.decide(self.estimator_.predict_proba(X))
        elif self.csf_ == "msp" and not self.csf_params:
            index, confidence = msp_decision(self.estimator_.predict_proba(X))
        else:
            y_pred, confidence = predict_with_confidence(
                self.estimator_, X, self.csf_, self._csf_params()
            )
            index = class_index(self.classes_, y_pred)
        threshold = (
            self.threshold_[index] if self.threshold_per_class else self.threshold_
        )
        decision = Bunch(index=index, confidence=confidence)
        decision.confident = confidence >= threshold
        if novelty:
            decision.novel = self._novel(X)
            decision.accepted = decision.confident & ~decision.novel
        return decision

    def decide(self, X):
        """Every part of the abstention decision, from one inference.

        The one decision behind :meth:`predict`, :meth:`predict_accept`,
        :meth:`confidence_score`, :meth:`predict_novel` and
        :meth:`rejection_reason`: use it when several are needed (the
        monitor, the metrics' scorers and the command line read acceptance
        through it), so that the model predicts once and every consumer sees
        the same acceptance.

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
        >>> from sklearn.datasets import load_breast_cancer
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn_selective import SelectiveClassifier
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> clf = SelectiveClassifier(LogisticRegression(max_iter=5000),
        ...                           target_coverage=0.8).fit(X[:400], y[:400])
        >>> decision = clf.decide(X[400:])
        >>> bool((decision.accepted == clf.predict_accept(X[400:])).all())
        True
        """
        decision = self._decision(X)
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
            CSF values; a sample is accepted iff ``confidence >= threshold_``
            (the threshold of its predicted class with ``threshold_per_class``).
            With ``cost_matrix``: the margin by which abstaining is expected to
            cost more than the cheapest prediction.
        """
        return self._decision(X, novelty=False).confidence

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
        return self._decision(X).accepted

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
        return self._decision(X).novel

    def _novel(self, X):
        """:meth:`predict_novel` of inputs the classifier has validated."""
        if self.novelty_detector_ is None:
            return np.zeros(num_samples(X), dtype=bool)
        features = classifier_inputs(self.estimator_, X)
        return is_novel(self.novelty_detector_, self.novelty_threshold_, features)

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
        decision = self._decision(X)
        reasons = np.array(
            ["accepted", "low_confidence", "novel", "novel_and_low_confidence"],
            dtype=object,
        )
        return reasons[(~decision.confident).astype(int) + 2 * decision.novel]

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
            least expected cost); rejected samples get ``reject_label`` if it
            is set.
        """
        decision = self._decision(X, novelty=self.reject_label is not None)
        if self.reject_label is None:
            return self.classes_[decision.index]
        return labels_or_reject(
            self.classes_, decision.index, decision.accepted, self.reject_label
        )

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
            predictions (without abstention) and confidences on ``X``. So
            ``cross_val_score(clf, X, y)`` shows negative numbers, closer to 0
            is better, and not the accuracy a scikit-learn classifier's
            ``score`` gives: the AUGRC judges what a selective classifier adds,
            the ranking of its confidences. Pass ``scoring="accuracy"`` (or
            any scorer) to the constructor to score otherwise.
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

    @available_if(estimator_has("predict_proba", delegates=("estimator_", "estimator")))
    def predict_proba(self, X):
        """Class probabilities of the underlying classifier (no abstention).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            ``estimator_.predict_proba(X)``, calibrated by ``calibrator_``
            when ``calibration`` is set.
        """
        check_is_fitted(self, "threshold_")
        proba = self.estimator_.predict_proba(X)
        if self.calibrator_ is not None:
            proba = self.calibrator_.transform(np.asarray(proba, np.float64))
        return proba

    @available_if(
        estimator_has("predict_log_proba", delegates=("estimator_", "estimator"))
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
            ``estimator_.predict_log_proba(X)``, or the logarithm of the
            calibrated probabilities when ``calibration`` is set.
        """
        check_is_fitted(self, "threshold_")
        if self.calibrator_ is not None:
            with np.errstate(divide="ignore"):
                return np.log(self.predict_proba(X))
        return self.estimator_.predict_log_proba(X)

    @available_if(_has_decision_function_without_costs)
    def decision_function(self, X):
        """Decision function of the underlying classifier (not with ``cost_matrix``).

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
