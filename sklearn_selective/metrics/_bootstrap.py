"""Bootstrap confidence intervals of the metrics (:func:`bootstrap_metric`).

The resamples and the metric on each of them come from ``_resampling``, the
draws and the intervals from ``_utils``; paired comparisons live in
``_comparison``.
"""

from functools import partial
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy.stats import DegenerateDataWarning

from .._utils._docstrings import fill_doc
from .._utils._draws import (
    _bootstrap_counts,
    _check_generator,
    _jackknife_counts,
)
from .._utils._intervals import (
    _METHODS,
    ConfidenceInterval,
    _bca_levels,
    _quantile_interval,
    _warn_undefined,
)
from .._utils._sklearn import Interval, StrOptions, validate_params
from .._utils._warnings import warn
from ..exceptions import TooFewFailuresWarning
from ._metric_registry import (
    DEFAULT_INTERVAL_RULES,
    METRICS,
    auto_method,
    find_entry,
    resolve_metric,
)
from ._metric_results import BootstrapResult
from ._resampling._double_bootstrap import calibrated_levels, calibration_shares
from ._resampling._resamples import (
    _RESAMPLING_CONSTRAINTS,
    _check_resampling_inputs,
    _resample_evaluator,
)


@validate_params(
    {
        "metric": [StrOptions(set(METRICS)), callable],
        "confidence": ["array-like"],
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "method": [StrOptions(set(_METHODS) | {"auto", "double"})],
        "n_jobs": [
            Interval(Integral, None, -1, closed="right"),
            Interval(Integral, 1, None, closed="left"),
            None,
        ],
    }
    | _RESAMPLING_CONSTRAINTS,
    # metric_kwargs are validated by the metric itself, so keep nested validation.
    prefer_skip_nested_validation=False,
)
@fill_doc
def bootstrap_metric(
    metric,
    y_true,
    y_pred,
    confidence,
    *,
    n_resamples=1000,
    confidence_level=0.95,
    method="auto",
    random_state=None,
    n_jobs=None,
    sample_weight=None,
    **metric_kwargs,
):
    """Bootstrap confidence interval of a selective classification metric.

    The samples are resampled with replacement ``n_resamples`` times, the
    metric is evaluated on every resample, and a confidence interval is
    read off that bootstrap distribution, with the conventions and names of
    :func:`scipy.stats.bootstrap`.

    Every resample is drawn as a vector of counts (how often each sample is
    drawn). For this package's metrics the data are sorted and grouped by
    confidence once and the per-sample losses computed once; the counts are
    then integer sample weights on the sorted data (integer weights are the
    same as repeated samples, exactly), evaluated a few resamples and a
    cache-sized chunk of samples at a time in bounded memory. Any other metric
    is called on the resampled copies of the data (each sample repeated by its
    count), optionally in parallel. Both paths see the same resamples, so they
    give the same result.

    Parameters
    ----------
    %(resampled_metric)s

    y_true : array-like of shape (n_samples,) or None
        True labels. May be None when ``loss`` is an array of per-sample losses.

    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes), or None
        Predicted labels or class probabilities, passed to ``metric`` as its
        second argument (the probabilities ``y_proba`` for
        :func:`uq_c_index`).

    confidence : array-like of shape (n_samples,)
        Confidence score of each prediction; higher means more confident.

    n_resamples : int, default=1000
        Number of bootstrap resamples.

    confidence_level : float in (0, 1), default=0.95
        Confidence level of the two-sided interval.

    method : {"auto", "double", "percentile", "basic", "BCa"}, default="auto"
        Interval type. ``"percentile"``, ``"basic"`` (reverse percentile) and
        ``"BCa"`` (bias-corrected and accelerated [Efron]; ``"bca"`` is
        accepted too) are those of :func:`scipy.stats.bootstrap`.
        ``"double"`` is the percentile interval with its two levels calibrated
        by the double bootstrap [Hall]: each resample is resampled 100 times,
        and the levels are moved until, in the bootstrap world (where the
        data's value is the truth), each end misses with probability
        ``(1 - confidence_level) / 2``; it costs ``100 * n_resamples``
        evaluations and needs the default 1000 resamples (it reads extreme
        quantiles). ``"auto"`` is the interval measured to hold at the data's
        size: ``"double"`` up to 500 samples, except ``"BCa"`` up to 500
        samples for :func:`uq_auc` (which the double bootstrap over-covers)
        and ``"double"`` up to 74 samples only for the working points
        (:func:`selective_risk_at_coverage`, :func:`coverage_at_risk`);
        ``"percentile"`` above. The rule is the metric's: this package's
        metric by name, as the function, or wrapped by
        :func:`functools.partial` or :func:`functools.wraps` gets its own
        rule (the same interval on the same data and seed); any other
        callable, whatever its ``__name__``, gets the default rule.
        ``result.method`` says which was used.
        BCa estimates the acceleration by the jackknife (``n_samples`` extra
        evaluations). When the BCa or double-bootstrap levels are undefined
        (all values equal) the percentile interval is returned, with a
        warning, and ``result.method`` is ``"percentile"``.

        Coverage of the population value measured in simulation at 95 %
        (user guide, "What each interval covers";
        ``benchmarks/bench_coverage.py``): the default covers 0.936-0.962 for
        :func:`aurc`, :func:`augrc`, :func:`uq_auc` and
        :func:`selective_risk_at_coverage` at 50, 200, 501 and 1000 samples;
        with about nine failures in 50 samples the percentile interval covers
        only 0.88-0.92 and BCa 0.88-0.94. With fewer than five failures no
        interval holds its level (0.39-0.61 with at most two), and a warning
        says so. :func:`coverage_at_risk` and other metrics are not measured.

    random_state : int, RandomState instance, Generator or None, default=None
        Source of the resamples. An int seeds
        ``numpy.random.default_rng``; a ``RandomState`` seeds a new
        ``Generator``. Pass an int for reproducible results.

    n_jobs : int, default=None
        Number of jobs for the generic path, which calls ``metric`` once per
        resample, and of threads for :func:`uq_c_index`, whose compiled pair
        count runs one resample at a time without the GIL (:class:`joblib.Parallel`
        semantics: None means 1, -1 all processors). The fast path of the
        risk metrics is vectorised and ignores it. The result does not depend
        on ``n_jobs``.

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights. Each resampled sample keeps its weight:
        a resample is the product of the bootstrap counts and these weights.

    **metric_kwargs : dict
        Further keyword arguments of ``metric``, e.g. ``loss``, ``labels``,
        ``aurc_estimator``, ``coverage`` or ``risk``. A ``loss`` given as an array
        of per-sample losses is resampled with the samples; a callable
        ``loss`` must compute each sample's loss from that sample alone.

    Returns
    -------
    result : BootstrapResult
        With attributes ``statistic`` (the metric on the original data, a
        float), ``confidence_interval`` (a named tuple ``(low, high)``),
        ``standard_error`` (float), ``bootstrap_distribution`` (ndarray of
        shape ``(n_resamples,)``), ``metric``, ``confidence_level`` and
        ``method``. ``print(result)`` shows a one-line summary;
        ``result.to_dict()``, ``result.to_json()`` and ``result.to_frame()``
        return it as data.

    Warns
    -----
    UndefinedMetricWarning
        When the metric is undefined on some resamples, e.g. :func:`uq_auc`
        on a resample without any failure. Those values are ``nan`` in
        ``bootstrap_distribution``; the interval and standard error are
        computed from the defined values only (nan-aware quantiles), which
        conditions on the metric being defined.

    DegenerateDataWarning
        When the BCa or double-bootstrap interval cannot be computed and the
        percentile interval is returned instead.

    ~sklearn_selective.exceptions.TooFewFailuresWarning
        When the data of a risk metric hold fewer than five failures (samples
        with a positive loss): no bootstrap interval then holds its level.

    See Also
    --------
    compare_confidence_functions : Paired bootstrap comparison of several
        confidence score functions.
    compare_systems : Paired bootstrap comparison of whole systems.
    scipy.stats.bootstrap : The general-purpose bootstrap this follows.

    Notes
    -----
    A resample's counts have the multinomial distribution
    ``Multinomial(n; 1/n, ..., 1/n)`` of the ordinary (nonparametric)
    bootstrap. They are drawn in two exact stages that keep the work in
    cache: the totals of consecutive chunks of at most 65,536 samples are one
    multinomial draw, and each chunk's total is spread over its samples by
    uniform draws. The intervals use the formulas of
    :func:`scipy.stats.bootstrap` (on the same resamples both give the same
    intervals), but the resamples differ from the index draws of
    :func:`scipy.stats.bootstrap` for the same seed.

    The percentile interval of a metric estimated from a finite sample
    inherits its bias: the finite-sample AURC estimators of [AURC] depend on
    the sample size by design, and so does their bootstrap distribution.

    References
    ----------
    .. [Efron] Efron, B. and Tibshirani, R. J. "An Introduction to the
       Bootstrap." Chapman & Hall, 1993 (percentile, basic and BCa
       intervals, Ch. 13-14; calibration by the double bootstrap, Sec. 18.3).
    .. [Hall] Hall, P. and Martin, M. A. "On bootstrap resampling and
       iteration." Biometrika 75(4), 661-671, 1988.
    %(ref_augrc)s
    %(ref_aurc)s

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.metrics import bootstrap_metric
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.integers(0, 2, 400)
    >>> correct = rng.random(400) < 0.8
    >>> y_pred = np.where(correct, y_true, 1 - y_true)
    >>> confidence = rng.random(400) + 0.5 * correct
    >>> result = bootstrap_metric("augrc", y_true, y_pred, confidence,
    ...                           random_state=0)
    >>> low, high = result.confidence_interval
    >>> print(f"AUGRC {result.statistic:.3f}, 95% CI [{low:.3f}, {high:.3f}]")
    AUGRC 0.038, 95% CI [0.026, 0.053]
    >>> result.method  # the default at 400 samples
    'double'
    >>> result.bootstrap_distribution.shape
    (1000,)

    Any metric of ``(y_true, y_pred, confidence)`` works, more slowly:

    >>> def accuracy_of_top_half(y_true, y_pred, confidence):
    ...     top = confidence >= np.median(confidence)
    ...     return np.mean(y_true[top] == y_pred[top])
    >>> result = bootstrap_metric(accuracy_of_top_half, y_true, y_pred,
    ...                           confidence, n_resamples=200, random_state=0)
    >>> round(result.statistic, 3)
    0.975
    """
    result, _ = _bootstrap(
        metric,
        y_true,
        y_pred,
        confidence,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        random_state=random_state,
        n_jobs=n_jobs,
        sample_weight=sample_weight,
        metric_kwargs=metric_kwargs,
    )
    return result


