"""Ground-truth-free ranking metrics of uncertainty scores ([UQ])."""

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._utils._docstrings import fill_doc
from .._utils._param_validation import validate_params
from .._utils._sklearn import StrOptions
from .._utils._validation import (
    _as_labels,
    _check_binary_failures,
    _check_confidence,
    _check_probabilities,
    _check_sample_weight,
    _is_zero_one,
    _true_class_proba,
    _validate_risk_inputs,
)
from .._utils._warnings import warn
from ._core._group_stats import (
    GroupStats,
    _scale_exponent,
    failure_auc_from_stats,
    group_ties,
)
from ._dask_dispatch import dispatch_dask

try:  # the compiled discordant-pair count behind scipy.stats.kendalltau
    from scipy.stats._stats import _kendall_dis
except ImportError:  # pragma: no cover - private scipy API; exact fallback below
    _kendall_dis = None


@dispatch_dask("uq_auc")
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
    if not _is_zero_one(loss):
        _check_binary_failures(failures)
    groups = group_ties(confidence, with_values=False)
    stats = GroupStats.from_samples(groups, failures, sample_weight)
    del groups  # the sort order: two arrays less at the peak with a few ties
    value = failure_auc_from_stats(stats)
    if np.isnan(value):
        warn(
            "uq_auc is undefined when every weighted prediction is correct, or "
            "every one is wrong: there is no pair to rank. Returning nan.",
            UndefinedMetricWarning,
        )
    return float(value)


def _squared_group_weight(groups, sample_weight):
    """``sum_groups (sum_{i in group} w_i)^2``.

    The weight of the pairs inside the groups is half of this minus
    ``sum_i w_i^2``, a term every grouping shares.
    """
    return float(np.sum(np.square(groups.weight(sample_weight))))


