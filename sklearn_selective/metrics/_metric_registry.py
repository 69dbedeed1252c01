"""The one registry of this package's scalar metrics.

Every place that takes a metric by name reads this table (as scikit-learn's
``_SCORERS`` in ``sklearn/metrics/_scorer.py``): the scorers, the bootstrap, the
paired comparisons, :func:`metric_by_group` and the command line. An entry says
what the metric is (its function), which direction is better, what it needs, its
fast bootstrap path and the interval ``bootstrap_metric(method="auto")`` uses.

A metric passed as a function is found by the function object, also through
:func:`functools.partial` and :func:`functools.wraps` wrappers; never by its
``__name__``, so a user's own function that happens to be called ``uq_auc`` is
a metric of its own.
"""

import functools
from dataclasses import dataclass

from ._areas import augrc, aurc, e_aurc, naurc, sele
from ._ranking import uq_auc, uq_c_index
from ._resampling._concordance_resampler import _concordance_path
from ._resampling._risk_resampler import _risk_path
from ._working_points import coverage_at_risk, selective_risk_at_coverage

# ``method="auto"``: the interval of the first rule whose size bound the data do
# not exceed, and the percentile interval above them all. Measured in
# benchmarks/bench_coverage.py (user guide, "What each interval covers"): the
# double bootstrap holds where the percentile interval falls short (about nine
# failures in 50 samples); it over-covers the failure AUROC (0.98 at n = 50),
# which BCa holds, and working points beyond 50 samples (0.97-0.98 at 75-200),
# where the percentile interval holds. Its cost, ``n_resamples * N_INNER``
# evaluations, stays about a second up to DOUBLE_MAX_SAMPLES.
DOUBLE_MAX_SAMPLES = 500
DEFAULT_INTERVAL_RULES = ((DOUBLE_MAX_SAMPLES, "double"),)
_WORKING_POINT_RULES = ((74, "double"),)

# What a metric needs beyond labels, predictions and confidences.
PROBABILITIES = "probabilities"  # y_pred holds class probabilities
ZERO_ONE_LOSS = "zero_one_loss"  # measures right or wrong only


@dataclass(frozen=True)
class MetricEntry:
    """One metric of the registry.

    Attributes
    ----------
    name : str
        The name users pass (``bootstrap_metric("augrc", ...)``).
    function : callable
        The public metric function.
    greater_is_better : bool
        Whether a larger value is better.
    needs : frozenset of str
        ``PROBABILITIES`` (the second argument is ``y_proba``, no ``loss``),
        ``ZERO_ONE_LOSS`` (defined for right-or-wrong losses only).
    fast_path : callable
        ``fast_path(y_true, y_pred, confidence, sample_weight, **kwargs)`` returns
        ``evaluate(counts)``, the metric on each count vector of a block.
    threaded : bool
        Whether the fast path evaluates one resample at a time in ``n_jobs``
        threads (it then takes ``n_jobs``).
    interval_rules : tuple of (int, str)
        ``method="auto"``: ``(largest n_samples, method)`` pairs, in order.
    scorer : str or None
        Name of its predefined scorer (:func:`get_scorer`), or None.
    scorable : bool
        Whether :func:`make_selective_scorer` accepts its name.
    """

    name: str
    function: object
    greater_is_better: bool
    fast_path: object
    needs: frozenset = frozenset()
    threaded: bool = False
    interval_rules: tuple = DEFAULT_INTERVAL_RULES
    scorer: str | None = None
    scorable: bool = True

    def auto_method(self, n_samples):
        """The interval ``method="auto"`` stands for at ``n_samples``."""
        return auto_method(self.interval_rules, n_samples)


def auto_method(rules, n_samples):
    """The method of the first rule whose size bound ``n_samples`` does not exceed;
    the percentile interval above them all."""
    return next(
        (chosen for largest, chosen in rules if n_samples <= largest), "percentile"
    )


def _risk(function, greater_is_better, **options):
    name = function.__name__
    return MetricEntry(name, function, greater_is_better, _risk_path(name), **options)


METRICS = {
    entry.name: entry
    for entry in (
        _risk(aurc, False, scorer="neg_aurc"),
        _risk(augrc, False, scorer="neg_augrc"),
        _risk(e_aurc, False, scorer="neg_e_aurc"),
        _risk(naurc, False, scorer="neg_naurc"),
        _risk(sele, False, scorable=False),
        _risk(
            selective_risk_at_coverage,
            False,
            interval_rules=_WORKING_POINT_RULES,
        ),
        _risk(coverage_at_risk, True, interval_rules=_WORKING_POINT_RULES),
        _risk(
            uq_auc,
            True,
            needs=frozenset({ZERO_ONE_LOSS}),
            interval_rules=((DOUBLE_MAX_SAMPLES, "bca"),),
            scorer="uq_auc",
        ),
        MetricEntry(
            "uq_c_index",
            uq_c_index,
            True,
            _concordance_path,
            needs=frozenset({PROBABILITIES}),
            threaded=True,
            scorer="uq_c_index",
        ),
    )
}
_BY_FUNCTION = {entry.function: entry for entry in METRICS.values()}


def find_entry(metric):
    """The registry entry of ``metric`` (a name, a function, or a
    :func:`functools.partial` / :func:`functools.wraps` wrapper of one), or None
    for any other callable."""
    if isinstance(metric, str):
        return METRICS.get(metric)
    seen = set()
    while metric is not None and id(metric) not in seen:
        seen.add(id(metric))
        try:
            entry = _BY_FUNCTION.get(metric)
        except TypeError:  # an unhashable callable
            entry = None
        if entry is not None:
            return entry
        if isinstance(metric, functools.partial):
            metric = metric.func
        else:
            metric = getattr(metric, "__wrapped__", None)
    return None


def resolve_metric(metric):
    """The function of a metric given by name, or ``metric`` itself."""
    return METRICS[metric].function if isinstance(metric, str) else metric


def fast_entry(metric):
    """The entry whose fast path evaluates ``metric``: only the registered
    function itself (a wrapper may change its arguments), else None."""
    entry = find_entry(metric)
    return entry if entry is not None and entry.function is metric else None