def _prepare(metric, y_true, y_pred, confidence, sample_weight, metric_kwargs, n_jobs):
    """``(statistic, values, n_samples)``: the metric on the data (which validates
    ``metric_kwargs`` and the data) and ``values(count_blocks)`` on resamples."""
    arrays = _check_resampling_inputs(y_true, y_pred, confidence, sample_weight)
    y_true, y_pred, confidence, sample_weight = arrays
    weight_kwarg = {} if sample_weight is None else {"sample_weight": sample_weight}
    statistic = float(
        metric(y_true, y_pred, confidence, **weight_kwarg, **metric_kwargs)
    )
    values = _resample_evaluator(metric, arrays, metric_kwargs, n_jobs)
    return statistic, values, confidence.shape[0]


def _bootstrap(
    metric,
    y_true,
    y_pred,
    confidence,
    *,
    n_resamples,
    confidence_level,
    method,
    random_state,
    n_jobs,
    sample_weight,
    metric_kwargs,
    where="",
):
    """``(BootstrapResult, interval_at)`` of :func:`bootstrap_metric`;
    ``interval_at(level)`` is the same method's interval at another level from
    the same resamples (the simultaneous intervals of :func:`metric_by_group`)."""
    metric = resolve_metric(metric)
    statistic, values, n_samples = _prepare(
        metric, y_true, y_pred, confidence, sample_weight, metric_kwargs, n_jobs
    )
    method = _chosen_method(method, n_samples, metric)
    rng = _check_generator(random_state)
    blocks = _bootstrap_counts(rng, n_samples, n_resamples, min_rows=values.block_rows)
    if method == "double":  # kept: each is resampled again after the outer draws
        blocks = list(blocks)
    distribution = values(blocks)
    return _result(
        metric,
        statistic,
        distribution,
        values,
        n_samples,
        confidence_level,
        method,
        outer=(blocks, rng) if method == "double" else None,
        where=where,
    )


