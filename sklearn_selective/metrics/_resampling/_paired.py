"""The paired-comparison core of :func:`compare_confidence_functions` and
:func:`compare_systems`.

Both compare named *entries* (CSFs, or whole systems with several runs) on the same
test samples with the protocol of [AUGRC] Sec. 4.1 (after Wiesenfarth et al. 2021):
every entry is evaluated on the same bootstrap resamples, an entry's value on a
resample is the mean over its runs, entries are ranked on each resample and the ranks
averaged ("rank-then-aggregate").

Two statements about each ordered pair, both Holm-adjusted over the pairs:

- ``p_values``: a test of the difference between the two populations' metric,
  H0 ``theta_i >= theta_j`` (i is not better): the observed difference over its
  paired-bootstrap standard error; ``significant`` holds the family-wise error at
  ``alpha`` (measured in ``benchmarks/bench_coverage.py``).
- ``ranking_stability``: the paper's one-sided Wilcoxon signed-rank test on the B
  paired resample values taken as independent observations. The resamples are not
  independent draws from the population (they scatter around the observed
  difference), so any non-zero observed difference becomes "significant" as B
  grows: it measures how stable the ranking is under resampling of the test set,
  not a difference between the populations.
"""

import warnings

import numpy as np
from scipy.stats import rankdata, wilcoxon
from scipy.stats import t as student_t

from ..._utils._draws import _bootstrap_counts
from ..._utils._intervals import _interval, _warn_undefined
from .._core._area_options import uses_area_options
from .._metric_registry import METRICS, PROBABILITIES, fast_entry, resolve_metric
from ._resamples import _evaluate_counts, _positive_weight


def _holm(p_values):
    """Holm's step-down adjusted p-values (Holm 1979), in the input order."""
    p_values = np.asarray(p_values, dtype=np.float64)
    n_tests = p_values.shape[0]
    order = np.argsort(p_values, kind="stable")
    steps = (n_tests - np.arange(n_tests)) * p_values[order]
    adjusted = np.empty(n_tests)
    adjusted[order] = np.minimum(np.maximum.accumulate(steps), 1.0)
    return adjusted


def _comparison_metric(metric):
    """The package metric and its name; a ValueError for anything else."""
    metric = resolve_metric(metric)
    entry = fast_entry(metric)
    if entry is None:
        raise ValueError(
            "metric must be one of this package's scalar metrics, by name or as the "
            f"function: {sorted(METRICS)}; got {metric!r}."
        )
    return metric, entry.name


def _comparison_kwargs(name, loss, labels, metric_kwargs):
    """Keyword arguments of the metric: a metric of probabilities takes no loss."""
    if PROBABILITIES not in METRICS[name].needs:
        return {**metric_kwargs, "loss": loss, "labels": labels}
    if not (isinstance(loss, str) and loss == "zero_one"):
        raise ValueError(
            f"{name} has no loss parameter: it uses the probabilities in "
            "y_pred. Leave loss at its default."
        )
    return {**metric_kwargs, "labels": labels}


def _check_entries(entries, what, kind):
    if len(entries) < 2:
        raise ValueError(
            f"{what} must map at least two names to {kind}; got {len(entries)}."
        )
    names = list(entries)
    as_text = [str(name) for name in names]
    if len(set(as_text)) < len(names):
        same = sorted({text for text in as_text if as_text.count(text) > 1})
        raise ValueError(
            f"{what} has names that read the same as text ({same}, e.g. 1 and "
            "'1'): the tables and JSON of the result would merge them. Give each "
            "entry a distinct name."
        )
    return names


def _evaluator(metric, y_true, y_pred, confidence, sample_weight, metric_kwargs):
    """The metric on the data (a float) and on count vectors (a function)."""
    if uses_area_options(metric_kwargs):
        raise ValueError(
            "Paired comparisons evaluate the metrics vectorised, without the options "
            "coverage_range, class_balanced, aurc_estimator='trapezoid' and "
            "oracle='asymptotic'; compare with bootstrap_metric per system instead."
        )
    weight_kwarg = {} if sample_weight is None else {"sample_weight": sample_weight}
    value = float(metric(y_true, y_pred, confidence, **weight_kwarg, **metric_kwargs))
    evaluate = fast_entry(metric).fast_path(
        y_true, y_pred, confidence, sample_weight, **metric_kwargs
    )
    return value, evaluate


def _paired_distribution(entries, n_samples, sample_weight, n_resamples, rng):
    """Values of every entry on the same resamples, shape ``(n_resamples, n)``.

    ``entries`` holds one list of evaluators (one per run) per entry; an entry's
    value on a resample is the mean over its runs (nan if any run is undefined).
    """
    positive = _positive_weight(sample_weight)
    blocks = []
    for counts in _bootstrap_counts(rng, n_samples, n_resamples):
        columns = [
            np.mean([_evaluate_counts(run, counts, positive) for run in runs], axis=0)
            for runs in entries
        ]
        blocks.append(np.column_stack(columns))
    return np.concatenate(blocks)


