"""The monitor on one large chunk: time beyond the model's predictions.

Run: ``python benchmarks/bench_monitor_scale.py [--rows 100000 1000000]
[--resamples 200 0]``

A ``SelectiveClassifier`` around a logistic regression (3 classes, 5 Gaussian
features) is monitored with a reference of 2000 samples; one chunk of ``n``
rows, its first feature moved by one (so that ``"auto"`` re-weights), is
estimated in one call. Printed per (rows, method, resamples): the time of the
model's own outputs on the chunk (``predict_proba``, ``predict``,
``predict_accept``), of ``estimate`` (which computes them too), the
difference (the monitor's own work), and the share of it in the three
stages that grow with ``n``: the chunk's bootstrap (``n_resamples``
resamples of ``n`` rows), the input signals (the outlier detector scores every
row; the domain classifier at most 2000 per side) and the method's choice
(density ratio, EM prior). Timed once per cell, single process.

Goal of issue 37: under 1 s beyond the predictions at 1e6 rows.
"""

import argparse
import cProfile
import functools
import pstats
import time

import numpy as np
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from sklearn_selective import PerformanceMonitor, SelectiveClassifier

STAGES = {
    "bootstrap": "bootstrap_estimates",
    "signals": "evaluate",
    "choice": "for_chunk",
}


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    weights = rng.normal(size=(5, 3))

    def draw(n, move=0.0):
        X = rng.normal(size=(n, 5))
        X[:, 0] += move
        proba = np.exp(X @ weights)
        proba /= proba.sum(axis=1, keepdims=True)
        y = (rng.random((n, 1)) > proba.cumsum(axis=1)).sum(axis=1)
        return X, y

    model = LogisticRegression().fit(*draw(2000))
    clf = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.8)
    return clf.fit(*draw(2000)), draw


def _stage_times(profile):
    stats = pstats.Stats(profile).stats
    times = dict.fromkeys(STAGES, 0.0)
    for (_, _, function), (_, _, _, cumulative, _) in stats.items():
        for stage, name in STAGES.items():
            if function == name:
                times[stage] = max(times[stage], cumulative)
    return times


def _fitted(clf, method, n_resamples, X_ref, y_ref):
    monitor = PerformanceMonitor(
        clf, method=method, n_resamples=n_resamples, random_state=0
    )
    return monitor.fit(X_ref, y_ref)


def _timed(fitted, X, repeats):
    """``(wall, cpu, stage walls, stage cpus)`` of ``fitted().estimate(X)``
    (a freshly fitted monitor each time, so that every run fits what a
    monitor fits on its first chunk): the least over ``repeats`` runs of
    each (the machine is shared), the stages from a profile on each clock."""
    walls, cpus, stage_walls, stage_cpus = [], [], [], []
    for _ in range(repeats):
        for clock, stages in (
            (time.perf_counter, stage_walls),
            (time.process_time, stage_cpus),
        ):
            monitor = fitted()
            profile = cProfile.Profile(clock)
            start, cpu = time.perf_counter(), time.process_time()
            profile.runcall(monitor.estimate, X)
            if clock is time.perf_counter:
                walls.append(time.perf_counter() - start)
            else:
                cpus.append(time.process_time() - cpu)
            stages.append(_stage_times(profile))

    def least(runs):
        return {stage: min(run[stage] for run in runs) for stage in STAGES}

    return min(walls), min(cpus), least(stage_walls), least(stage_cpus)


def _predict_times(clf, X, repeats):
    walls, cpus = [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), time.process_time()
        clf.predict_proba(X)
        clf.predict(X)
        clf.predict_accept(X)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def run(rows, methods, resamples, repeats):
    clf, draw = _problem()
    X_ref, y_ref = draw(2000)
    print(
        f"{'rows':>9} {'method':>20} {'resamples':>9} {'clock':>5} "
        f"{'predict':>8} {'estimate':>9} {'beyond':>7} {'bootstrap':>10} "
        f"{'signals':>8} {'choice':>7}  (seconds)"
    )
    for n in rows:
        X, _ = draw(n, move=1.0)
        predict = _predict_times(clf, X, repeats)
        for method in methods:
            for n_resamples in resamples:
                monitor = functools.partial(
                    _fitted, clf, method, n_resamples, X_ref, y_ref
                )
                wall, cpu, stage_walls, stage_cpus = _timed(monitor, X, repeats)
                for clock, total, before, stages in (
                    ("wall", wall, predict[0], stage_walls),
                    ("cpu", cpu, predict[1], stage_cpus),
                ):
                    print(
                        f"{n:>9} {method:>20} {n_resamples:>9} {clock:>5} "
                        f"{before:>8.2f} {total:>9.2f} {total - before:>7.2f} "
                        f"{stages['bootstrap']:>10.2f} {stages['signals']:>8.2f} "
                        f"{stages['choice']:>7.2f}"
                    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument(
        "--methods", nargs="+", default=["auto", "importance_weighted", "calibrated_ac"]
    )
    parser.add_argument("--resamples", type=int, nargs="+", default=[200, 0])
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    run(options.rows, options.methods, options.resamples, options.repeats)


if __name__ == "__main__":
    main()
