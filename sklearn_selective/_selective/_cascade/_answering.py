"""How a fitted SelectiveCascade answers: each sample goes through the stages
from the cheapest, each stage predicting only on what reaches it, and is
answered by the first whose confidence reaches its threshold, or sent to a
person. Every prediction method reads the one pass of ``_decide``."""

import numpy as np
from sklearn.utils import Bunch, column_or_1d
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted, indexable

from ..._utils._sklearn import num_samples, safe_indexing
from ...confidence import predict_with_confidence
from .._classes import class_index
from .._reject_label import labels_or_reject
from ._stages import PERSON


class CascadeAnsweringMixin:
    """The prediction side of :class:`SelectiveCascade` (needs the fitted
    ``estimators_``, ``csfs_``, ``thresholds_``, ``classes_`` and the
    ``estimators`` and ``reject_label`` parameters)."""

    def _decide(self, X):
        """Class index, confidence and stage (``n_stages`` for a person) of
        each sample; each stage predicts only on what reaches it."""
        check_is_fitted(self, "thresholds_")
        (X,) = indexable(X)
        n_samples = num_samples(X)
        n_stages = len(self.estimators_)
        index = np.zeros(n_samples, dtype=np.intp)
        confidence = np.zeros(n_samples)
        stage = np.full(n_samples, n_stages, dtype=np.intp)
        remaining = np.arange(n_samples)
        for k, (estimator, csf) in enumerate(
            zip(self.estimators_, self.csfs_, strict=True)
        ):
            if k > 0 and remaining.size == 0:
                break
            part = X if k == 0 else safe_indexing(X, remaining)
            y_pred, score = predict_with_confidence(estimator, part, csf)[:2]
            index[remaining] = class_index(self.classes_, np.asarray(y_pred))
            confidence[remaining] = score
            accept = np.asarray(score) >= self.thresholds_[k]
            stage[remaining[accept]] = k
            remaining = remaining[~accept]
        return index, confidence, stage

    def _stage_names(self, stage):
        person = PERSON if self.reject_label is None else self.reject_label
        names = np.array([name for name, _ in self.estimators] + [person], dtype=object)
        return names[stage]

    def decide(self, X):
        """Every part of the cascade's decision, from one pass.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        decision : :class:`~sklearn.utils.Bunch`
            With ``y_pred`` (the answering stage's prediction; the last
            stage's for a sample sent to a person, never ``reject_label``),
            ``confidence`` (as :meth:`confidence_score`), ``accepted`` (as
            :meth:`predict_accept`), ``stage`` (as :meth:`predict_stage`) and
            ``novel`` (all False: a cascade has no novelty detector), each of
            shape ``(n_samples,)``, the contract of
            :meth:`SelectiveClassifier.decide`.
        """
        index, confidence, stage = self._decide(X)
        return Bunch(
            y_pred=self.classes_[index],
            confidence=confidence,
            accepted=stage < len(self.estimators_),
            stage=self._stage_names(stage),
            novel=np.zeros(stage.shape[0], dtype=bool),
        )

    def predict(self, X):
        """The answering stage's prediction, or ``reject_label`` for a person.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            The prediction of the stage that answers each sample; for a
            sample no stage accepts, ``reject_label`` if set, else the last
            stage's prediction.
        """
        index, _, stage = self._decide(X)
        if self.reject_label is None:
            return self.classes_[index]
        accepted = stage < len(self.estimators_)
        return labels_or_reject(self.classes_, index, accepted, self.reject_label)

    def predict_accept(self, X):
        """Whether some stage answers each sample (False: sent to a person).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        accepted : ndarray of shape (n_samples,), dtype=bool
        """
        return self._decide(X)[2] < len(self.estimators_)

    def _stages_have_proba(self):
        estimators = getattr(self, "estimators_", None)
        if estimators is None:
            estimators = [estimator for _, estimator in self.estimators]
        return all(hasattr(estimator, "predict_proba") for estimator in estimators)

    @available_if(_stages_have_proba)
    def predict_proba(self, X):
        """Class probabilities of the stage that answers each sample.

        What :class:`~sklearn_selective.PerformanceMonitor` reads to estimate
        the cascade's accuracy without labels. Available when every stage has
        ``predict_proba``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            The answering stage's probabilities (the last stage's for a
            sample sent to a person, whose prediction ``decide`` reports),
            columns as ``classes_``.
        """
        stage = np.minimum(self._decide(X)[2], len(self.estimators_) - 1)
        proba = np.zeros((stage.shape[0], self.classes_.shape[0]))
        for k, estimator in enumerate(self.estimators_):
            rows = np.flatnonzero(stage == k)
            if rows.size:
                columns = class_index(self.classes_, np.asarray(estimator.classes_))
                proba[np.ix_(rows, columns)] = estimator.predict_proba(
                    safe_indexing(X, rows)
                )
        return proba

    def predict_stage(self, X):
        """The name of the stage that answers each sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        stage : ndarray of shape (n_samples,), dtype=object
            The stage's name from ``estimators``; for a sample sent to a
            person, ``reject_label`` if set, else ``"person"``.
        """
        return self._stage_names(self._decide(X)[2])

    def confidence_score(self, X):
        """The confidence of the stage that answers each sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        confidence : ndarray of shape (n_samples,)
            The answering stage's CSF value (the last stage's for a sample
            sent to a person). Stages' confidences need not share a scale:
            compare a sample's confidence with its stage's threshold.
        """
        return self._decide(X)[1]

    def score(self, X, y, sample_weight=None):
        """Accuracy of the cascade's answers (selective accuracy).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Test samples.

        y : array-like of shape (n_samples,)
            True labels.

        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            The (weighted) share of correct answers among the answered
            samples, ``1 - selective risk``; 0.0 when no sample is answered.
            It does not reward coverage: compare cascades of equal coverage
            (``target_coverage``), or read ``coverage_`` beside it.
        """
        decision = self.decide(X)
        y = column_or_1d(y)
        weights = (
            np.ones(y.shape[0])
            if sample_weight is None
            else np.asarray(sample_weight, dtype=np.float64)
        )
        answered = weights * decision.accepted
        if answered.sum() <= 0:
            return 0.0
        return float(answered @ (decision.y_pred == y) / answered.sum())
