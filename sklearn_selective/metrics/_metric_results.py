"""Result objects of the bootstrap, the paired comparisons and the groups.

Each result keeps its numbers as attributes, prints a readable summary, and converts
to data: ``to_dict()`` gives plain Python values (``nan`` as ``None``, arrays as
lists) that :func:`json.dumps` accepts with ``allow_nan=False``, ``to_json()`` is that
dictionary as JSON text, and ``to_frame()`` gives a :class:`pandas.DataFrame`
(pandas is optional and imported only there).
"""

import textwrap
from dataclasses import dataclass, field

import numpy as np

from .._utils._intervals import ConfidenceInterval
from .._utils._json_ready import json_ready
from .._utils._results import ResultMixin
from .._utils._results import import_pandas as _import_pandas


@dataclass(frozen=True, eq=False)
class BootstrapResult(ResultMixin):
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

    metric : str or None
        Name of the metric (the function's ``__name__`` for a callable).

    confidence_level : float or None
        Confidence level of the interval.

    method : str or None
        Interval method: ``"percentile"``, ``"basic"`` or ``"bca"``.
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    bootstrap_distribution: np.ndarray = field(repr=False)
    metric: str | None = None
    confidence_level: float | None = None
    method: str | None = None

    def __str__(self):
        low, high = self.confidence_interval
        level = "" if self.confidence_level is None else f"{self.confidence_level:.0%} "
        return (
            f"{self.metric or 'statistic'} = {self.statistic:.4g}, {level}CI "
            f"[{low:.4g}, {high:.4g}] ({self.method or 'bootstrap'}, "
            f"{self.bootstrap_distribution.shape[0]} resamples), standard error "
            f"{self.standard_error:.3g}"
        )

    def to_dict(self, *, include_distribution=False):
        """The result as plain, JSON-serialisable Python values.

        Parameters
        ----------
        include_distribution : bool, default=False
            Whether to include ``bootstrap_distribution`` as a list.

        Returns
        -------
        data : dict
            Keys ``metric``, ``statistic``, ``confidence_interval`` (a list
            ``[low, high]``), ``confidence_level``, ``method``,
            ``standard_error``, ``n_resamples`` and optionally
            ``bootstrap_distribution``; ``nan`` becomes ``None``.
        """
        data = {
            "metric": self.metric,
            "statistic": self.statistic,
            "confidence_interval": list(self.confidence_interval),
            "confidence_level": self.confidence_level,
            "method": self.method,
            "standard_error": self.standard_error,
            "n_resamples": self.bootstrap_distribution.shape[0],
        }
        if include_distribution:
            data["bootstrap_distribution"] = self.bootstrap_distribution
        return json_ready(data)

    def to_frame(self):
        """The result as a one-row :class:`pandas.DataFrame` (needs pandas).

        Returns
        -------
        frame : pandas.DataFrame
            Indexed by the metric name, with columns ``statistic``,
            ``ci_low``, ``ci_high``, ``standard_error``, ``confidence_level``,
            ``method`` and ``n_resamples``.
        """
        pandas = _import_pandas(type(self).__name__)
        low, high = self.confidence_interval
        row = {
            "statistic": self.statistic,
            "ci_low": low,
            "ci_high": high,
            "standard_error": self.standard_error,
            "confidence_level": self.confidence_level,
            "method": self.method,
            "n_resamples": self.bootstrap_distribution.shape[0],
        }
        return pandas.DataFrame([row], index=pandas.Index([self.metric], name="metric"))


_COMPARISON_TABLES = ("ranking", "p_values", "ranking_stability", "bootstrap")


@dataclass(frozen=True, eq=False)
class _ComparisonResult(ResultMixin):
    """Fields, summary and conversions shared by the paired comparisons."""

    names: list
    metric: str
    greater_is_better: bool
    ranking: list
    mean_rank: dict
    statistic: dict
    confidence_interval: dict
    p_values: np.ndarray = field(repr=False)
    significant: np.ndarray = field(repr=False)
    ranking_stability: np.ndarray = field(repr=False)
    alpha: float
    bootstrap_distribution: np.ndarray = field(repr=False)

    def _better_than(self, name):
        row = self.significant[self.names.index(name)]
        return [self.names[j] for j in np.flatnonzero(row)]

    def _extra_columns(self, name):
        """Further per-name columns of the ranking table (subclasses)."""
        return {}

    def _rows(self):
        rows = []
        for rank, name in enumerate(self.ranking, start=1):
            low, high = self.confidence_interval[name]
            rows.append(
                {
                    "rank": rank,
                    "name": name,
                    "mean_rank": self.mean_rank[name],
                    "statistic": self.statistic[name],
                    "ci_low": low,
                    "ci_high": high,
                    **self._extra_columns(name),
                    "significantly_better_than": self._better_than(name),
                }
            )
        return rows

    def __str__(self):
        direction = "higher" if self.greater_is_better else "lower"
        n_resamples = self.bootstrap_distribution.shape[0]
        level = f"{100 * (1 - self.alpha):g}% CI"
        lines = [
            f"{self.metric} ({direction} is better), {n_resamples} paired bootstrap "
            f"resamples; paired bootstrap tests of the differences, Holm-adjusted, "
            f"alpha={self.alpha:g}"
        ]
        width = max(4, *(len(str(name)) for name in self.names))
        lines.append(
            f"{'rank':>4}  {'name':<{width}}  {'mean rank':>9}  "
            f"{self.metric:>10}  {level:<20}  significantly better than"
        )
        for row in self._rows():
            interval = f"[{row['ci_low']:.4g}, {row['ci_high']:.4g}]"
            better = ", ".join(map(str, row["significantly_better_than"]))
            lines.append(
                f"{row['rank']:>4}  {row['name']!s:<{width}}  "
                f"{row['mean_rank']:>9.2f}  {row['statistic']:>10.4g}  "
                f"{interval:<20}  {better or '-'}"
            )
        return "\n".join(lines)

    def to_dict(self, *, include_distribution=False):
        """The result as plain, JSON-serialisable Python values.

        Parameters
        ----------
        include_distribution : bool, default=False
            Whether to include ``bootstrap_distribution`` (a list per name).

        Returns
        -------
        data : dict
            ``metric``, ``greater_is_better``, ``alpha``, ``n_resamples``,
            ``names``, ``ranking``, ``table`` (one dict per name, best first:
            rank, mean rank, statistic, interval and the names it is
            significantly better than), ``p_values`` (``p_values[a][b]``: the
            adjusted p-value of "a is better than b"), ``ranking_stability``
            (the same layout) and optionally ``bootstrap_distribution``;
            ``nan`` becomes ``None``.
        """
        names = [str(name) for name in self.names]

        def pairs(matrix):
            return {
                a: {b: matrix[i, j] for j, b in enumerate(names) if i != j}
                for i, a in enumerate(names)
            }

        data = {
            "metric": self.metric,
            "greater_is_better": self.greater_is_better,
            "alpha": self.alpha,
            "n_resamples": self.bootstrap_distribution.shape[0],
            "names": names,
            "ranking": [str(name) for name in self.ranking],
            # Names as text throughout, as in "names": a tuple name stays "(1, 2)".
            "table": [
                {
                    **row,
                    "name": str(row["name"]),
                    "significantly_better_than": [
                        str(name) for name in row["significantly_better_than"]
                    ],
                }
                for row in self._rows()
            ],
            "p_values": pairs(self.p_values),
            "ranking_stability": pairs(self.ranking_stability),
        }
        if include_distribution:
            data["bootstrap_distribution"] = {
                name: self.bootstrap_distribution[:, j] for j, name in enumerate(names)
            }
        return json_ready(data)

    def to_frame(self, table="ranking"):
        """A table of the result as a :class:`pandas.DataFrame` (needs pandas).

        Parameters
        ----------
        table : {"ranking", "p_values", "ranking_stability", "bootstrap"}, \
                default="ranking"
            ``"ranking"``: one row per name, best first, indexed by name,
            with columns ``rank``, ``mean_rank``, ``statistic``, ``ci_low``,
            ``ci_high`` and ``significantly_better_than`` (a list of names).
            ``"p_values"``: the Holm-adjusted p-values, entry ``[a, b]`` for
            "a is better than b"; ``"ranking_stability"`` the same layout.
            ``"bootstrap"``: the paired bootstrap
            distribution, one column per name and one row per resample.

        Returns
        -------
        frame : pandas.DataFrame
        """
        if table not in _COMPARISON_TABLES:
            raise ValueError(
                f"table must be one of {list(_COMPARISON_TABLES)}; got {table!r}."
            )
        pandas = _import_pandas(type(self).__name__)
        if table in ("p_values", "ranking_stability"):
            index = pandas.Index(self.names, name="better")
            columns = pandas.Index(self.names, name="than")
            return pandas.DataFrame(getattr(self, table), index=index, columns=columns)
        if table == "bootstrap":
            columns = pandas.Index(self.names, name="name")
            frame = pandas.DataFrame(self.bootstrap_distribution, columns=columns)
            frame.index.name = "resample"
            return frame
        return pandas.DataFrame(self._rows()).set_index("name")


@dataclass(frozen=True, eq=False)
class ConfidenceComparisonResult(_ComparisonResult):
    """Result of :func:`compare_confidence_functions`.

    Per-CSF quantities are dictionaries keyed by the names of ``confidences``;
    matrices follow the order of :attr:`names`. ``print(result)`` shows the
    ranking table; ``to_frame()``, ``to_dict()`` and ``to_json()`` return it as
    data.

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
        Holm-adjusted p-value of the one-sided paired bootstrap test that
        CSF ``i`` is better than CSF ``j`` on the population (null: it is not);
        ``nan`` on the diagonal.

    significant : ndarray of shape (n_csfs, n_csfs), dtype=bool
        ``p_values <= alpha``: CSF ``i`` is significantly better than ``j``.
        The probability of any false ``True`` is at most ``alpha``
        (family-wise, over all pairs).

    ranking_stability : ndarray of shape (n_csfs, n_csfs)
        The [AUGRC] paper's procedure: Holm-adjusted p-values of one-sided
        Wilcoxon signed-rank tests on the paired resample values. They tell how
        stably CSF ``i`` ranks above ``j`` when the test set is resampled, not
        whether ``i`` is better on the population: with more resamples any
        observed difference gets a small value. Use it to reproduce the paper's
        significance maps, ``significant`` for claims.

    alpha : float
        Family-wise significance level.

    bootstrap_distribution : ndarray of shape (n_resamples, n_csfs)
        The metric of every CSF on every resample; ``nan`` where undefined.
    """


@dataclass(frozen=True, eq=False)
class SystemComparisonResult(_ComparisonResult):
    """Result of :func:`compare_systems`.

    The attributes of :class:`ConfidenceComparisonResult`, about systems
    instead of CSFs, where every value of a system is the mean over its runs,
    and two more (``n_runs``, ``run_statistic``).

    Attributes
    ----------
    %(comparison_attributes)s

    n_runs : dict
        Number of runs (e.g. training seeds) of each system.

    run_statistic : dict
        The metric of each run of each system on the original data, a list
        per system; ``statistic`` is its mean.
    """

    n_runs: dict = field(default_factory=dict)
    run_statistic: dict = field(default_factory=dict, repr=False)

    def _extra_columns(self, name):
        return {"n_runs": self.n_runs[name]}


def _shared_attributes(doc):
    """The Attributes entries of a comparison result's docstring, dedented."""
    entries = doc.split("----------\n", 1)[1]
    entries = textwrap.dedent(entries).strip().replace("CSF", "system")
    return entries.replace("n_csfs", "n_systems").replace(
        "``confidences``", "``systems``"
    )


# One description of the attributes the two comparison results share.
SystemComparisonResult.__doc__ = SystemComparisonResult.__doc__.replace(
    "%(comparison_attributes)s",
    textwrap.indent(
        _shared_attributes(ConfidenceComparisonResult.__doc__), "    "
    ).lstrip(),
)


@dataclass(frozen=True, eq=False)
class MetricByGroupResult(ResultMixin):
    """Result of :func:`metric_by_group`.

    Attributes
    ----------
    metric : str
        Name of the metric.

    greater_is_better : bool
        Whether a larger value is better; decides the worst group.

    groups : ndarray of shape (n_groups,)
        The group labels, sorted.

    values : ndarray of shape (n_groups,)
        The metric on each group's samples (``nan`` where undefined).

    n_samples : ndarray of shape (n_groups,)
        Number of samples of each group.

    worst_group : object or None
        The group with the worst defined value (the largest value when lower
        is better); None when no value is defined.

    worst_value : float
        Its value (``nan`` when none is defined).

    confidence_interval : ndarray of shape (n_groups, 2) or None
        Bootstrap interval ``(low, high)`` of each group on its own, at
        ``confidence_level``: the default interval of :func:`bootstrap_metric`
        at the group's size (the double bootstrap up to 500 samples, see its
        ``method``), when ``n_resamples`` was given, else None.

    simultaneous_interval : ndarray of shape (n_groups, 2) or None
        The same method's intervals at level ``1 - (1 - confidence_level) /
        n_groups`` (Bonferroni), which cover every group's value at once with
        probability at least ``confidence_level``: the ones that back a claim
        about the worst group (which group it is, how bad it is), since that
        group is chosen after looking at all of them. None without
        ``n_resamples``.

    confidence_level : float or None
        Level of ``confidence_interval`` and the joint level of
        ``simultaneous_interval``.
    """

    metric: str
    greater_is_better: bool
    groups: np.ndarray
    values: np.ndarray
    n_samples: np.ndarray
    worst_group: object
    worst_value: float
    confidence_interval: np.ndarray | None = field(default=None, repr=False)
    confidence_level: float | None = None
    simultaneous_interval: np.ndarray | None = field(default=None, repr=False)

    def to_dict(self, *, include_distribution=False):
        """The result as plain, JSON-serialisable Python values.

        Parameters
        ----------
        include_distribution : bool, default=False
            Accepted for the same signature as the other results; a
            ``MetricByGroupResult`` keeps no bootstrap distribution.

        Returns
        -------
        data : dict
            ``metric``, ``greater_is_better``, ``worst_group``,
            ``worst_value``, ``confidence_level`` and ``table`` (one dict per
            group: ``group``, ``value``, ``n_samples``, and with intervals
            ``ci_low``, ``ci_high``, ``simultaneous_low``,
            ``simultaneous_high``); ``nan`` becomes ``None``.
        """
        table = []
        for index, group in enumerate(self.groups.tolist()):
            row = {
                "group": group,
                "value": self.values[index],
                "n_samples": self.n_samples[index],
            }
            if self.confidence_interval is not None:
                row["ci_low"], row["ci_high"] = self.confidence_interval[index]
                low, high = self.simultaneous_interval[index]
                row["simultaneous_low"], row["simultaneous_high"] = low, high
            table.append(row)
        return json_ready(
            {
                "metric": self.metric,
                "greater_is_better": self.greater_is_better,
                "worst_group": self.worst_group,
                "worst_value": self.worst_value,
                "confidence_level": self.confidence_level,
                "table": table,
            }
        )

    def to_frame(self):
        """The per-group table as a :class:`pandas.DataFrame` indexed by group."""
        pd = _import_pandas("MetricByGroupResult")
        data = {"value": self.values, "n_samples": self.n_samples}
        if self.confidence_interval is not None:
            data["ci_low"] = self.confidence_interval[:, 0]
            data["ci_high"] = self.confidence_interval[:, 1]
            data["simultaneous_low"] = self.simultaneous_interval[:, 0]
            data["simultaneous_high"] = self.simultaneous_interval[:, 1]
        data["worst"] = [group == self.worst_group for group in self.groups]
        return pd.DataFrame(data, index=pd.Index(self.groups, name="group"))

    def __str__(self):
        direction = "higher" if self.greater_is_better else "lower"
        labels = [str(group) for group in self.groups]
        width = max(5, *map(len, labels))
        header = f"{'group':<{width}}  {self.metric:>10}  {'n_samples':>9}"
        if self.confidence_interval is not None:
            header += f"  {100 * self.confidence_level:g}% CI"
        lines = [f"{self.metric} by group ({direction} is better)", header]
        for index, label in enumerate(labels):
            line = (
                f"{label:<{width}}  {self.values[index]:>10.4g}  "
                f"{self.n_samples[index]:>9d}"
            )
            if self.confidence_interval is not None:
                low, high = self.confidence_interval[index]
                line += f"  [{low:.4g}, {high:.4g}]"
            if self.groups[index] == self.worst_group:
                line += "  <- worst"
            lines.append(line)
        return "\n".join(lines)

    def __repr__(self):
        return (
            f"MetricByGroupResult(metric={self.metric!r}, n_groups="
            f"{len(self.groups)}, worst_group={self.worst_group!r}, "
            f"worst_value={self.worst_value:.6g})"
        )
