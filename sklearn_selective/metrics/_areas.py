"""The areas under the risk-coverage curves: the AURC family and AUGRC."""

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._utils._docstrings import fill_doc
from .._utils._param_validation import validate_params
from .._utils._validation import _is_zero_one
from .._utils._warnings import warn
from ._core._area_options import (
    AURC_OPTION_ESTIMATORS,
    augrc_with_options,
    aurc_with_options,
    e_aurc_with_options,
)
from ._core._group_stats import (
    augrc_from_stats,
    aurc_from_stats,
    sele_from_stats,
    times_power_of_two,
)
from ._core._oracle import (
    is_oracle_order,
    naurc_from_values,
    oracle_stats,
)
from ._dask_dispatch import dispatch_dask
from ._risk_coverage import (
    _AREA_OPTION_CONSTRAINTS,
    _AUGRC_OPTION_CONSTRAINTS,
    _ESTIMATOR_CONSTRAINT,
    _ORACLE_CONSTRAINT,
    RISK_METRIC_CONSTRAINTS,
    _scaled_group_stats,
)


@dispatch_dask("aurc")
@validate_params(
    RISK_METRIC_CONSTRAINTS | _AREA_OPTION_CONSTRAINTS,
    prefer_skip_nested_validation=True,
)
@fill_doc
def aurc(
    y_true,
    y_pred,
    confidence,
    *,
    loss="zero_one",
    sample_weight=None,
    labels=None,
    aurc_estimator="harmonic",
    coverage_range=None,
    class_balanced=False,
):
    """Area under the risk-coverage curve (AURC), plug-in estimator.

    ``AURC = (1/n) sum_i alpha_i l_i`` where ``alpha_i`` depends on the rank
    ``r_i`` of sample ``i`` in ascending confidence ([AURC] Eq. 11). The default
    harmonic weights make this the classic empirical AURC (Eq. 10) computed in
    ``O(n log n)``; a CSF that is independent of the loss has expected AURC
    equal to the mean loss (Eq. 14). Lower is better.

    The plug-in estimates are consistent but **biased** on small samples
    ([AURC] Prop. 3.3-3.4): when the failure probability falls linearly with
    the confidence percentile (population AURC 1/4), the expected harmonic
    estimate is 2/(n + 1) too high in relative terms, +22 % at n = 8 and
    +0.2 % at n = 1024 (the log estimate about half as much).

    Parameters
    ----------
    %(inputs)s

    %(loss)s

    %(sample_weight_frequency)s

    %(labels)s

    %(aurc_estimator_with_trapezoid)s

    coverage_range : (float, float), default=None
        ``(low, high)`` with ``0 <= low <= high <= 1``: the area under the
        same curve over coverages in ``(low, high]`` only, not renormalised
        (divide by ``high - low`` for a mean selective risk). None or
        ``(0, 1)`` is the full AURC, and adjacent ranges add up exactly. For
        the plug-in estimators the curve is, with ``K = c n``,
        ``C(c) = (losses of the ceil(K) most confident samples) / d(K)`` with
        ``d(K) = ceil(K)`` (``"harmonic"``: the step selective-risk curve of
        Eq. 10, so the full area is the mean of the selective risks at the
        ``n`` coverages ``k/n``) or ``d(K) = K + 1`` (``"log"``), so that

        .. math::

            \\mathrm{AURC}_{[a, b]} = \\frac{1}{n} \\sum_i l_i
            \\left[F(\\max(bn, m_i)) - F(\\max(an, m_i))\\right],

        where ``m_i = n - r_i`` samples are more confident than sample ``i``
        and ``F`` is the antiderivative of ``1/d``: the harmonic numbers
        linearly interpolated between integers, or ``ln(x + 1)``. At
        ``(0, 1)`` the bracket is Eq. 13's (or Eq. 18's) ``alpha_i``. Ties:
        mean over the tie group's positions; real weights: the same real
        extensions as the full estimator. ``"trapezoid"`` integrates its
        piecewise-linear curve over the range.

    class_balanced : bool, default=False
        Whether the risk is the class-averaged error, the mean over the true
        classes of the selective risk within each class, as ``aurc_ba`` of
        the FD-Shifts code ([AUGRC]); a class without accepted sample counts
        as risk 0 there. Needs ``y_true`` and ``aurc_estimator="trapezoid"``: a
        class-averaged selective risk is not a weighted mean of per-sample
        losses, so the plug-in estimators do not extend to it.

    Returns
    -------
    aurc : float
        The estimated AURC.

    See Also
    --------
    e_aurc : AURC minus that of the oracle ranking.
    naurc : E-AURC normalised by that of a random ranking.
    augrc : Area under the generalized risk-coverage curve.
    sele : The SELE score of Franc et al.

    Notes
    -----
    %(ties)s
    With weights, ranks become cumulative weights and the harmonic numbers are
    extended to real arguments by ``H_x = digamma(x + 1) + euler_gamma``.

    References
    ----------
    %(ref_aurc)s

    Examples
    --------
    >>> from sklearn_selective.metrics import aurc
    >>> y_true = [0, 1, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 1, 1]
    >>> confidence = [0.9, 0.8, 0.3, 0.8, 0.6]
    >>> round(aurc(y_true, y_pred, confidence), 4)
    0.2467
    >>> round(aurc(y_true, y_pred, confidence, aurc_estimator="log"), 4)
    0.2156

    Only per-sample losses are needed:

    >>> round(aurc(None, None, [0.9, 0.5, 0.1], loss=[0.0, 0.2, 1.5]), 4)
    0.2222

    The area over the most confident half of the coverages, and the other half:

    >>> low = aurc(y_true, y_pred, confidence, coverage_range=(0, 0.5))
    >>> high = aurc(y_true, y_pred, confidence, coverage_range=(0.5, 1))
    >>> round(low, 4), round(high, 4), round(low + high, 4)
    (0.0833, 0.1633, 0.2467)
    """
    if (
        aurc_estimator in AURC_OPTION_ESTIMATORS
        or coverage_range is not None
        or class_balanced
    ):
        return aurc_with_options(
            y_true,
            y_pred,
            confidence,
            loss=loss,
            sample_weight=sample_weight,
            labels=labels,
            aurc_estimator=aurc_estimator,
            coverage_range=coverage_range,
            class_balanced=class_balanced,
        )
    _, stats, _, _, exponent = _scaled_group_stats(
        y_true, y_pred, confidence, loss, sample_weight, labels, frequency_weights=True
    )
    return float(times_power_of_two(aurc_from_stats(stats, aurc_estimator), exponent))


