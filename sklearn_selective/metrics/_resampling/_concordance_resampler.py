"""The fast path of ``uq_c_index``: the sorting done once, one resample at a time."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from joblib import effective_n_jobs
from sklearn.utils import check_array, column_or_1d

from ..._utils._validation import _check_probabilities, _true_class_proba
from .._core._group_stats import _scale_exponent, group_ties
from .._ranking import (
    _kendall_dis,
    _squared_group_weight,
    _UnitConcordance,
    _weighted_inversions,
)


class _ConcordanceResampler:
    """``uq_c_index`` with the sorting done once; one resample at a time.

    Without sample weights a resample's copies are counted as ``uq_c_index``
    counts unit-weight samples: scipy's compiled discordant-pair count on the
    ranks repeated by their counts, in exact integers. That count releases the
    GIL, so ``n_jobs`` threads evaluate the resamples of a block in parallel;
    each value is computed alone, so the values do not depend on ``n_jobs``.
    """

    def __init__(self, y_true, y_proba, confidence, labels, sample_weight, n_jobs):
        self._n_threads = effective_n_jobs(n_jobs)
        self.block_rows = self._n_threads  # a resample for every thread
        y_true = column_or_1d(y_true, dtype=None)
        y_proba = check_array(y_proba, dtype=None, input_name="y_proba")
        y_proba, true_column, _ = _check_probabilities(
            y_true, y_proba, labels, "uq_c_index"
        )
        # In float64, as uq_c_index computes it: 1 - p in float32 would tie gaps
        # that the metric tells apart.
        gap = 1.0 - _true_class_proba(y_proba, true_column)
        self._confidence_groups = group_ties(confidence)
        self._gap_groups = group_ties(gap)
        if sample_weight is not None:  # scale invariant: as uq_c_index, exactly
            sample_weight = np.ldexp(sample_weight, -_scale_exponent(sample_weight))
        self._weight = sample_weight
        if sample_weight is None and _kendall_dis is not None:
            self._unit = _UnitConcordance(self._confidence_groups, self._gap_groups)
            return
        self._unit = None
        ranked, other = sorted(
            [self._confidence_groups, self._gap_groups],
            key=lambda groups: groups.n_groups,
        )
        ranked_index = ranked.group_index
        self._joint_groups = group_ties(
            other.group_index.astype(np.int64) * ranked.n_groups + ranked_index
        )
        self._ranked = ranked_index[self._joint_groups.order]

    def __call__(self, counts):
        if self._n_threads == 1 or counts.shape[0] == 1:
            values = [self._value(count) for count in counts]
        else:
            # The workers take this thread's numpy error state: it is per thread
            # (numpy < 2) or per context (numpy 2), and neither is inherited.
            error_state = np.geterr()

            def value(count):
                with np.errstate(**error_state):
                    return self._value(count)

            with ThreadPoolExecutor(min(self._n_threads, counts.shape[0])) as pool:
                values = list(pool.map(value, counts))
        return np.array(values, dtype=np.float64)

    def _value(self, count):
        if self._unit is not None:
            numerator, comparable = self._unit.counts(count)
            return numerator / comparable if comparable > 0 else np.nan
        weight = count.astype(np.float64)
        if self._weight is not None:
            weight *= self._weight
        concordant = _weighted_inversions(
            self._ranked, weight[self._joint_groups.order]
        )
        return self._c_index(weight, float(concordant))

    def _c_index(self, weight, concordant):
        # The computation of uq_c_index, with weights.
        gap_weight = self._gap_groups.weight(weight)
        comparable = (gap_weight.sum() ** 2 - np.sum(gap_weight**2)) / 2.0
        if comparable <= 0:
            return np.nan
        tied = (
            _squared_group_weight(self._confidence_groups, weight)
            - _squared_group_weight(self._joint_groups, weight)
        ) / 2.0
        return (concordant + tied / 2.0) / comparable


def _concordance_path(
    y_true, y_pred, confidence, sample_weight, labels=None, n_jobs=None
):
    return _ConcordanceResampler(
        y_true, y_pred, confidence, labels, sample_weight, n_jobs
    )
