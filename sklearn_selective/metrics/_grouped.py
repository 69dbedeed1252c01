"""A metric on every group of samples (class, site, device, demographic group)."""

import functools
import inspect
import sys
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning

from .._utils._docstrings import fill_doc
from .._utils._param_validation import validate_params
from .._utils._sklearn import Interval, StrOptions
from .._utils._validation import _as_labels, _check_confidence, _check_sample_weight
from .._utils._warnings import warn
from ._bootstrap import _bootstrap
from ._dask import is_dask_input
from ._grouped_dask import dask_group_values
from ._metric_registry import METRICS, find_entry, resolve_metric
from ._metric_results import MetricByGroupResult

# Options that bootstrap_metric's vectorised path of a package metric may not know:
# with them, the metric is passed as a plain callable (the generic path).
_OPTION_KWARGS = {"coverage_range", "class_balanced", "oracle"}


def _resolve(metric, greater_is_better):
    function = resolve_metric(metric)
    name = metric if isinstance(metric, str) else getattr(metric, "__name__", "metric")
    if greater_is_better is None:
        entry = find_entry(function)
        if entry is None:
            raise ValueError(
                f"greater_is_better is needed for the metric {name!r}, which is not "
                "one of this package's metrics: pass greater_is_better=True or False "
                "so that the worst group can be found."
            )
        greater_is_better = entry.greater_is_better
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


def _dispatch_dask(function):
    """Send a call with a Dask collection among its inputs to
    :func:`~._grouped_dask.dask_metric_by_group` (free when Dask was never
    imported). Placed outside ``@validate_params``."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if "dask" in sys.modules:
            arguments = signature.bind(*args, **kwargs).arguments
            values = [*arguments.values(), *arguments.get("metric_kwargs", {}).values()]
            if is_dask_input(*values):
                return _on_dask(**arguments)
        return function(*args, **kwargs)

    return wrapper


def _on_dask(
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
    metric_kwargs=None,
):
    """:func:`metric_by_group` of Dask collections: exact values, no intervals."""
    if n_resamples is not None:
        raise ValueError(
            "metric_by_group on Dask collections computes exact values without "
            "bootstrap intervals: resampling a group as in memory needs all its "
            "samples in one array. Pass n_resamples=None, or compute a group's "
            "rows (frame[frame[column] == group].compute()) and call "
            "metric_by_group in memory for its intervals."
        )
    _, name, greater_is_better = _resolve(metric, greater_is_better)
    if isinstance(groups, str):
        if y_true is None:
            raise ValueError(
                'groups="class" groups the samples by y_true: pass y_true.'
            )
        groups = y_true
    unique, values, counts = dask_group_values(
        metric, y_true, y_pred, confidence, groups, sample_weight, metric_kwargs or {}
    )
    worst_group, worst_value = _worst(values, greater_is_better, unique)
    return MetricByGroupResult(
        metric=name,
        greater_is_better=bool(greater_is_better),
        groups=unique,
        values=values,
        n_samples=counts,
        worst_group=worst_group,
        worst_value=worst_value,
        confidence_interval=None,
        confidence_level=None,
        simultaneous_interval=None,
    )


@_dispatch_dask
@validate_params(
    {
        "metric": [StrOptions(set(METRICS)), callable],
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

    With Dask arrays or Dask DataFrame columns (``groups`` a column too), the
    tie-group metrics (AURC family, AUGRC, SELE, UQ-AUC, working points) are
    computed on the cluster, one state per group and partition merged in a
    tree: each group's value equals the in-memory one. Bootstrap intervals are
    not computed on Dask (``n_resamples`` must be None): resampling needs a
    group's samples in one array.

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
    _check_no_nan_labels(y_true, y_pred)
    labels = _group_labels(groups, y_true, n_samples)
    unique, index = np.unique(labels, return_inverse=True)
    _check_group_weights(unique, index, sample_weight)
    values = np.empty(unique.shape[0])
    intervals = None if n_resamples is None else np.full((unique.shape[0], 2), np.nan)
    simultaneous = None if intervals is None else intervals.copy()
    rng = np.random.default_rng(random_state) if n_resamples is not None else None
    bootstrap = functools.partial(
        _group_intervals,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        joint_level=1.0 - (1.0 - confidence_level) / unique.shape[0],
        rng=rng,
    )
    for position, label in enumerate(unique):
        mask = index == position
        data = _group_data(
            mask, (y_true, y_pred), confidence, sample_weight, metric_kwargs
        )
        args, group_confidence, kwargs, weight = data
        extra = {} if weight is None else {"sample_weight": weight}
        values[position] = function(*args, group_confidence, **kwargs, **extra)
        if n_resamples is not None:
            intervals[position], simultaneous[position] = bootstrap(
                function, data, label
            )
    worst_group, worst_value = _worst(values, greater_is_better, unique)
    return MetricByGroupResult(
        metric=name,
        greater_is_better=bool(greater_is_better),
        groups=unique,
        values=values,
        n_samples=np.bincount(index, minlength=unique.shape[0]),
        worst_group=worst_group,
        worst_value=worst_value,
        confidence_interval=intervals,
        confidence_level=None if n_resamples is None else confidence_level,
        simultaneous_interval=simultaneous,
    )


def _check_no_nan_labels(y_true, y_pred):
    for argument, values in (("y_true", y_true), ("y_pred", y_pred)):
        values = np.asarray([] if values is None else values)
        if values.ndim == 1 and values.dtype.kind in "fc" and np.isnan(values).any():
            raise ValueError(f"{argument} contains NaN: every sample needs a label.")


def _check_group_weights(unique, index, sample_weight):
    if sample_weight is not None:
        empty = np.bincount(index, weights=sample_weight) == 0
        if empty.any():
            raise ValueError(
                f"The groups {unique[empty].tolist()} have zero total sample_weight, "
                "so the metric is undefined on them: remove their samples first."
            )


def _group_data(mask, arrays, confidence, sample_weight, metric_kwargs):
    """``(args, confidence, kwargs, sample_weight)`` of the samples ``mask``."""
    n_samples = confidence.shape[0]
    args = [_subset(value, mask, n_samples) for value in arrays]
    # Only the per-sample losses are split with the samples: any other
    # keyword (coverage_range, labels, ...) may have n entries by chance.
    kwargs = {
        k: _subset(v, mask, n_samples) if k == "loss" else v
        for k, v in metric_kwargs.items()
    }
    weight = None if sample_weight is None else sample_weight[mask]
    return args, confidence[mask], kwargs, weight


def _group_intervals(
    function, data, label, *, n_resamples, confidence_level, joint_level, rng
):
    """The group's interval at ``confidence_level`` and at ``joint_level``, by
    :func:`bootstrap_metric`'s default (``method="auto"``, the rule of the
    metric's registry entry); nan for a group of fewer than 2 samples."""
    args, confidence, kwargs, weight = data
    if confidence.shape[0] < 2:
        warn(
            f"Group {label!r} has fewer than 2 samples: no bootstrap interval (nan).",
            UndefinedMetricWarning,
        )
        return (np.nan, np.nan), (np.nan, np.nan)
    boot_metric, boot_kwargs = _for_bootstrap(function, kwargs)
    result, interval_at = _bootstrap(
        boot_metric,
        *args,
        confidence,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method="auto",
        random_state=rng,
        n_jobs=None,
        sample_weight=weight,
        metric_kwargs=boot_kwargs,
        where=f"Group {label.item() if hasattr(label, 'item') else label!r}: ",
    )
    return result.confidence_interval, interval_at(joint_level)
