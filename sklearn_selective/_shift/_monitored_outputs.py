"""What the monitor reads from the model: predictions, scores, acceptance,
probabilities, costs, and the reference labels against its classes."""

from typing import NamedTuple

import numpy as np
from sklearn.utils import column_or_1d
from sklearn.utils.validation import check_is_fitted

from .._utils._cost_matrix import check_costs
from .._utils._sklearn import num_samples
from .._utils._validation import count_missing_labels, label_positions
from ..confidence import predict_with_confidence


class ModelOutputs(NamedTuple):
    """What the monitor needs from the model, per sample."""

    y_pred: np.ndarray  # predicted labels
    pred_index: np.ndarray  # index of the prediction in classes_
    score: np.ndarray  # CSF confidence (the acceptance score)
    accepted: np.ndarray  # bool, exactly the estimator's predict_accept
    proba: np.ndarray | None  # (n, k) class probabilities, when available
    stage: np.ndarray | None = None  # a cascade's answering stage (its name)

    def take(self, indices):
        return ModelOutputs(
            *(None if value is None else value[indices] for value in self)
        )

    @property
    def proba_pred(self):
        """Probability of the predicted class (the MSP for an argmax prediction)."""
        return self.proba[np.arange(self.proba.shape[0]), self.pred_index]


def _is_selective(estimator):
    """A selective classifier decides acceptance itself (public ``decide``)."""
    return callable(getattr(estimator, "decide", None))


def check_monitored(estimator, csf, method, needs_proba):
    """The estimator is fitted and offers what ``method`` and ``csf`` need."""
    check_is_fitted(estimator)
    if _is_selective(estimator) and csf is not None:
        raise ValueError(
            f"csf={csf!r} was given, but a {type(estimator).__name__} "
            "decides acceptance with its own CSF; leave csf=None."
        )
    if needs_proba and not hasattr(estimator, "predict_proba"):
        raise ValueError(
            f"method={method!r} needs predict_proba, which "
            f"{type(estimator).__name__} does not provide; use "
            "method='atc', which thresholds the CSF score."
        )


def model_outputs(estimator, X, name, csf, csf_params, needs_proba):
    """The :class:`ModelOutputs` of ``X``; the probabilities whenever the
    estimator has ``predict_proba`` (the per-class estimates read them)."""
    n_samples = num_samples(X)
    if n_samples == 0:
        raise ValueError(f"{name} is empty; pass at least one sample.")
    if _is_selective(estimator):
        # The classifier's own decision: its threshold(s) and its novelty
        # detector, exactly what predict_accept says.
        decision = estimator.decide(X)
        y_pred = decision.y_pred
        score = np.asarray(decision.confidence, dtype=np.float64)
        accepted = np.asarray(decision.accepted, dtype=bool)
        stage = decision.get("stage")
    else:
        y_pred, score = predict_with_confidence(estimator, X, csf, csf_params)
        accepted = np.ones(score.shape[0], dtype=bool)
        stage = None
    proba = None
    if needs_proba or hasattr(estimator, "predict_proba"):
        proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    pred_index = label_positions(estimator.classes_, y_pred)[0]
    if stage is not None:
        stage = np.asarray(stage, dtype=object)
    return ModelOutputs(y_pred, pred_index, score, accepted, proba, stage)


# The column of the samples a cascade sends to a person (whatever name
# ``predict_stage`` gives them: a stage may not be called "person").
PERSON_COLUMN = "person"


def stage_shares(estimator, stage, chunk_id, n_chunks):
    """``(names, shares)``: a cascade's stage names (then ``"person"``) and,
    per chunk, the share of its samples each answers (the person's: those no
    stage accepts); ``(None, None)`` for a model without stages."""
    if stage is None:
        return None, None
    names = [name for name, _ in estimator.estimators]
    codes = np.full(stage.shape[0], len(names))  # the person's by default
    for index, name in enumerate(names):  # a loop over the few stages
        codes[stage == name] = index
    width = len(names) + 1
    counts = np.bincount(chunk_id * width + codes, minlength=n_chunks * width)
    counts = counts.reshape(n_chunks, width).astype(np.float64)
    with np.errstate(invalid="ignore"):  # NaN for a chunk without samples
        shares = counts / counts.sum(axis=1, keepdims=True)
    return (*names, PERSON_COLUMN), shares


def reference_labels(estimator, y_reference, n_samples):
    """The reference labels and their class indices, checked."""
    y = column_or_1d(y_reference, dtype=None)
    if y.shape[0] != n_samples:
        raise ValueError(
            f"X_reference has {n_samples} samples but y_reference has "
            f"{y.shape[0]} labels; pass one label per sample."
        )
    if count_missing_labels(y):
        raise ValueError(
            "y_reference contains NaN (missing labels); every label must be known."
        )
    classes = estimator.classes_
    unseen = ~np.isin(y, classes)
    if unseen.any():
        raise ValueError(
            f"y_reference contains labels the estimator does not know: "
            f"{np.unique(y[unseen]).tolist()[:5]} (classes_ = "
            f"{list(classes)}). Check the label type (e.g. 0 vs '0.0')."
        )
    return y, label_positions(classes, y)[0]


def estimator_costs(estimator):
    """``(cost_matrix, rejection_cost)`` of a cost-sensitive
    ``SelectiveClassifier``, as arrays; None for any other estimator."""
    if getattr(estimator, "cost_matrix", None) is None:
        return None
    return check_costs(
        estimator.cost_matrix, estimator.rejection_cost, estimator.classes_
    )