def _ordered_pairs(n_entries):
    return np.nonzero(~np.eye(n_entries, dtype=bool))


def _as_matrix(raw, n_entries):
    """Holm-adjust the raw p-values of the ordered pairs; an (n, n) matrix."""
    first, second = _ordered_pairs(n_entries)
    p_values = np.full((n_entries, n_entries), np.nan)
    p_values[first, second] = _holm(raw)
    return p_values


def _paired_bootstrap_p_values(statistic, signed, n_samples):
    """Holm-adjusted p-values that column i is lower (better) than column j.

    For the ordered pair ``(i, j)`` the null hypothesis is ``theta_i >= theta_j``
    and the statistic the observed difference ``d = statistic_i - statistic_j``
    (signed so that lower is better), divided by the standard deviation of the
    paired bootstrap differences ``D* = signed_i - signed_j``: ``p = F(d /
    sd(D*))`` with ``F`` Student's t distribution with ``n_samples - 1`` degrees
    of freedom, the one-sided test with the bootstrap standard error (Efron and
    Tibshirani 1993, Sec. 16.4) with the small-sample widening of a t test. A
    pair whose resample differences do not vary (identical rankings, or a
    difference the resamples cannot weigh) gets p = 1.
    """
    n_resamples, n_entries = signed.shape
    first, second = _ordered_pairs(n_entries)
    raw = np.ones(first.shape[0])
    if n_resamples < 2:
        return _as_matrix(raw, n_entries)
    difference = statistic[first] - statistic[second]
    spread = np.std(signed[:, first] - signed[:, second], axis=0, ddof=1)
    usable = (spread > 0) & np.isfinite(difference)
    raw[usable] = student_t.cdf(
        difference[usable] / spread[usable], df=max(n_samples - 1, 1)
    )
    return _as_matrix(raw, n_entries)


def _ranking_stability(signed):
    """Holm-adjusted one-sided Wilcoxon p-values that column i is lower than j.

    Pairs are tested one at a time: a pair whose differences are all zero (two
    entries that rank identically) gets p = 1 without calling the test, which
    older scipy versions refuse for all-zero differences.
    """
    n_entries = signed.shape[1]
    first, second = _ordered_pairs(n_entries)
    raw = np.ones(first.shape[0])
    for test, (i, j) in enumerate(zip(first, second, strict=True)):
        difference = signed[:, i] - signed[:, j]
        if not np.any(difference):
            continue
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            warnings.simplefilter("ignore", UserWarning)
            p_value = wilcoxon(difference, alternative="less").pvalue
        raw[test] = 1.0 if np.isnan(p_value) else p_value
    return _as_matrix(raw, n_entries)


def _paired_comparison(
    result_class, names, name, statistic, distribution, alpha, n_samples, **extra
):
    """Ranks, tests and intervals of a paired bootstrap distribution; a result."""
    n_resamples, n_entries = distribution.shape
    defined = ~np.isnan(distribution).any(axis=1)
    _warn_undefined(np.count_nonzero(~defined), n_resamples, "resamples")
    greater_is_better = METRICS[name].greater_is_better
    # Signed so that lower is better.
    signed = distribution[defined] * (-1.0 if greater_is_better else 1.0)
    if signed.shape[0]:
        mean_rank = rankdata(signed, axis=1).mean(axis=0)
        signed_statistic = np.array([statistic[entry] for entry in names]) * (
            -1.0 if greater_is_better else 1.0
        )
        p_values = _paired_bootstrap_p_values(signed_statistic, signed, n_samples)
        stability = _ranking_stability(signed)
    else:
        mean_rank = np.full(n_entries, np.nan)
        p_values = np.where(np.eye(n_entries, dtype=bool), np.nan, 1.0)
        stability = p_values.copy()
    significant = p_values <= alpha  # nan on the diagonal compares False

    intervals = {}
    for column, entry in enumerate(names):
        values = distribution[:, column]
        intervals[entry] = _interval(
            values[~np.isnan(values)], statistic[entry], 1.0 - alpha, "percentile"
        )
    ranking = [names[i] for i in np.argsort(mean_rank, kind="stable")]
    return result_class(
        names=names,
        metric=name,
        greater_is_better=greater_is_better,
        ranking=ranking,
        mean_rank=dict(zip(names, mean_rank.tolist(), strict=True)),
        statistic=statistic,
        confidence_interval=intervals,
        p_values=p_values,
        significant=significant,
        ranking_stability=stability,
        alpha=float(alpha),
        bootstrap_distribution=distribution,
        **extra,
    )
