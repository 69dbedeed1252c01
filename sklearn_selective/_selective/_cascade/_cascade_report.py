"""What a fitted cascade does on labelled evaluation data, with intervals.

Every reported number is a ratio of two sums of per-sample values (the
coverage is the answered samples over all, a stage's risk its wrong answers
over its answers, ...). A bootstrap resample is a vector of counts, so all
the numbers of all the resamples are two matrix products: ``counts @
numerators`` over ``counts @ denominators``. The resamples and the intervals
are those of :func:`~sklearn_selective.metrics.bootstrap_metric`.
"""

from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.utils import column_or_1d
from sklearn.utils.validation import check_is_fitted

from ..._utils._draws import _check_generator, stream_rng
from ..._utils._json_ready import json_ready
from ..._utils._results import ResultMixin, import_pandas
from ..._utils._sklearn import (
    Interval,
    StrOptions,
    check_matplotlib_support,
    num_samples,
    validate_params,
)
from ...confidence import predict_with_confidence
from ...metrics._bootstrap_statistics import bootstrap_statistics
from ._stages import PERSON, check_stage_costs

# The rows of a report: what each statistic is a ratio of.
_OVERALL = ("coverage", "risk", "expected_cost")
_PER_STAGE = ("share", "risk", "coverage", "alone_coverage", "alone_risk")


@dataclass(frozen=True, eq=False)
class CascadeReport(ResultMixin):
    """What a fitted :class:`SelectiveCascade` does on labelled evaluation
    data, each number with a bootstrap confidence interval.

    Returned by :meth:`SelectiveCascade.report`; see there for what each
    interval covers. Every number is a
    :class:`~sklearn_selective.metrics.BootstrapResult`-like result with
    ``statistic``, ``confidence_interval`` and ``standard_error``.

    Attributes
    ----------
    stage_names : list of str
        The stages' names, from the cheapest.

    person : object
        The name of the person (``reject_label`` if set, else ``"person"``).

    coverage, risk, expected_cost : BootstrapResult
        The cascade's coverage (share of samples answered by some stage), its
        selective risk (error rate of the answers) and its expected cost
        (mean of ``stage_costs`` over the stages each sample passes through).

    stage_share : list of BootstrapResult
        Share of all samples answered by each stage, and last the share sent
        to the person (``n_stages + 1`` entries).

    stage_risk : list of BootstrapResult
        Each stage's error rate among the samples it answers.

    stage_coverage : list of BootstrapResult
        Each stage's coverage: the share it answers of the samples that reach
        it.

    alone_coverage, alone_risk : list of BootstrapResult
        Each stage used alone at its threshold (every sample to it): its
        coverage and selective risk.

    stage_costs : ndarray of shape (n_stages,)
        The cost of one call of each stage (a stage alone costs that per
        sample).

    n_samples : int
        Number of evaluation samples.

    confidence_level : float
        Level of every (two-sided) interval.

    method : str
        Interval method (``"double"``, ``"percentile"``, ``"basic"`` or
        ``"bca"``).

    See Also
    --------
    SelectiveCascade.report : Builds it.
    sklearn_selective.metrics.bootstrap_metric : The same intervals, one
        metric at a time.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn_selective import SelectiveCascade
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> cascade = SelectiveCascade(
    ...     [("cheap", GaussianNB()),
    ...      ("strong", LogisticRegression(max_iter=5000))],
    ...     target_coverage=0.9, stage_costs=[1, 10], random_state=0,
    ... ).fit(X[:300], y[:300])
    >>> report = cascade.report(X[300:], y[300:], random_state=0)
    >>> report.stage_names, report.method
    (['cheap', 'strong'], 'double')
    >>> shares = [round(r.statistic, 2) for r in report.stage_share]
    >>> bool(np.isclose(sum(shares), 1.0, atol=0.02))
    True
    """

    stage_names: list
    person: object
    coverage: object
    risk: object
    expected_cost: object
    stage_share: list = field(repr=False)
    stage_risk: list = field(repr=False)
    stage_coverage: list = field(repr=False)
    alone_coverage: list = field(repr=False)
    alone_risk: list = field(repr=False)
    stage_costs: np.ndarray = field(repr=False)
    n_samples: int = 0
    confidence_level: float = 0.95
    method: str = "percentile"

    _DICT_OPTIONS = ()

    def _rows(self):
        """``(part, statistic, result)`` of every number, in order."""
        rows = [("cascade", name, getattr(self, name)) for name in _OVERALL]
        for k, name in enumerate(self.stage_names):
            rows += [
                (name, "share", self.stage_share[k]),
                (name, "risk", self.stage_risk[k]),
                (name, "coverage", self.stage_coverage[k]),
                (name, "alone_coverage", self.alone_coverage[k]),
                (name, "alone_risk", self.alone_risk[k]),
            ]
        return [*rows, (str(self.person), "share", self.stage_share[-1])]

    def to_dict(self):
        """The report as plain, JSON-serialisable Python values.

        Returns
        -------
        data : dict
            ``n_samples``, ``confidence_level``, ``method``, ``stage_names``,
            ``person``, ``stage_costs`` and ``rows``: one dict per number with
            ``part`` (``"cascade"``, a stage's name or the person),
            ``statistic``, ``value``, ``low``, ``high`` and
            ``standard_error`` (``None`` where undefined).
        """
        rows = [
            {
                "part": part,
                "statistic": statistic,
                "value": result.statistic,
                "low": result.confidence_interval[0],
                "high": result.confidence_interval[1],
                "standard_error": result.standard_error,
            }
            for part, statistic, result in self._rows()
        ]
        return json_ready(
            {
                "n_samples": self.n_samples,
                "confidence_level": self.confidence_level,
                "method": self.method,
                "stage_names": list(self.stage_names),
                "person": str(self.person),
                "stage_costs": self.stage_costs,
                "rows": rows,
            }
        )

    def to_frame(self):
        """The report as a :class:`pandas.DataFrame`, one row per number.

        Returns
        -------
        frame : pandas.DataFrame
            Indexed by ``(part, statistic)``, with columns ``value``, ``low``,
            ``high`` and ``standard_error``.
        """
        pandas = import_pandas("CascadeReport")
        rows = [
            (part, statistic, r.statistic, *r.confidence_interval, r.standard_error)
            for part, statistic, r in self._rows()
        ]
        columns = ["part", "statistic", "value", "low", "high", "standard_error"]
        return pandas.DataFrame(rows, columns=columns).set_index(["part", "statistic"])

    def __str__(self):
        lines = [
            f"CascadeReport on {self.n_samples} samples, "
            f"{self.confidence_level:.0%} intervals ({self.method}):"
        ]
        for part, statistic, result in self._rows():
            low, high = result.confidence_interval
            lines.append(
                f"  {part:>12} {statistic:>14} {result.statistic:8.4f} "
                f"[{low:.4f}, {high:.4f}]"
            )
        return "\n".join(lines)

    def plot(self, ax=None, *, name="cascade"):
        """Coverage against expected cost: the cascade and each stage alone.

        Each point is drawn with its confidence intervals as error bars
        (coverage vertically, expected cost horizontally; a stage alone costs
        its ``stage_costs`` per sample, exactly).

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; a new figure when None.

        name : str, default="cascade"
            Label of the cascade's point in the legend.

        Returns
        -------
        ax : matplotlib Axes
            The axes drawn on.
        """
        check_matplotlib_support("CascadeReport.plot")
        return _plot_coverage_cost(self, ax, name)


