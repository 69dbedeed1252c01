"""Label-free accuracy estimation from probabilities: ATC and its baselines.

The array-level ATC machinery (threshold on source scores, share of target
scores at or above it, bootstrap) shared by :class:`ATCEstimator` and the
performance monitor, and the functional forms :func:`atc_accuracy` and
:func:`average_confidence_accuracy` (:func:`doc_accuracy` is in
``_difference_of_confidences``, on the same checks of its inputs).
"""

from numbers import Integral

import numpy as np

from .._utils._draws import (
    _ATC_BLOCK_ELEMENTS,
    _bootstrap_index_counts,
    _bootstrap_indices,
    _check_generator,
)
from .._utils._intervals import percentile_interval
from .._utils._row_blocks import check_probabilities
from .._utils._sklearn import validate_params
from .._utils._validation import (
    _as_labels,
    _check_array,
    _check_scaled_sample_weight,
)
from .._utils._warnings import warn
from ..confidence import get_confidence_function
from ..confidence._registry import model_output_of
from ..metrics._core._group_stats import group_ties

# ----------------------------------------------------------------------------
# The ATC rule on score arrays (batched over weight vectors)
# ----------------------------------------------------------------------------


def _atc_thresholds(groups, correct, weights):
    """ATC thresholds ([ATC] Eq. 2) for one or a batch of weight vectors.

    ``t`` is the observed score whose share of source weight strictly below it
    is closest to the source error; ties of that distance go to the lowest
    score. Scores are grouped by value, so tied scores are one candidate.
    ``weights`` has shape ``(n,)`` or ``(b, n)``; a candidate must carry
    weight (for a bootstrap resample: it must have been drawn). ``groups`` are
    the tie groups of the scores (sorted once for every weight vector).

    The distance is compared in weight units, ``|error weight - weight below|``,
    never after dividing by the total: for integer weights (and bootstrap
    counts) it is then exact, so a tie of the distance is a tie and the rule
    "lowest score" decides it, not the rounding of two quotients.
    """
    group_weight = groups.weight(weights)
    error_weight = groups.sum(weights * (1.0 - correct)).sum(axis=-1, keepdims=True)
    below = np.cumsum(group_weight, axis=-1)
    below = np.concatenate([np.zeros((*below.shape[:-1], 1)), below[..., :-1]], axis=-1)
    distance = np.where(group_weight > 0, np.abs(error_weight - below), np.inf)
    return groups.values[np.argmin(distance, axis=-1)]


class _SortedScores:
    """Target scores sorted once; weighted share at or above any thresholds."""

    def __init__(self, scores, sample_weight):
        order = np.argsort(scores)
        self.scores = scores[order]
        weight = (
            np.ones_like(self.scores) if sample_weight is None else sample_weight[order]
        )
        self.weight_below = np.concatenate([[0.0], np.cumsum(weight)])

    def share_at_or_above(self, thresholds):
        index = np.searchsorted(self.scores, thresholds, side="left")
        total = self.weight_below[-1]
        return (total - self.weight_below[index]) / total


def _warn_degenerate_source(accuracy):
    if accuracy in (0.0, 1.0):
        outcome = "correct" if accuracy == 1.0 else "wrong"
        where = "lowest" if accuracy == 1.0 else "highest"
        warn(
            f"Every source prediction is {outcome}: the ATC threshold is the "
            f"{where} source score, so the estimate only reflects target scores "
            "outside the source range. Use more (or harder) source data.",
            UserWarning,
        )


def _warn_tied_source(scores):
    """Warn where every source score is the same (a fully grown tree's
    probabilities are all 1.0): no threshold splits the source, so the
    estimate is the share of target scores at or above that one value (1.0
    on the tree's own outputs), whatever the source error."""
    if scores.shape[0] > 1 and scores.min() == scores.max():
        warn(
            f"Every source score is {scores[0]:.6g}: no ATC threshold splits the "
            "source, so the estimate is the share of target scores at or above "
            "it, not an accuracy. Use a score that varies (another csf, or a "
            "model with graded probabilities, e.g. a calibrated one).",
            UserWarning,
        )


