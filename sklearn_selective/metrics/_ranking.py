"""Ground-truth-free ranking metrics of uncertainty scores ([UQ])."""

import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_array, column_or_1d
from sklearn.utils._param_validation import StrOptions, validate_params

from ._core import GroupStats, failure_auc_from_stats, group_by_confidence
from ._docstrings import fill_doc
from ._validation import (
    _check_binary_failures,
    _check_confidence,
    _check_probabilities,
    _check_sample_weight,
    _validate_risk_inputs,
)


@validate_params(
    {
        "y_true": ["array-like", None],
        "y_pred": ["array-like", None],
        "confidence": ["array-like"],
        "loss": [StrOptions({"zero_one"}), callable, "array-like"],
        "sample_weight": ["array-like", None],
        "labels": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
@fill_doc
def uq_auc(
    y_true, y_pred, confidence, *, loss="zero_one", sample_weight=None, labels=None
):
    """Failure AUROC (UQ-AUC): how well the confidence separates successes
    from failures.

    ``UQ_AUC = P(g_correct > g_failure) + P(g_correct = g_failure) / 2``
    for a correct and a failed prediction drawn at random ([UQ] Eq. 15, also
    called AUROC_f). It equals
    ``sklearn.metrics.roc_auc_score(y_true == y_pred, confidence)``. Higher is
    better; 0.5 is a random ranking.

    Parameters
    ----------
    %(inputs)s

    loss : "zero_one", callable or array-like of shape (n_samples,), \
default="zero_one"
        The failure indicator: 1 for a wrong prediction, 0 for a correct one,
        given as the default 0/1 loss, a callable ``loss(y_true, y_pred)``, or a
        precomputed array (then ``y_true`` and ``y_pred`` may be None). Any
        value other than 0 and 1 raises an error.

    %(sample_weight_proportion)s

    %(labels)s

    Returns
    -------
    uq_auc : float
        The failure AUROC. ``nan`` with an
        :class:`~sklearn.exceptions.UndefinedMetricWarning` when all
        predictions are correct or all are wrong.

    See Also
    --------
    augrc : Combines UQ-AUC and accuracy ([AUGRC] Eq. 7).
    uq_c_index : A ranking metric that also uses the size of the errors.
    sklearn.metrics.roc_auc_score : The same quantity from labels.

    References
    ----------
    %(ref_uq)s
    %(ref_augrc)s

    Examples
    --------
    >>> from sklearn_selective.metrics import uq_auc
    >>> y_true = [0, 1, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 1, 1]
    >>> uq_auc(y_true, y_pred, [0.9, 0.8, 0.3, 0.8, 0.6])
    0.75
    >>> uq_auc(None, None, [0.9, 0.8, 0.3], loss=[0, 1, 1])
    1.0
    """
    confidence, failures, sample_weight = _validate_risk_inputs(
        y_true,
        y_pred,
        confidence,
        loss=loss,
        sample_weight=sample_weight,
        labels=labels,
    )
    _check_binary_failures(failures)
    stats = GroupStats.from_samples(
        group_by_confidence(confidence), failures, sample_weight
    )
    value = failure_auc_from_stats(stats)
    if np.isnan(value):
        warnings.warn(
            "uq_auc is undefined when every weighted prediction is correct, or "
            "every one is wrong: there is no pair to rank. Returning nan.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
    return float(value)


def _squared_group_weight(groups, sample_weight):
    """``sum_groups (sum_{i in group} w_i)^2``.

    The weight of the pairs inside the groups is half of this minus
    ``sum_i w_i^2``, a term every grouping shares.
    """
    return (groups.sum(sample_weight) ** 2).sum()


def _weighted_dominance(rank, sample_weight):
    """``sum_j w_j sum_{i < j} w_i [rank_i > rank_j]`` in ``O(n log n_ranks)``.

    ``rank`` holds dense ranks in the order that defines ``i < j``. The
    comparison ``rank_i > rank_j`` is decided at the highest bit where the two
    ranks differ. Processing bits from the top, samples are kept grouped by their
    rank prefix above the current bit, stably (inside a group the original order
    is kept), and every sample with a 0 bit collects the weight of the earlier
    samples of its group with a 1 bit. Each bit costs a few vectorised passes, as
    in the construction of a wavelet tree.
    """
    n_samples = rank.shape[0]
    position = np.arange(n_samples)
    is_start = np.empty(n_samples, dtype=bool)
    is_start[0] = True
    total = 0.0
    for bit in range(int(rank.max()).bit_length() - 1, -1, -1):
        prefix = rank >> (bit + 1)
        is_one = ((rank >> bit) & 1).astype(bool)
        np.not_equal(prefix[1:], prefix[:-1], out=is_start[1:])
        starts = np.flatnonzero(is_start)
        group = np.cumsum(is_start) - 1
        group_start = starts[group]

        ones_weight = np.where(is_one, sample_weight, 0.0)
        ones_weight_before = np.cumsum(ones_weight) - ones_weight
        ones_weight_before -= ones_weight_before[group_start]
        total += np.dot(sample_weight[~is_one], ones_weight_before[~is_one])

        # Stable partition of every group: its 0-bit samples, then its 1-bit ones.
        ones_before = np.cumsum(is_one) - is_one
        ones_before -= ones_before[group_start]
        zeros_in_group = np.add.reduceat(~is_one, starts)[group]
        new_position = group_start + np.where(
            is_one, zeros_in_group + ones_before, position - group_start - ones_before
        )
        order = np.empty(n_samples, dtype=np.intp)
        order[new_position] = position
        rank, sample_weight = rank[order], sample_weight[order]
    return total


@validate_params(
    {
        "y_true": ["array-like"],
        "y_proba": ["array-like"],
        "confidence": ["array-like"],
        "labels": ["array-like", None],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
@fill_doc
def uq_c_index(y_true, y_proba, confidence, *, labels=None, sample_weight=None):
    """Concordance index of the confidence with the probability gap (UQ-C-index).

    The gap of sample ``i`` is ``Delta_i = 1 - p_hat_{y_i}(x_i)``, the
    probability the model failed to give to the true class ([UQ] Eq. 17). Over
    all pairs with ``Delta_i < Delta_j`` (pairs with equal gaps are not
    comparable), the pair is concordant when ``g_i > g_j`` and counts 1/2 when
    ``g_i == g_j`` ([UQ] Eq. 18). Higher is better; 0.5 is a random ranking.
    Computed in ``O(n log n)``.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.

    y_proba : array-like of shape (n_samples, n_classes)
        Predicted class probabilities, columns ordered as ``labels``.

    confidence : array-like of shape (n_samples,)
        Confidence score of each prediction; higher means more confident.

    %(labels)s

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights; a pair counts with weight ``w_i w_j``.
        Integer weights are the same as repeating samples and zero weight the
        same as removing them.

    Returns
    -------
    uq_c_index : float
        The concordance index. ``nan`` with an
        :class:`~sklearn.exceptions.UndefinedMetricWarning` when no pair of
        samples has different gaps.

    See Also
    --------
    uq_auc : Concordance with the binary failure indicator.

    References
    ----------
    %(ref_uq)s

    Examples
    --------
    >>> from sklearn_selective.metrics import uq_c_index
    >>> y_true = [0, 1, 1]
    >>> y_proba = [[0.9, 0.1], [0.4, 0.6], [0.8, 0.2]]
    >>> uq_c_index(y_true, y_proba, [0.9, 0.6, 0.8])
    0.6666666666666666
    """
    confidence = _check_confidence(confidence)
    n_samples = confidence.shape[0]
    y_true = column_or_1d(y_true, dtype=None)
    y_proba = check_array(y_proba, ensure_2d=False, dtype=None, input_name="y_proba")
    if y_true.shape[0] != n_samples or y_proba.shape[0] != n_samples:
        raise ValueError(
            f"y_true, y_proba and confidence must have the same number of samples; "
            f"got {y_true.shape[0]}, {y_proba.shape[0]} and {n_samples}."
        )
    y_proba, true_column, _ = _check_probabilities(
        y_true, y_proba, labels, "uq_c_index"
    )
    sample_weight = _check_sample_weight(sample_weight, n_samples)
    gap = 1.0 - y_proba[np.arange(n_samples), true_column]

    confidence_groups = group_by_confidence(confidence)
    confidence_rank = confidence_groups.group_index
    gap_groups = group_by_confidence(gap)
    # Pairs with equal confidence and equal gap form one group of (gap, rank).
    joint_groups = group_by_confidence(
        gap_groups.group_index.astype(np.int64) * (int(confidence_rank.max()) + 1)
        + confidence_rank
    )
    # Sort by gap, ties broken by increasing confidence: then "i before j with a
    # higher confidence" is exactly "Delta_i < Delta_j and g_i > g_j".
    order = joint_groups.order
    concordant = _weighted_dominance(confidence_rank[order], sample_weight[order])

    gap_totals = gap_groups.sum(sample_weight)
    comparable = (gap_totals.sum() ** 2 - (gap_totals**2).sum()) / 2.0
    tied = (
        _squared_group_weight(confidence_groups, sample_weight)
        - _squared_group_weight(joint_groups, sample_weight)
    ) / 2.0
    if comparable <= 0:
        warnings.warn(
            "uq_c_index is undefined when no two samples (with positive weight) "
            "have different probability gaps. Returning nan.",
            UndefinedMetricWarning,
            stacklevel=2,
        )
        return float("nan")
    return float((concordant + tied / 2.0) / comparable)
