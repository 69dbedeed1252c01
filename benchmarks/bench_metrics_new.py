"""Time of the SPEC section 10 metrics and options, relative to ``numpy.argsort``
and to the default ``aurc`` measured in the same process.

Run: ``python benchmarks/bench_metrics_new.py [--max-n 1e6] [--repeat 3]``

Inputs: a continuous confidence (few ties), 10 classes with a 20 % error rate,
10-class probabilities for the calibration error, 5 groups for metric_by_group.
"""

import argparse
from functools import partial

import numpy as np
from _measure import best_time

from sklearn_selective.metrics import (
    augrc,
    aurc,
    aurc_weights,
    e_aurc,
    expected_calibration_error,
    metric_by_group,
)


def _cases(n, rng):
    y_true = rng.integers(0, 10, n)
    wrong = rng.random(n) < 0.2
    y_pred = np.where(wrong, (y_true + 1) % 10, y_true)
    confidence = rng.random(n) + 0.3 * ~wrong
    proba = rng.random((n, 10))
    proba /= proba.sum(axis=1, keepdims=True)
    groups = rng.integers(0, 5, n)
    data = (y_true, y_pred, confidence)
    return {
        "aurc (default)": partial(aurc, *data),
        "aurc_weights": partial(aurc_weights, confidence),
        "aurc coverage_range": partial(aurc, *data, coverage_range=(0.2, 0.7)),
        "aurc trapezoid": partial(aurc, *data, aurc_estimator="trapezoid"),
        "aurc class_balanced": partial(
            aurc, *data, aurc_estimator="trapezoid", class_balanced=True
        ),
        "augrc coverage_range": partial(augrc, *data, coverage_range=(0.2, 0.7)),
        "augrc class_balanced": partial(augrc, *data, class_balanced=True),
        "e_aurc asymptotic": partial(e_aurc, *data, oracle="asymptotic"),
        "ece top_label": partial(expected_calibration_error, y_true, proba),
        "ece classwise": partial(
            expected_calibration_error, y_true, proba, multiclass="classwise"
        ),
        "ece quantile": partial(
            expected_calibration_error, y_true, proba, strategy="quantile"
        ),
        "metric_by_group augrc": partial(
            metric_by_group, "augrc", *data, groups=groups
        ),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-n", type=float, default=1e6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    sizes = [n for n in (10**4, 10**5, 10**6, 10**7) if n <= args.max_n]
    print(
        f"{'n':>9}  {'function':<24}  {'time (s)':>9}  {'/ argsort':>9}  {'/ aurc':>7}"
    )
    for n in sizes:
        cases = _cases(n, rng)
        values = rng.random(n)
        reference = best_time(partial(np.argsort, values), args.repeat)
        default = best_time(cases["aurc (default)"], args.repeat)
        for name, call in cases.items():
            seconds = best_time(call, args.repeat)
            print(
                f"{n:>9}  {name:<24}  {seconds:>9.4f}  {seconds / reference:>9.1f}  "
                f"{seconds / default:>7.2f}"
            )


if __name__ == "__main__":
    main()
