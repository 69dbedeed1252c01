"""Time and peak memory of every metric, relative to ``numpy.argsort``.

Run: ``python benchmarks/bench_metrics.py [--max-n 1e7] [--repeat 3]``

For each n the inputs are a continuous confidence (few ties), labels with a 20 % error
rate, and — for uq_c_index — 10-class probabilities. Each metric is called through
its public function, validation included; the time is the best of ``--repeat`` runs.
Peak memory is the largest extra allocation seen by ``tracemalloc`` during one call.
"""

import argparse
from functools import partial

import numpy as np
from _measure import best_time, peak_memory

from sklearn_selective.metrics import (
    augrc,
    aurc,
    coverage_at_risk,
    e_aurc,
    naurc,
    risk_coverage_curve,
    sele,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)

GOALS = {
    "aurc": 2,
    "augrc": 2,
    "sele": 2,
    "uq_auc": 2.5,
    "e_aurc": 3.5,
    "uq_c_index": 10,
}


def _inputs(n, rng, n_classes=10):
    y_true = rng.integers(0, n_classes, n)
    wrong = rng.random(n) < 0.2
    y_pred = np.where(wrong, (y_true + 1) % n_classes, y_true)
    confidence = rng.random(n) + 0.3 * ~wrong
    proba = rng.random((n, n_classes)).astype(np.float64)
    proba /= proba.sum(axis=1, keepdims=True)
    return y_true, y_pred, confidence, proba


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=float, default=1e7)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)

    sizes = [int(10**k) for k in range(3, 8) if 10**k <= args.max_n]
    header = f"{'n':>10} {'metric':<28} {'time [s]':>10} {'x argsort':>10} "
    header += f"{'goal':>6} {'peak MiB':>9}"
    print(header)
    print("-" * len(header))
    for n in sizes:
        y_true, y_pred, confidence, proba = _inputs(n, rng)
        repeat = args.repeat if n < 10**7 else 1
        argsort_time = best_time(lambda c=confidence: np.argsort(c), repeat)
        print(f"{n:>10} {'numpy.argsort':<28} {argsort_time:>10.4f} {1:>10.2f}")
        metrics = {
            "aurc": partial(aurc, y_true, y_pred, confidence),
            "aurc (log)": partial(aurc, y_true, y_pred, confidence, estimator="log"),
            "sele": partial(sele, y_true, y_pred, confidence),
            "augrc": partial(augrc, y_true, y_pred, confidence),
            "e_aurc": partial(e_aurc, y_true, y_pred, confidence),
            "naurc": partial(naurc, y_true, y_pred, confidence),
            "uq_auc": partial(uq_auc, y_true, y_pred, confidence),
            "uq_c_index": partial(uq_c_index, y_true, proba, confidence),
            "risk_coverage_curve": partial(
                risk_coverage_curve, y_true, y_pred, confidence
            ),
            "selective_risk_at_coverage": partial(
                selective_risk_at_coverage, y_true, y_pred, confidence, coverage=0.8
            ),
            "coverage_at_risk": partial(
                coverage_at_risk, y_true, y_pred, confidence, risk=0.05
            ),
        }
        for name, func in metrics.items():
            seconds = best_time(func, repeat)
            peak = peak_memory(func) / 2**20
            ratio = seconds / argsort_time
            goal = GOALS.get(name)
            goal_text = f"{goal:>6.1f}" if goal else f"{'':>6}"
            flag = " !" if goal and ratio > goal else ""
            print(
                f"{n:>10} {name:<28} {seconds:>10.4f} {ratio:>10.2f} {goal_text} "
                f"{peak:>9.1f}{flag}"
            )
        print()


if __name__ == "__main__":
    main()
