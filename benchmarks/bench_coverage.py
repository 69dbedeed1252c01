"""What each interval, test and alert covers: simulations against known populations.

Prints one table per statement of uncertainty, each cell a rate over
``--repeats`` simulated data sets with its Monte-Carlo standard error; the user
guide page "What each interval covers" quotes these numbers.

- ``comparisons``: ``compare_confidence_functions`` with k CSFs that are equal on
  the population (independent noise of one distribution on the same signal):
  the family-wise rate of any ``significant`` (nominal: at most ``alpha``), and of
  any pair "stable" by the paper's Wilcoxon procedure (``ranking_stability``);
  then the power when one CSF is better.
- ``groups``: ``metric_by_group`` with groups of equal size from populations of
  different difficulty: how often each group's ``confidence_interval`` covers its
  population value, and how often all of them (and all ``simultaneous_interval``)
  do at once.
- ``bootstrap``: ``bootstrap_metric`` on one population, each interval method:
  how often the interval covers the population value.
- ``failures``: the default interval by the number of failures in the data
  (the warning below five failures).
- ``monitor``: ``PerformanceMonitor`` without shift: how often
  ``accuracy_lower/upper`` (and the selective ones) cover the chunk's realised
  accuracy, how often the ``expected_*`` intervals cover the population
  accuracy, and the rate of false alerts per chunk.
- ``monitor_at_scale``: the same on chunks of twice ``RESAMPLE_CAP`` samples
  (32,768), whose bootstrap resamples a uniform sample of the cap and whose
  input signals read one, with the caps on and lifted (the exact bootstrap).
- ``importance_weighted``: ``PerformanceMonitor(method="importance_weighted")``
  at 50 and 200 chunk samples, without shift and with the first feature moved
  by one (a covariate shift): how often its realised-value intervals cover the
  chunk's realised accuracy and selective accuracy, and its ``expected_*``
  intervals the moved population's values.
- ``atc``: ``ATCEstimator.estimate_accuracy(return_interval=True)`` without
  shift (the monitor's population and model): how often the interval covers
  the population accuracy, at 50 and 200 source and target samples.
- ``cascade_report``: ``SelectiveCascade.report`` of a fixed fitted cascade
  (two stages of known risk at every threshold): how often each number's
  default interval covers its population value, at 200 evaluation samples.
- ``per_class``: ``PerformanceMonitor``'s per-class selective precision and
  recall and the mean cost of a cost-sensitive ``SelectiveClassifier``: how
  often their intervals cover the chunk's realised values, without shift,
  under label shift (``method="label_shift_em"``) and under a covariate shift
  (the first feature moved by one, ``method="importance_weighted"``).

Run: ``python benchmarks/bench_coverage.py [--repeats 500] [--only monitor]``
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from sklearn_selective import ATCEstimator, PerformanceMonitor, SelectiveClassifier
from sklearn_selective._shift import _chunk_estimates, _methods, _signals
from sklearn_selective.metrics import (
    augrc,
    aurc,
    bootstrap_metric,
    compare_confidence_functions,
    metric_by_group,
    selective_risk_at_coverage,
    uq_auc,
)
from sklearn_selective.metrics._metric_registry import DOUBLE_MAX_SAMPLES


def _rate(hits):
    hits = np.asarray(hits, dtype=float)
    rate = hits.mean()
    return f"{rate:.3f} ± {np.sqrt(rate * (1 - rate) / hits.shape[0]):.3f}"


# ----------------------------------------------------------------------------
# Paired comparisons
# ----------------------------------------------------------------------------
def _csf_problem(rng, n, signals):
    y_true = rng.integers(0, 2, n)
    correct = rng.random(n) < 0.8
    y_pred = np.where(correct, y_true, 1 - y_true)
    confidences = {
        f"csf{i}": rng.normal(size=n) + signal * correct
        for i, signal in enumerate(signals)
    }
    return y_true, y_pred, confidences


def _comparison_rates(n, signals, metric, repeats, n_resamples, seed):
    rng = np.random.default_rng(seed)
    significant, stable = [], []
    for repeat in range(repeats):
        y_true, y_pred, confidences = _csf_problem(rng, n, signals)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # undefined uq_auc on tiny resamples
            result = compare_confidence_functions(
                y_true,
                y_pred,
                confidences,
                metric=metric,
                n_resamples=n_resamples,
                random_state=repeat,
            )
        if len(set(signals)) == 1:  # null: any significant pair is false
            significant.append(result.significant.any())
        else:  # power: the better CSF (the last) beats every other one
            significant.append(result.significant[-1, :-1].all())
        stable.append((result.ranking_stability <= result.alpha).any())
    return significant, stable


def bench_comparisons(repeats, sizes, n_resamples):
    print("\nPaired comparisons: family-wise error under the null (alpha = 0.05)")
    print(f"{'metric':>8} {'n':>6} {'k':>3}  {'significant (FWER)':>20}  "
          f"{'ranking_stability':>20}")  # fmt: skip
    for metric in ("augrc", "aurc", "uq_auc"):
        for n in sizes:
            for k in (2, 3, 4):
                significant, stable = _comparison_rates(
                    n, [1.0] * k, metric, repeats, n_resamples, seed=n + k
                )
                print(f"{metric:>8} {n:>6} {k:>3}  {_rate(significant):>20}  "
                      f"{_rate(stable):>20}")  # fmt: skip
    print("\nPower: one CSF with signal 1.5 against k - 1 with 1.0 "
          "(rate at which it is significantly better than every other)")  # fmt: skip
    print(f"{'metric':>8} {'n':>6} {'k':>3}  {'power':>20}")
    for metric in ("augrc", "aurc", "uq_auc"):
        for n in sizes:
            for k in (2, 4):
                signals = [1.0] * (k - 1) + [1.5]
                power, _ = _comparison_rates(
                    n, signals, metric, repeats, n_resamples, seed=2 * n + k
                )
                print(f"{metric:>8} {n:>6} {k:>3}  {_rate(power):>20}")


# ----------------------------------------------------------------------------
# Bootstrap intervals of one metric, and by group
# ----------------------------------------------------------------------------
_BOOTSTRAP_METRICS = {
    "aurc": (aurc, {}),
    "augrc": (augrc, {}),
    "uq_auc": (uq_auc, {}),
    "selective_risk_at_coverage": (selective_risk_at_coverage, {"coverage": 0.5}),
}


def _losses(rng, n, signal=1.0, accuracy=0.82):
    """Right with probability ``accuracy``; confidence N(signal * correct, 1)."""
    correct = rng.random(n) < accuracy
    return rng.normal(size=n) + signal * correct, (~correct).astype(float)


def _population_value(name, **population):
    """The metric on two million samples of the population."""
    function, kwargs = _BOOTSTRAP_METRICS[name]
    confidence, losses = _losses(np.random.default_rng(123), 2_000_000, **population)
    return function(None, None, confidence, loss=losses, **kwargs)


def _bootstrap(name, confidence, losses, repeat, **options):
    """``bootstrap_metric`` of a package metric on per-sample losses, quietly
    (the bench knows its data sets hold few failures at times)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bootstrap_metric(
            name,
            None,
            None,
            confidence,
            loss=losses,
            random_state=repeat,
            **_BOOTSTRAP_METRICS[name][1],
            **options,
        )


