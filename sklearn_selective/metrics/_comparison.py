"""Paired bootstrap comparisons: of confidence score functions on one set of
predictions, and of whole systems (model + CSF, several runs) on one test set.

Both functions validate their inputs, build one evaluator per (entry, run) and hand
over to the shared core in ``_paired``.
"""

from numbers import Integral, Real

import numpy as np

from .._utils._docstrings import fill_doc
from .._utils._draws import _check_generator
from .._utils._sklearn import Interval, StrOptions, validate_params
from .._utils._validation import _NAMED_LOSSES, _as_float_1d, _check_confidence
from ._metric_registry import METRICS
from ._metric_results import ConfidenceComparisonResult, SystemComparisonResult
from ._resampling._paired import (
    _check_entries,
    _comparison_kwargs,
    _comparison_metric,
    _evaluator,
    _paired_comparison,
    _paired_distribution,
)
from ._resampling._resamples import (
    _RESAMPLING_CONSTRAINTS,
    _as_samples,
    _check_resampling_inputs,
)


@validate_params(
    {
        "confidences": [dict],
        "metric": [StrOptions(set(METRICS)), callable],
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
    one-sided paired bootstrap test of the metric difference asks whether
    ``i`` is better than ``j`` on the population; the ``n_csfs * (n_csfs -
    1)`` p-values are adjusted for multiple testing by Holm's method [Holm],
    so that ``significant`` holds the family-wise error at ``alpha``.
    Intervals are percentile bootstrap intervals [Efron]. The paper's
    Wilcoxon test over the resamples is reported as ``ranking_stability``.

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

    %(comparison_resampling)s

    %(loss)s

        Not used by ``"uq_c_index"``, whose ``y_pred`` holds probabilities.

    %(labels)s

    **metric_kwargs : dict
        Further keyword arguments of the metric: ``aurc_estimator`` of the AURC
        family, ``coverage`` or ``risk`` of the working points.

    Returns
    -------
    result : ConfidenceComparisonResult
        With ``ranking`` (names, best first), ``mean_rank``, ``statistic``
        and ``confidence_interval`` (dicts keyed by name), ``p_values``,
        ``significant`` and ``ranking_stability`` (matrices in the order of
        ``names``: entry ``[i, j]`` is about CSF ``i`` being better than CSF
        ``j``) and the paired
        ``bootstrap_distribution``. ``print(result)`` shows the ranking table,
        ``result.to_frame()`` returns it as a DataFrame and
        ``result.to_json()`` as JSON.

    Warns
    -----
    UndefinedMetricWarning
        When the metric is undefined on some resamples (e.g. ``uq_auc`` on a
        resample without failures). Such resamples are left out of the
        ranks, the tests and the intervals.

    See Also
    --------
    bootstrap_metric : Confidence interval of a single metric.
    compare_systems : The same protocol for whole systems (model + CSF), each
        with its own predictions and optionally several training runs.
    augrc : The default metric, recommended by [AUGRC].

    Notes
    -----
    ``p_values[i, j]`` is ``F(d / sd(D*))`` before the Holm adjustment, where
    ``d`` is the observed difference of the two CSFs' metric (signed so that
    lower is better), ``D*`` the same difference on each of the ``B`` paired
    resamples and ``F`` the distribution function of Student's t with ``n - 1``
    degrees of freedom (``n`` test samples): a one-sided test with the
    bootstrap standard error [Efron], with the usual small-sample widening.
    With equal CSFs on the population, the family-wise rate of a false
    ``significant`` stays at or below ``alpha`` from 50 samples on (measured in
    ``benchmarks/bench_coverage.py``; the user guide page "What each interval
    covers" lists the numbers and the power). A pair whose resample
    differences do not vary gets a p-value of 1.

    ``ranking_stability`` holds the [AUGRC] and [Wiesenfarth] procedure: a
    one-sided Wilcoxon signed-rank test that treats the ``B`` resample values
    as independent paired observations. They are resamples of one test set,
    centred near the observed difference, so with more resamples any
    non-zero observed difference gets a small value (between equal CSFs it
    flags some pair in 92-100 % of test sets, same page): it says how stable the
    ranking is under resampling, not that one CSF is better. Pairs whose
    differences are all zero (identical rankings) get 1 in both.

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
    metric, name = _comparison_metric(metric)
    names = _check_entries(confidences, "confidences", "confidence scores")
    first = _as_float_1d(confidences[names[0]], f"confidences[{names[0]!r}]")
    y_true, y_pred, _, sample_weight = _check_resampling_inputs(
        y_true, y_pred, first, sample_weight
    )
    n_samples = first.shape[0]
    metric_kwargs = _comparison_kwargs(name, loss, labels, metric_kwargs)
    statistic, entries = {}, []
    for csf in names:
        scores = _as_float_1d(confidences[csf], f"confidences[{csf!r}]")
        if scores.shape[0] != n_samples:
            raise ValueError(
                f"Every confidence array needs one score per sample: "
                f"{names[0]!r} has {n_samples} but {csf!r} has {scores.shape[0]}."
            )
        statistic[csf], evaluate = _evaluator(
            metric, y_true, y_pred, scores, sample_weight, metric_kwargs
        )
        entries.append([evaluate])
    rng = _check_generator(random_state)
    distribution = _paired_distribution(
        entries, n_samples, sample_weight, n_resamples, rng
    )
    return _paired_comparison(
        ConfidenceComparisonResult,
        names,
        name,
        statistic,
        distribution,
        alpha,
        n_samples=n_samples,
    )


def _system_runs(name, system, n_samples):
    """The runs of one system as a list of ``(y_pred, confidence)`` pairs."""
    if not isinstance(system, tuple | list) or len(system) != 2:
        raise ValueError(
            f"systems[{name!r}] must be a pair (y_pred, confidence); got "
            f"{type(system).__name__}."
        )
    y_pred, confidence = system
    confidence = np.asarray(confidence)
    if confidence.ndim == 2:  # one row per run
        y_pred = np.asarray(y_pred)
        if y_pred.shape[:1] != confidence.shape[:1]:
            raise ValueError(
                f"systems[{name!r}] has {confidence.shape[0]} runs of confidence "
                f"scores (rows) but y_pred of shape {y_pred.shape}: give y_pred "
                "one entry per run along its first axis."
            )
        pairs = list(zip(y_pred, confidence, strict=True))
    else:
        pairs = [(y_pred, confidence)]
    runs = []
    for y_run, confidence_run in pairs:
        try:
            confidence_run = _check_confidence(confidence_run)
            if confidence_run.shape[0] != n_samples:
                raise ValueError(
                    f"confidence must have one score per test sample: y_true has "
                    f"{n_samples} samples but confidence has "
                    f"{confidence_run.shape[0]}."
                )
            y_run = _as_samples(y_run, "y_pred", n_samples)
        except ValueError as error:
            raise ValueError(f"systems[{name!r}]: {error}") from error
        runs.append((y_run, confidence_run))
    return runs


@validate_params(
    {
        "y_true": ["array-like"],
        "systems": [dict],
        "metric": [StrOptions(set(METRICS)), callable],
        "n_resamples": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, 1, closed="neither")],
        "random_state": _RESAMPLING_CONSTRAINTS["random_state"],
        "sample_weight": ["array-like", None],
        "loss": [StrOptions(set(_NAMED_LOSSES)), callable],
        "labels": ["array-like", None],
    },
    # loss, labels and metric_kwargs are validated by the metric itself.
    prefer_skip_nested_validation=False,
)
@fill_doc
def compare_systems(
    y_true,
    systems,
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
    """Rank whole selective classification systems with a paired bootstrap.

    A *system* is a model with its confidence score function (CSF); each has
    its own predictions and confidences on the same test samples, optionally
    from several runs (e.g. training seeds). The protocol of [AUGRC] Sec. 4:

    1. the same ``n_resamples`` bootstrap resamples of the test samples are
       used for every run of every system ("paired bootstrap within runs");
    2. a system's value on a resample is the mean of the metric over its runs
       (aggregation across runs);
    3. on each resample the systems are ranked by that value (rank 1 = best,
       ties share the mean rank) and the ranks are averaged over resamples
       ("rank-then-aggregate");
    4. for every ordered pair ``(i, j)`` a one-sided paired bootstrap test of
       the difference asks whether ``i`` is better than ``j`` on the
       population, and the ``n_systems * (n_systems - 1)`` p-values are
       adjusted by Holm's method [Holm] (the paper's Wilcoxon test over the
       resamples is kept as ``ranking_stability``; see
       :func:`compare_confidence_functions`).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        True labels of the test samples, shared by every system.

    systems : dict
        Maps a name to a pair ``(y_pred, confidence)``. For one run,
        ``confidence`` has shape (n_samples,) and ``y_pred`` holds labels
        (n_samples,) or probabilities (n_samples, n_classes). For several runs,
        ``confidence`` has shape (n_runs, n_samples) and ``y_pred`` one entry
        per run along its first axis. Systems may have different numbers of
        runs. At least two systems.

    metric : str or callable, default="augrc"
        One of this package's scalar metrics, by name or as the function; see
        :func:`compare_confidence_functions`.

    %(comparison_resampling)s

    loss : {"zero_one", "log_loss", "brier"} or callable, default="zero_one"
        Per-sample loss of each run's predictions, as in :func:`augrc`
        (``"log_loss"`` and ``"brier"`` need probabilities in ``y_pred``).
        Not used by ``"uq_c_index"``.

    %(labels)s

    **metric_kwargs : dict
        Further keyword arguments of the metric: ``aurc_estimator`` of the AURC
        family, ``coverage`` or ``risk`` of the working points.

    Returns
    -------
    result : SystemComparisonResult
        With ``ranking`` (names, best first), ``mean_rank``, ``statistic``
        (mean over runs on the original data), ``run_statistic`` (one value
        per run), ``n_runs``, ``confidence_interval`` (percentile interval of
        the run-averaged metric), ``p_values`` and ``significant`` (entry
        ``[i, j]``: system ``i`` is better than system ``j``) and the paired
        ``bootstrap_distribution`` of run-averaged values.
        ``print(result)`` shows the ranking table, ``result.to_frame()``
        returns it as a DataFrame and ``result.to_json()`` as JSON.

    Warns
    -----
    UndefinedMetricWarning
        When the metric is undefined on some resamples for some run. Such
        resamples are left out of the ranks, the tests and the intervals.

    See Also
    --------
    compare_confidence_functions : Several CSFs of one set of predictions.
    bootstrap_metric : Confidence interval of a single metric.

    Notes
    -----
    The tests resample the test set given the runs: they are about the
    systems' population metric for these trained runs, not the variability
    of training. ``p_values`` and ``ranking_stability`` are computed as in
    :func:`compare_confidence_functions`. Pairs whose resample values are all
    equal get a p-value of 1.

    References
    ----------
    %(ref_augrc)s
    .. [Holm] Holm, S. "A simple sequentially rejective multiple test
       procedure." Scandinavian Journal of Statistics 6(2), 65-70 (1979).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.metrics import compare_systems
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.integers(0, 2, 300)
    >>> def runs(accuracy, separation, n_runs=3):
    ...     correct = rng.random((n_runs, 300)) < accuracy
    ...     y_pred = np.where(correct, y_true, 1 - y_true)
    ...     return y_pred, rng.random((n_runs, 300)) + separation * correct
    >>> systems = {"weak": runs(0.7, 0.1), "strong": runs(0.9, 0.5),
    ...            "middle": runs(0.8, 0.3)}
    >>> result = compare_systems(y_true, systems, n_resamples=100,
    ...                          random_state=0)
    >>> result.ranking
    ['strong', 'middle', 'weak']
    >>> result.n_runs["strong"]
    3
    >>> bool(result.significant[1, 0])  # "strong" is better than "weak"
    True
    """
    metric, name = _comparison_metric(metric)
    names = _check_entries(systems, "systems", "(y_pred, confidence) pairs")
    y_true = np.asarray(y_true)
    if y_true.ndim != 1:
        raise ValueError(
            f"y_true must be a 1-D array of labels; got shape {y_true.shape}."
        )
    n_samples = y_true.shape[0]
    runs = {
        system: _system_runs(system, systems[system], n_samples) for system in names
    }
    first_pred, first_confidence = runs[names[0]][0]
    y_true, _, _, sample_weight = _check_resampling_inputs(
        y_true, first_pred, first_confidence, sample_weight
    )
    metric_kwargs = _comparison_kwargs(name, loss, labels, metric_kwargs)
    run_statistic, entries = {}, []
    for system in names:
        pairs = [
            _evaluator(metric, y_true, y_run, confidence, sample_weight, metric_kwargs)
            for y_run, confidence in runs[system]
        ]
        run_statistic[system] = [value for value, _ in pairs]
        entries.append([evaluate for _, evaluate in pairs])
    statistic = {
        system: float(np.mean(values)) for system, values in run_statistic.items()
    }
    rng = _check_generator(random_state)
    distribution = _paired_distribution(
        entries, n_samples, sample_weight, n_resamples, rng
    )
    return _paired_comparison(
        SystemComparisonResult,
        names,
        name,
        statistic,
        distribution,
        alpha,
        n_samples=n_samples,
        n_runs={system: len(runs[system]) for system in names},
        run_statistic=run_statistic,
    )
