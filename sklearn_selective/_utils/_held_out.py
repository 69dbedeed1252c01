"""Held-out predictions for meta-estimators that learn from validation scores.

``SelectiveClassifier`` (an abstention threshold) and the accuracy estimators
(an ATC threshold, source confidences) share one rule for where their
validation scores come from: out-of-fold predictions over ``cv``, or all of
``fit``'s data for a ``FrozenEstimator``; the same metadata routing; the same
delegation of ``n_features_in_`` and the HTML repr to the inner estimator.
"""

from inspect import signature
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import StratifiedShuffleSplit, check_cv
from sklearn.utils import Bunch, get_tags
from sklearn.utils.metadata_routing import (
    MetadataRouter,
    MethodMapping,
    process_routing,
)
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_is_fitted

from ._sklearn import VisualBlock, check_method_params, routing_enabled, safe_indexing
from ._warnings import warn


def _bind(predict, estimator, X_train, y_train, **reference):
    """The inference of a model trained on ``(X_train, y_train)``: ``predict``,
    or ``predict.fit(...)`` for one that learns from the training inputs (a
    feature-space CSF; ``reference`` may ask it to keep a training-fold-sized
    subset, see :meth:`HeldOutScoresMixin._fit_held_out`)."""
    if hasattr(predict, "fit"):
        return predict.fit(estimator, X_train, y_train, **reference)
    return predict


def _fit_and_predict(estimator, X, y, train, test, fit_params, predict):
    """Fit on ``train``; the fold's inference on ``test`` (one inference)."""
    fit_params = check_method_params(X, params=fit_params, indices=train)
    X_train, y_train = safe_indexing(X, train), safe_indexing(y, train)
    estimator.fit(X_train, y_train, **fit_params)
    inference = _bind(predict, estimator, X_train, y_train)
    return estimator, inference(estimator, safe_indexing(X, test)), inference