def _coverage(name, truth, n, methods, repeats, n_resamples):
    """``(covered, widths, chosen)``: per method, whether each data set's
    interval covers ``truth`` and its width, and what ``auto`` chose (the data
    sets of the seed ``n``, the same for every method)."""
    rng = np.random.default_rng(n)
    covered = {method: [] for method in methods}
    widths = {method: [] for method in methods}
    chosen = None
    for repeat in range(repeats):
        confidence, losses = _losses(rng, n)
        for method in methods:
            result = _bootstrap(
                name, confidence, losses, repeat, n_resamples=n_resamples, method=method
            )
            low, high = result.confidence_interval
            covered[method].append(low <= truth <= high)
            widths[method].append(high - low)
            if method == "auto":
                chosen = result.method
    return covered, widths, chosen


def bench_bootstrap(repeats, sizes, n_resamples):
    """Each method's coverage; ``auto`` (the default) is the double bootstrap up
    to ``DOUBLE_MAX_SAMPLES`` and the percentile interval above, so the sizes
    include the first one above the switch. ``width`` is the default's mean
    width over the percentile interval's."""
    methods = ("auto", "percentile", "basic", "BCa")
    sizes = sorted({*sizes, DOUBLE_MAX_SAMPLES + 1})
    print("\nbootstrap_metric: coverage of the population value (95 % nominal)")
    print(f"{'metric':>28} {'n':>6} {'auto is':>10}  "
          + "  ".join(f"{m:>14}" for m in methods) + f"  {'width':>6}")  # fmt: skip
    for name in _BOOTSTRAP_METRICS:
        truth = _population_value(name)
        for n in sizes:
            covered, widths, chosen = _coverage(
                name, truth, n, methods, repeats, n_resamples
            )
            cells = "  ".join(f"{_rate(covered[m]):>14}" for m in methods)
            ratio = np.nanmean(widths["auto"]) / np.nanmean(widths["percentile"])
            print(f"{name:>28} {n:>6} {chosen:>10}  {cells}  {ratio:>6.2f}")


