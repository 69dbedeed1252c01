"""The stages of a SelectiveCascade: their parameters, their held-out
predictions on common splits, the routing of ``fit``'s metadata to them, and
their parameters by name (for ``GridSearchCV``)."""

from inspect import signature
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import StratifiedShuffleSplit, check_cv
from sklearn.utils import Bunch
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

# The primitives shared with SelectiveClassifier, in one place.
from ..._utils._held_out import _bind, _fit_and_predict
from ..._utils._sklearn import routing_enabled, safe_indexing
from ..._utils._warnings import warn

PERSON = "person"


def check_stage_costs(stage_costs, n_stages):
    if stage_costs is None:
        return np.ones(n_stages)
    costs = np.asarray(stage_costs, dtype=np.float64)
    if (
        costs.shape != (n_stages,)
        or not np.all(np.isfinite(costs))
        or (costs < 0).any()
    ):
        raise ValueError(
            f"stage_costs must hold one finite non-negative cost per stage "
            f"({n_stages} stages); got {stage_costs!r}."
        )
    return costs


class CascadeStagesMixin:
    """The stages' side of :class:`SelectiveCascade` (needs ``estimators``,
    ``csf``, ``cv``, ``refit``, ``n_jobs`` and ``random_state``)."""

    def _stages(self):
        """Names and estimators, checked."""
        stages = self.estimators
        if len(stages) == 0 or not all(
            isinstance(s, tuple) and len(s) == 2 and isinstance(s[0], str)
            for s in stages
        ):
            raise ValueError(
                "estimators must be a non-empty list of (name, estimator) tuples, "
                "from the cheapest stage to the most expensive; got "
                f"{stages!r}."
            )
        names = [name for name, _ in stages]
        if len(set(names)) != len(names) or PERSON in names:
            raise ValueError(
                f"The stage names in estimators must be unique and not "
                f"{PERSON!r} (the name of the person); got {names}."
            )
        for name, estimator in stages:
            if not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
                raise ValueError(
                    f"The stage {name!r} of estimators is not a classifier (it "
                    "needs fit and predict); got "
                    f"{type(estimator).__name__}."
                )
        return names, [estimator for _, estimator in stages]

    def _csfs(self, n_stages):
        if not isinstance(self.csf, list):
            return [self.csf] * n_stages
        if len(self.csf) != n_stages:
            raise ValueError(
                f"csf is a list of {len(self.csf)} entries but there are "
                f"{n_stages} stages; pass one CSF per stage, or one for all."
            )
        return list(self.csf)

    # ----------------------------------------------------------------------------
    # Held-out predictions of every stage on the same samples
    # ----------------------------------------------------------------------------
    def _splits(self, X, y, routed, frozen):
        """The (train, test) splits, or None when every stage is frozen."""
        if all(frozen):
            return None
        if isinstance(self.cv, Real) and not isinstance(self.cv, Integral):
            splitter = StratifiedShuffleSplit(
                n_splits=1, test_size=self.cv, random_state=self.random_state
            )
        else:
            splitter = check_cv(self.cv, y, classifier=True)
        splits = list(splitter.split(X, y, **routed.splitter.split))
        if not self.refit and len(splits) > 1:
            raise ValueError(
                "refit=False keeps the models of a single split, but cv has "
                f"{len(splits)} splits; use cv=<float in (0, 1)> or refit=True."
            )
        return splits

    def _check_guarantee_is_for_the_deployed_models(self, splits):
        if splits is None or (not self.refit and len(splits) == 1):
            return
        raise ValueError(
            "A risk guarantee (confidence_level) holds only for the models whose "
            "validation scores were certified, so those models must be the ones "
            "deployed. Either pass every stage as FrozenEstimator(fitted_model) "
            "and held-out data to fit, or use a single split with refit=False, "
            "e.g. cv=0.3, refit=False (fit on 70% of the data, certify on the "
            "other 30%)."
        )

    def _fit_stage(self, estimator, inference, X, y, splits, fit_params):
        """The deployed stage, its inference, and its held-out predictions and
        confidences: on the test samples of ``splits`` in their order, or on
        all of ``X`` when there is no split (every stage frozen)."""
        if isinstance(estimator, FrozenEstimator):
            if splits is None:
                y_pred, confidence = inference(estimator, X)[:2]
                return estimator, inference, y_pred, confidence
            tests = [safe_indexing(X, test) for _, test in splits]
            outputs = [inference(estimator, part)[:2] for part in tests]
        else:
            folds = Parallel(n_jobs=self.n_jobs)(
                delayed(_fit_and_predict)(
                    clone(estimator), X, y, train, test, fit_params, inference
                )
                for train, test in splits
            )
            outputs = [fold[1][:2] for fold in folds]
            if self.refit:
                deployed = clone(estimator).fit(X, y, **fit_params)
                inference = _bind(inference, deployed, X, y)
                estimator = deployed
            else:
                estimator, _, inference = folds[0]
        y_pred = np.concatenate([output[0] for output in outputs])
        confidence = np.concatenate([output[1] for output in outputs])
        return estimator, inference, y_pred, confidence

    def _routed_params(self, names, sample_weight, fit_params):
        if routing_enabled():
            return process_routing(
                self, "fit", sample_weight=sample_weight, **fit_params
            )
        if fit_params:
            raise ValueError(
                f"fit got {sorted(fit_params)}: a cascade routes fit parameters to "
                "its stages by metadata routing only; enable it with "
                "sklearn.set_config(enable_metadata_routing=True) and request "
                "them on the stages."
            )
        routed = Bunch(splitter=Bunch(split={}))
        for name, (_, estimator) in zip(names, self.estimators, strict=True):
            params = {}
            if sample_weight is not None and not isinstance(estimator, FrozenEstimator):
                if _accepts_sample_weight(estimator):
                    params["sample_weight"] = sample_weight
                else:
                    warn(
                        f"The stage {name!r} ({type(estimator).__name__}) does not "
                        "accept sample_weight in fit: the weights are used for "
                        "its thresholds only. Enable metadata routing to pass "
                        "them to a step of a Pipeline."
                    )
            routed[name] = Bunch(fit=params)
        return routed

    # ----------------------------------------------------------------------------
    # scikit-learn plumbing
    # ----------------------------------------------------------------------------
    def get_params(self, deep=True):
        """Get parameters of this estimator, and of each stage by its name.

        Parameters
        ----------
        deep : bool, default=True
            If True, also the stages by name and their parameters as
            ``<name>__<parameter>``.

        Returns
        -------
        params : dict
            Parameter names mapped to their values.
        """
        params = super().get_params(deep=False)
        if not deep:
            return params
        for name, estimator in _named(self.estimators):
            params[name] = estimator
            if hasattr(estimator, "get_params"):
                for key, value in estimator.get_params(deep=True).items():
                    params[f"{name}__{key}"] = value
        return params

    def set_params(self, **params):
        """Set the parameters of this estimator, and of each stage by its name.

        Parameters
        ----------
        **params : dict
            Parameters of the cascade, a stage by its name (replacing it), or a
            stage's parameter as ``<name>__<parameter>``.

        Returns
        -------
        self : SelectiveCascade
            This estimator.
        """
        if "estimators" in params:
            self.estimators = params.pop("estimators")
        stages = _named(self.estimators)
        replaced = {name: params.pop(name) for name, _ in stages if name in params}
        if replaced:
            self.estimators = [
                (name, replaced.get(name, estimator)) for name, estimator in stages
            ]
        return super().set_params(**params)

    @property
    def n_features_in_(self):
        """Number of features seen during fit (the first stage's)."""
        check_is_fitted(self, "thresholds_")
        return self.estimators_[0].n_features_in_

    def get_metadata_routing(self):
        """Get metadata routing of this object.

        Returns
        -------
        routing : MetadataRouter
            Routes ``fit``'s metadata to every stage's ``fit`` and the
            splitter's ``split``.
        """
        router = MetadataRouter(owner=self).add_self_request(self)
        for name, estimator in self.estimators:
            router.add(
                **{name: estimator},
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
        splitter = (
            self.cv
            if self.cv is not None and hasattr(self.cv, "split")
            else check_cv(self.cv if isinstance(self.cv, Integral) else None)
        )
        return router.add(
            splitter=splitter,
            method_mapping=MethodMapping().add(caller="fit", callee="split"),
        )


def _named(estimators):
    """The ``(name, estimator)`` pairs of ``estimators`` (none while it is not
    a list of them: ``fit`` says what is wrong)."""
    if not isinstance(estimators, list):
        return []
    return [
        stage
        for stage in estimators
        if isinstance(stage, tuple) and len(stage) == 2 and isinstance(stage[0], str)
    ]


def _accepts_sample_weight(estimator):
    return "sample_weight" in signature(estimator.fit).parameters
