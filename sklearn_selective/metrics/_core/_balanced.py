"""Class-balanced risks: the error averaged over the true classes (FD-Shifts
``aurc_ba`` / ``augrc_ba``, [AUGRC] reference code).

With ``K`` classes of total weights ``W_k`` (samples of positive weight only):

- generalized risk: ``(1/K) sum_k (accepted loss of class k) / W_k``, which is the
  generalized risk of the losses rescaled by ``W / (K W_{y_i})``;
- selective risk: ``(1/K) sum_k (accepted loss of class k) / (accepted weight of
  class k)``, where a class without accepted sample contributes 0 (the convention of
  FD-Shifts' ``selective_risk_ba_stats``).
"""

import numpy as np
from sklearn.utils import column_or_1d

from ._group_stats import group_ties


def _class_index(y_true, n_samples):
    if y_true is None:
        raise ValueError(
            "class_balanced=True averages the risk over the true classes, so it needs "
            "y_true; pass the true labels."
        )
    y_true = column_or_1d(y_true, dtype=None)
    if y_true.shape[0] != n_samples:
        raise ValueError(
            f"y_true has {y_true.shape[0]} samples but confidence has {n_samples}."
        )
    _, index = np.unique(y_true, return_inverse=True)
    return index


def balanced_losses(y_true, losses, sample_weight):
    """Losses rescaled by ``W / (K W_{y_i})``: their generalized risk is balanced."""
    index = _class_index(y_true, losses.shape[0])
    weight = np.ones(losses.shape[0]) if sample_weight is None else sample_weight
    class_weight = np.bincount(index, weights=weight)
    n_classes = np.count_nonzero(class_weight)
    scale = np.divide(
        weight.sum(),
        n_classes * class_weight,
        out=np.zeros_like(class_weight),
        where=class_weight > 0,
    )
    return losses * scale[index]


def balanced_selective_risk(y_true, confidence, losses, sample_weight):
    """Class-balanced selective risk at the distinct thresholds, most confident
    first, and the weight of each threshold's tie group: ``(weight, risk)``."""
    index = _class_index(y_true, losses.shape[0])
    if sample_weight is not None:
        keep = sample_weight > 0
        index, confidence, losses = index[keep], confidence[keep], losses[keep]
        sample_weight = sample_weight[keep]
    weight = np.ones(losses.shape[0]) if sample_weight is None else sample_weight
    groups = group_ties(-confidence)  # ascending = most confident first
    group = groups.group_index
    # Within each class, most confident first: each sample changes its class's
    # selective risk by ``delta``; the curve at a threshold is the sum of the deltas
    # of the samples accepted there.
    order = np.lexsort((group, index))
    cls, w, wl = index[order], weight[order], (weight * losses)[order]
    first = np.r_[True, cls[1:] != cls[:-1]]
    cum_w, cum_l = np.cumsum(w), np.cumsum(wl)
    starts = np.flatnonzero(first)
    offset = np.repeat(starts, np.diff(np.r_[starts, cls.shape[0]]))
    class_w = cum_w - np.r_[0.0, cum_w][offset]
    class_l = cum_l - np.r_[0.0, cum_l][offset]
    ratio = class_l / class_w
    delta = ratio - np.where(first, 0.0, np.r_[0.0, ratio[:-1]])
    n_classes = starts.shape[0]
    n_groups = groups.n_groups
    delta_sum = np.bincount(group[order], weights=delta, minlength=n_groups)
    risk = np.cumsum(delta_sum) / n_classes
    return groups.weight(weight), risk