def bench_working_point_switch(repeats, n_resamples, sizes=(75, 100)):
    """Where the working point's default switches from the double bootstrap to
    the percentile interval (it is the double bootstrap up to 74 samples)."""
    name, methods = "selective_risk_at_coverage", ("double", "percentile", "BCa")
    truth = _population_value(name)
    print(f"\n{name}: the default's switch (95 % nominal)")
    print(f"{'n':>6}  " + "  ".join(f"{m:>14}" for m in methods))
    for n in sizes:
        covered, _, _ = _coverage(name, truth, n, methods, repeats, n_resamples)
        print(f"{n:>6}  " + "  ".join(f"{_rate(covered[m]):>14}" for m in methods))


def bench_few_failures(repeats, n_resamples, n=50, accuracy=0.9):
    """The default interval by the number of failures the data hold: a
    population with 10 % failures, 50 samples (five failures on average)."""
    print(f"\nbootstrap_metric, default interval, n = {n}, {1 - accuracy:.0%} failures:"
          " coverage by the number of failures in the data (95 % nominal)")  # fmt: skip
    bins = ((0, 2), (3, 4), (5, 99))
    print(f"{'metric':>28} " + "  ".join(f"{f'{a}-{b} failures':>22}" for a, b in bins)
          + f"  {'all':>14}")  # fmt: skip
    for name in _BOOTSTRAP_METRICS:
        truth = _population_value(name, accuracy=accuracy)
        rng = np.random.default_rng(7)
        failures, covered = [], []
        for repeat in range(repeats):
            confidence, losses = _losses(rng, n, accuracy=accuracy)
            result = _bootstrap(
                name, confidence, losses, repeat, n_resamples=n_resamples
            )
            low, high = result.confidence_interval
            failures.append(int(losses.sum()))
            covered.append(low <= truth <= high)
        failures, covered = np.array(failures), np.array(covered)
        cells = []
        for low, high in bins:
            inside = (failures >= low) & (failures <= high)
            share = f"({inside.mean():.2f})"
            cells.append(f"{_rate(covered[inside]):>14} {share:>7}")
        print(f"{name:>28} " + "  ".join(cells) + f"  {_rate(covered):>14}")


def bench_groups(repeats, sizes, n_resamples):
    signals = (0.5, 1.0, 1.5, 2.0)  # four groups, from hard to easy
    truths = np.array([_population_value("augrc", signal=s) for s in signals])
    print("\nmetric_by_group (augrc, 4 groups of equal size, 95 % nominal)")
    print(f"{'per group':>10}  {'one group':>14}  {'all, separate':>14}  "
          f"{'all, simultaneous':>18}")  # fmt: skip
    for n in sizes:
        rng = np.random.default_rng(n)
        one, separate, joint = [], [], []
        for repeat in range(repeats):
            parts = [_losses(rng, n, signal=s) for s in signals]
            confidence = np.concatenate([c for c, _ in parts])
            losses = np.concatenate([loss for _, loss in parts])
            groups = np.repeat(np.arange(len(signals)), n)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = metric_by_group(
                    "augrc",
                    None,
                    None,
                    confidence,
                    loss=losses,
                    groups=groups,
                    n_resamples=n_resamples,
                    random_state=repeat,
                )
            inside = (result.confidence_interval[:, 0] <= truths) & (
                truths <= result.confidence_interval[:, 1]
            )
            together = (result.simultaneous_interval[:, 0] <= truths) & (
                truths <= result.simultaneous_interval[:, 1]
            )
            one.extend(inside.tolist())
            separate.append(inside.all())
            joint.append(together.all())
        print(f"{n:>10}  {_rate(one):>14}  {_rate(separate):>14}  "
              f"{_rate(joint):>18}")  # fmt: skip


