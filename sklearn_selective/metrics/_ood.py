"""Telling out-of-distribution samples apart by confidence: the OOD AUROC and the
false-positive rate at a true-positive rate (SPEC section 11)."""

from numbers import Real

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import roc_auc_score, roc_curve

from .._utils._param_validation import validate_params
from .._utils._sklearn import Interval
from .._utils._validation import _check_confidence, _check_scaled_sample_weight
from .._utils._warnings import warn
from ._dask_dispatch import dispatch_dask

_OOD_CONSTRAINTS = {
    "y_ood": ["array-like"],
    "confidence": ["array-like"],
    "sample_weight": ["array-like", None],
}


def _check_ood_inputs(y_ood, confidence, sample_weight):
    """``(in_distribution, confidence, weight)``, or None (with a warning) when
    one of the two kinds of sample has no weight."""
    confidence = _check_confidence(confidence)
    n_samples = confidence.shape[0]
    y_ood = np.asarray(y_ood)
    if y_ood.ndim != 1 or y_ood.shape[0] != n_samples:
        raise ValueError(
            f"y_ood must hold one 0/1 value per sample: shape {y_ood.shape}, but "
            f"confidence has {n_samples}."
        )
    if y_ood.dtype == object:  # 0/1 read from a pandas column of objects
        values = y_ood.tolist()
        if all(isinstance(v, bool | int | np.integer) for v in values):
            y_ood = np.asarray(values, dtype=np.int64)
    if y_ood.dtype.kind not in "biuf" or not np.isin(y_ood, (0, 1)).all():
        kinds = sorted({type(v).__name__ for v in y_ood.ravel().tolist()})
        raise ValueError(
            "y_ood must be 1 for out-of-distribution samples and 0 for "
            f"in-distribution ones (numbers or booleans); got values "
            f"{np.unique(y_ood.astype(str))[:5].tolist()} of type(s) {kinds}."
        )
    weight = _check_scaled_sample_weight(sample_weight, n_samples)
    w = np.ones(n_samples) if weight is None else weight
    ood = y_ood.astype(bool)
    if not (w[ood].sum() > 0 and w[~ood].sum() > 0):
        warn(
            "The OOD metrics need both in-distribution (y_ood == 0) and "
            "out-of-distribution (y_ood == 1) samples with positive weight; "
            "returning nan.",
            UndefinedMetricWarning,
        )
        return None
    return ~ood, confidence, weight


@dispatch_dask("ood_auroc")
@validate_params(_OOD_CONSTRAINTS, prefer_skip_nested_validation=True)
def ood_auroc(y_ood, confidence, *, sample_weight=None):
    """AUROC of telling in-distribution from out-of-distribution samples by
    confidence.

    The probability that an in-distribution sample is more confident than an
    out-of-distribution one, ties counting one half:

    .. math::

        \\frac{\\sum_{i \\in \\mathrm{ID}} \\sum_{j \\in \\mathrm{OOD}} w_i w_j
        \\left([g_i > g_j] + \\tfrac12 [g_i = g_j]\\right)}
        {\\sum_{i \\in \\mathrm{ID}} w_i \\sum_{j \\in \\mathrm{OOD}} w_j}.

    1 when every in-distribution sample is more confident than every OOD one,
    0.5 for a confidence blind to novelty.

    Parameters
    ----------
    y_ood : array-like of shape (n_samples,)
        1 for an out-of-distribution sample, 0 for an in-distribution one.

    confidence : array-like of shape (n_samples,)
        Confidence score of each prediction; higher means more confident.

    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; integer weights equal repeated samples.

    Returns
    -------
    auroc : float
        ``nan`` with an ``UndefinedMetricWarning`` when either kind of sample
        is missing.

    See Also
    --------
    fpr_at_tpr : The share of OOD samples accepted at a fixed share of
        in-distribution ones.
    sklearn.metrics.roc_auc_score : Computes it, in-distribution as positive.

    References
    ----------
    .. [1] D. Hendrycks and K. Gimpel. "A Baseline for Detecting Misclassified
       and Out-of-Distribution Examples in Neural Networks." ICLR 2017.

    Examples
    --------
    >>> from sklearn_selective.metrics import ood_auroc
    >>> ood_auroc([0, 0, 1, 1], [0.9, 0.6, 0.6, 0.2])
    0.875
    """
    checked = _check_ood_inputs(y_ood, confidence, sample_weight)
    if checked is None:
        return float("nan")
    in_distribution, confidence, weight = checked
    return float(roc_auc_score(in_distribution, confidence, sample_weight=weight))


@dispatch_dask("fpr_at_tpr")
@validate_params(
    {**_OOD_CONSTRAINTS, "tpr": [Interval(Real, 0, 1, closed="right")]},
    prefer_skip_nested_validation=True,
)
def fpr_at_tpr(y_ood, confidence, *, tpr=0.95, sample_weight=None):
    """Share of out-of-distribution samples accepted when ``tpr`` of the
    in-distribution ones are.

    The threshold is the highest one that accepts (``confidence >= threshold``)
    at least a share ``tpr`` of the in-distribution samples' weight; the result
    is the share of the OOD samples' weight it accepts (FPR@95TPR for the
    default). Tied confidences are accepted together, as every threshold of the
    package accepts them: the result is the FPR of a threshold a deployed
    model can use, the convention of :func:`sklearn.metrics.roc_curve`. This
    departs from the tie rule of the other rank metrics (an expectation over
    random orders of tied samples), which would report a point no threshold
    reaches and, for non-integer weights, cannot keep both integer weights
    equal to repetition and invariance to a common factor of the weights.

    Parameters
    ----------
    y_ood : array-like of shape (n_samples,)
        1 for an out-of-distribution sample, 0 for an in-distribution one.

    confidence : array-like of shape (n_samples,)
        Confidence score of each prediction; higher means more confident.

    tpr : float in (0, 1], default=0.95
        Share of in-distribution samples to accept.

    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights; integer weights equal repeated samples.

    Returns
    -------
    fpr : float
        Lower is better. ``nan`` with an ``UndefinedMetricWarning`` when either
        kind of sample is missing.

    See Also
    --------
    ood_auroc : The same separation over every threshold.
    sklearn.metrics.roc_curve : The curve it reads the point from.

    References
    ----------
    .. [1] S. Liang, Y. Li and R. Srikant. "Enhancing The Reliability of
       Out-of-distribution Image Detection in Neural Networks." ICLR 2018
       (FPR at 95 % TPR).

    Examples
    --------
    >>> from sklearn_selective.metrics import fpr_at_tpr
    >>> y_ood = [0, 0, 0, 0, 1, 1]
    >>> confidence = [0.9, 0.8, 0.7, 0.4, 0.75, 0.3]
    >>> fpr_at_tpr(y_ood, confidence, tpr=0.75)  # threshold 0.7 accepts 0.75
    0.5
    """
    checked = _check_ood_inputs(y_ood, confidence, sample_weight)
    if checked is None:
        return float("nan")
    in_distribution, confidence, weight = checked
    fpr, tpr_curve, _ = roc_curve(
        in_distribution, confidence, sample_weight=weight, drop_intermediate=False
    )
    # The first (highest) threshold reaching the share, to float rounding.
    reached = np.flatnonzero(tpr_curve >= tpr * (1 - 1e-12))[0]
    return float(fpr[reached])
