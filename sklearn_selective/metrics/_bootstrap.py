"""Bootstrap confidence intervals of the metrics (:func:`bootstrap_metric`).

The resamples and the metric on each of them come from ``_resampling``, the
draws and the intervals from ``_utils``; paired comparisons live in
``_comparison``.
"""

import warnings
from functools import partial
from numbers import Integral, Real

import numpy as np
from scipy.stats import DegenerateDataWarning

from .._utils._docstrings import fill_doc
from .._utils._draws import (
    _bootstrap_counts,
    _check_generator,
    _jackknife_counts,
)
from .._utils._intervals import _METHODS, _bca_levels, _interval, _warn_undefined
from .._utils._sklearn import Interval, StrOptions, validate_params
from ._resampling._resamples import (
    _METRICS,
    _RESAMPLING_CONSTRAINTS,
    _check_resampling_inputs,
    _resample_evaluator,
    _resolve_metric,
)
from ._resampling._risk_resampler import _FastMetric
from ._results import BootstrapResult


@validate_params(
    {
        "metric": [StrOptions(set(_METRICS)), callable],
        "confidence": ["array-like"],
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "method": [StrOptions(set(_METHODS))],
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
    method="percentile",
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

    method : {"percentile", "basic", "BCa"}, default="percentile"
        Interval type, as in :func:`scipy.stats.bootstrap`: the percentile
        interval, the basic (reverse percentile) interval, or the
        bias-corrected and accelerated interval [Efron] (``"bca"`` is accepted
        too).
        BCa estimates the acceleration by the jackknife, which evaluates the
        metric on the ``n_samples`` leave-one-out samples: as costly as
        ``n_samples`` extra resamples. When its levels are undefined (a
        degenerate jackknife) the percentile interval is returned, with a
        warning, and ``result.method`` is ``"percentile"``. Coverage measured
        in simulation: from about 200 samples on, the percentile and BCa
        intervals hold their level; with about nine failures (50 samples) they
        cover 0.87-0.92 and 0.87-0.93 (user guide, "What each interval
        covers").

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
        When ``method="BCa"`` cannot be computed and the percentile interval is
        returned instead.

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
       intervals; Ch. 13-14).
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
    AUGRC 0.038, 95% CI [0.026, 0.050]
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
    metric = _resolve_metric(metric)
    statistic, values, n_samples = _prepare(
        metric, y_true, y_pred, confidence, sample_weight, metric_kwargs, n_jobs
    )
    rng = _check_generator(random_state)
    distribution = values(
        _bootstrap_counts(rng, n_samples, n_resamples, min_rows=values.block_rows)
    )
    return _result(
        metric, statistic, distribution, values, n_samples, confidence_level, method
    )


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


def _result(
    metric, statistic, distribution, values, n_samples, confidence_level, method
):
    """The :class:`BootstrapResult` of a bootstrap distribution."""
    n_resamples = distribution.shape[0]
    method = _METHODS[method]
    defined = distribution[~np.isnan(distribution)]
    _warn_undefined(distribution.shape[0] - defined.shape[0], n_resamples, "resamples")
    jackknife = None
    if method == "bca":
        jackknife = values(_jackknife_counts(n_samples, min_rows=values.block_rows))
        _warn_undefined(
            np.count_nonzero(np.isnan(jackknife)), n_samples, "jackknife samples"
        )
        jackknife = jackknife[~np.isnan(jackknife)]
        method = _bca_or_percentile(defined, statistic, jackknife, confidence_level)
    interval = _interval(defined, statistic, confidence_level, method, jackknife)
    standard_error = (
        float(np.std(defined, ddof=1)) if defined.shape[0] > 1 else float("nan")
    )
    return BootstrapResult(
        statistic,
        interval,
        standard_error,
        distribution,
        metric=getattr(metric, "__name__", type(metric).__name__),
        confidence_level=float(confidence_level),
        method=method,
    )


def _bca_or_percentile(distribution, statistic, jackknife, confidence_level):
    """``"bca"``, or ``"percentile"`` with a warning when the BCa levels are
    undefined (a degenerate bootstrap distribution or jackknife, e.g. all
    equal): the result then says which interval it holds, never a NaN."""
    if distribution.shape[0] and jackknife.shape[0] > 1:
        alpha = (1.0 - confidence_level) / 2.0
        levels = _bca_levels(distribution, statistic, jackknife, alpha)
        if np.all(np.isfinite(levels)):
            return "bca"
    if distribution.shape[0] == 0:
        return "bca"  # no defined resample: the interval is nan either way
    warnings.warn(
        "The BCa interval cannot be computed: the bootstrap distribution or the "
        "jackknife values are degenerate (for example all equal, as for a "
        "working point that few resamples move). The percentile interval is "
        "returned instead (result.method is 'percentile').",
        DegenerateDataWarning,
        stacklevel=4,
    )
    return "percentile"


class _SharedResamples:
    """Several metrics bootstrapped on the same resamples, each block drawn once.

    ``add`` validates a metric and its data (all of ``n_samples`` samples) and
    computes its value; ``run`` draws the blocks of count vectors of
    ``random_state`` once and evaluates every metric on each; ``result(i)`` is
    then what ``bootstrap_metric`` returns for the ``i``-th metric with the same
    ``random_state`` (an int seed): the same resamples, the same
    distribution. Used by the command line, whose metrics share one file.
    """

    def __init__(self, n_resamples, random_state):
        self.n_resamples, self.random_state = n_resamples, random_state
        self._metrics = []

    def add(self, metric, y_true, y_pred, confidence, **metric_kwargs):
        metric = _resolve_metric(metric)
        prepared = _prepare(
            metric, y_true, y_pred, confidence, None, metric_kwargs, None
        )
        self._metrics.append((metric, *prepared))
        return len(self._metrics) - 1

    def run(self, progress=None):
        """Evaluate every metric on the resamples; ``progress(done, total)`` is
        called after each block of resamples."""
        n_samples = {n for *_, n in self._metrics}
        if len(n_samples) != 1:
            raise ValueError("the metrics must share one set of samples")
        (n_samples,) = n_samples
        groups = _shared_groups([values for _, _, values, _ in self._metrics])
        rng = _check_generator(self.random_state)
        blocks = [[] for _ in self._metrics]
        done = 0
        for counts in _bootstrap_counts(rng, n_samples, self.n_resamples):
            for indices, evaluate in groups:
                with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                    found = evaluate(counts)
                for index, values in zip(indices, found, strict=True):
                    blocks[index].append(values)
            done += counts.shape[0]
            if progress is not None:
                progress(done, self.n_resamples)
        self._distributions = [np.concatenate(block) for block in blocks]

    def result(self, index, confidence_level=0.95, method="percentile"):
        metric, statistic, values, n_samples = self._metrics[index]
        distribution = self._distributions[index]
        return _result(
            metric, statistic, distribution, values, n_samples, confidence_level, method
        )


def _shared_groups(evaluators):
    """``(indices, evaluate)`` pairs: ``evaluate(counts)`` returns the values of
    the metrics at ``indices``. Risk metrics without sample weights on the same
    data share one evaluation (the chunks' group statistics are computed once);
    any other metric is a group of its own."""
    groups, shared = [], []  # shared: (resampler, indices, metrics)
    for index, values in enumerate(evaluators):
        fast = getattr(values, "evaluate", None)
        if not (isinstance(fast, _FastMetric) and values.positive is None):
            groups.append(([index], partial(_alone, values)))
            continue
        group = next(
            (group for group in shared if group[0].same_data(fast.resampler)), None
        )
        if group is None:
            group = (fast.resampler, [], [])
            shared.append(group)
        group[1].append(index)
        group[2].append((fast.name, fast.params))
    for resampler, indices, metrics in shared:
        groups.append((indices, partial(resampler.evaluate, metrics=metrics)))
    return groups


def _alone(values, counts):
    return [values([counts])]