# ----------------------------------------------------------------------------
# The performance monitor
# ----------------------------------------------------------------------------
class _Population:
    """3 classes, 5 Gaussian features, P(y | x) = softmax(W x + b)."""

    def __init__(self, seed=0):
        rng = np.random.default_rng(seed)
        self.weights = rng.normal(size=(5, 3))
        self.bias = rng.normal(size=3)

    def proba(self, X):
        logits = X @ self.weights + self.bias
        proba = np.exp(logits - logits.max(axis=1, keepdims=True))
        return proba / proba.sum(axis=1, keepdims=True)

    def draw(self, rng, n, move=0.0):
        """``n`` samples; ``move`` shifts the first feature (a covariate
        shift: the labels follow ``P(y | x)``)."""
        X = rng.normal(size=(n, 5))
        X[:, 0] += move
        y = (rng.random((n, 1)) > self.proba(X).cumsum(axis=1)).sum(axis=1)
        return X, y


def _monitor_rates(method, n_reference, n_chunk, repeats, n_resamples, seed=0):
    population = _Population(seed)
    rng = np.random.default_rng(seed + 1)
    model = LogisticRegression().fit(*population.draw(rng, 500))
    clf = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.7)
    clf.fit(*population.draw(rng, 2000))
    X_big, _ = population.draw(rng, 400_000)
    index = np.searchsorted(clf.classes_, clf.predict(X_big))
    p_correct = population.proba(X_big)[np.arange(X_big.shape[0]), index]
    accepted = clf.predict_accept(X_big)
    truth = (p_correct.mean(), p_correct[accepted].mean())
    realised, expected, alerts = ([], []), ([], []), []
    for repeat in range(repeats):
        X_ref, y_ref = population.draw(rng, n_reference)
        X, y = population.draw(rng, n_chunk)
        monitor = PerformanceMonitor(
            clf, method=method, n_resamples=n_resamples, random_state=repeat
        )
        r = monitor.fit(X_ref, y_ref).estimate(X).with_labels(y)
        alerts.append(bool(r.alert[0]))
        for k, name in enumerate(("accuracy", "selective_accuracy")):
            value = getattr(r, f"realised_{name}")[0]
            low, high = getattr(r, f"{name}_lower")[0], getattr(r, f"{name}_upper")[0]
            realised[k].append(low <= value <= high)
            low = getattr(r, f"expected_{name}_lower")[0]
            high = getattr(r, f"expected_{name}_upper")[0]
            expected[k].append(low <= truth[k] <= high)
    return realised, expected, alerts


def bench_monitor(repeats, n_resamples, scale=1.0):
    print("\nPerformanceMonitor without shift (confidence_level = 0.95)")
    print(f"{'method':>14} {'n_ref/chunk':>12}  {'realised acc':>14}  "
          f"{'realised sel':>14}  {'expected acc':>14}  {'expected sel':>14}  "
          f"{'false alerts':>14}")  # fmt: skip
    for method in ("calibrated_ac", "atc"):
        for n_reference, n_chunk in (
            (int(scale * 1500), int(scale * 1500)),
            (int(scale * 1500), int(scale * 200)),
            (int(scale * 1500), int(scale * 50)),
            (int(scale * 10000), int(scale * 200)),
        ):
            realised, expected, alerts = _monitor_rates(
                method, n_reference, n_chunk, repeats, n_resamples
            )
            cells = [_rate(v) for v in (*realised, *expected, alerts)]
            print(f"{method:>14} {f'{n_reference}/{n_chunk}':>12}  "
                  + "  ".join(f"{c:>14}" for c in cells))  # fmt: skip