def _fit_atc(scores, correct, sample_weight, n_resamples, random_state):
    """Point threshold, bootstrap thresholds and the source accuracy."""
    weights = np.ones_like(scores) if sample_weight is None else sample_weight
    accuracy = float(np.average(correct, weights=weights))
    _warn_degenerate_source(accuracy)
    _warn_tied_source(scores)
    groups = group_ties(scores)
    threshold = float(_atc_thresholds(groups, correct, weights))
    if n_resamples == 0:
        return threshold, np.array([threshold]), accuracy
    rng = _check_generator(random_state)
    blocks = []
    for counts in _bootstrap_index_counts(
        rng, scores.shape[0], n_resamples, _ATC_BLOCK_ELEMENTS
    ):
        blocks.append(_atc_thresholds(groups, correct, counts * weights))
    return threshold, np.concatenate(blocks), accuracy


def _joint_bootstrap_estimates(thresholds, target_scores, target_weight, rng):
    """ATC estimates of a joint source-and-target bootstrap.

    ``thresholds`` are the thresholds of ``b`` bootstrap resamples of the
    source; resample ``j`` of the target (``rng``, with replacement, weights
    carried along) is paired with ``thresholds[j]``, so that each estimate
    varies with the source (through the threshold) and with the target
    sample (through the share at or above it). Returns shape ``(b,)``; a
    target resample without weight gives NaN.
    """
    n_target = target_scores.shape[0]
    estimates, start = [], 0
    for indices in _bootstrap_indices(
        rng, n_target, thresholds.shape[0], _ATC_BLOCK_ELEMENTS
    ):
        rows = indices.shape[0]
        above = target_scores[indices] >= thresholds[start : start + rows, None]
        start += rows
        if target_weight is None:
            estimates.append(above.mean(axis=1))
            continue
        weight = target_weight[indices]
        total = weight.sum(axis=1)
        estimates.append(
            np.divide(
                (weight * above).sum(axis=1),
                total,
                out=np.full(rows, np.nan),
                where=total > 0,
            )
        )
    return np.concatenate(estimates)


def _atc_interval(thresholds, target_scores, target_weight, rng, confidence_level):
    """Percentile interval for the target's population accuracy (joint bootstrap).

    ``thresholds`` come from :func:`_fit_atc` with ``n_resamples > 0``; ``rng``
    must be independent of the generator that drew them.
    """
    estimates = _joint_bootstrap_estimates(
        thresholds, target_scores, target_weight, _check_generator(rng)
    )
    return percentile_interval(estimates, confidence_level)


def _target_seed(random_state):
    """A seed for the target resamples, independent of the source resamples.

    An integer ``random_state`` gives a fixed, distinct stream (a spawned
    ``SeedSequence``), so intervals are reproducible; otherwise the seed is
    drawn from ``random_state``.
    """
    if isinstance(random_state, Integral):
        return np.random.SeedSequence(random_state, spawn_key=(1,))
    return np.random.SeedSequence(int(_check_generator(random_state).integers(2**63)))


# ----------------------------------------------------------------------------
# Functional forms
# ----------------------------------------------------------------------------
def _probability_csf(csf):
    if model_output_of(csf) != "predict_proba":
        raise ValueError(
            f"csf={csf!r} reads {model_output_of(csf)}; from probabilities "
            "only a probability-based score function can be computed (e.g. 'msp', "
            "'negative_entropy'). Use ATCEstimator with a fitted model instead."
        )
    return get_confidence_function(csf)


