"""Risk-coverage curves, and the validation and group statistics that every risk
metric shares (the areas in ``_areas``, the working points in ``_working_points``)."""

import numpy as np

from .._utils._docstrings import fill_doc
from .._utils._param_validation import validate_params
from .._utils._sklearn import StrOptions
from .._utils._validation import (
    _NAMED_LOSSES,
    _is_zero_one,
    _validate_risk_inputs,
)
from ._core._alpha import ALPHA_ESTIMATORS
from ._core._area_options import (
    AURC_OPTION_ESTIMATORS,
    ORACLES,
)
from ._core._group_stats import (
    GroupStats,
    descending_curve,
    group_ties,
    rescaled_stats,
    scale_losses,
)
from ._dask_dispatch import dispatch_dask

RISK_METRIC_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_pred": ["array-like", None],
    "confidence": ["array-like"],
    "loss": [StrOptions(set(_NAMED_LOSSES)), callable, "array-like"],
    "sample_weight": ["array-like", None],
    "labels": ["array-like", None],
}
_ESTIMATOR_CONSTRAINT = {"aurc_estimator": [StrOptions(set(ALPHA_ESTIMATORS))]}
# Options of aurc/augrc/e_aurc computed in _area_options (never the defaults).
_AREA_OPTION_CONSTRAINTS = {
    "aurc_estimator": [StrOptions(set(ALPHA_ESTIMATORS) | AURC_OPTION_ESTIMATORS)],
    "coverage_range": ["array-like", None],
    "class_balanced": ["boolean"],
}
_AUGRC_OPTION_CONSTRAINTS = {
    key: _AREA_OPTION_CONSTRAINTS[key] for key in ("coverage_range", "class_balanced")
}
_ORACLE_CONSTRAINT = {
    "aurc_estimator": _AREA_OPTION_CONSTRAINTS["aurc_estimator"],
    "oracle": [StrOptions(ORACLES)],
}


def _scaled_group_stats(
    y_true,
    y_pred,
    confidence,
    loss,
    sample_weight,
    labels,
    scale=True,
    with_values=False,
    frequency_weights=False,
):
    """Validate the inputs and reduce them to per-tie-group statistics, with the
    losses scaled exactly by ``2**-exponent`` when their weighted sums could
    overflow or all of them are tiny (:func:`scale_losses`); every metric but the
    scale-free ones is then ``2**exponent`` times its value on the scaled losses.
    The groups keep their distinct confidences only ``with_values`` (the curves'
    thresholds). ``frequency_weights``: the metric needs the total weight as a
    sample size (the finite-sample AURC estimators and SELE)."""
    confidence, losses, sample_weight = _validate_risk_inputs(
        y_true,
        y_pred,
        confidence,
        loss=loss,
        sample_weight=sample_weight,
        labels=labels,
        frequency_weights=frequency_weights,
    )
    exponent = 0
    # Unweighted 0/1 losses never need scaling.
    if scale and not (_is_zero_one(loss) and sample_weight is None):
        losses, exponent = scale_losses(losses, sample_weight)
    groups = group_ties(confidence, with_values=with_values)
    stats = GroupStats.from_samples(groups, losses, sample_weight)
    return groups, stats, losses, sample_weight, exponent


def _curve(y_true, y_pred, confidence, loss, sample_weight, labels, generalized):
    groups, stats, _, _, loss_exponent = _scaled_group_stats(
        y_true, y_pred, confidence, loss, sample_weight, labels, with_values=True
    )
    # Exact power-of-two scaling: the cumulative sums cannot overflow.
    scaled, exponent = rescaled_stats(stats)
    exponent += loss_exponent
    values = groups.values
    del groups, stats  # free the sort order before the curve's arrays
    accepted_weight, risk, keep = descending_curve(scaled)
    del scaled
    total = accepted_weight[-1]
    # In place: the accepted loss becomes the risk, the weight the coverage.
    np.divide(risk, total if generalized else accepted_weight, out=risk)
    if exponent:
        np.ldexp(risk, exponent, out=risk)
    accepted_weight /= total
    thresholds = values[::-1] if keep.all() else values[keep][::-1]
    return accepted_weight, risk, thresholds