def bench_monitor_at_scale(repeats, n_resamples, methods=None):
    """The monitor on chunks of twice the caps of a large chunk: the intervals
    of a chunk bootstrapped through a uniform sample of ``RESAMPLE_CAP``
    samples (and its input signals read through one of ``SIGNAL_SAMPLE_CAP``),
    against the same chunks with the caps lifted (the exact bootstrap)."""
    n_chunk = 2 * _chunk_estimates.RESAMPLE_CAP
    print(
        f"\nPerformanceMonitor on chunks of {n_chunk} samples (2 x RESAMPLE_CAP), "
        "without shift (confidence_level = 0.95)"
    )
    print(f"{'method':>14} {'caps':>6}  {'realised acc':>14}  "
          f"{'realised sel':>14}  {'expected acc':>14}  {'expected sel':>14}  "
          f"{'false alerts':>14}")  # fmt: skip
    caps = {
        _chunk_estimates: "RESAMPLE_CAP",
        _signals: "SIGNAL_SAMPLE_CAP",
        _methods: "METHOD_SAMPLE_CAP",
    }
    kept = {module: getattr(module, name) for module, name in caps.items()}
    for method in methods or ("calibrated_ac", "atc", "label_shift_em"):
        for lifted in (False, True):
            for module, name in caps.items():
                setattr(module, name, n_chunk if lifted else kept[module])
            try:
                realised, expected, alerts = _monitor_rates(
                    method, 1500, n_chunk, repeats, n_resamples
                )
            finally:
                for module, name in caps.items():
                    setattr(module, name, kept[module])
            cells = [_rate(v) for v in (*realised, *expected, alerts)]
            print(f"{method:>14} {'off' if lifted else 'on':>6}  "
                  + "  ".join(f"{c:>14}" for c in cells))  # fmt: skip


def bench_atc_interval(repeats, n_resamples, seed=0):
    """ATC's interval of the target's population accuracy, no shift: the
    monitor's population and logistic regression (:func:`_monitor_rates`)."""
    print(
        "\nATCEstimator.estimate_accuracy(return_interval=True), no shift "
        f"(confidence_level = 0.95, {n_resamples} resamples)"
    )
    print(f"{'n_source':>9} {'n_target':>9} {'coverage':>15}")  # fmt: skip
    population = _Population(seed)
    rng = np.random.default_rng(seed + 1)
    model = FrozenEstimator(LogisticRegression().fit(*population.draw(rng, 500)))
    X_big, _ = population.draw(rng, 400_000)
    index = np.searchsorted(model.classes_, model.predict(X_big))
    truth = population.proba(X_big)[np.arange(X_big.shape[0]), index].mean()
    for n_source in (50, 200):
        for n_target in (50, 200):
            hits = []
            for repeat in range(repeats):
                X_source, y_source = population.draw(rng, n_source)
                X_target, _ = population.draw(rng, n_target)
                atc = ATCEstimator(model, n_resamples=n_resamples, random_state=repeat)
                _, (low, high) = atc.fit(X_source, y_source).estimate_accuracy(
                    X_target, return_interval=True
                )
                hits.append(low <= truth <= high)
            print(f"{n_source:>9} {n_target:>9} {_rate(np.asarray(hits)):>15}")


COST_MATRIX = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])