@dispatch_dask("sele")
@validate_params(RISK_METRIC_CONSTRAINTS, prefer_skip_nested_validation=True)
@fill_doc
def sele(
    y_true, y_pred, confidence, *, loss="zero_one", sample_weight=None, labels=None
):
    """SELE score of Franc et al.: ``sum_i r_i l_i / n^2``.

    ``r_i`` is the rank of sample ``i`` in ascending confidence, so that
    ``SELE = (1/n^2) sum_i sum_j l_i [g_i >= g_j]`` without ties ([AURC]
    Eq. 32-33). It is a coarse lower bound of the AURC; contrary to Franc et
    al.'s claim, ``2 * SELE`` is **not** an upper bound ([AURC] Eq. 34-36).

    Parameters
    ----------
    %(inputs)s

    %(loss)s

    %(sample_weight_frequency)s

    %(labels)s

    Returns
    -------
    sele : float
        The SELE score.

    See Also
    --------
    aurc : The plug-in AURC estimator.

    Notes
    -----
    %(ties)s
    Tied samples therefore get mid-ranks.

    References
    ----------
    %(ref_aurc)s

    Examples
    --------
    The counterexample of [AURC] Eq. 34-36: five samples, only the most
    confident one wrong.

    >>> from sklearn_selective.metrics import aurc, sele
    >>> losses = [0, 0, 0, 0, 1]
    >>> confidence = [1, 2, 3, 4, 5]
    >>> 2 * sele(None, None, confidence, loss=losses)
    0.4
    >>> round(aurc(None, None, confidence, loss=losses), 5)
    0.45667
    """
    _, stats, _, _, exponent = _scaled_group_stats(
        y_true, y_pred, confidence, loss, sample_weight, labels, frequency_weights=True
    )
    return float(times_power_of_two(sele_from_stats(stats), exponent))


def _excess(
    y_true,
    y_pred,
    confidence,
    loss,
    sample_weight,
    labels,
    aurc_estimator,
    normalise=True,
):
    """E-AURC and NAURC of the ranking, exactly 0 for an oracle-optimal one.

    Returns ``e_aurc, naurc`` (naurc ``nan`` where undefined; None unless
    ``normalise``).
    """
    # Tiny losses come scaled up exactly: the excess keeps its precision.
    groups, stats, losses, sample_weight, exponent = _scaled_group_stats(
        y_true, y_pred, confidence, loss, sample_weight, labels, frequency_weights=True
    )
    # The 0/1 losses stay 0/1 unless huge weights had them scaled.
    binary = _is_zero_one(loss) and exponent == 0
    oracle = oracle_stats(losses, sample_weight, binary=binary)
    # As e_aurc_from_stats and naurc_from_stats, with each AURC computed once.
    value = aurc_from_stats(stats, aurc_estimator)
    oracle_value = aurc_from_stats(oracle, aurc_estimator)
    excess = max(value - oracle_value, 0.0)
    # An optimal ranking leaves only a rounding residue; larger values are real.
    optimal = excess <= 2.0**-30 * oracle_value and is_oracle_order(
        groups, losses, sample_weight
    )
    if optimal:
        excess = 0.0
    normalised = None
    if normalise:
        normalised = float(naurc_from_values(value, oracle_value, oracle))
        if optimal:
            normalised *= 0.0  # 0, or nan where undefined
    return float(times_power_of_two(excess, exponent)), normalised