def _weighted_inversions(rank, sample_weight):
    """``sum_j w_j sum_{i < j} w_i [rank_i > rank_j]`` in ``O(n log n_ranks)``.

    ``rank`` holds dense ranks 0 .. n_ranks - 1 in the order that defines
    ``i < j``; ``sample_weight=None`` counts pairs exactly, in integers. A pair is
    decided at the highest bit where its two ranks differ. Bits are processed
    from the top while the samples are kept stably partitioned by the bits seen
    so far (the construction of a wavelet matrix), so that samples sharing the
    higher bits form contiguous runs in their original order; every sample with a
    0 bit then collects the weight of the earlier samples of its run with a 1
    bit. Each bit is a few branch-free vectorised passes over reused buffers.
    """
    n_samples = rank.shape[0]
    index_dtype = np.int32 if n_samples < 2**31 else np.int64
    rank = rank.astype(index_dtype)
    spare_rank = np.empty_like(rank)
    position = np.arange(n_samples, dtype=index_dtype)
    is_one = np.empty(n_samples, dtype=bool)
    is_start = np.ones(n_samples, dtype=bool)
    scratch = np.empty(n_samples, dtype=index_dtype)
    ones_before = np.empty(n_samples, dtype=index_dtype)
    destination = np.empty(n_samples, dtype=index_dtype)
    weighted = sample_weight is not None
    if weighted:
        sample_weight = sample_weight.astype(np.float64)
        spare_weight, ones_weight, zeros_weight, cumulative = (
            np.empty(n_samples) for _ in range(4)
        )
    total = 0.0 if weighted else 0
    for bit in range(int(rank.max()).bit_length() - 1, -1, -1):
        np.bitwise_and(rank, 1 << bit, out=scratch)
        np.not_equal(scratch, 0, out=is_one)
        np.right_shift(rank, bit + 1, out=scratch)
        np.not_equal(scratch[1:], scratch[:-1], out=is_start[1:])
        starts = np.flatnonzero(is_start)
        np.cumsum(is_one, dtype=index_dtype, out=ones_before)
        n_ones = int(ones_before[-1])
        np.subtract(ones_before, is_one.view(np.int8), out=ones_before)
        if weighted:
            np.multiply(sample_weight, is_one, out=ones_weight)
            np.subtract(sample_weight, ones_weight, out=zeros_weight)
            # Earlier 1-bit weight of every sample, then of every run's start.
            np.cumsum(ones_weight, out=cumulative)
            cumulative -= ones_weight
            at_start = cumulative[starts]
            total += float(np.dot(zeros_weight, cumulative))
            np.cumsum(zeros_weight, out=cumulative)
            run_zeros = np.diff(
                cumulative[starts] - zeros_weight[starts], append=cumulative[-1]
            )
            total -= float(np.dot(run_zeros, at_start))
        else:
            # The 1-bit samples' own exclusive counts are 0 .. n_ones - 1, so the
            # sum over the 0-bit samples follows from the sum over all samples.
            zeros_sum = (
                int(ones_before.sum(dtype=np.int64)) - n_ones * (n_ones - 1) // 2
            )
            at_start = ones_before[starts].astype(np.int64)
            run_zeros = np.diff(starts - at_start, append=n_samples - n_ones)
            total += zeros_sum - int(np.dot(run_zeros, at_start))
        # Stable partition, 0-bit samples first: destination = zeros before, or
        # n_zeros + ones before, in arithmetic (a masked select is slow here).
        np.add(ones_before, ones_before, out=scratch)
        np.add(scratch, n_samples - n_ones, out=scratch)
        np.subtract(scratch, position, out=scratch)
        np.multiply(scratch, is_one.view(np.int8), out=scratch, casting="unsafe")
        np.subtract(position, ones_before, out=destination)
        np.add(destination, scratch, out=destination)
        spare_rank[destination] = rank
        rank, spare_rank = spare_rank, rank
        if weighted:
            spare_weight[destination] = sample_weight
            sample_weight, spare_weight = spare_weight, sample_weight
    return float(total)


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
        Predicted class probabilities, columns ordered as ``labels``. Each row
        must sum to 1 within ``n_classes * max(eps, 1e-3)``, ``eps`` being the
        machine epsilon of the array's dtype: the tolerance of the confidence
        functions and the command line, which accepts float16 and float32 rows
        and probabilities rounded to 3 decimals (used as given).

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
    y_true = _as_labels(y_true, "y_true")
    y_proba = _as_labels(y_proba, "y_proba", ndim=(1, 2))
    if y_true.shape[0] != n_samples or y_proba.shape[0] != n_samples:
        raise ValueError(
            f"y_true, y_proba and confidence must have the same number of samples; "
            f"got {y_true.shape[0]}, {y_proba.shape[0]} and {n_samples}."
        )
    y_proba, true_column, _ = _check_probabilities(
        y_true, y_proba, labels, "uq_c_index"
    )
    sample_weight = _check_sample_weight(sample_weight, n_samples)
    gap = 1.0 - _true_class_proba(y_proba, true_column)
    confidence_groups = group_ties(confidence)
    gap_groups = group_ties(gap)
    if sample_weight is None and _kendall_dis is not None:
        numerator, denominator = _UnitConcordance(
            confidence_groups, gap_groups
        ).counts()
    else:
        numerator, denominator = _weighted_concordance(
            confidence_groups, gap_groups, sample_weight
        )
    if denominator <= 0:
        warn(
            "uq_c_index is undefined when no two samples (with positive weight) "
            "have different probability gaps. Returning nan.",
            UndefinedMetricWarning,
        )
        return float("nan")
    return float(numerator / denominator)