def importance_weighted_hits(n_chunk, move, repeats, n_resamples, seed=0):
    """Whether the intervals of ``method="importance_weighted"`` cover, per
    repeat: a fresh reference of 2000 and a fresh chunk of ``n_chunk`` each
    time, the chunk's first feature moved by ``move`` (no input signals).
    Returns ``(hits, expected_hits, errors)``, each ``(repeats, 2)``
    (accuracy, selective accuracy): whether the realised-value intervals
    cover the chunk's realised values, whether the ``expected_*`` intervals
    cover the moved population's values (on 400,000 samples), and the
    estimates minus the chunk's expected values (the mean of the
    population's probability that each prediction is right, over the chunk
    and its accepted samples)."""
    population = _Population(seed)
    rng = np.random.default_rng(seed + 1)
    model = LogisticRegression().fit(*population.draw(rng, 500))
    clf = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.7)
    clf.fit(*population.draw(rng, 2000))
    X_big, _ = population.draw(np.random.default_rng(seed + 2), 400_000, move)
    index = np.searchsorted(clf.classes_, clf.predict(X_big))
    p_big = population.proba(X_big)[np.arange(X_big.shape[0]), index]
    truth = (p_big.mean(), p_big[clf.predict_accept(X_big)].mean())
    hits, expected_hits, errors = [], [], []
    for repeat in range(repeats):
        X_ref, y_ref = population.draw(rng, 2000)
        X, y = population.draw(rng, n_chunk, move)
        index = np.searchsorted(clf.classes_, clf.predict(X))
        p_correct = population.proba(X)[np.arange(n_chunk), index]
        expected = (p_correct.mean(), p_correct[clf.predict_accept(X)].mean())
        monitor = PerformanceMonitor(
            clf,
            method="importance_weighted",
            novelty_detector=None,
            drift_estimator=None,
            n_resamples=n_resamples,
            random_state=repeat,
        )
        r = monitor.fit(X_ref, y_ref).estimate(X).with_labels(y)
        hits.append(
            [
                getattr(r, f"{name}_lower")[0]
                <= getattr(r, f"realised_{name}")[0]
                <= getattr(r, f"{name}_upper")[0]
                for name in ("accuracy", "selective_accuracy")
            ]
        )
        expected_hits.append(
            [
                getattr(r, f"expected_{name}_lower")[0]
                <= value
                <= getattr(r, f"expected_{name}_upper")[0]
                for name, value in zip(
                    ("accuracy", "selective_accuracy"), truth, strict=True
                )
            ]
        )
        errors.append(
            [r.accuracy[0] - expected[0], r.selective_accuracy[0] - expected[1]]
        )
    return (
        np.asarray(hits, dtype=bool),
        np.asarray(expected_hits, dtype=bool),
        np.asarray(errors),
    )


def bench_importance_weighted(repeats, n_resamples):
    print(
        '\nPerformanceMonitor(method="importance_weighted"): coverage of the '
        "realised-value intervals (confidence_level = 0.95) and of the "
        "expected-value ones (of the population's values), reference 2000, "
        "covariate shift = first feature moved by 1; the estimates' mean error "
        "against the chunk's expected values (their bias) and its standard error"
    )
    print(f"{'shift':>10} {'n_chunk':>8}  {'accuracy':>14}  {'selective':>14}"
          f"  {'expected acc':>14}  {'expected sel':>14}"
          f"  {'error acc':>16}  {'error sel':>16}")  # fmt: skip
    for move, label in ((0.0, "none"), (1.0, "move +1")):
        for n_chunk in (50, 200):
            hits, expected, errors = importance_weighted_hits(
                n_chunk, move, repeats, n_resamples
            )
            cells = [_rate(h[:, k]) for h in (hits, expected) for k in (0, 1)]
            cells += [
                f"{e.mean():+.4f} ± {e.std(ddof=1) / np.sqrt(e.shape[0]):.4f}"
                for e in errors.T
            ]
            print(f"{label:>10} {n_chunk:>8}  " + "  ".join(f"{c:>14}" for c in cells))


def _label_shifted(population, rng, n, priors):
    """``n`` samples with class priors ``priors``, ``P(x | y)`` unchanged."""
    X, y = population.draw(rng, 20 * n)
    ratio = np.asarray(priors) / (np.bincount(y, minlength=3) / y.shape[0])
    keep = rng.random(y.shape[0]) < ratio[y] / ratio.max()
    return X[keep][:n], y[keep][:n]


# The chunks of each shift of the per-class coverage, and the method that
# estimates them: none, a label shift (EM's prior), a covariate shift (the
# first feature moved by one; the importance weights).
CLASS_SHIFTS = {
    "no shift": ("auto", lambda population, rng, n: population.draw(rng, n)),
    "label shift": (
        "label_shift_em",
        lambda population, rng, n: _label_shifted(population, rng, n, (0.6, 0.3, 0.1)),
    ),
    "move +1": (
        "importance_weighted",
        lambda population, rng, n: population.draw(rng, n, move=1.0),
    ),
}


