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


def run(rows, methods, resamples):
    clf, draw = _problem()
    X_ref, y_ref = draw(2000)
    print(
        f"{'rows':>9} {'method':>20} {'resamples':>9} {'predict':>8} "
        f"{'estimate':>9} {'beyond':>8} {'(cpu)':>8} {'bootstrap':>10} "
        f"{'signals':>8} "
        f"{'choice':>7}  (seconds)"
    )
    for n in rows:
        X, _ = draw(n, move=1.0)
        start, cpu = time.perf_counter(), time.process_time()
        clf.predict_proba(X)
        clf.predict(X)
        clf.predict_accept(X)
        predict = time.perf_counter() - start
        predict_cpu = time.process_time() - cpu
        for method in methods:
            for n_resamples in resamples:
                monitor = PerformanceMonitor(
                    clf, method=method, n_resamples=n_resamples, random_state=0
                ).fit(X_ref, y_ref)
                profile = cProfile.Profile()
                start, cpu = time.perf_counter(), time.process_time()
                profile.runcall(monitor.estimate, X)
                total = time.perf_counter() - start
                total_cpu = time.process_time() - cpu
                stages = _stage_times(profile)
                print(
                    f"{n:>9} {method:>20} {n_resamples:>9} {predict:>8.2f} "
                    f"{total:>9.2f} {total - predict:>8.2f} "
                    f"{total_cpu - predict_cpu:>8.2f} "
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
    options = parser.parse_args()
    run(options.rows, options.methods, options.resamples)


if __name__ == "__main__":
    main()
