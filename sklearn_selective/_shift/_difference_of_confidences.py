"""The difference of confidences (DoC): :func:`doc_accuracy`, its
regression form over labelled shifted sets, and the pieces
:class:`DoCEstimator` shares.

Guillory et al., "Predicting with Confidence on Unseen Distributions", ICCV
2021; the regression form as [ATC] Sec. 1.1 and 3.1 describe it.
"""

import numpy as np

from .._utils._sklearn import validate_params
from .._utils._validation import _as_labels, _check_scaled_sample_weight
from ..confidence import get_confidence_function
from ._accuracy_estimates import (
    _FUNCTIONAL_CONSTRAINTS,
    _check_target,
    _source_predictions,
)


@validate_params(
    {**_FUNCTIONAL_CONSTRAINTS, "shifted_sets": [list, tuple, None]},
    prefer_skip_nested_validation=True,
)
def doc_accuracy(
    y_source,
    proba_source,
    proba_target,
    *,
    shifted_sets=None,
    labels=None,
    sample_weight=None,
    target_sample_weight=None,
):
    """Difference of confidences (DoC): source accuracy shifted by the change
    in average confidence.

    With ``DoC = mean MSP on source - mean MSP on target``:

    - the difference form (default) takes the drop of accuracy to be the DoC,
      ``acc_target = acc_source - DoC``;
    - the regression form (``shifted_sets`` given) learns the line
      ``drop = intercept + slope * DoC`` by least squares over several
      labelled shifted sets (each with its DoC and its true accuracy drop
      from the source), and estimates ``acc_target = acc_source -
      (intercept + slope * DoC_target)``.

    Both are clipped to ``[0, 1]`` (Guillory et al. 2021; Maaz et al. Sec. 1.1
    and 3.1: "a linear relationship between discrepancy and performance drop").

    Parameters
    ----------
    y_source : array-like of shape (n_source,)
        True labels of the source (validation) samples.

    proba_source : array-like of shape (n_source, n_classes)
        Class probabilities on the source samples.

    proba_target : array-like of shape (n_target, n_classes)
        Class probabilities on the unlabelled target samples.

    shifted_sets : list of tuples, default=None
        Labelled shifted sets for the regression form, at least two with
        different DoCs: ``(y, proba)`` or ``(y, proba, sample_weight)`` per
        set, with columns ordered as ``labels``. None: the difference form.

    labels : array-like of shape (n_classes,), default=None
        The class of each probability column; defaults to the sorted unique
        values of ``y_source``.

    sample_weight : array-like of shape (n_source,), default=None
        Source sample weights.

    target_sample_weight : array-like of shape (n_target,), default=None
        Target sample weights.

    Returns
    -------
    accuracy : float
        The estimated target accuracy.

    See Also
    --------
    atc_accuracy : Average thresholded confidence.
    DoCEstimator : The same from a fitted model.

    References
    ----------
    .. [1] D. Guillory, V. Shankar, S. Ebrahimi, T. Darrell, L. Schmidt.
       *Predicting with Confidence on Unseen Distributions.* ICCV 2021.
    .. [2] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Sec. 1.1 and 3.1.

    Examples
    --------
    >>> from sklearn_selective import doc_accuracy
    >>> y_source = [0, 1]
    >>> proba_source = [[0.9, 0.1], [0.4, 0.6]]
    >>> round(doc_accuracy(y_source, proba_source, [[0.7, 0.3], [0.5, 0.5]]), 4)
    0.85

    The regression form, from two labelled shifted sets (DoC 0.1 with drop
    0.5, DoC 0.2 with drop 1.0: the drop is five times the DoC):

    >>> shifted_sets = [
    ...     ([0, 0], [[0.7, 0.3], [0.4, 0.6]]),
    ...     ([1, 1], [[0.6, 0.4], [0.5, 0.5]]),
    ... ]
    >>> estimate = doc_accuracy(
    ...     y_source, proba_source, [[0.7, 0.3], [0.75, 0.25]],
    ...     shifted_sets=shifted_sets,
    ... )
    >>> round(estimate, 4)  # 1 - 5 * (0.75 - 0.725)
    0.875
    """
    if labels is None:
        labels = np.unique(_as_labels(y_source, "y_source"))
    proba_source, correct = _source_predictions(y_source, proba_source, labels)
    proba_target = _check_target(proba_target, proba_source)
    msp = get_confidence_function("msp")
    source_weight = _check_scaled_sample_weight(
        sample_weight, correct.shape[0], reference="y_source"
    )
    source_accuracy = np.average(correct, weights=source_weight)
    source_confidence = np.average(msp(proba_source), weights=source_weight)
    target_confidence = msp(proba_target)
    target_weight = _check_scaled_sample_weight(
        target_sample_weight,
        target_confidence.shape[0],
        name="target_sample_weight",
        reference="proba_target",
    )
    slope, intercept = 1.0, 0.0
    if shifted_sets is not None:
        statistics = [
            _labelled_set_statistics(shifted, index, labels, proba_source.shape[1])
            for index, shifted in enumerate(shifted_sets)
        ]
        accuracies, confidences = np.array(statistics).reshape(-1, 2).T
        slope, intercept = _fit_doc_regression(
            source_confidence - confidences, source_accuracy - accuracies
        )
    return _doc_estimate(
        source_accuracy,
        source_confidence,
        np.average(target_confidence, weights=target_weight),
        slope,
        intercept,
    )


