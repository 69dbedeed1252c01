"""Expected calibration error, top-label and class-wise."""

from numbers import Integral

import numpy as np

from .._utils._param_validation import validate_params
from .._utils._sklearn import Interval, StrOptions
from .._utils._validation import (
    _as_labels,
    _check_array,
    _check_frequency_total,
    _check_probabilities,
    _check_sample_weight,
    scale_weights,
)


def _quantile_edges(scores, weight, n_bins):
    """Bin edges at the quantiles of each column of ``scores`` (n, k), shape
    ``(n_bins + 1, k)``: the linear interpolation of :func:`numpy.percentile`, as
    :func:`sklearn.calibration.calibration_curve`, on cumulative-weight
    positions. No weights are unit weights on this one path, so that unit
    weights equal no weights and integer weights equal repeated samples to the
    last bit (a score equal to an edge falls in the same bin either way)."""
    # The levels, positions and interpolation of numpy.percentile's "linear"
    # method, operation for operation, so that edges equal numpy's bit for bit.
    levels = np.linspace(0.0, 1.0, n_bins + 1) * 100.0 / 100.0
    if weight is None:
        weight = np.ones(scores.shape[0])
    order = np.argsort(scores, axis=0, kind="stable")
    sorted_scores = np.take_along_axis(scores, order, axis=0)
    cumulative = np.cumsum(weight[order], axis=0)  # (n, k)
    position = max(cumulative[-1, 0] - 1.0, 0.0) * levels  # 0-based, as in numpy
    lower = np.floor(position)
    upper = lower + 1.0

    def value_at(t):
        # The sample whose copies occupy position t: first with cumulative > t.
        index = np.array([np.searchsorted(c, t, side="right") for c in cumulative.T])
        index = np.minimum(index, scores.shape[0] - 1).T
        return np.take_along_axis(sorted_scores, index, axis=0)

    low_value, high_value = value_at(lower), value_at(upper)
    fraction = np.broadcast_to((position - lower)[:, None], low_value.shape)
    step = high_value - low_value
    return np.where(
        fraction >= 0.5,
        high_value - step * (1.0 - fraction),
        low_value + step * fraction,
    )


def _bin_index(scores, edges):
    """Bin of every score (n, k) with right-closed bins ``(e_j, e_{j+1}]`` and the
    first bin closed, the convention of ``calibration_curve``; one vectorised
    search per column (a loop over classes, not samples)."""
    index = np.empty(scores.shape, dtype=np.intp)
    for column in range(scores.shape[1]):
        index[:, column] = np.searchsorted(
            edges[1:-1, column], scores[:, column], side="left"
        )
    return index


def _ece_columns(scores, targets, weight, n_bins, strategy):
    """ECE of every column: ``sum_b |sum_{i in b} w_i (target_i - score_i)| / W``."""
    if strategy == "uniform":
        edges = np.repeat(
            np.linspace(0.0, 1.0, n_bins + 1)[:, None], scores.shape[1], 1
        )
    else:
        edges = _quantile_edges(scores, weight, n_bins)
    bins = _bin_index(scores, edges)
    w = np.ones(scores.shape[0]) if weight is None else weight
    cell = (bins + n_bins * np.arange(scores.shape[1])).ravel()
    gap = (w[:, None] * (targets - scores)).ravel()
    per_bin = np.bincount(cell, weights=gap, minlength=n_bins * scores.shape[1])
    return np.abs(per_bin).reshape(scores.shape[1], n_bins).sum(axis=1) / w.sum()


def _top_label(y_proba, true_column):
    predicted = np.argmax(y_proba, axis=1)
    confidence = y_proba[np.arange(y_proba.shape[0]), predicted]
    return confidence[:, None], (predicted == true_column).astype(float)[:, None]


def _classwise(y_proba, true_column):
    targets = np.zeros_like(y_proba)
    targets[np.arange(y_proba.shape[0]), true_column] = 1.0
    return y_proba, targets


_MULTICLASS = {"top_label": _top_label, "classwise": _classwise}


