"""Working points of the risk-coverage curve: the risk at a coverage and the
coverage at a risk."""

from numbers import Real

from .._utils._docstrings import fill_doc
from .._utils._param_validation import validate_params
from .._utils._sklearn import Interval
from ._core._group_stats import (
    coverage_at_risk_from_stats,
    selective_risk_at_coverage_from_stats,
    times_power_of_two,
)
from ._dask_dispatch import dispatch_dask
from ._risk_coverage import (
    RISK_METRIC_CONSTRAINTS,
    _scaled_group_stats,
)


@dispatch_dask("selective_risk_at_coverage")
@validate_params(
    RISK_METRIC_CONSTRAINTS | {"coverage": [Interval(Real, 0, 1, closed="right")]},
    prefer_skip_nested_validation=True,
)
@fill_doc
def selective_risk_at_coverage(
    y_true,
    y_pred,
    confidence,
    *,
    coverage,
    loss="zero_one",
    sample_weight=None,
    labels=None,
):
    """Selective risk when a given fraction of the samples is accepted.

    The most confident samples are accepted first until exactly a fraction
    ``coverage`` of the total weight is accepted; inside the tie group at the
    boundary, acceptance is randomised, and the expected selective risk is
    returned.

    Parameters
    ----------
    %(inputs)s

    coverage : float in (0, 1]
        Fraction of the total weight to accept.

    %(loss)s

    %(sample_weight_proportion)s

    %(labels)s

    Returns
    -------
    selective_risk : float
        Weighted mean loss of the accepted samples.

    See Also
    --------
    coverage_at_risk : The inverse working point.
    risk_coverage_curve : The whole curve.

    References
    ----------
    %(ref_augrc)s

    Examples
    --------
    >>> from sklearn_selective.metrics import selective_risk_at_coverage
    >>> y_true = [0, 1, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 1, 1]
    >>> confidence = [0.9, 0.8, 0.3, 0.8, 0.6]
    >>> selective_risk_at_coverage(y_true, y_pred, confidence, coverage=0.4)
    0.25
    """
    _, stats, _, _, exponent = _scaled_group_stats(
        y_true, y_pred, confidence, loss, sample_weight, labels
    )
    return float(
        times_power_of_two(
            selective_risk_at_coverage_from_stats(stats, coverage), exponent
        )
    )


@dispatch_dask("coverage_at_risk")
@validate_params(
    RISK_METRIC_CONSTRAINTS | {"risk": [Interval(Real, 0, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
@fill_doc
def coverage_at_risk(
    y_true,
    y_pred,
    confidence,
    *,
    risk,
    loss="zero_one",
    sample_weight=None,
    labels=None,
):
    """Largest coverage whose selective risk does not exceed a target.

    Coverage is varied continuously, accepting the most confident samples
    first and randomising inside the boundary tie group, exactly as in
    :func:`selective_risk_at_coverage`; the largest coverage with expected
    selective risk ``<= risk`` is returned.

    Parameters
    ----------
    %(inputs)s

    risk : float >= 0
        Target selective risk.

    %(loss)s

    %(sample_weight_proportion)s

    %(labels)s

    Returns
    -------
    coverage : float
        The largest feasible coverage, in [0, 1]; 0.0 when even the most
        confident group has a higher risk.

    See Also
    --------
    selective_risk_at_coverage : The inverse working point.

    References
    ----------
    %(ref_augrc)s

    Examples
    --------
    >>> from sklearn_selective.metrics import coverage_at_risk
    >>> y_true = [0, 1, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 1, 1]
    >>> confidence = [0.9, 0.8, 0.3, 0.8, 0.6]
    >>> coverage_at_risk(y_true, y_pred, confidence, risk=0.25)
    0.8
    >>> coverage_at_risk(y_true, y_pred, confidence, risk=0.0)
    0.2
    """
    _, stats, _, _, exponent = _scaled_group_stats(
        y_true, y_pred, confidence, loss, sample_weight, labels
    )
    return float(
        coverage_at_risk_from_stats(stats, times_power_of_two(risk, -exponent))
    )