def _chosen_method(method, n_samples, metric=None):
    """The interval method ``"auto"`` stands for at ``n_samples`` for ``metric``
    (the rule of its registry entry, found by the function object; the default
    rule for any other callable), or ``method`` in the canonical spelling of
    ``_METHODS``."""
    if method != "auto":
        return _METHODS.get(method, method)
    entry = find_entry(metric)
    if entry is None:
        return auto_method(DEFAULT_INTERVAL_RULES, n_samples)
    return entry.auto_method(n_samples)


def _result(
    metric,
    statistic,
    distribution,
    values,
    n_samples,
    confidence_level,
    method,
    outer=None,
    where="",
):
    """``(BootstrapResult, interval_at)`` of a bootstrap distribution.

    ``outer``: for ``method="double"``, the outer count blocks and the generator
    that continues after them (the source of the inner resamples).
    ``where`` begins the message of the warning of too few failures (e.g. the
    group).
    """
    n_resamples = distribution.shape[0]
    defined = distribution[~np.isnan(distribution)]
    _warn_undefined(distribution.shape[0] - defined.shape[0], n_resamples, "resamples")
    _warn_few_failures(values, where)
    if defined.shape[0] == 0:
        levels_at = _percentile_levels
    else:
        levels_at = _LEVELS[method](defined, statistic, values, n_samples, outer)
    if levels_at is None:  # degenerate: the percentile interval, said so
        _warn_percentile_instead(method)
        method, levels_at = "percentile", _percentile_levels

    def interval_at(level):
        low, high = _quantile_interval(defined, levels_at(level))
        if method == "basic":
            low, high = 2.0 * statistic - high, 2.0 * statistic - low
        return ConfidenceInterval(float(low), float(high))

    standard_error = (
        float(np.std(defined, ddof=1)) if defined.shape[0] > 1 else float("nan")
    )
    result = BootstrapResult(
        statistic,
        interval_at(confidence_level),
        standard_error,
        distribution,
        metric=(
            metric
            if isinstance(metric, str)
            else getattr(metric, "__name__", type(metric).__name__)
        ),
        confidence_level=float(confidence_level),
        method=method,
    )
    return result, interval_at