@validate_params(
    {
        "y_true": ["array-like"],
        "y_proba": ["array-like"],
        "n_bins": [Interval(Integral, 1, None, closed="left")],
        "strategy": [StrOptions({"uniform", "quantile"})],
        "multiclass": [StrOptions(set(_MULTICLASS))],
        "labels": ["array-like", None],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def expected_calibration_error(
    y_true,
    y_proba,
    *,
    n_bins=15,
    strategy="uniform",
    multiclass="top_label",
    labels=None,
    sample_weight=None,
):
    """Expected calibration error (ECE), top-label or class-wise.

    The scores are grouped into ``n_bins`` bins ``B_b`` and the ECE is the
    weighted mean over bins of the gap between the observed frequency and the
    mean score:

    .. math::

        \\mathrm{ECE} = \\sum_{b=1}^{B} \\frac{W(B_b)}{W}
        \\left| \\mathrm{acc}(B_b) - \\mathrm{conf}(B_b) \\right|
        = \\frac{1}{W} \\sum_{b} \\Big| \\sum_{i \\in B_b} w_i (t_i - s_i) \\Big|.

    - ``multiclass="top_label"`` (default): ``s_i`` is the top probability
      ``max_k p_ik`` (the maximum softmax probability) and ``t_i = 1`` iff the
      most probable class is the true one, the ECE of Naeini et al. (2015) and
      Guo et al. (2017, Eq. 3).
    - ``multiclass="classwise"``: the ECE of every class ``k`` with scores
      ``p_ik`` and targets ``[y_i = k]``, averaged over the ``K`` classes
      (Kull et al. 2019, Sec. 3.1):
      ``classwise-ECE = (1/K) sum_k ECE_k``.

    Bins follow :func:`sklearn.calibration.calibration_curve`: ``"uniform"``
    splits ``[0, 1]`` into ``n_bins`` equal intervals, ``"quantile"`` puts the
    edges at quantiles of the scores (per class for ``"classwise"``); bins are
    right-closed, ``(e_b, e_{b+1}]``, the first one closed, and empty bins
    contribute nothing. Lower is better; 0 is perfect calibration on every bin.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels.

    y_proba : array-like of shape (n_samples, n_classes) or (n_samples,)
        Predicted class probabilities, columns ordered as ``labels``. A 1-D
        array holds the probability of the positive (larger) class of a binary
        problem, as for :func:`sklearn.calibration.calibration_curve`.

    n_bins : int, default=15
        Number of bins (15 as in Guo et al.).

    strategy : {"uniform", "quantile"}, default="uniform"
        Equal-width bins or bins of equal (weighted) sample share.

    multiclass : {"top_label", "classwise"}, default="top_label"
        Which scores are binned: see above.

    labels : array-like of shape (n_classes,), default=None
        Class of each column of ``y_proba``. Defaults to the sorted unique
        values of ``y_true``.

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights: the bins' shares and means are weighted,
        and ``"quantile"`` edges are weighted quantiles. Integer weights are the
        same as repeating samples, unit weights the same as none. With
        ``"uniform"`` bins a common factor of all weights changes nothing;
        ``"quantile"`` edges treat the weights as frequencies (their total is
        the number of samples the positions count), which must be a float64
        and not below ``2**-200``.

    Returns
    -------
    ece : float
        The expected calibration error, in ``[0, 1]``.

    See Also
    --------
    sklearn.calibration.calibration_curve : The per-bin frequencies and means.
    uq_c_index : Ranking quality of a confidence score against the probability
        of the true class.

    References
    ----------
    .. [Naeini2015] Naeini, Cooper and Hauskrecht. "Obtaining Well Calibrated
       Probabilities Using Bayesian Binning." AAAI 2015.
    .. [Guo2017] Guo, Pleiss, Sun and Weinberger. "On Calibration of Modern
       Neural Networks." ICML 2017, Eq. 3.
    .. [Kull2019] Kull, Perello-Nieto, Kängsepp, Silva Filho, Song and Flach.
       "Beyond temperature scaling: Obtaining well-calibrated multiclass
       probabilities with Dirichlet calibration." NeurIPS 2019, Sec. 3.1.

    Examples
    --------
    >>> from sklearn_selective.metrics import expected_calibration_error
    >>> y_true = [0, 1, 1, 0, 2]
    >>> y_proba = [
    ...     [0.8, 0.1, 0.1],
    ...     [0.2, 0.7, 0.1],
    ...     [0.6, 0.3, 0.1],
    ...     [0.5, 0.4, 0.1],
    ...     [0.1, 0.1, 0.8],
    ... ]
    >>> round(expected_calibration_error(y_true, y_proba, n_bins=5), 4)
    0.16
    >>> ece = expected_calibration_error(y_true, y_proba, multiclass="classwise")
    >>> round(ece, 4)
    0.2533
    """
    if isinstance(n_bins, bool | np.bool_):  # an Integral to validate_params
        raise ValueError(f"n_bins must be an int >= 1, not a bool; got {n_bins!r}.")
    y_true = _as_labels(y_true, "y_true")
    y_proba = _check_array(
        y_proba, "y_proba", ensure_2d=False, dtype="numeric", ensure_all_finite=True
    )
    if y_proba.shape[0] != y_true.shape[0]:
        raise ValueError(
            f"y_true has {y_true.shape[0]} samples but y_proba has {y_proba.shape[0]}; "
            "pass one row of probabilities per sample."
        )
    if y_proba.dtype.kind in "fiub" and (np.any(y_proba < 0) or np.any(y_proba > 1)):
        raise ValueError("y_proba must hold probabilities in [0, 1].")
    if y_proba.ndim == 1:
        positive = np.asarray(y_proba, dtype=np.float64)
        y_proba = np.column_stack([1.0 - positive, positive])
    y_proba, true_column, _ = _check_probabilities(
        y_true, y_proba, labels, "expected_calibration_error", name="y_proba"
    )
    y_proba = np.asarray(y_proba, dtype=np.float64)
    sample_weight = _check_sample_weight(
        sample_weight, y_true.shape[0], reference="y_true"
    )
    if strategy == "quantile":
        _check_frequency_total(sample_weight)
    else:
        sample_weight = scale_weights(sample_weight)
    scores, targets = _MULTICLASS[multiclass](y_proba, true_column)
    return float(_ece_columns(scores, targets, sample_weight, n_bins, strategy).mean())