class _UnitConcordance:
    """Exact integer pair counts of ``uq_c_index`` for unit weights, or for the
    integer counts of a resample (each sample repeated by its count).

    The samples are sorted by gap and, within a gap, by ascending confidence. In
    this order the concordant pairs (``gap_i < gap_j`` and ``g_i > g_j``) are
    exactly the inversions of the confidence ranks: a pair tied in gap is never
    inverted. scipy's compiled discordant-pair count (the Fenwick tree behind
    :func:`scipy.stats.kendalltau`), given distinct positions, counts them.
    """

    def __init__(self, confidence_groups, gap_groups):
        # scipy's count takes ranks from 1.
        confidence_rank = confidence_groups.dense_rank(first=1)
        self._confidence_groups = confidence_groups
        self._gap_starts = gap_groups.starts
        self._joint_starts = None  # no two samples share both gap and confidence
        if gap_groups.starts is None:
            self.order = gap_groups.order
        else:
            key = gap_groups.group_index.astype(np.int64)
            key *= confidence_groups.n_groups
            key += confidence_rank
            # Equal keys are samples tied in both: their order does not matter.
            self.order = np.argsort(key)
            if confidence_groups.starts is not None:
                sorted_key = key[self.order]
                self._joint_starts = np.flatnonzero(
                    np.concatenate(([True], sorted_key[1:] != sorted_key[:-1]))
                )
        self._rank = confidence_rank.take(self.order)
        self._positions = np.arange(self.order.shape[0], dtype=np.intp)

    def counts(self, sample_counts=None):
        """``2 (concordant + tied / 2)`` and ``2 comparable``, exact integers.

        ``sample_counts`` (integers, original sample order) repeats each sample;
        None counts every sample once.
        """
        if sample_counts is None:
            n_samples = self.order.shape[0]
            concordant = _kendall_dis(self._positions, self._rank)
            gap_squares = _squared_sizes(self._gap_starts, n_samples)
            confidence_squares = _squared_sizes(
                self._confidence_groups.starts, n_samples
            )
            joint_squares = _squared_sizes(self._joint_starts, n_samples)
        else:  # the samples repeated by their counts
            repeats = np.take(sample_counts, self.order)
            n_samples = int(repeats.sum(dtype=np.int64))
            positions = self._positions
            if n_samples > positions.shape[0]:
                positions = np.arange(n_samples, dtype=np.intp)
            concordant = _kendall_dis(
                positions[:n_samples], np.repeat(self._rank, repeats)
            )
            count_frequency = np.bincount(repeats)
            count_squares = int(
                np.dot(count_frequency, np.arange(count_frequency.shape[0]) ** 2)
            )
            gap_squares = _squared_sums(repeats, self._gap_starts, count_squares)
            confidence_squares = _squared_sums(
                np.take(sample_counts, self._confidence_groups.order),
                self._confidence_groups.starts,
                count_squares,
            )
            joint_squares = _squared_sums(repeats, self._joint_starts, count_squares)
        tied = confidence_squares - joint_squares  # ordered pairs: twice the count
        comparable = n_samples * n_samples - gap_squares  # twice the count
        return 2 * int(concordant) + tied // 2, comparable


def _squared_sizes(starts, n_samples):
    """``sum_groups size^2`` as an exact integer (``starts`` None: no ties)."""
    if starts is None:
        return n_samples
    sizes = np.diff(starts, append=n_samples)
    return int(np.dot(sizes, sizes))


def _squared_sums(counts, starts, squares):
    """``sum_groups (sum of the counts)^2`` as an exact integer; ``squares`` is the
    answer without ties (``starts`` None)."""
    if starts is None:
        return squares
    sums = np.add.reduceat(counts, starts, dtype=np.int64)
    return int(np.dot(sums, sums))


def _weighted_concordance(confidence_groups, gap_groups, sample_weight):
    """``concordant + tied / 2`` and ``comparable`` with real weights."""
    if sample_weight is not None:  # scale invariant: exact powers of two only
        sample_weight = np.ldexp(sample_weight, -_scale_exponent(sample_weight))
    # Concordant pairs (gap_i < gap_j, g_i > g_j) are the inversions of the ranks of
    # one variable once samples are sorted by (other variable, this variable): ties
    # of the sort key are then never inverted. Decompose the variable with fewer
    # distinct values, which needs fewer bits.
    ranked, other = sorted(
        [confidence_groups, gap_groups], key=lambda groups: groups.n_groups
    )
    ranked_index = ranked.group_index
    joint_groups = group_ties(
        other.group_index.astype(np.int64) * ranked.n_groups + ranked_index
    )
    order = joint_groups.order
    concordant = _weighted_inversions(
        ranked_index[order], None if sample_weight is None else sample_weight[order]
    )
    gap_weight = gap_groups.weight(sample_weight)
    # Summing the group totals makes this exactly 0 when a single gap has weight.
    comparable = (gap_weight.sum() ** 2 - np.sum(gap_weight**2)) / 2.0
    tied = (
        _squared_group_weight(confidence_groups, sample_weight)
        - _squared_group_weight(joint_groups, sample_weight)
    ) / 2.0
    return concordant + tied / 2.0, comparable