def _class_rates(n_reference, n_chunk, repeats, n_resamples, shift):
    """Per repetition (a fresh population, model, reference and 10 chunks):
    the share of the realised per-class values and costs inside their
    intervals, and whether the selective accuracy's realised interval holds."""
    names = ("selective_precision", "selective_recall", "cost", "selective_accuracy")
    rates = {name: [] for name in names}
    for repeat in range(repeats):
        population = _Population(100 + repeat)
        rng = np.random.default_rng(repeat)
        model = LogisticRegression().fit(*population.draw(rng, 1000))
        clf = SelectiveClassifier(
            FrozenEstimator(model), cost_matrix=COST_MATRIX, rejection_cost=0.5
        )
        X_ref, y_ref = population.draw(rng, n_reference)
        clf.fit(X_ref, y_ref)
        method, draw = CLASS_SHIFTS[shift]
        X, y = draw(population, rng, 10 * n_chunk)
        monitor = PerformanceMonitor(
            clf,
            method=method,
            n_resamples=n_resamples,
            novelty_detector=None,
            drift_estimator=None,
            random_state=repeat,
        )
        r = monitor.fit(X_ref, y_ref).estimate(X, chunk_size=n_chunk)
        r = r.with_labels(y)
        for name in names:
            low, high = getattr(r, f"{name}_lower"), getattr(r, f"{name}_upper")
            value = getattr(r, f"realised_{name}")
            defined = np.isfinite(low) & np.isfinite(value)
            inside = (low <= value) & (value <= high)
            if defined.any():
                rates[name].append(inside[defined].mean())
    return rates


def _mean_se(rates):
    rates = np.asarray(rates)
    return f"{rates.mean():.3f} ± {rates.std(ddof=1) / np.sqrt(rates.shape[0]):.3f}"


CLASS_SETTINGS = (  # (shift, reference size, chunk size)
    ("no shift", 500, 50),
    ("no shift", 500, 200),
    ("no shift", 2000, 200),
    ("label shift", 500, 50),
    ("label shift", 500, 200),
    ("move +1", 500, 50),
    ("move +1", 500, 200),
    ("move +1", 2000, 200),
)


def bench_class_estimates(repeats, n_resamples, n_settings=None):
    print(
        "\nPerformanceMonitor per class: how often the realised-value intervals "
        "cover the realised selective precision, recall (every class) and cost "
        "of a chunk (confidence_level = 0.95; the rate per repetition of 10 "
        "chunks, its mean and standard error over repetitions)"
    )
    print(f"{'setting':>30} {'n_ref/chunk':>12}  {'precision':>14}  "
          f"{'recall':>14}  {'cost':>14}  {'selective acc':>14}")  # fmt: skip
    for shift, n_reference, n_chunk in CLASS_SETTINGS[:n_settings]:
        rates = _class_rates(n_reference, n_chunk, repeats, n_resamples, shift)
        setting = f"{shift}, {CLASS_SHIFTS[shift][0]}"
        print(f"{setting:>30} {f'{n_reference}/{n_chunk}':>12}  "
              + "  ".join(f"{_mean_se(v):>14}" for v in rates.values()))  # fmt: skip


# ----------------------------------------------------------------------------
# A cascade's report
# ----------------------------------------------------------------------------
# Two stages whose confidences are uniform and independent, wrong with
# probability scale * (1 - s)**2; thresholds where every stage answers and
# errs often enough for an interval (about 120 and 84 answers, 14 and 12
# errors, of 200 samples).
CASCADE_SCALES, CASCADE_COSTS = (1.0, 0.9), (1.0, 5.0)
CASCADE_THRESHOLDS = np.array([0.7, 0.65])  # MSP; s >= 0.4 and s >= 0.3


def fixed_cascade():
    """A fitted two-stage cascade with ``CASCADE_THRESHOLDS`` (a fixed
    deployed cascade; the report does not refit it)."""
    from bench_cascade import _stages, draw

    from sklearn_selective import SelectiveCascade

    X, y = draw(np.random.default_rng(0), 2000, CASCADE_SCALES)
    cascade = SelectiveCascade(_stages(), stage_costs=CASCADE_COSTS).fit(X, y)
    cascade.thresholds_ = CASCADE_THRESHOLDS.copy()
    return cascade