@dispatch_dask("e_aurc")
@validate_params(
    RISK_METRIC_CONSTRAINTS | _ORACLE_CONSTRAINT, prefer_skip_nested_validation=True
)
@fill_doc
def e_aurc(
    y_true,
    y_pred,
    confidence,
    *,
    loss="zero_one",
    sample_weight=None,
    labels=None,
    aurc_estimator="harmonic",
    oracle="empirical",
):
    """Excess AURC: the AURC minus the AURC of the oracle ranking.

    The oracle ranks samples by their loss (confidence ``-loss``) and is scored
    with the **same** finite-sample estimator, so that ``e_aurc >= 0`` always and
    ``e_aurc == 0`` exactly for a perfect ranking. Subtracting instead the
    asymptotic oracle value ``r + (1 - r) ln(1 - r)``, as some implementations
    do, can give negative values on finite samples.

    Parameters
    ----------
    %(inputs)s

    %(loss)s

    %(sample_weight_frequency)s

    %(labels)s

    %(aurc_estimator_with_trapezoid)s

    oracle : {"empirical", "asymptotic"}, default="empirical"
        AURC subtracted. ``"empirical"``: the same estimator on the oracle
        ranking (confidence ``-loss``; with ``aurc_estimator="trapezoid"``, tied
        losses form one curve point, where FD-Shifts gives them distinct
        confidences: the values agree when the losses are distinct).
        ``"asymptotic"``: the population AURC of a perfect ranking,
        ``err + (1 - err) ln(1 - err)`` with ``err``
        the weighted error rate, as in the E-AURC of Geifman et al. and the
        FD-Shifts code (needs a 0/1 loss). A finite-sample estimate minus
        this limit is biased and **can be negative**, e.g. for a perfect
        ranking of few samples; use it only to reproduce published numbers.

    Returns
    -------
    e_aurc : float
        Excess AURC, non-negative with the default ``oracle="empirical"`` and
        a plug-in estimator.

    See Also
    --------
    aurc : The AURC itself.
    naurc : Normalised E-AURC.

    References
    ----------
    %(ref_aurc)s
    %(ref_augrc)s

    Examples
    --------
    >>> from sklearn_selective.metrics import e_aurc
    >>> y_true = [0, 1, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 1, 1]
    >>> round(e_aurc(y_true, y_pred, [0.9, 0.8, 0.3, 0.8, 0.6]), 4)
    0.1167
    >>> e_aurc(y_true, y_pred, [0.9, 0.8, 0.1, 0.1, 0.8])
    0.0

    The convention of the FD-Shifts code (trapezoid area, asymptotic oracle)
    scores this perfect ranking of five samples below zero:

    >>> perfect = [0.9, 0.8, 0.1, 0.1, 0.8]
    >>> value = e_aurc(
    ...     y_true, y_pred, perfect, aurc_estimator="trapezoid", oracle="asymptotic"
    ... )
    >>> round(value, 4)
    -0.0135
    """
    if aurc_estimator in AURC_OPTION_ESTIMATORS or oracle != "empirical":
        return e_aurc_with_options(
            y_true,
            y_pred,
            confidence,
            loss=loss,
            sample_weight=sample_weight,
            labels=labels,
            aurc_estimator=aurc_estimator,
            oracle=oracle,
        )
    excess, _ = _excess(
        y_true, y_pred, confidence, loss, sample_weight, labels, aurc_estimator, False
    )
    return excess