def _errors(results):
    """``(values, [[below], [above]])``: the statistics and their interval
    half-widths, as matplotlib's error bars take them."""
    values = np.array([r.statistic for r in results])
    low = np.array([r.confidence_interval[0] for r in results])
    high = np.array([r.confidence_interval[1] for r in results])
    return values, np.vstack([values - low, high - values])


def _plot_coverage_cost(report, ax, name):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots()
    cost, cost_err = _errors([report.expected_cost])
    coverage, coverage_err = _errors([report.coverage])
    ax.errorbar(
        cost, coverage, yerr=coverage_err, xerr=cost_err, fmt="*",
        markersize=12, color="black", capsize=3, label=name,
    )  # fmt: skip
    alone, alone_err = _errors(report.alone_coverage)
    for k, stage in enumerate(report.stage_names):
        ax.errorbar(
            report.stage_costs[k], alone[k], yerr=alone_err[:, [k]], fmt="s",
            markersize=8, capsize=3, label=f"{stage} alone",
        )  # fmt: skip
    ax.set_xlabel("expected cost per sample")
    ax.set_ylabel("coverage")
    ax.set_title(
        f"{report.confidence_level:.0%} intervals, {report.n_samples} samples",
        fontsize="medium",
    )
    ax.legend(loc="best")
    return ax