@dispatch_dask("risk_coverage_curve")
@validate_params(RISK_METRIC_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc
def risk_coverage_curve(
    y_true, y_pred, confidence, *, loss="zero_one", sample_weight=None, labels=None
):
    """Compute the selective risk-coverage curve.

    At each distinct confidence value ``tau`` (a threshold), the coverage is the
    weighted share of samples with ``confidence >= tau`` and the selective risk
    is the weighted mean loss of those accepted samples ([AURC] Eq. 2,
    [AUGRC] Eq. 2).

    Parameters
    ----------
    %(inputs)s

    %(loss)s

    %(sample_weight_proportion)s

    %(labels)s

    Returns
    -------
    coverage : ndarray of shape (n_thresholds,)
        Increasing coverage, ending at 1.

    selective_risk : ndarray of shape (n_thresholds,)
        Selective risk at each threshold.

    thresholds : ndarray of shape (n_thresholds,)
        The distinct confidence values, decreasing, as in
        :func:`sklearn.metrics.roc_curve`. Values whose samples all have zero
        weight are left out.

    See Also
    --------
    generalized_risk_coverage_curve : Generalized risk instead of selective risk.
    aurc : Area under this curve, by finite-sample plug-in estimators (biased
        on small samples).

    References
    ----------
    %(ref_aurc)s
    %(ref_augrc)s

    Examples
    --------
    >>> from sklearn_selective.metrics import risk_coverage_curve
    >>> y_true = [0, 1, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 1, 1]
    >>> confidence = [0.9, 0.8, 0.3, 0.8, 0.6]
    >>> coverage, risk, thresholds = risk_coverage_curve(y_true, y_pred, confidence)
    >>> coverage
    array([0.2, 0.6, 0.8, 1. ])
    >>> risk
    array([0.        , 0.33333333, 0.25      , 0.4       ])
    >>> thresholds
    array([0.9, 0.8, 0.6, 0.3])
    """
    return _curve(
        y_true, y_pred, confidence, loss, sample_weight, labels, generalized=False
    )


@dispatch_dask("generalized_risk_coverage_curve")
@validate_params(RISK_METRIC_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc
def generalized_risk_coverage_curve(
    y_true, y_pred, confidence, *, loss="zero_one", sample_weight=None, labels=None
):
    """Compute the generalized risk-coverage curve.

    At each distinct confidence value ``tau``, the generalized risk is the
    weighted loss of the accepted samples divided by the total weight of *all*
    samples: the share of silent failures ([AUGRC] Eq. 3).

    Parameters
    ----------
    %(inputs)s

    %(loss)s

    %(sample_weight_proportion)s

    %(labels)s

    Returns
    -------
    coverage : ndarray of shape (n_thresholds,)
        Increasing coverage, ending at 1.

    generalized_risk : ndarray of shape (n_thresholds,)
        Generalized risk at each threshold.

    thresholds : ndarray of shape (n_thresholds,)
        The distinct confidence values, decreasing.

    See Also
    --------
    risk_coverage_curve : Selective risk instead of generalized risk.
    augrc : Area under this curve.

    References
    ----------
    %(ref_augrc)s

    Examples
    --------
    >>> from sklearn_selective.metrics import generalized_risk_coverage_curve
    >>> y_true = [0, 1, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 1, 1]
    >>> confidence = [0.9, 0.8, 0.3, 0.8, 0.6]
    >>> coverage, risk, _ = generalized_risk_coverage_curve(y_true, y_pred, confidence)
    >>> risk
    array([0. , 0.2, 0.2, 0.4])
    """
    return _curve(
        y_true, y_pred, confidence, loss, sample_weight, labels, generalized=True
    )
