"""A metric on every group of samples (class, site, device, demographic group)."""

import functools
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._utils._docstrings import fill_doc
from .._utils._param_validation import validate_params
from .._utils._plain import plain as _plain
from .._utils._sklearn import Interval, StrOptions
from .._utils._validation import _as_labels, _check_confidence, _check_sample_weight
from ._areas import (
    augrc,
    aurc,
    e_aurc,
    naurc,
    sele,
)
from ._bootstrap import _bootstrap
from ._ranking import uq_auc, uq_c_index
from ._results import _DataMixin
from ._working_points import (
    coverage_at_risk,
    selective_risk_at_coverage,
)

# Each package metric by name, with whether a larger value is better.
_METRICS = {
    "aurc": (aurc, False),
    "augrc": (augrc, False),
    "e_aurc": (e_aurc, False),
    "naurc": (naurc, False),
    "sele": (sele, False),
    "selective_risk_at_coverage": (selective_risk_at_coverage, False),
    "coverage_at_risk": (coverage_at_risk, True),
    "uq_auc": (uq_auc, True),
    "uq_c_index": (uq_c_index, True),
}
_DIRECTION = dict(_METRICS.values())
# Options that bootstrap_metric's vectorised path of a package metric may not know:
# with them, the metric is passed as a plain callable (the generic path).
_OPTION_KWARGS = {"coverage_range", "class_balanced", "oracle"}