def _decisions(cascade, X, y):
    """Per-sample ``(stage, wrong, alone_accept, alone_wrong)``: the answering
    stage (``n_stages`` for the person) and whether its answer is wrong, and
    each stage's acceptance and error when it sees every sample."""
    decision = cascade._decide(X)
    index, stage = decision[0], decision[2]
    y = column_or_1d(y)
    if y.shape[0] != num_samples(X):
        raise ValueError(
            f"X and y must describe the same samples: X has {num_samples(X)} "
            f"rows but y has {y.shape[0]} labels."
        )
    wrong = cascade.classes_[index] != y
    accept, alone_wrong = [], []
    for estimator, csf, threshold in zip(
        cascade.estimators_, cascade.csfs_, cascade.thresholds_, strict=True
    ):
        y_pred, score = predict_with_confidence(estimator, X, csf)[:2]
        accept.append(np.asarray(score) >= threshold)
        alone_wrong.append(np.asarray(y_pred) != y)
    return stage, wrong, np.column_stack(accept), np.column_stack(alone_wrong)


def _ratio_columns(stage, wrong, accept, alone_wrong, costs):
    """``(numerators, denominators)`` of shape ``(n_samples, m)``: statistic
    ``j`` on a resample of counts ``c`` is ``c @ numerators[:, j] / c @
    denominators[:, j]``. Order: the cascade's coverage, risk and expected
    cost; each stage's share (and the person's); each stage's risk, coverage,
    alone coverage and alone risk."""
    n_stages = accept.shape[1]
    one = np.ones(stage.shape[0])
    answered = stage < n_stages
    paid = np.cumsum(costs)[np.minimum(stage, n_stages - 1)]
    by = stage[:, None] == np.arange(n_stages + 1)  # one-hot answering stage
    reached = stage[:, None] >= np.arange(n_stages)
    mine = by[:, :n_stages]
    numerators = [answered, answered & wrong, paid, *by.T]
    denominators = [one, answered, one, *([one] * (n_stages + 1))]
    numerators += [*(mine & wrong[:, None]).T, *mine.T, *accept.T]
    denominators += [*mine.T, *reached.T, *([one] * n_stages)]
    numerators += [*(accept & alone_wrong).T]
    denominators += [*accept.T]
    return (
        np.column_stack(numerators).astype(np.float64),
        np.column_stack(denominators).astype(np.float64),
    )


class _Ratios:
    """``self(count_blocks)``: every statistic on each resample, shape
    ``(n_resamples, m)``; ``nan`` where a denominator is 0."""

    block_rows = 1

    def __init__(self, numerators, denominators):
        self.numerators, self.denominators = numerators, denominators

    def on_data(self):
        return _ratio(self.numerators.sum(axis=0), self.denominators.sum(axis=0))

    def __call__(self, count_blocks):
        found = []
        for counts in count_blocks:
            counts = counts.astype(np.float64)
            found.append(_ratio(counts @ self.numerators, counts @ self.denominators))
        return np.concatenate(found)


def _ratio(numerator, denominator):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)


def _names(stage_names, person):
    names = [f"cascade {name}" for name in _OVERALL]
    names += [f"{name} share" for name in (*stage_names, str(person))]
    for statistic in _PER_STAGE[1:]:
        names += [f"{name} {statistic}" for name in stage_names]
    return names


def cascade_report(
    cascade, X, y, *, n_resamples, confidence_level, method, random_state
):
    """The :class:`CascadeReport` of :meth:`SelectiveCascade.report`."""
    stage_names = [name for name, _ in cascade.estimators]
    person = PERSON if cascade.reject_label is None else cascade.reject_label
    n_stages = len(stage_names)
    costs = check_stage_costs(cascade.stage_costs, n_stages)
    stage, wrong, accept, alone_wrong = _decisions(cascade, X, y)
    if stage.shape[0] < 2:
        raise ValueError(
            f"The bootstrap needs at least 2 samples; X holds {stage.shape[0]}."
        )
    ratios = _Ratios(*_ratio_columns(stage, wrong, accept, alone_wrong, costs))
    if isinstance(random_state, Integral):
        rng = stream_rng(int(random_state), "cascade_report")
    else:
        rng = _check_generator(random_state)
    results = bootstrap_statistics(
        _names(stage_names, person),
        ratios.on_data(),
        ratios,
        stage.shape[0],
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        rng=rng,
    )
    overall, rest = results[:3], results[3:]
    share, rest = rest[: n_stages + 1], rest[n_stages + 1 :]
    per_stage = [rest[i * n_stages : (i + 1) * n_stages] for i in range(4)]
    return CascadeReport(
        stage_names,
        person,
        *overall,
        share,
        *per_stage,
        stage_costs=costs,
        n_samples=int(stage.shape[0]),
        confidence_level=float(confidence_level),
        method=overall[0].method,
    )


