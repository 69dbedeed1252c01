"""SelectiveCascade: a cheap model first, a stronger one next, a person last."""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
from sklearn.frozen import FrozenEstimator
from sklearn.utils import Bunch, column_or_1d
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import indexable

# The primitives shared with SelectiveClassifier, in one place.
from ..._utils._sklearn import (
    Interval,
    RealNotInt,
    fit_context,
)
from ..._utils._validation import (
    _check_scaled_sample_weight,
    check_labels_match_classes,
)
from ...confidence._feature_space import held_out_inference
from .._policies import POLICY_CONSTRAINTS
from .._reject_label import check_reject_label
from ._answering import CascadeAnsweringMixin
from ._cascade_report import CascadeReportMixin
from ._certify import cascade_paths, paths_table, resolve_policy
from ._stages import CascadeStagesMixin, check_stage_costs

# The threshold policies' parameters a cascade takes (its objective's
# coverage_tolerance is its own).
CASCADE_POLICY_PARAMETERS = (
    "target_coverage",
    "target_risk",
    "confidence_level",
    "max_abstention_rate",
)


class SelectiveCascade(
    CascadeAnsweringMixin,
    CascadeReportMixin,
    CascadeStagesMixin,
    MetaEstimatorMixin,
    ClassifierMixin,
    BaseEstimator,
):
    """Cascade of classifiers that answers by the first confident stage and
    sends the rest to a person.

    The stages run from the cheapest to the most expensive. A sample is
    answered by the first stage whose confidence reaches that stage's
    threshold (``>= thresholds_[k]``); a sample no stage accepts is abstained
    on, i.e. sent to a person. Each stage's held-out predictions and
    confidences are collected as :class:`SelectiveClassifier` collects them
    (out-of-fold over ``cv``, or all of ``fit``'s data for a
    :class:`~sklearn.frozen.FrozenEstimator`), and the thresholds are fitted
    together on them, along label-free paths of threshold vectors (each path
    fixes the share the earlier stages answer and runs the last stage's
    threshold down), by exactly one policy:

    - ``target_coverage``: on each path the first point whose validation
      coverage reaches the target; the path of least validation risk, then
      least expected cost;
    - ``target_risk`` (without ``confidence_level``): the most validation
      coverage whose empirical selective risk is at most the target, then
      the least expected cost;
    - ``target_risk`` with ``confidence_level``: a guarantee. With
      probability at least ``confidence_level`` over the validation draw, the
      population selective risk of the cascade's answers is at most
      ``target_risk`` and, with ``max_abstention_rate``, the share sent to a
      person is at most that, both at once. Among the certified configurations
      the most coverage wins, then the least expected cost (with
      ``coverage_tolerance``, coverages that close to the most are tied).

    When none is set, ``target_coverage=0.9`` is used.

    Read more in the :ref:`cascades_guide`.

    Parameters
    ----------
    estimators : list of (str, estimator) tuples
        The stages, from the cheapest to the most expensive: each a name and a
        classifier (or :class:`~sklearn.pipeline.Pipeline`), unfitted, or fitted
        and wrapped in :class:`~sklearn.frozen.FrozenEstimator`. Names are
        unique and not ``"person"``. Every stage must know the same classes.

    csf : str, callable or list, default="msp"
        Confidence score function of every stage (a name from
        :func:`~sklearn_selective.confidence.get_confidence_function_names` or
        a callable), or a list of one per stage.

    target_coverage : float in (0, 1], default=None
        Target share of samples answered by some stage.

    target_risk : float in [0, 1), default=None
        Target selective risk of the cascade's answers.

    confidence_level : float in (0, 1), default=None
        With ``target_risk``: the guarantee's level (see above and the Notes).

    max_abstention_rate : float in (0, 1), default=None
        With ``target_risk`` and ``confidence_level``: the review capacity, the
        largest share of samples sent to a person (certified with the risk; the
        level is halved between the two).

    stage_costs : array-like of shape (n_stages,), default=None
        Cost of one call of each stage (seconds, money, ...). A sample
        answered by stage ``k`` pays stages ``1..k``; a sample sent to a
        person pays all. None: every stage costs 1 (the expected cost is then
        the mean number of model calls).

    coverage_tolerance : float in [0, 1), default=0.0
        With ``target_risk``: configurations whose validation coverage is
        within this share (relative) of the most are tied, and the cheapest of
        them wins. 0 keeps the stated objective, most coverage then least
        cost; e.g. 0.05 gives up at most 5 % of the coverage to call the
        expensive stages less. Any certified configuration is covered by the
        guarantee, so this trades coverage for cost at the same level.

    cv : int, cross-validation generator, iterable or float, default=None
        How validation predictions are produced (ignored when every stage is
        a ``FrozenEstimator``): None for 5-fold stratified cross-validation,
        an int for that many folds, a float in (0, 1) for one stratified split
        holding out that fraction, or a splitter. Every stage is validated on
        the same splits.

    refit : bool, default=True
        Whether to refit every unfrozen stage on all the data once the
        thresholds are fitted. ``refit=False`` keeps the models of a single
        split (required for a guarantee).

    reject_label : object, default=None
        If set, :meth:`predict` returns this label for samples sent to a
        person (it must have the classes' type and be no class), and
        :meth:`predict_stage` names the person by it. Otherwise
        :meth:`predict` returns the last stage's prediction for them and
        :meth:`predict_stage` names the person ``"person"``.

    random_state : int, RandomState instance or None, default=None
        Seed of the split when ``cv`` is a float.

    n_jobs : int, default=None
        Number of jobs fitting the cross-validation folds in parallel.

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted stages, in order.

    named_estimators_ : :class:`~sklearn.utils.Bunch`
        The fitted stages by name.

    classes_ : ndarray of shape (n_classes,)
        The class labels.

    csfs_ : list
        The CSF of each deployed stage.

    thresholds_ : ndarray of shape (n_stages,)
        Stage ``k`` answers a sample that reaches it iff its confidence is
        ``>= thresholds_[k]``; ``inf`` for a stage that passes everything on
        (all ``inf`` when the cascade abstains on everything).

    stage_share_ : ndarray of shape (n_stages + 1,)
        Share of the validation samples answered by each stage, and last the
        share sent to a person.

    coverage_ : float
        Share of the validation samples answered by some stage.

    risk_ : float
        Validation selective risk (0/1 error of the answers; ``nan`` when
        nothing is answered).

    risk_bound_ : float or None
        With ``confidence_level``: the Clopper-Pearson upper bound on the
        selective risk at the level of the walk that certified it (at most
        ``target_risk``; ``nan`` when nothing is certified). None otherwise.

    expected_cost_ : float
        Mean over the validation samples of ``stage_costs`` summed over the
        stages each sample passes through.

    policy_ : str
        ``"target_coverage"``, ``"target_risk"`` or ``"guaranteed_risk"``.

    paths_ : :class:`~sklearn.utils.Bunch`
        For audit, the configuration each label-free path offers under the
        policy (the one chosen is the best of them): ``"thresholds"`` of shape
        ``(n_paths, n_stages)``, ``"stage_share"`` of shape ``(n_paths,
        n_stages + 1)``, and ``"coverage"``, ``"risk"``, ``"risk_bound"`` and
        ``"expected_cost"`` of shape ``(n_paths,)``; ``nan`` where a path
        certifies (or, for ``target_risk``, reaches) nothing. Pass it to
        ``pandas.DataFrame`` after splitting the 2-D columns, or plot
        ``coverage`` against ``expected_cost``.

    n_features_in_ : int
        Number of features seen during fit (the first stage's).

    See Also
    --------
    SelectiveClassifier : One model and a person, with the same policies.
    sklearn.ensemble.StackingClassifier : Combines every model on every sample.

    Notes
    -----
    **When the guarantee holds.** It certifies the deployed models on data
    drawn from the validation distribution, so ``confidence_level`` needs
    the certified models to be the deployed ones: every stage a
    ``FrozenEstimator`` with held-out data passed to ``fit``, or a single
    split (``cv`` a float) with ``refit=False``. Sample weights are not
    supported with it (the binomial counts samples).

    **Why it holds although a stage sees only what the earlier stages pass
    on.** At each configuration the p-value ``P(Bin(n, target_risk) <= k)``
    (``n`` answered validation samples, ``k`` wrong) is of the whole cascade's
    answered set, a function of the inputs alone; given ``n`` those samples
    are i.i.d. draws of the answered population, so no stage's calibration
    after the earlier stages' selection is needed. The configurations lie on
    ``5 ** (n_stages - 1)`` label-free paths; along each, the fixed-sequence
    walks of :class:`SelectiveClassifier` run from label-free starts, the
    level split over the distinct walks (two that test the same
    configurations count once), and with ``max_abstention_rate`` halved
    between the risk and the cap (Bonferroni). The user guide writes the
    proof and ``benchmarks/bench_cascade.py`` measures it.

    References
    ----------
    Jung, Brahman and Choi. "Trust or Escalate: LLM Judges with Provable
    Guarantees for Human Agreement." ICLR 2025.
    Angelopoulos, Bates, Candès, Jordan and Lei. "Learn then Test: Calibrating
    Predictive Algorithms to Achieve Risk Control." arXiv:2110.01052, 2021.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_selective import SelectiveCascade
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> strong = make_pipeline(StandardScaler(), LogisticRegression())
    >>> cascade = SelectiveCascade(
    ...     [("cheap", GaussianNB()), ("strong", strong)],
    ...     target_coverage=0.9, random_state=0,
    ... ).fit(X[:400], y[:400])
    >>> round(cascade.coverage_, 2)
    0.9
    >>> stage = cascade.predict_stage(X[400:])
    >>> sorted(set(stage.tolist()))
    ['cheap', 'person', 'strong']
    """

    _parameter_constraints: dict = {
        "estimators": [list],
        "csf": [str, callable, list],
        # The policies' parameters, constrained as SelectiveClassifier's.
        **{name: POLICY_CONSTRAINTS[name] for name in CASCADE_POLICY_PARAMETERS},
        "stage_costs": ["array-like", None],
        "coverage_tolerance": [Interval(Real, 0, 1, closed="left")],
        "cv": ["cv_object", Interval(RealNotInt, 0.0, 1.0, closed="neither")],
        "refit": ["boolean"],
        "reject_label": "no_validation",
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        estimators,
        *,
        csf="msp",
        target_coverage=None,
        target_risk=None,
        confidence_level=None,
        max_abstention_rate=None,
        stage_costs=None,
        coverage_tolerance=0.0,
        cv=None,
        refit=True,
        reject_label=None,
        random_state=None,
        n_jobs=None,
    ):
        self.estimators = estimators
        self.csf = csf
        self.target_coverage = target_coverage
        self.target_risk = target_risk
        self.confidence_level = confidence_level
        self.max_abstention_rate = max_abstention_rate
        self.stage_costs = stage_costs
        self.coverage_tolerance = coverage_tolerance
        self.cv = cv
        self.refit = refit
        self.reject_label = reject_label
        self.random_state = random_state
        self.n_jobs = n_jobs

    # ----------------------------------------------------------------------------
    # Fit
    # ----------------------------------------------------------------------------
    @fit_context(prefer_skip_nested_validation=False)  # stages not validated
    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the stages and the thresholds.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (all validation data when every stage is a
            ``FrozenEstimator``).

        y : array-like of shape (n_samples,)
            Target labels.

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights, passed to each stage's ``fit`` that accepts them
            (or routed, with metadata routing enabled) and used by the
            empirical policies; not supported with ``confidence_level``.

        **fit_params : dict
            Parameters routed to the stages' ``fit`` (metadata routing only).

        Returns
        -------
        self : object
            The fitted cascade.
        """
        check_classification_targets(y)
        X, y = indexable(X, y)
        y = column_or_1d(y, warn=True)
        names, estimators = self._stages()
        csfs = self._csfs(len(estimators))
        costs = check_stage_costs(self.stage_costs, len(estimators))
        policy, self.policy_ = resolve_policy(self)
        weights = None
        if sample_weight is not None:
            if self.policy_ == "guaranteed_risk":
                raise ValueError(
                    "sample_weight is not supported with confidence_level: the "
                    "risk guarantee is a binomial bound that counts samples."
                )
            weights = _check_scaled_sample_weight(
                sample_weight, y.shape[0], reference="y"
            )
        routed = self._routed_params(names, weights, fit_params)
        frozen = [isinstance(e, FrozenEstimator) for e in estimators]
        splits = self._splits(X, y, routed, frozen)
        if self.policy_ == "guaranteed_risk":
            self._check_guarantee_is_for_the_deployed_models(splits)
        indices = (
            np.arange(y.shape[0])
            if splits is None
            else np.concatenate([test for _, test in splits])
        )
        self.classes_ = np.unique(y)
        fitted, predictions, confidences = [], [], []
        for name, estimator, csf in zip(names, estimators, csfs, strict=True):
            deployed, inference, y_pred, confidence = self._fit_stage(
                estimator, held_out_inference(csf), X, y, splits, routed[name].fit
            )
            self._check_classes(name, deployed, y)
            fitted.append((deployed, getattr(inference, "csf", csf)))
            predictions.append(y_pred)
            confidences.append(np.asarray(confidence, dtype=np.float64))
        check_reject_label(self.reject_label, self.classes_)
        self.estimators_ = [estimator for estimator, _ in fitted]
        self.named_estimators_ = Bunch(
            **dict(zip(names, self.estimators_, strict=True))
        )
        self.csfs_ = [csf for _, csf in fitted]
        y_true = y[indices]
        losses = np.column_stack([p != y_true for p in predictions]).astype(np.float64)
        sample_weights = (
            np.ones(y_true.shape[0]) if weights is None else weights[indices]
        )
        paths = cascade_paths(
            np.column_stack(confidences), losses, sample_weights, costs
        )
        chosen, path_fits = policy.select(paths)
        self.paths_ = paths_table(path_fits, len(estimators))
        self.thresholds_ = chosen.thresholds
        self.coverage_, self.risk_ = chosen.coverage, chosen.risk
        self.risk_bound_ = chosen.risk_bound
        self.expected_cost_, self.stage_share_ = (
            chosen.expected_cost,
            chosen.stage_share,
        )
        return self

    def _check_classes(self, name, estimator, y):
        classes = np.asarray(estimator.classes_)
        check_labels_match_classes(y, classes)
        if not np.array_equal(np.sort(classes), self.classes_):
            raise ValueError(
                f"The stage {name!r} knows the classes {classes.tolist()}, but y "
                f"holds {self.classes_.tolist()}; every stage must know exactly "
                "the labels of y."
            )
