"""Bootstrap confidence intervals of the metrics and paired comparisons of CSFs.

Integer sample weights are the same as repeated samples (SPEC section 1), so a
bootstrap resample is a vector of counts on the data. For this package's metrics the
samples are sorted and grouped by confidence **once**; every resample is then a row
of counts used as integer sample weights on the sorted arrays, and a whole block of
resamples is evaluated at once by the batched functions of ``_core``. Any other
metric is called on index-resampled copies of the data.

Both paths draw exactly the same resamples from the same generator, as blocks of
indices ``rng.integers(0, n, (block, n))`` (the draw of
:func:`scipy.stats.bootstrap`); the fast path turns each row of indices into counts.
So the two paths give the same bootstrap distribution, to rounding.
"""

import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed
from scipy.special import ndtr, ndtri
from scipy.stats import DegenerateDataWarning, rankdata, wilcoxon
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils import check_array, column_or_1d
from sklearn.utils._param_validation import Interval, StrOptions, validate_params

from ._core import (
    GroupStats,
    augrc_from_stats,
    aurc_from_stats,
    coverage_at_risk_from_stats,
    e_aurc_from_stats,
    failure_auc_from_stats,
    group_ties,
    naurc_from_stats,
    sele_from_stats,
    selective_risk_at_coverage_from_stats,
)
from ._docstrings import fill_doc
from ._ranking import _squared_group_weight, _weighted_inversions, uq_auc, uq_c_index
from ._risk_coverage import (
    augrc,
    aurc,
    coverage_at_risk,
    e_aurc,
    naurc,
    sele,
    selective_risk_at_coverage,
)
from ._validation import (
    _NAMED_LOSSES,
    _check_confidence,
    _check_probabilities,
    _check_sample_weight,
    _validate_risk_inputs,
)

# A block of resamples holds at most this many (resample, sample) entries (at least
# one resample), which bounds memory whatever n_resamples is. Small blocks keep the
# fast path's temporaries in cache and below the allocator's mmap threshold: at
# n = 1e4, 2**14 is ~2.5x faster than 2**16 and ~3x faster than 2**21.
_BLOCK_ELEMENTS = 2**14

# Whether a larger value of each package metric is better.
_GREATER_IS_BETTER = {
    "aurc": False,
    "augrc": False,
    "e_aurc": False,
    "naurc": False,
    "sele": False,
    "selective_risk_at_coverage": False,
    "coverage_at_risk": True,
    "uq_auc": True,
    "uq_c_index": True,
}
_METRICS = {
    function.__name__: function
    for function in (
        aurc,
        augrc,
        e_aurc,
        naurc,
        sele,
        selective_risk_at_coverage,
        coverage_at_risk,
        uq_auc,
        uq_c_index,
    )
}
_METHODS = {"percentile": "percentile", "basic": "basic", "BCa": "bca", "bca": "bca"}


class ConfidenceInterval(NamedTuple):
    """Lower and upper bound of a confidence interval."""

    low: float
    high: float


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Result of :func:`bootstrap_metric`.

    Attributes
    ----------
    statistic : float
        The metric on the original data.

    confidence_interval : ConfidenceInterval
        ``(low, high)`` bounds of the bootstrap confidence interval.

    standard_error : float
        Standard deviation (``ddof=1``) of the defined values of the bootstrap
        distribution.

    bootstrap_distribution : ndarray of shape (n_resamples,)
        The metric on every resample; ``nan`` where it is undefined.
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    bootstrap_distribution: np.ndarray = field(repr=False)


