"""Several metrics of one data set bootstrapped on the same resamples.

The command line bootstraps every metric of a prediction file at once: each
block of count vectors is drawn once and every metric is evaluated on it; risk
metrics on the same data share their group statistics. Each interval is then
the one :func:`bootstrap_metric` gives for the same ``random_state``.
"""

import copy
from functools import partial

import numpy as np

from .._utils._draws import _bootstrap_counts, _check_generator
from ._bootstrap import _chosen_method, _prepare, _result
from ._metric_registry import DOUBLE_MAX_SAMPLES, resolve_metric
from ._resampling._risk_resampler import _FastMetric


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
        metric = resolve_metric(metric)
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
        # Kept where "auto" is the double bootstrap, which resamples each again.
        self._outer = [] if n_samples <= DOUBLE_MAX_SAMPLES else None
        done = 0
        for counts in _bootstrap_counts(rng, n_samples, self.n_resamples):
            if self._outer is not None:
                self._outer.append(counts)
            for indices, evaluate in groups:
                with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                    found = evaluate(counts)
                for index, values in zip(indices, found, strict=True):
                    blocks[index].append(values)
            done += counts.shape[0]
            if progress is not None:
                progress(done, self.n_resamples)
        self._distributions = [np.concatenate(block) for block in blocks]
        self._rng_after = rng

    def result(self, index, confidence_level=0.95, method="auto"):
        metric, statistic, values, n_samples = self._metrics[index]
        method = _chosen_method(method, n_samples, metric)
        outer = None
        if method == "double":  # every metric's inner draws start at one state
            outer = (self._outer, copy.deepcopy(self._rng_after))
        result, _ = _result(
            metric,
            statistic,
            self._distributions[index],
            values,
            n_samples,
            confidence_level,
            method,
            outer,
        )
        return result


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