def _labelled_set_statistics(shifted, index, labels, n_classes):
    """(accuracy, mean MSP) of one ``(y, proba[, sample_weight])`` shifted set."""
    name = f"shifted_sets[{index}]"
    if not isinstance(shifted, (tuple, list)) or len(shifted) not in (2, 3):
        raise ValueError(
            f"{name} must be a tuple (y, proba) or (y, proba, sample_weight); "
            f"got {type(shifted).__name__}."
        )
    y, proba, *weight = shifted
    proba, correct = _source_predictions(
        y, proba, labels, names=(f"{name}[0] (labels)", f"{name}[1] (probabilities)")
    )
    if proba.shape[1] != n_classes:
        raise ValueError(
            f"{name}[1] has {proba.shape[1]} columns, proba_source {n_classes}."
        )
    weight = _check_scaled_sample_weight(
        weight[0] if weight else None, correct.shape[0]
    )
    confidence = get_confidence_function("msp")(proba)
    return (
        np.average(correct, weights=weight),
        np.average(confidence, weights=weight),
    )


def _fit_doc_regression(docs, drops):
    """Least-squares line ``drop = intercept + slope * doc`` over shifted sets.

    ``docs`` and ``drops`` hold one value per labelled shifted set: its DoC
    (mean source MSP minus its mean MSP) and its accuracy drop (source
    accuracy minus its accuracy). Returns ``(slope, intercept)``.
    """
    docs, drops = np.asarray(docs, dtype=float), np.asarray(drops, dtype=float)
    if docs.shape[0] < 2:
        raise ValueError(
            "The regression DoC fits a line through the labelled shifted sets: "
            f"pass at least two in shifted_sets; got {docs.shape[0]}."
        )
    centred = docs - docs.mean()
    spread = centred @ centred
    if not spread > 0:
        raise ValueError(
            "Every labelled shifted set has the same difference of confidences, "
            "so the regression line is undefined: add sets with other shifts."
        )
    slope = (centred @ (drops - drops.mean())) / spread
    return float(slope), float(drops.mean() - slope * docs.mean())


def _doc_estimate(
    source_accuracy, source_confidence, target_confidence, slope=1.0, intercept=0.0
):
    """Source accuracy minus the predicted drop, clipped to [0, 1].

    The predicted drop is ``intercept + slope * DoC``; the difference form has
    slope 1 and intercept 0.
    """
    doc = source_confidence - target_confidence
    accuracy = source_accuracy - (intercept + slope * doc)
    return float(np.clip(accuracy, 0.0, 1.0))