@dataclass(frozen=True, eq=False)
class ConfidenceComparisonResult:
    """Result of :func:`compare_confidence_functions`.

    Per-CSF quantities are dictionaries keyed by the names of ``confidences``;
    matrices follow the order of :attr:`names`.

    Attributes
    ----------
    names : list
        The CSF names, in the order of ``confidences``.

    metric : str
        Name of the metric.

    greater_is_better : bool
        Whether a larger metric value is better.

    ranking : list
        The names ordered by mean rank, best first.

    mean_rank : dict
        Mean over resamples of each CSF's rank (1 = best) within the resample.

    statistic : dict
        The metric of each CSF on the original data.

    confidence_interval : dict
        Percentile bootstrap interval at level ``1 - alpha`` of each CSF.

    p_values : ndarray of shape (n_csfs, n_csfs)
        Holm-adjusted p-value of the one-sided Wilcoxon signed-rank test that
        CSF ``i`` is better than CSF ``j``; ``nan`` on the diagonal.

    significant : ndarray of shape (n_csfs, n_csfs), dtype=bool
        ``p_values <= alpha``: CSF ``i`` is significantly better than ``j``.

    alpha : float
        Family-wise significance level.

    bootstrap_distribution : ndarray of shape (n_resamples, n_csfs)
        The metric of every CSF on every resample; ``nan`` where undefined.
    """

    names: list
    metric: str
    greater_is_better: bool
    ranking: list
    mean_rank: dict
    statistic: dict
    confidence_interval: dict
    p_values: np.ndarray = field(repr=False)
    significant: np.ndarray = field(repr=False)
    alpha: float
    bootstrap_distribution: np.ndarray = field(repr=False)

    def __str__(self):
        direction = "higher" if self.greater_is_better else "lower"
        n_resamples = self.bootstrap_distribution.shape[0]
        level = f"{100 * (1 - self.alpha):g}% CI"
        lines = [
            f"{self.metric} ({direction} is better), {n_resamples} paired bootstrap "
            f"resamples; one-sided Wilcoxon tests, Holm-adjusted, alpha={self.alpha:g}"
        ]
        labels = [str(name) for name in self.names]
        width = max(4, *map(len, labels))
        lines.append(
            f"{'rank':>4}  {'name':<{width}}  {'mean rank':>9}  "
            f"{self.metric:>10}  {level:<20}  significantly better than"
        )
        position = {name: index for index, name in enumerate(self.names)}
        for rank, name in enumerate(self.ranking, start=1):
            i = position[name]
            low, high = self.confidence_interval[name]
            better = ", ".join(labels[j] for j in np.flatnonzero(self.significant[i]))
            lines.append(
                f"{rank:>4}  {labels[i]:<{width}}  {self.mean_rank[name]:>9.2f}  "
                f"{self.statistic[name]:>10.4g}  "
                f"{f'[{low:.4g}, {high:.4g}]':<20}  {better or '-'}"
            )
        return "\n".join(lines)