def _csf_scores(csf, csf_params, proba, proba_name):
    """The CSF's scores of ``proba``, checked: one finite float per sample."""
    function = _probability_csf(csf)
    try:
        scores = np.asarray(function(proba, **(csf_params or {})), dtype=np.float64)
    except (TypeError, ValueError) as error:
        if callable(csf):
            raise ValueError(
                f"csf={csf!r} must return one float per row of {proba_name}; "
                f"calling it failed: {error}"
            ) from error
        raise
    n_samples = proba.shape[0]
    if scores.shape != (n_samples,) or not np.isfinite(scores).all():
        problem = (
            f"shape {scores.shape}"
            if scores.shape != (n_samples,)
            else "NaN or infinite values"
        )
        raise ValueError(
            f"csf={csf!r} must return one finite float per row of {proba_name} "
            f"(shape ({n_samples},)); it returned {problem}. Fix the score "
            "function, e.g. replace NaN by its limit or clip infinities."
        )
    return scores


def _source_predictions(
    y_source, proba_source, labels, names=("y_source", "proba_source")
):
    y_name, proba_name = names
    y_source = _as_labels(y_source, y_name)
    proba_source = _check_proba(proba_source, proba_name)
    if proba_source.shape[0] != y_source.shape[0]:
        raise ValueError(
            f"{y_name} and {proba_name} must have the same number of samples; got "
            f"{y_source.shape[0]} and {proba_source.shape[0]}."
        )
    labels = np.unique(y_source) if labels is None else np.asarray(labels)
    if labels.shape[0] != proba_source.shape[1]:
        raise ValueError(
            f"{proba_name} has {proba_source.shape[1]} columns but there are "
            f"{labels.shape[0]} labels ({labels.tolist()}); pass labels= with the "
            "class of each column (e.g. the model's classes_)."
        )
    unseen = ~np.isin(y_source, labels)
    if unseen.any():
        raise ValueError(
            f"{y_name} contains labels absent from labels: "
            f"{np.unique(y_source[unseen]).tolist()}."
        )
    correct = (labels[proba_source.argmax(axis=1)] == y_source).astype(np.float64)
    return proba_source, correct


def _check_proba(values, name):
    """Finite class probabilities of shape (n_samples, n_classes), named in errors."""
    proba = _check_array(values, name)
    check_probabilities(proba, name)
    return proba


def _check_target(proba_target, proba_source):
    proba_target = _check_proba(proba_target, "proba_target")
    if proba_target.shape[1] != proba_source.shape[1]:
        raise ValueError(
            f"proba_target has {proba_target.shape[1]} columns, proba_source "
            f"{proba_source.shape[1]}: both must hold the same classes."
        )
    return proba_target


_FUNCTIONAL_CONSTRAINTS = {
    "y_source": ["array-like"],
    "proba_source": ["array-like"],
    "proba_target": ["array-like"],
    "labels": ["array-like", None],
    "sample_weight": ["array-like", None],
    "target_sample_weight": ["array-like", None],
}