class CascadeReportMixin:
    """The report of :class:`SelectiveCascade` (needs its fitted state)."""

    @validate_params(
        {
            "X": ["array-like", "sparse matrix"],
            "y": ["array-like"],
            "n_resamples": [Interval(Integral, 1, None, closed="left")],
            "confidence_level": [Interval(Real, 0, 1, closed="neither")],
            "method": [StrOptions({"auto", "double", "percentile", "basic", "BCa"})],
            "random_state": ["random_state", np.random.Generator],
        },
        prefer_skip_nested_validation=True,
    )
    def report(
        self,
        X,
        y,
        *,
        n_resamples=1000,
        confidence_level=0.95,
        method="auto",
        random_state=None,
    ):
        """Coverage, risk and cost of the cascade and of each stage on
        labelled evaluation data, with bootstrap confidence intervals.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Evaluation samples, not the data the thresholds were fitted on
            (those numbers are optimistic: the thresholds were chosen on them).

        y : array-like of shape (n_samples,)
            Their true labels.

        n_resamples : int, default=1000
            Number of bootstrap resamples.

        confidence_level : float in (0, 1), default=0.95
            Level of every two-sided interval.

        method : {"auto", "double", "percentile", "basic", "BCa"}, default="auto"
            Interval method, as in
            :func:`~sklearn_selective.metrics.bootstrap_metric`; ``"auto"`` is
            the double bootstrap up to 500 samples and the percentile interval
            above.

        random_state : int, RandomState instance, Generator or None, default=None
            Source of the resamples (an int seeds the report's own stream).

        Returns
        -------
        report : :class:`CascadeReport`
            ``coverage``, ``risk`` (selective risk) and ``expected_cost`` of
            the cascade; per stage ``stage_share`` (share of all samples it
            answers; the person's last), ``stage_risk`` (error rate among the
            samples it answers), ``stage_coverage`` (share it answers of the
            samples that reach it), and ``alone_coverage`` and ``alone_risk``
            (the stage alone at its threshold, every sample to it). Each is a
            :class:`~sklearn_selective.metrics.BootstrapResult`;
            ``to_frame()``, ``to_dict()``, ``to_json()`` and ``plot()``
            (coverage against expected cost) present them.

        Notes
        -----
        **What each interval covers.** The fitted cascade (models and
        thresholds) is held fixed; the evaluation pairs are i.i.d. draws of
        the population. Each interval covers, with probability about
        ``confidence_level`` over the evaluation draw, the *population* value
        of its number for this fitted cascade: the probability that some stage
        answers (coverage); the probability of a wrong answer given an answer
        (risk); the mean cost of a sample; the probability that stage ``k``
        answers (share), of a wrong answer given that stage ``k`` answers
        (its risk), that stage ``k`` answers given that the sample reaches it
        (its coverage); and the same for stage ``k`` seeing every sample. The
        intervals are marginal (each at its level, not simultaneous), and
        they say nothing about other fits of the cascade (the variation of the
        thresholds over calibration draws is not in them: the guarantee of
        ``confidence_level`` in :meth:`fit` covers that). Measured in
        simulation at 95 % and 200 samples, 12 to 14 wrong answers per stage
        (``benchmarks/bench_coverage.py``, the user guide): the percentile
        intervals cover 0.938-0.958, within two Monte-Carlo standard errors;
        the default (the double bootstrap at that size) 0.954-0.984, never
        less. A number whose denominator is empty on the data (a stage that
        answers nothing) is ``nan``; a risk with fewer than five wrong
        answers has too narrow an interval, as for
        :func:`~sklearn_selective.metrics.bootstrap_metric`.

        Examples
        --------
        >>> from sklearn.datasets import load_breast_cancer
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.naive_bayes import GaussianNB
        >>> from sklearn_selective import SelectiveCascade
        >>> X, y = load_breast_cancer(return_X_y=True)
        >>> cascade = SelectiveCascade(
        ...     [("cheap", GaussianNB()),
        ...      ("strong", LogisticRegression(max_iter=5000))],
        ...     target_coverage=0.9, stage_costs=[1, 10], random_state=0,
        ... ).fit(X[:300], y[:300])
        >>> report = cascade.report(X[300:], y[300:], random_state=0)
        >>> low, high = report.coverage.confidence_interval
        >>> bool(low <= report.coverage.statistic <= high)
        True
        >>> report.to_frame().loc["cheap"].index.tolist()
        ['share', 'risk', 'coverage', 'alone_coverage', 'alone_risk']
        """
        check_is_fitted(self, "thresholds_")
        return cascade_report(
            self,
            X,
            y,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method=method,
            random_state=random_state,
        )