# --------------------------------------------------------------------------------------
# Resamples: blocks of indices, and the counts they stand for.
# --------------------------------------------------------------------------------------
def _check_generator(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(
            random_state.randint(2**32, size=4, dtype=np.uint64)
        )
    return np.random.default_rng(random_state)


def _block_size(n_samples):
    return max(1, _BLOCK_ELEMENTS // n_samples)


def _bootstrap_indices(rng, n_samples, n_resamples):
    """Blocks of resampled indices, shape ``(block, n_samples)``, drawn in order."""
    step = _block_size(n_samples)
    for start in range(0, n_resamples, step):
        rows = min(step, n_resamples - start)
        yield rng.integers(0, n_samples, (rows, n_samples))


def _jackknife_indices(n_samples):
    """Blocks of leave-one-out indices, shape ``(block, n_samples - 1)``."""
    step = _block_size(n_samples)
    for start in range(0, n_samples, step):
        rows = min(step, n_samples - start)
        keep = np.ones((rows, n_samples), dtype=bool)
        keep[np.arange(rows), np.arange(start, start + rows)] = False
        yield np.broadcast_to(np.arange(n_samples), keep.shape)[keep].reshape(rows, -1)


def _counts(indices, n_samples):
    """How often each sample occurs in each row of ``indices`` (overwritten)."""
    rows = indices.shape[0]
    if rows == 1:
        return np.bincount(indices[0], minlength=n_samples)[None]
    indices += (np.arange(rows) * n_samples)[:, None]
    counts = np.bincount(indices.ravel(), minlength=rows * n_samples)
    return counts.reshape(rows, n_samples)


# --------------------------------------------------------------------------------------
# Fast path: sort once, then evaluate blocks of count vectors at once.
# --------------------------------------------------------------------------------------
class _RiskResampler:
    """Samples sorted by confidence once; resamples become batched group stats."""

    def __init__(self, confidence, losses, sample_weight):
        groups = group_ties(confidence)
        self._order = groups.order
        self._starts = groups.starts
        self.losses = losses[groups.order]
        self._weight = None if sample_weight is None else sample_weight[groups.order]
        self._oracle_groups = None

    def sorted_weight(self, counts):
        """Sample weights, ascending confidence, of count vectors ``(b, n)``."""
        counts = np.take(counts, self._order, axis=1)
        if self._weight is None:
            return counts.astype(np.float64)
        return counts * self._weight

    def stats(self, weight):
        loss = weight * self.losses
        if self._starts is None:
            return GroupStats(weight, loss)
        return GroupStats(
            np.add.reduceat(weight, self._starts, axis=-1),
            np.add.reduceat(loss, self._starts, axis=-1),
        )

    def oracle_stats(self, weight):
        """Group stats of the oracle ranking (confidence = -loss)."""
        if self._oracle_groups is None:
            self._oracle_groups = group_ties(-self.losses)
        return GroupStats.from_samples(self._oracle_groups, self.losses, weight)


def _aurc_values(resampler, weight, estimator="harmonic"):
    return aurc_from_stats(resampler.stats(weight), estimator)


def _sele_values(resampler, weight):
    return sele_from_stats(resampler.stats(weight))


def _augrc_values(resampler, weight):
    return augrc_from_stats(resampler.stats(weight))


def _uq_auc_values(resampler, weight):
    return failure_auc_from_stats(resampler.stats(weight))


def _e_aurc_values(resampler, weight, estimator="harmonic"):
    stats, oracle = resampler.stats(weight), resampler.oracle_stats(weight)
    return e_aurc_from_stats(stats, oracle, estimator)


def _naurc_values(resampler, weight, estimator="harmonic"):
    stats, oracle = resampler.stats(weight), resampler.oracle_stats(weight)
    return naurc_from_stats(stats, oracle, estimator)


def _selective_risk_at_coverage_values(resampler, weight, coverage):
    return selective_risk_at_coverage_from_stats(resampler.stats(weight), coverage)


def _coverage_at_risk_values(resampler, weight, risk):
    return coverage_at_risk_from_stats(resampler.stats(weight), risk)


def _risk_path(values):
    """Fast path of a metric of per-sample losses: ``values(resampler, weight)``."""

    def prepare(
        y_true,
        y_pred,
        confidence,
        sample_weight,
        loss="zero_one",
        labels=None,
        **params,
    ):
        confidence, losses, sample_weight = _validate_risk_inputs(
            y_true,
            y_pred,
            confidence,
            loss=loss,
            sample_weight=sample_weight,
            labels=labels,
        )
        resampler = _RiskResampler(confidence, losses, sample_weight)

        def evaluate(counts):
            return values(resampler, resampler.sorted_weight(counts), **params)

        return evaluate

    return prepare


class _ConcordanceResampler:
    """``uq_c_index`` with the sorting done once; one resample at a time."""

    def __init__(self, y_true, y_proba, confidence, labels, sample_weight):
        n_samples = confidence.shape[0]
        y_true = column_or_1d(y_true, dtype=None)
        y_proba = check_array(y_proba, dtype=None, input_name="y_proba")
        y_proba, true_column, _ = _check_probabilities(
            y_true, y_proba, labels, "uq_c_index"
        )
        gap = 1.0 - y_proba[np.arange(n_samples), true_column]
        self._confidence_groups = group_ties(confidence)
        self._gap_groups = group_ties(gap)
        ranked, other = sorted(
            [self._confidence_groups, self._gap_groups],
            key=lambda groups: groups.n_groups,
        )
        ranked_index = ranked.group_index
        self._joint_groups = group_ties(
            other.group_index.astype(np.int64) * ranked.n_groups + ranked_index
        )
        self._ranked = ranked_index[self._joint_groups.order]
        self._weight = sample_weight

    def __call__(self, counts):
        values = np.empty(counts.shape[0])
        for row, count in enumerate(counts):
            weight = count.astype(np.float64)
            if self._weight is not None:
                weight *= self._weight
            values[row] = self._c_index(weight)
        return values

    def _c_index(self, weight):
        # The computation of uq_c_index, with weights.
        concordant = _weighted_inversions(
            self._ranked, weight[self._joint_groups.order]
        )
        gap_weight = self._gap_groups.weight(weight)
        comparable = (gap_weight.sum() ** 2 - np.sum(gap_weight**2)) / 2.0
        if comparable <= 0:
            return np.nan
        tied = (
            _squared_group_weight(self._confidence_groups, weight)
            - _squared_group_weight(self._joint_groups, weight)
        ) / 2.0
        return (concordant + tied / 2.0) / comparable


def _concordance_path(y_true, y_pred, confidence, sample_weight, labels=None):
    return _ConcordanceResampler(y_true, y_pred, confidence, labels, sample_weight)


_FAST_PATHS = {
    aurc: _risk_path(_aurc_values),
    sele: _risk_path(_sele_values),
    e_aurc: _risk_path(_e_aurc_values),
    naurc: _risk_path(_naurc_values),
    augrc: _risk_path(_augrc_values),
    uq_auc: _risk_path(_uq_auc_values),
    selective_risk_at_coverage: _risk_path(_selective_risk_at_coverage_values),
    coverage_at_risk: _risk_path(_coverage_at_risk_values),
    uq_c_index: _concordance_path,
}


def _positive_weight(sample_weight):
    """Mask of the samples with positive weight, or None when all have."""
    if sample_weight is None or np.all(sample_weight > 0):
        return None
    return sample_weight > 0


def _evaluate_counts(evaluate, counts, positive):
    """Metric values of count vectors; nan for resamples of zero total weight."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        values = np.array(evaluate(counts), dtype=np.float64)
    if positive is not None:
        values[~counts[:, positive].any(axis=1)] = np.nan
    return values


def _fast_values(evaluate, index_blocks, n_samples, positive):
    return np.concatenate(
        [
            _evaluate_counts(evaluate, _counts(indices, n_samples), positive)
            for indices in index_blocks
        ]
    )


# --------------------------------------------------------------------------------------
# Generic path: call the metric on index-resampled copies of the data.
# --------------------------------------------------------------------------------------
def _call_metric(metric, arrays, kwargs, indices):
    y_true, y_pred, confidence, sample_weight, loss = (
        None if array is None else array[indices] for array in arrays
    )
    if sample_weight is not None:
        if not sample_weight.any():  # only zero-weight samples were drawn
            return np.nan
        kwargs = {**kwargs, "sample_weight": sample_weight}
    if loss is not None:
        kwargs = {**kwargs, "loss": loss}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return float(metric(y_true, y_pred, confidence, **kwargs))


def _generic_values(metric, arrays, kwargs, index_blocks, n_jobs):
    values = []
    with Parallel(n_jobs=n_jobs) as parallel:
        for indices in index_blocks:
            values.extend(
                parallel(
                    delayed(_call_metric)(metric, arrays, kwargs, row)
                    for row in indices
                )
            )
    return np.asarray(values, dtype=np.float64)


# --------------------------------------------------------------------------------------
# Confidence intervals.
# --------------------------------------------------------------------------------------
def _bca_levels(distribution, statistic, jackknife, alpha):
    """Quantile levels of the BCa interval (Efron and Tibshirani, Eq. 14.10, 14.15),
    with the same formulas as :func:`scipy.stats.bootstrap`."""
    below = np.count_nonzero(distribution < statistic)
    below_or_equal = np.count_nonzero(distribution <= statistic)
    z0 = ndtri((below + below_or_equal) / (2.0 * distribution.shape[0]))
    n_jackknife = float(jackknife.shape[0])
    influence = (n_jackknife - 1.0) * (jackknife.mean() - jackknife)
    with np.errstate(divide="ignore", invalid="ignore"):
        acceleration = (
            np.sum(influence**3)
            / n_jackknife**3
            / 6.0
            / (np.sum(influence**2) / n_jackknife**2) ** 1.5
        )
        z_alpha = float(ndtri(alpha))
        low = z0 + z_alpha
        high = z0 - z_alpha
        return (
            ndtr(z0 + low / (1.0 - acceleration * low)),
            ndtr(z0 + high / (1.0 - acceleration * high)),
        )


def _interval(distribution, statistic, confidence_level, method, jackknife=None):
    alpha = (1.0 - confidence_level) / 2.0
    if distribution.shape[0] == 0:
        return ConfidenceInterval(np.nan, np.nan)
    if method == "bca":
        levels = _bca_levels(distribution, statistic, jackknife, alpha)
    else:
        levels = (alpha, 1.0 - alpha)
    if not np.all(np.isfinite(levels)):
        warnings.warn(
            "The BCa confidence interval cannot be calculated: the bootstrap "
            "distribution or the jackknife values are degenerate (for example all "
            "equal). Returning nan; consider method='percentile'.",
            DegenerateDataWarning,
            stacklevel=3,
        )
        return ConfidenceInterval(np.nan, np.nan)
    low, high = np.quantile(distribution, levels)
    if method == "basic":
        low, high = 2.0 * statistic - high, 2.0 * statistic - low
    return ConfidenceInterval(float(low), float(high))


def _warn_undefined(n_undefined, n_total, what, stacklevel=3):
    if n_undefined:
        warnings.warn(
            f"The metric is undefined (nan) on {n_undefined} of {n_total} {what}. "
            "They are kept as nan in the bootstrap distribution and left out of the "
            "confidence interval and standard error.",
            UndefinedMetricWarning,
            stacklevel=stacklevel,
        )


def _resolve_metric(metric):
    if isinstance(metric, str):
        return _METRICS[metric]
    return metric


def _as_samples(values, name, n_samples):
    """Indexable array of ``n_samples`` rows, or None."""
    if values is None:
        return None
    values = np.asarray(values)
    if values.ndim == 0 or values.shape[0] != n_samples:
        raise ValueError(
            f"{name} must have one entry per sample: confidence has {n_samples} "
            f"samples but {name} has shape {values.shape}."
        )
    return values


def _check_resampling_inputs(y_true, y_pred, confidence, sample_weight):
    confidence = _check_confidence(confidence)
    n_samples = confidence.shape[0]
    if n_samples < 2:
        raise ValueError(f"The bootstrap needs at least 2 samples; got {n_samples}.")
    y_true = _as_samples(y_true, "y_true", n_samples)
    y_pred = _as_samples(y_pred, "y_pred", n_samples)
    sample_weight = _check_sample_weight(sample_weight, n_samples)
    return y_true, y_pred, confidence, sample_weight


_RESAMPLING_CONSTRAINTS = {
    "y_true": ["array-like", None],
    "y_pred": ["array-like", None],
    "random_state": ["random_state", np.random.Generator],
    "sample_weight": ["array-like", None],
}


@validate_params(
    {
        "metric": [StrOptions(set(_METRICS)), callable],
        "confidence": ["array-like"],
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "method": [StrOptions(set(_METHODS))],
        "n_jobs": [Integral, None],
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

    For this package's metrics the data are sorted and grouped by confidence
    once and the per-sample losses computed once; every resample is then a
    vector of counts used as integer sample weights (integer weights are the
    same as repeated samples, exactly), and blocks of resamples are evaluated
    at once in bounded memory. Any other metric is called on index-resampled
    copies of the data, optionally in parallel. Both paths draw the same
    resamples, so they give the same result.

    Parameters
    ----------
    metric : str or callable
        One of this package's metrics, by name (``"aurc"``, ``"augrc"``,
        ``"e_aurc"``, ``"naurc"``, ``"sele"``, ``"uq_auc"``,
        ``"uq_c_index"``, ``"selective_risk_at_coverage"``,
        ``"coverage_at_risk"``) or as the function itself, or any callable
        ``metric(y_true, y_pred, confidence, **metric_kwargs) -> float``
        (called with ``sample_weight=`` too when weights are given).

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
        ``n_samples`` extra resamples.

    random_state : int, RandomState instance, Generator or None, default=None
        Source of the resamples. An int seeds
        ``numpy.random.default_rng``; a ``RandomState`` seeds a new
        ``Generator``. Pass an int for reproducible results.

    n_jobs : int, default=None
        Number of jobs for the generic path, which calls ``metric`` once per
        resample (:class:`joblib.Parallel` semantics: None means 1, -1 all
        processors). The fast path of this package's metrics is vectorised
        and ignores it. The result does not depend on ``n_jobs``.

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights. Each resampled sample keeps its weight:
        a resample is the product of the bootstrap counts and these weights.

    **metric_kwargs : dict
        Further keyword arguments of ``metric``, e.g. ``loss``, ``labels``,
        ``estimator``, ``coverage`` or ``risk``. A ``loss`` given as an array
        of per-sample losses is resampled with the samples; a callable
        ``loss`` must compute each sample's loss from that sample alone.

    Returns
    -------
    result : BootstrapResult
        With attributes ``statistic`` (the metric on the original data, a
        float), ``confidence_interval`` (a named tuple ``(low, high)``),
        ``standard_error`` (float) and ``bootstrap_distribution`` (ndarray of
        shape ``(n_resamples,)``).

    Warns
    -----
    UndefinedMetricWarning
        When the metric is undefined on some resamples, e.g. :func:`uq_auc`
        on a resample without any failure. Those values are ``nan`` in
        ``bootstrap_distribution``; the interval and standard error are
        computed from the defined values only (nan-aware quantiles), which
        conditions on the metric being defined.

    See Also
    --------
    compare_confidence_functions : Paired bootstrap comparison of several
        confidence score functions.
    scipy.stats.bootstrap : The general-purpose bootstrap this follows.

    Notes
    -----
    Resamples are drawn as blocks of indices ``rng.integers(0, n, (b, n))``,
    like :func:`scipy.stats.bootstrap` draws them, and a BCa interval uses
    the same formulas, so for a ``numpy.random.Generator`` in the same state
    both produce the same resamples and intervals.

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
    y_true, y_pred, confidence, sample_weight = _check_resampling_inputs(
        y_true, y_pred, confidence, sample_weight
    )
    n_samples = confidence.shape[0]
    metric = _resolve_metric(metric)
    method = _METHODS[method]
    weight_kwarg = {} if sample_weight is None else {"sample_weight": sample_weight}
    # Also validates metric_kwargs and the data for this metric.
    statistic = float(
        metric(y_true, y_pred, confidence, **weight_kwarg, **metric_kwargs)
    )
    rng = _check_generator(random_state)

    prepare = _FAST_PATHS.get(metric)
    if prepare is not None:
        evaluate = prepare(y_true, y_pred, confidence, sample_weight, **metric_kwargs)
        positive = _positive_weight(sample_weight)

        def values(index_blocks):
            return _fast_values(evaluate, index_blocks, n_samples, positive)

    else:
        kwargs = dict(metric_kwargs)
        loss = kwargs.pop("loss", None)
        if loss is None or isinstance(loss, str) or callable(loss):
            loss_samples = None
            if loss is not None:
                kwargs["loss"] = loss
        else:
            loss_samples = _as_samples(loss, "loss", n_samples)
        arrays = (y_true, y_pred, confidence, sample_weight, loss_samples)

        def values(index_blocks):
            return _generic_values(metric, arrays, kwargs, index_blocks, n_jobs)

    distribution = values(_bootstrap_indices(rng, n_samples, n_resamples))
    defined = distribution[~np.isnan(distribution)]
    _warn_undefined(distribution.shape[0] - defined.shape[0], n_resamples, "resamples")
    jackknife = None
    if method == "bca":
        jackknife = values(_jackknife_indices(n_samples))
        _warn_undefined(
            np.count_nonzero(np.isnan(jackknife)), n_samples, "jackknife samples"
        )
        jackknife = jackknife[~np.isnan(jackknife)]
    interval = _interval(defined, statistic, confidence_level, method, jackknife)
    standard_error = (
        float(np.std(defined, ddof=1)) if defined.shape[0] > 1 else float("nan")
    )
    return BootstrapResult(statistic, interval, standard_error, distribution)


# --------------------------------------------------------------------------------------
# Paired comparison of confidence score functions.
# --------------------------------------------------------------------------------------
def _holm(p_values):
    """Holm's step-down adjusted p-values (Holm 1979), in the input order."""
    p_values = np.asarray(p_values, dtype=np.float64)
    n_tests = p_values.shape[0]
    order = np.argsort(p_values, kind="stable")
    steps = (n_tests - np.arange(n_tests)) * p_values[order]
    adjusted = np.empty(n_tests)
    adjusted[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
    return adjusted


@validate_params(
    {
        "confidences": [dict],
        "metric": [StrOptions(set(_GREATER_IS_BETTER)), callable],
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "loss": [StrOptions(set(_NAMED_LOSSES)), callable, "array-like"],
        "labels": ["array-like", None],
    }
    | _RESAMPLING_CONSTRAINTS,
    # loss, labels and metric_kwargs are validated by the metric itself.
    prefer_skip_nested_validation=False,
)
@fill_doc
def compare_confidence_functions(
    y_true,
    y_pred,
    confidences,
    *,
    metric="augrc",
    n_resamples=500,
    alpha=0.05,
    random_state=None,
    sample_weight=None,
    loss="zero_one",
    labels=None,
    **metric_kwargs,
):
    """Rank confidence score functions (CSFs) with a paired bootstrap.

    The protocol of [AUGRC] Sec. 4.1 (after [Wiesenfarth]): the same
    ``n_resamples`` bootstrap resamples of the test set are used for every
    CSF; on each resample the CSFs are ranked by the metric (rank 1 = best,
    ties share the mean rank), and the ranks are averaged over resamples
    ("rank-then-aggregate"). For every ordered pair of CSFs ``(i, j)`` a
    one-sided Wilcoxon signed-rank test on the paired per-resample metric
    values asks whether ``i`` is better than ``j``; the ``n_csfs * (n_csfs -
    1)`` p-values are adjusted for multiple testing by Holm's method
    [Holm]. Intervals are percentile bootstrap intervals [Efron].

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) or None
        True labels. May be None when ``loss`` is an array of per-sample losses.

    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes), or None
        Predicted labels or class probabilities, shared by every CSF.

    confidences : dict
        Maps a name to the confidence scores of one CSF, array-like of shape
        (n_samples,); higher means more confident. At least two entries.

    metric : str or callable, default="augrc"
        One of this package's scalar metrics, by name or as the function:
        ``"aurc"``, ``"augrc"``, ``"e_aurc"``, ``"naurc"``, ``"sele"``,
        ``"selective_risk_at_coverage"`` (lower is better), or ``"uq_auc"``,
        ``"uq_c_index"``, ``"coverage_at_risk"`` (higher is better).

    n_resamples : int, default=500
        Number of paired bootstrap resamples ([AUGRC] uses 500).

    alpha : float in (0, 1), default=0.05
        Family-wise significance level of the Holm-adjusted tests; the
        confidence intervals have level ``1 - alpha``.

    random_state : int, RandomState instance, Generator or None, default=None
        Source of the resamples; see :func:`bootstrap_metric`.

    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative sample weights, kept by every resampled sample.

    %(loss)s

        Not used by ``"uq_c_index"``, whose ``y_pred`` holds probabilities.

    %(labels)s

    **metric_kwargs : dict
        Further keyword arguments of the metric: ``estimator`` of the AURC
        family, ``coverage`` or ``risk`` of the working points.

    Returns
    -------
    result : ConfidenceComparisonResult
        With ``ranking`` (names, best first), ``mean_rank``, ``statistic``
        and ``confidence_interval`` (dicts keyed by name), ``p_values`` and
        ``significant`` (matrices in the order of ``names``: entry ``[i, j]``
        is about CSF ``i`` being better than CSF ``j``) and the paired
        ``bootstrap_distribution``. ``print(result)`` shows a summary table.

    Warns
    -----
    UndefinedMetricWarning
        When the metric is undefined on some resamples (e.g. ``uq_auc`` on a
        resample without failures). Such resamples are left out of the
        ranks, the tests and the intervals.

    See Also
    --------
    bootstrap_metric : Confidence interval of a single metric.
    augrc : The default metric, recommended by [AUGRC].

    Notes
    -----
    The tests treat the bootstrap resamples as paired observations, as in
    [AUGRC] and [Wiesenfarth]. They describe how stable the ranking is under
    resampling of the test set rather than test a difference between the
    populations: with more resamples, any consistent difference becomes
    significant. Pairs whose differences are all zero (identical rankings)
    get a p-value of 1.

    References
    ----------
    %(ref_augrc)s
    .. [Wiesenfarth] Wiesenfarth, Reinke, Landman, Eisenmann, Aguilera Saiz,
       Cardoso, Maier-Hein and Kopp-Schneider. "Methods and open-source
       toolkit for analyzing and visualizing challenge results." Scientific
       Reports 11, 2369 (2021).
    .. [Holm] Holm, S. "A simple sequentially rejective multiple test
       procedure." Scandinavian Journal of Statistics 6(2), 65-70 (1979).
    .. [Efron] Efron, B. and Tibshirani, R. J. "An Introduction to the
       Bootstrap." Chapman & Hall, 1993.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.metrics import compare_confidence_functions
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.integers(0, 2, 300)
    >>> correct = rng.random(300) < 0.8
    >>> y_pred = np.where(correct, y_true, 1 - y_true)
    >>> confidences = {
    ...     "random": rng.random(300),
    ...     "good": rng.random(300) + 0.5 * correct,
    ...     "oracle": correct + 0.0,
    ... }
    >>> result = compare_confidence_functions(
    ...     y_true, y_pred, confidences, n_resamples=100, random_state=0)
    >>> result.ranking
    ['oracle', 'good', 'random']
    >>> bool(result.significant[1, 0])  # "good" is better than "random"
    True
    >>> result.p_values.shape
    (3, 3)
    """
    metric = _resolve_metric(metric)
    name = getattr(metric, "__name__", None)
    if name not in _METRICS or _METRICS[name] is not metric:
        raise ValueError(
            "metric must be one of this package's scalar metrics, by name or as the "
            f"function: {sorted(_GREATER_IS_BETTER)}; got {metric!r}."
        )
    if len(confidences) < 2:
        raise ValueError(
            "confidences must map at least two names to confidence scores; got "
            f"{len(confidences)}."
        )
    names = list(confidences)
    first = _check_confidence(confidences[names[0]])
    y_true, y_pred, _, sample_weight = _check_resampling_inputs(
        y_true, y_pred, first, sample_weight
    )
    n_samples = first.shape[0]
    scores = {}
    for csf in names:
        scores[csf] = _check_confidence(confidences[csf])
        if scores[csf].shape[0] != n_samples:
            raise ValueError(
                f"Every confidence array needs one score per sample: "
                f"{names[0]!r} has {n_samples} but {csf!r} has "
                f"{scores[csf].shape[0]}."
            )
    if name == "uq_c_index":
        if not (isinstance(loss, str) and loss == "zero_one"):
            raise ValueError(
                "uq_c_index has no loss parameter: it uses the probabilities in "
                "y_pred. Leave loss at its default."
            )
        metric_kwargs = {**metric_kwargs, "labels": labels}
    else:
        metric_kwargs = {**metric_kwargs, "loss": loss, "labels": labels}
    weight_kwarg = {} if sample_weight is None else {"sample_weight": sample_weight}
    statistic = {
        csf: float(metric(y_true, y_pred, scores[csf], **weight_kwarg, **metric_kwargs))
        for csf in names
    }
    prepare = _FAST_PATHS[metric]
    evaluators = [
        prepare(y_true, y_pred, scores[csf], sample_weight, **metric_kwargs)
        for csf in names
    ]
    positive = _positive_weight(sample_weight)
    rng = _check_generator(random_state)
    blocks = []
    for indices in _bootstrap_indices(rng, n_samples, n_resamples):
        counts = _counts(indices, n_samples)
        blocks.append(
            np.column_stack(
                [
                    _evaluate_counts(evaluate, counts, positive)
                    for evaluate in evaluators
                ]
            )
        )
    distribution = np.concatenate(blocks)

    defined = ~np.isnan(distribution).any(axis=1)
    _warn_undefined(np.count_nonzero(~defined), n_resamples, "resamples", 2)
    greater_is_better = _GREATER_IS_BETTER[name]
    # Signed so that lower is better.
    signed = distribution[defined] * (-1.0 if greater_is_better else 1.0)
    n_csfs = len(names)
    if signed.shape[0]:
        mean_rank = rankdata(signed, axis=1).mean(axis=0)
    else:
        mean_rank = np.full(n_csfs, np.nan)

    # One-sided tests of "i better than j" for every ordered pair i != j.
    first_index, second_index = np.nonzero(~np.eye(n_csfs, dtype=bool))
    difference = signed[:, first_index] - signed[:, second_index]
    raw = np.ones(first_index.shape[0])
    if signed.shape[0]:
        # All-zero differences (identical rankings) give nan: no evidence, p = 1.
        with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            tested = wilcoxon(difference, alternative="less", axis=0).pvalue
        raw = np.where(np.isnan(tested), 1.0, tested)
    p_values = np.full((n_csfs, n_csfs), np.nan)
    p_values[first_index, second_index] = _holm(raw)
    significant = np.zeros((n_csfs, n_csfs), dtype=bool)
    significant[first_index, second_index] = (
        p_values[first_index, second_index] <= alpha
    )

    level = 1.0 - alpha
    intervals = {}
    for column, csf in enumerate(names):
        values = distribution[:, column]
        intervals[csf] = _interval(
            values[~np.isnan(values)], statistic[csf], level, "percentile"
        )
    ranking = [names[i] for i in np.argsort(mean_rank, kind="stable")]
    return ConfidenceComparisonResult(
        names=names,
        metric=name,
        greater_is_better=greater_is_better,
        ranking=ranking,
        mean_rank=dict(zip(names, mean_rank.tolist(), strict=True)),
        statistic=statistic,
        confidence_interval=intervals,
        p_values=p_values,
        significant=significant,
        alpha=float(alpha),
        bootstrap_distribution=distribution,
    )