@validate_params(
    {**_FUNCTIONAL_CONSTRAINTS, "csf": [str, callable], "csf_params": [dict, None]},
    prefer_skip_nested_validation=True,
)
def atc_accuracy(
    y_source,
    proba_source,
    proba_target,
    *,
    csf="msp",
    csf_params=None,
    labels=None,
    sample_weight=None,
    target_sample_weight=None,
):
    """Average Thresholded Confidence: target accuracy from source labels only.

    On labelled source data, the threshold ``t`` is the observed score whose
    share of source samples scoring below it is closest to the source error
    ([ATC] Eq. 1-2; tied scores form one candidate, ties of the distance go to
    the lowest score). The estimated target accuracy is the share of target
    samples scoring ``>= t`` (one minus [ATC] Eq. 3).

    Parameters
    ----------
    y_source : array-like of shape (n_source,)
        True labels of the source (validation) samples.

    proba_source : array-like of shape (n_source, n_classes)
        The model's class probabilities on the source samples; the prediction
        is their argmax.

    proba_target : array-like of shape (n_target, n_classes)
        Class probabilities on the unlabelled target samples.

    csf : str or callable, default="msp"
        A probability-based score function of
        :mod:`sklearn_selective.confidence`: ``"msp"`` is ATC-MC and
        ``"negative_entropy"`` ATC-NE of Garg et al.

    csf_params : dict, default=None
        Keyword arguments of the score function.

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
        The estimated target accuracy, in ``[0, 1]``.

    Warns
    -----
    UserWarning
        When every source prediction is correct (or wrong): the threshold is
        then the lowest (highest) source score and the estimate only counts
        target samples scoring outside the source range as errors (correct).

    See Also
    --------
    ATCEstimator : The same from a fitted model, with bootstrap averaging.
    average_confidence_accuracy, doc_accuracy : Baselines.

    References
    ----------
    .. [1] S. Garg, S. Balakrishnan, Z. C. Lipton, B. Neyshabur, H. Sedghi.
       *Leveraging Unlabeled Data to Predict Out-of-Distribution Performance.*
       ICLR 2022.
    .. [2] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Eq. 1-3.

    Examples
    --------
    >>> from sklearn_selective import atc_accuracy
    >>> y_source = [0, 0, 1, 1]
    >>> proba_source = [[0.9, 0.1], [0.6, 0.4], [0.3, 0.7], [0.55, 0.45]]
    >>> proba_target = [[0.95, 0.05], [0.5, 0.5], [0.2, 0.8], [0.58, 0.42]]
    >>> atc_accuracy(y_source, proba_source, proba_target)
    0.5
    """
    proba_source, correct = _source_predictions(y_source, proba_source, labels)
    proba_target = _check_target(proba_target, proba_source)
    scores = _csf_scores(csf, csf_params, proba_source, "proba_source")
    target_scores = _csf_scores(csf, csf_params, proba_target, "proba_target")
    sample_weight = _check_scaled_sample_weight(
        sample_weight, scores.shape[0], reference="y_source"
    )
    target_weight = _check_scaled_sample_weight(
        target_sample_weight,
        target_scores.shape[0],
        name="target_sample_weight",
        reference="proba_target",
    )
    threshold, _, _ = _fit_atc(scores, correct, sample_weight, 0, None)
    return float(
        _SortedScores(target_scores, target_weight).share_at_or_above(threshold)
    )


@validate_params(
    {"proba_target": ["array-like"], "target_sample_weight": ["array-like", None]},
    prefer_skip_nested_validation=True,
)
def average_confidence_accuracy(proba_target, *, target_sample_weight=None):
    """Average confidence: the mean maximum probability on the target.

    The simplest label-free estimate; right only for a calibrated model whose
    calibration survives the shift.

    Parameters
    ----------
    proba_target : array-like of shape (n_target, n_classes)
        Class probabilities on the unlabelled target samples.

    target_sample_weight : array-like of shape (n_target,), default=None
        Target sample weights.

    Returns
    -------
    accuracy : float
        The weighted mean of ``max_j p_j`` over the target.

    See Also
    --------
    atc_accuracy : Average thresholded confidence.
    AverageConfidenceEstimator : The same from a fitted model.

    References
    ----------
    .. [1] D. Hendrycks, K. Gimpel. *A Baseline for Detecting Misclassified and
       Out-of-Distribution Examples in Neural Networks.* ICLR 2017.

    Examples
    --------
    >>> from sklearn_selective import average_confidence_accuracy
    >>> average_confidence_accuracy([[0.9, 0.1], [0.6, 0.4]])
    0.75
    """
    proba_target = _check_proba(proba_target, "proba_target")
    confidence = get_confidence_function("msp")(proba_target)
    weight = _check_scaled_sample_weight(
        target_sample_weight,
        confidence.shape[0],
        name="target_sample_weight",
        reference="proba_target",
    )
    return float(np.average(confidence, weights=weight))