@dispatch_dask("naurc")
@validate_params(
    RISK_METRIC_CONSTRAINTS | _ESTIMATOR_CONSTRAINT, prefer_skip_nested_validation=True
)
@fill_doc
def naurc(
    y_true,
    y_pred,
    confidence,
    *,
    loss="zero_one",
    sample_weight=None,
    labels=None,
    aurc_estimator="harmonic",
):
    """Normalised AURC: ``(AURC - AURC*) / (R - AURC*)``.

    ``AURC*`` is the oracle's AURC (see :func:`e_aurc`) and ``R`` the weighted
    mean loss, which is the expected harmonic AURC of a random ranking ([AURC]
    Eq. 14). So 0 is a perfect ranking and, with the default harmonic
    estimator, 1 is the expected value of a random ranking, exactly (Cattelan
    and Silva, as discussed in [AUGRC]). With ``aurc_estimator="log"`` it is not:
    the log weights average to less than 1, so a random ranking scores below 1
    on average (0.747 over all orders of the losses 0, 1, 0, 2.5, 1).

    Parameters
    ----------
    %(inputs)s

    %(loss)s

    %(sample_weight_frequency)s

    %(labels)s

    %(aurc_estimator)s

    Returns
    -------
    naurc : float
        Normalised AURC. ``nan`` with an
        :class:`~sklearn.exceptions.UndefinedMetricWarning` when every sample
        has the same loss (no ranking can be better than another).

    See Also
    --------
    e_aurc : The unnormalised excess AURC.

    References
    ----------
    %(ref_aurc)s
    %(ref_augrc)s

    Examples
    --------
    >>> from sklearn_selective.metrics import naurc
    >>> y_true = [0, 1, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 1, 1]
    >>> round(naurc(y_true, y_pred, [0.9, 0.8, 0.3, 0.8, 0.6]), 4)
    0.4321
    """
    _, value = _excess(
        y_true, y_pred, confidence, loss, sample_weight, labels, aurc_estimator
    )
    if np.isnan(value):
        warn(
            "naurc is undefined when every sample has the same loss: every ranking "
            "is then as good as the oracle. Returning nan.",
            UndefinedMetricWarning,
        )
    return value


@dispatch_dask("augrc")
@validate_params(
    RISK_METRIC_CONSTRAINTS | _AUGRC_OPTION_CONSTRAINTS,
    prefer_skip_nested_validation=True,
)
@fill_doc
def augrc(
    y_true,
    y_pred,
    confidence,
    *,
    loss="zero_one",
    sample_weight=None,
    labels=None,
    coverage_range=None,
    class_balanced=False,
):
    """Area under the generalized risk-coverage curve (AUGRC).

    The trapezoidal area, from coverage 0, under the curve of
    :func:`generalized_risk_coverage_curve`: the average share of silent
    failures over all working points ([AUGRC] Eq. 6). For the 0/1 loss,
    ``AUGRC = (1 - UQ_AUC) acc (1 - acc) + (1 - acc)^2 / 2`` exactly (Eq. 7);
    it lies in ``[0, 1/2]``, a random CSF scores ``(1 - acc) / 2`` and a perfect
    one ``(1 - acc)^2 / 2``. Lower is better.

    Parameters
    ----------
    %(inputs)s

    %(loss)s

    %(sample_weight_proportion)s

    %(labels)s

    coverage_range : (float, float), default=None
        ``(low, high)`` with ``0 <= low <= high <= 1``: the area under the
        same piecewise-linear generalized risk-coverage curve over coverages
        in ``(low, high]`` only, not renormalised. None or ``(0, 1)`` is the
        full AUGRC, and adjacent ranges add up exactly.

    class_balanced : bool, default=False
        Whether the generalized risk is averaged over the true classes,
        ``(1/K) sum_k (accepted loss of class k) / W_k`` with ``W_k`` the
        total weight of class ``k``, as ``augrc_ba`` of the FD-Shifts code
        ([AUGRC]): every loss is rescaled by ``W / (K W_{y_i})``. Needs
        ``y_true``. Composes with ``coverage_range``.

    Returns
    -------
    augrc : float
        The AUGRC.

    See Also
    --------
    generalized_risk_coverage_curve : The curve under which it is the area.
    aurc : Area under the selective risk-coverage curve.
    uq_auc : The failure AUROC, linked by Eq. 7.

    Notes
    -----
    %(ties)s
    With unit weights and ranks ``r_i`` in ascending confidence,
    ``AUGRC = sum_i l_i (r_i - 1/2) / n^2``.

    References
    ----------
    %(ref_augrc)s

    Examples
    --------
    >>> from sklearn_selective.metrics import augrc
    >>> y_true = [0, 1, 1, 0, 1]
    >>> y_pred = [0, 1, 0, 1, 1]
    >>> round(augrc(y_true, y_pred, [0.9, 0.8, 0.3, 0.8, 0.6]), 4)
    0.14
    >>> confidence = [0.9, 0.8, 0.3, 0.8, 0.6]
    >>> round(augrc(y_true, y_pred, confidence, coverage_range=(0, 0.5)), 4)
    0.0225
    """
    if coverage_range is not None or class_balanced:
        return augrc_with_options(
            y_true,
            y_pred,
            confidence,
            loss=loss,
            sample_weight=sample_weight,
            labels=labels,
            coverage_range=coverage_range,
            class_balanced=class_balanced,
        )
    _, stats, _, _, exponent = _scaled_group_stats(
        y_true, y_pred, confidence, loss, sample_weight, labels
    )
    return float(times_power_of_two(augrc_from_stats(stats), exponent))