class HeldOutScoresMixin:
    """Fit an inner classifier and collect its held-out predictions.

    Needs the parameters ``estimator``, ``cv``, ``refit``, ``n_jobs`` and
    ``random_state``, and a fitted attribute named by ``_fitted_attribute``.
    """

    _fitted_attribute = "estimator_"

    def _splitter(self, y):
        if isinstance(self.cv, Real) and not isinstance(self.cv, Integral):
            return StratifiedShuffleSplit(
                n_splits=1, test_size=self.cv, random_state=self.random_state
            )
        return check_cv(self.cv, y, classifier=True)

    def _fit_params(self, sample_weight, fit_params):
        """Route ``sample_weight`` and ``fit_params`` as CalibratedClassifierCV does."""
        if routing_enabled():
            return process_routing(
                self, "fit", sample_weight=sample_weight, **fit_params
            )
        estimator = self.estimator
        fit_params = dict(fit_params)
        if sample_weight is not None and not isinstance(estimator, FrozenEstimator):
            if "sample_weight" in signature(estimator.fit).parameters:
                fit_params["sample_weight"] = sample_weight
            else:
                warn(
                    f"{type(estimator).__name__}.fit does not accept sample_weight: "
                    "the weights are used for the validation scores only. Enable "
                    "metadata routing to pass them to a step of a Pipeline.",
                    UserWarning,
                )
        return Bunch(estimator=Bunch(fit=fit_params), splitter=Bunch(split={}))

    def _fit_held_out(
        self,
        X,
        y,
        routed,
        predict,
        before_fit=None,
        estimator=None,
    ):
        """The deployed model and held-out predictions and confidences.

        Returns a Bunch with ``estimator`` (the model to deploy), ``indices``
        (of the held-out samples, in the order of the other arrays), ``y_pred``
        and ``confidence``. ``before_fit(n_splits)`` may veto the split before
        anything is fitted (``n_splits`` is 0 for a ``FrozenEstimator``).
        ``estimator`` replaces ``self.estimator`` (e.g. a calibrated wrapper).
        ``predict(estimator, X)`` is the inference (e.g. a partial of
        :func:`~sklearn_selective.confidence.predict_with_confidence`); it returns a
        tuple of per-sample arrays starting with ``y_pred, confidence`` (all kept,
        pooled over the folds, in ``outputs``). ``fold_sizes`` counts each fold's
        samples. A ``predict`` with a ``fit(estimator, X_train, y_train)`` method
        learns from each model's training inputs and returns that model's
        inference; ``inference`` is the deployed model's.
        """
        if estimator is None:
            estimator = self.estimator
        if isinstance(estimator, FrozenEstimator):
            if before_fit is not None:
                before_fit(0)
            outputs = tuple(predict(estimator, X))
            return Bunch(
                estimator=estimator,
                indices=np.arange(y.shape[0]),
                y_pred=outputs[0],
                confidence=outputs[1],
                outputs=outputs,
                fold_sizes=np.array([y.shape[0]]),
                inference=predict,
            )
        splits = list(self._splitter(y).split(X, y, **routed.splitter.split))
        if before_fit is not None:
            before_fit(len(splits))
        if not self.refit and len(splits) > 1:
            raise ValueError(
                "refit=False keeps the model of a single split, but cv has "
                f"{len(splits)} splits; use cv=<float in (0, 1)> or refit=True."
            )
        folds = Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_and_predict)(
                clone(estimator),
                X,
                y,
                train,
                test,
                routed.estimator.fit,
                predict,
            )
            for train, test in splits
        )
        if self.refit:
            estimator = clone(estimator).fit(X, y, **routed.estimator.fit)
            # A score that learns from the training inputs (k-NN distances)
            # keeps a reference of a training fold's size: the threshold was
            # set on scores against folds of that size, and a larger reference
            # shortens every distance (coverage 0.93 for a target of 0.8).
            fold_size = round(np.mean([len(train) for train, _ in splits]))
            inference = _bind(
                predict,
                estimator,
                X,
                y,
                reference_size=fold_size,
                random_state=self.random_state,
            )
        else:
            estimator, _, inference = folds[0]
        outputs = tuple(
            np.concatenate([fold[1][i] for fold in folds])
            for i in range(len(folds[0][1]))
        )
        return Bunch(
            estimator=estimator,
            indices=np.concatenate([test for _, test in splits]),
            y_pred=outputs[0],
            confidence=outputs[1],
            outputs=outputs,
            fold_sizes=np.array([len(test) for _, test in splits]),
            inference=inference,
        )

    @property
    def n_features_in_(self):
        """Number of features seen during fit."""
        check_is_fitted(self, self._fitted_attribute)
        return self.estimator_.n_features_in_

    @property
    def feature_names_in_(self):
        """Names of the features seen during fit."""
        check_is_fitted(self, self._fitted_attribute)
        return self.estimator_.feature_names_in_

    def get_metadata_routing(self):
        """Get metadata routing of this object.

        Returns
        -------
        routing : MetadataRouter
            Routes ``fit``'s metadata to the classifier's ``fit`` and the
            splitter's ``split``.
        """
        return (
            MetadataRouter(owner=self)
            .add_self_request(self)
            .add(
                estimator=self.estimator,
                method_mapping=MethodMapping().add(caller="fit", callee="fit"),
            )
            .add(
                splitter=self.cv
                if self.cv is not None and hasattr(self.cv, "split")
                else check_cv(self.cv if isinstance(self.cv, Integral) else None),
                method_mapping=MethodMapping().add(caller="fit", callee="split"),
            )
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = get_tags(self.estimator).input_tags.sparse
        return tags

    def _sk_visual_block_(self):
        estimator = getattr(self, "estimator_", self.estimator)
        return VisualBlock(
            "serial",
            [estimator],
            names=[type(estimator).__name__],
            name_details=[str(estimator)],
            dash_wrapped=False,
        )