# Fewer failures than this, and no bootstrap interval of a risk metric holds its
# level (user guide, "What each interval covers").
MIN_FAILURES = 5


def _warn_few_failures(values, where=""):
    """Warn when a risk metric's data hold fewer than ``MIN_FAILURES`` samples
    with a positive loss (and weight): the resamples cannot show the failures
    the data lack, so every interval is too narrow."""
    resampler = getattr(getattr(values, "evaluate", None), "resampler", None)
    if resampler is None:  # a metric of another kind: failures not defined
        return
    failing = resampler.losses > 0
    if resampler.weight is not None:
        failing &= resampler.weight > 0
    n_failures = int(np.count_nonzero(failing))
    if n_failures < MIN_FAILURES:
        message = (
            f"only {n_failures} of the {failing.shape[0]} samples are failures "
            f"(positive loss). With fewer than {MIN_FAILURES}, no bootstrap "
            "interval of a risk metric holds its level: resampling cannot show "
            "failures the data lack, so the interval is too narrow (measured "
            "coverage at 95 %: 0.39-0.61 with at most two failures, 0.80-0.98 "
            "with three or four; user guide "
            '"What each interval covers"). Label more samples until at least '
            f"{MIN_FAILURES} failures are in the data, or read the interval as a "
            "lower bound on the uncertainty."
        )
        warn(
            where + message if where else message[0].upper() + message[1:],
            TooFewFailuresWarning,
        )


def _percentile_levels(confidence_level):
    alpha = (1.0 - confidence_level) / 2.0
    return alpha, 1.0 - alpha


def _percentile(defined, statistic, values, n_samples, outer):
    return _percentile_levels


def _bca(defined, statistic, values, n_samples, outer):
    """BCa levels, or None when they are undefined (a degenerate bootstrap
    distribution or jackknife, e.g. all equal)."""
    jackknife = values(_jackknife_counts(n_samples, min_rows=values.block_rows))
    _warn_undefined(
        np.count_nonzero(np.isnan(jackknife)), n_samples, "jackknife samples"
    )
    jackknife = jackknife[~np.isnan(jackknife)]

    def levels_at(level):
        return _bca_levels(defined, statistic, jackknife, (1.0 - level) / 2.0)

    if jackknife.shape[0] > 1 and np.all(np.isfinite(levels_at(0.95))):
        return levels_at
    return None


def _outer_shares(values, statistic, blocks, rng):
    """``(below, below_or_equal)`` of :func:`calibration_shares` over all the
    outer ``blocks``."""
    shares = [calibration_shares(values, statistic, block, rng) for block in blocks]
    below = np.concatenate([below for below, _ in shares])
    return below, np.concatenate([at_most for _, at_most in shares])


def _double(defined, statistic, values, n_samples, outer):
    """Levels calibrated by the double bootstrap, or None when no inner value is
    defined. ``outer``: the outer blocks and the generator of the inner
    resamples, or the shares already computed (``_bootstrap_statistics``)."""
    if isinstance(outer, _Shares):
        below, below_or_equal = outer
    else:
        below, below_or_equal = _outer_shares(values, statistic, *outer)
    if np.isnan(below).all():
        return None
    return partial(calibrated_levels, below, below_or_equal)


_LEVELS = {"percentile": _percentile, "basic": _percentile, "bca": _bca}
_LEVELS["double"] = _double


def _warn_percentile_instead(method):
    warn(
        f"The {_METHOD_NAMES[method]} interval cannot be computed: the bootstrap "
        "distribution or the jackknife values are degenerate (for example all "
        "equal, as for a working point that few resamples move). The percentile "
        "interval is returned instead (result.method is 'percentile').",
        DegenerateDataWarning,
    )


_METHOD_NAMES = {"bca": "BCa", "double": "double-bootstrap"}


class _Shares(NamedTuple):
    """The double bootstrap's shares of one statistic, computed beforehand."""

    below: np.ndarray
    below_or_equal: np.ndarray