def cascade_report_hits(repeats, n, n_resamples, seed=0, method="auto"):
    """``(keys, hits)``: whether each number's interval covers its population
    value, one row per repetition."""
    from bench_cascade import draw, report_truth

    cascade = fixed_cascade()
    truth = report_truth(CASCADE_THRESHOLDS, CASCADE_SCALES, CASCADE_COSTS)
    keys = list(truth)
    rng = np.random.default_rng(seed)
    hits = np.zeros((repeats, len(keys)), dtype=bool)
    for r in range(repeats):
        X, y = draw(rng, n, CASCADE_SCALES)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            frame = cascade.report(
                X, y, n_resamples=n_resamples, method=method, random_state=seed + r
            ).to_frame()
        low, high = frame.loc[keys, "low"], frame.loc[keys, "high"]
        values = np.array([truth[key] for key in keys])
        hits[r] = (low.to_numpy() <= values) & (values <= high.to_numpy())
    return keys, hits


def bench_cascade_report(repeats, n_resamples, n=200, methods=("auto", "percentile")):
    print(
        f"\nSelectiveCascade.report: 95 % interval coverage at {n} samples "
        f"({repeats} draws; auto: the double bootstrap at this size)"
    )
    found = {m: cascade_report_hits(repeats, n, n_resamples, method=m) for m in methods}
    keys = found[methods[0]][0]
    print(f"{'':>24}" + "".join(f"{m:>16}" for m in methods))
    for j, key in enumerate(keys):
        cells = "".join(f"{_rate(found[m][1][:, j]):>16}" for m in methods)
        print(f"{key[0]:>8} {key[1]:>15}{cells}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=500)
    parser.add_argument(
        "--n-resamples",
        type=int,
        default=500,
        help="resamples of the comparisons and the monitor",
    )
    parser.add_argument(
        "--bootstrap-resamples",
        type=int,
        default=1000,
        help="resamples of the bootstrap and group intervals: bootstrap_metric's "
        "default, which the double bootstrap needs (fewer only to try the script)",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 200, 1000])
    parser.add_argument(
        "--class-repeats",
        type=int,
        default=200,
        help="repetitions (of 10 chunks each) of the per-class section",
    )
    parser.add_argument(
        "--weighted-repeats",
        type=int,
        default=400,
        help="repetitions of the importance_weighted section (the user guide's "
        "table: 1000)",
    )
    parser.add_argument(
        "--class-settings",
        type=int,
        default=len(CLASS_SETTINGS),
        help="run the first settings of the per-class section only",
    )
    parser.add_argument(
        "--monitor-scale",
        type=float,
        default=1.0,
        help="multiply the monitor's reference and chunk sizes (a quick run)",
    )
    parser.add_argument(
        "--only",
        choices=[
            "comparisons",
            "bootstrap",
            "failures",
            "groups",
            "monitor",
            "monitor_at_scale",
            "importance_weighted",
            "per_class",
            "atc",
            "cascade_report",
        ],
        default=None,
    )
    options = parser.parse_args()
    start = time.perf_counter()
    if options.only in (None, "comparisons"):
        bench_comparisons(options.repeats, options.sizes, options.n_resamples)
    # The default intervals with the default resamples: the double bootstrap
    # reads extreme quantiles, which fewer resamples make undercover.
    if options.only in (None, "bootstrap"):
        bench_bootstrap(options.repeats, options.sizes, options.bootstrap_resamples)
        bench_working_point_switch(options.repeats, options.bootstrap_resamples)
    if options.only in (None, "failures"):
        bench_few_failures(options.repeats, options.bootstrap_resamples)
    if options.only in (None, "groups"):
        bench_groups(options.repeats, options.sizes, options.bootstrap_resamples)
    if options.only in (None, "monitor"):
        bench_monitor(
            options.repeats, min(options.n_resamples, 200), options.monitor_scale
        )
    if options.only in (None, "monitor_at_scale"):
        bench_monitor_at_scale(min(options.repeats, 200), min(options.n_resamples, 200))
    if options.only in (None, "importance_weighted"):
        bench_importance_weighted(
            options.weighted_repeats, min(options.n_resamples, 200)
        )
    if options.only in (None, "per_class"):
        bench_class_estimates(
            options.class_repeats, min(options.n_resamples, 200), options.class_settings
        )
    if options.only in (None, "atc"):
        bench_atc_interval(options.repeats, min(options.n_resamples, 200))
    if options.only in (None, "cascade_report"):
        bench_cascade_report(options.repeats, options.bootstrap_resamples)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