@dataclass(frozen=True, eq=False)
class MetricByGroupResult(_DataMixin):
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
        return _plain(
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
        import pandas as pd  # optional dependency

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


def _resolve(metric, greater_is_better):
    function = _METRICS[metric][0] if isinstance(metric, str) else metric
    name = metric if isinstance(metric, str) else getattr(metric, "__name__", "metric")
    if greater_is_better is None:
        if function not in _DIRECTION:
            raise ValueError(
                f"greater_is_better is needed for the metric {name!r}, which is not "
                "one of this package's metrics: pass greater_is_better=True or False "
                "so that the worst group can be found."
            )
        greater_is_better = _DIRECTION[function]
    return function, name, greater_is_better


def _group_labels(groups, y_true, n_samples):
    if isinstance(groups, str):
        if y_true is None:
            raise ValueError(
                'groups="class" groups the samples by y_true: pass y_true.'
            )
        groups = y_true
    groups = _as_labels(groups, "groups")
    if groups.dtype.kind in "fc" and np.isnan(groups).any():
        raise ValueError("groups contains NaN: give every sample a group label.")
    if groups.shape[0] != n_samples:
        raise ValueError(
            f"groups has {groups.shape[0]} entries but confidence has {n_samples}; "
            'pass one group label per sample (or groups="class").'
        )
    return groups


def _subset(value, mask, n_samples):
    """Rows ``mask`` of a per-sample array; anything else unchanged."""
    if value is None or isinstance(value, str) or callable(value):
        return value
    array = np.asarray(value)
    if array.ndim >= 1 and array.shape[0] == n_samples:
        return array[mask]
    return value


def _for_bootstrap(function, kwargs):
    """``(metric, kwargs)`` for :func:`bootstrap_metric`: the options that its
    vectorised path may not know are bound into a plain callable."""
    options = {
        key: value
        for key, value in kwargs.items()
        if key in _OPTION_KWARGS or (key == "aurc_estimator" and value == "trapezoid")
    }
    if not options:
        return function, kwargs
    rest = {key: value for key, value in kwargs.items() if key not in options}
    return functools.partial(function, **options), rest


def _worst(values, greater_is_better, labels):
    defined = ~np.isnan(values)
    if not defined.any():
        return None, float("nan")
    candidates = np.where(defined, values, np.inf if greater_is_better else -np.inf)
    index = int(np.argmin(candidates) if greater_is_better else np.argmax(candidates))
    # a Python scalar (as ``tolist`` gives), not a NumPy one, like every result
    return labels[index : index + 1].tolist()[0], float(values[index])


@validate_params(
    {
        "metric": [StrOptions(set(_METRICS)), callable],
        "y_true": ["array-like", None],
        "y_pred": ["array-like", None],
        "confidence": ["array-like"],
        "groups": ["array-like", StrOptions({"class"})],
        "greater_is_better": ["boolean", None],
        "sample_weight": ["array-like", None],
        "n_resamples": [Interval(Integral, 1, None, closed="left"), None],
        "confidence_level": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state", np.random.Generator],
    },
    prefer_skip_nested_validation=False,  # the metric validates its own kwargs
)
@fill_doc
def metric_by_group(
    metric,
    y_true,
    y_pred,
    confidence,
    *,
    groups,
    greater_is_better=None,
    sample_weight=None,
    n_resamples=None,
    confidence_level=0.95,
    random_state=None,
    **metric_kwargs,
):
    """Evaluate a metric on each group of samples and find the worst group.

    For every distinct label ``g`` of ``groups``, the metric is evaluated on
    the samples of that group only,

    .. math::

        M_g = M\\big(\\{(y_i, \\hat y_i, \\kappa_i, w_i) :
        \\mathrm{group}_i = g\\}\\big),

    so that a confidence score that ranks well overall but fails a minority
    class, a site or a device is seen. The worst group is the one with the
    largest value of a metric where lower is better (AURC, AUGRC, ...) and the
    smallest value of one where higher is better (UQ-AUC, coverage at risk).

    Parameters
    ----------
    %(resampled_metric)s

    y_true : array-like of shape (n_samples,) or None
        True labels. May be None when ``metric_kwargs`` holds a ``loss``
        array and ``groups`` is an array.

    y_pred : array-like of shape (n_samples,) or (n_samples, n_classes), or None
        Predicted labels or class probabilities, the metric's second argument.

    confidence : array-like of shape (n_samples,)
        Confidence score of each prediction; higher means more confident.

    groups : array-like of shape (n_samples,) or "class"
        Group label of each sample (site, device, demographic group, ...), or
        ``"class"`` to group by the true class ``y_true``.

    greater_is_better : bool, default=None
        Whether a larger metric value is better. Inferred for this package's
        metrics; required for any other callable.

    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights, split with the samples.

    n_resamples : int, default=None
        When given, bootstrap intervals of each group's value by
        :func:`bootstrap_metric` with that many resamples: one per group at
        ``confidence_level`` (``confidence_interval``) and simultaneous ones,
        Bonferroni-adjusted over the groups (``simultaneous_interval``). None
        computes none.

    confidence_level : float in (0, 1), default=0.95
        Level of each group's interval, and the joint level of the
        simultaneous intervals.

    random_state : int, RandomState instance, Generator or None, default=None
        Source of the bootstrap resamples (one generator for all groups).

    **metric_kwargs : dict
        Further keyword arguments of ``metric`` (``loss``, ``aurc_estimator``,
        ``coverage``, ...). A per-sample ``loss`` array is split with the
        samples.

    Returns
    -------
    result : MetricByGroupResult
        Each group's value and sample count, the worst group and its value,
        and the intervals when requested; ``to_frame()`` gives a table,
        ``to_dict()`` and ``to_json()`` the same as data.

    See Also
    --------
    bootstrap_metric : Confidence interval of a metric.
    aurc : Area under the risk-coverage curve.

    Notes
    -----
    A group on which the metric is undefined (e.g. :func:`uq_auc` on a group
    without any failure) gets ``nan``, with the metric's own
    :class:`~sklearn.exceptions.UndefinedMetricWarning`, and cannot be the
    worst group. Groups too small for the bootstrap (fewer than 2 samples)
    get a ``nan`` interval.

    The finite-sample AURC estimators depend on the sample size ([AURC],
    Sec. 3.6): compare the AURC of groups of very different sizes with care,
    or use :func:`augrc`, whose value does not depend on ``n``.

    References
    ----------
    .. [AURC] Zhou, Van Landeghem, Popordanoska and Blaschko. "A Novel
       Characterization of the Population AURC and Rates of Finite Sample
       Estimators." ICML 2025.

    Examples
    --------
    >>> from sklearn_selective.metrics import metric_by_group
    >>> y_true = [0, 0, 0, 1, 1, 1]
    >>> y_pred = [0, 0, 1, 1, 0, 0]
    >>> confidence = [0.9, 0.8, 0.3, 0.9, 0.7, 0.8]
    >>> result = metric_by_group("augrc", y_true, y_pred, confidence, groups="class")
    >>> result.values.round(4)
    array([0.0556, 0.2222])
    >>> result.worst_group, result.n_samples
    (1, array([3, 3]))
    >>> print(result)
    augrc by group (lower is better)
    group       augrc  n_samples
    0         0.05556          3
    1          0.2222          3  <- worst
    """
    function, name, greater_is_better = _resolve(metric, greater_is_better)
    confidence = _check_confidence(confidence)
    n_samples = confidence.shape[0]
    sample_weight = _check_sample_weight(sample_weight, n_samples)
    for argument, values in (("y_true", y_true), ("y_pred", y_pred)):
        values = np.asarray([] if values is None else values)
        if values.ndim == 1 and values.dtype.kind in "fc" and np.isnan(values).any():
            raise ValueError(f"{argument} contains NaN: every sample needs a label.")
    labels = _group_labels(groups, y_true, n_samples)
    unique, index = np.unique(labels, return_inverse=True)
    values = np.empty(unique.shape[0])
    counts = np.bincount(index, minlength=unique.shape[0])
    if sample_weight is not None:
        empty = np.bincount(index, weights=sample_weight) == 0
        if empty.any():
            raise ValueError(
                f"The groups {unique[empty].tolist()} have zero total sample_weight, "
                "so the metric is undefined on them: remove their samples first."
            )
    intervals = None if n_resamples is None else np.full((unique.shape[0], 2), np.nan)
    simultaneous = None if intervals is None else intervals.copy()
    joint_level = 1.0 - (1.0 - confidence_level) / unique.shape[0]
    rng = np.random.default_rng(random_state) if n_resamples is not None else None
    for position, label in enumerate(unique):
        mask = index == position
        args = [_subset(value, mask, n_samples) for value in (y_true, y_pred)]
        # Only the per-sample losses are split with the samples: any other
        # keyword (coverage_range, labels, ...) may have n entries by chance.
        kwargs = {
            k: _subset(v, mask, n_samples) if k == "loss" else v
            for k, v in metric_kwargs.items()
        }
        weight = None if sample_weight is None else sample_weight[mask]
        extra = {} if weight is None else {"sample_weight": weight}
        values[position] = function(*args, confidence[mask], **kwargs, **extra)
        if n_resamples is not None and counts[position] < 2:
            warnings.warn(
                f"Group {unique[position]!r} has fewer than 2 samples: no bootstrap "
                "interval (nan).",
                UndefinedMetricWarning,
                stacklevel=2,
            )
        elif n_resamples is not None:
            boot_metric, boot_kwargs = _for_bootstrap(function, kwargs)
            result, interval_at = _bootstrap(
                boot_metric,
                *args,
                confidence[mask],
                n_resamples=n_resamples,
                confidence_level=confidence_level,
                method="auto",
                random_state=rng,
                n_jobs=None,
                sample_weight=weight,
                metric_kwargs=boot_kwargs,
                stacklevel=7,
                where=f"Group {label.item() if hasattr(label, 'item') else label!r}: ",
            )
            intervals[position] = result.confidence_interval
            simultaneous[position] = interval_at(joint_level)
    worst_group, worst_value = _worst(values, greater_is_better, unique)
    return MetricByGroupResult(
        metric=name,
        greater_is_better=bool(greater_is_better),
        groups=unique,
        values=values,
        n_samples=counts,
        worst_group=worst_group,
        worst_value=worst_value,
        confidence_interval=intervals,
        confidence_level=None if n_resamples is None else confidence_level,
        simultaneous_interval=simultaneous,
    )
