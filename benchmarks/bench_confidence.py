"""Time of every confidence score function against the one-pass baseline.

Run: ``python benchmarks/bench_confidence.py [--n 1e6] [--classes 10 1000]
[--feature-n 1e4] [--feature-dims 64 512]``

For each CSF the input is the float64 array it reads (probabilities or logits
``(n, k)``, or ensemble probabilities ``(m, n / m, k)`` with the same number of
elements), and the baseline is ``np.max(x, axis=-1)`` plus one ``np.log`` pass
over the same array. The goal is a ratio of at most 3. One ``n x k`` array is
alive at a time: n = 1e6, k = 1000 needs about 16 GB (the array and the
baseline's logarithm). Times are the best of ``--repeat``.

The feature-space CSFs (``mahalanobis``, ``knn_distance``) are timed apart:
fitted on ``--feature-n`` training vectors of each dimension in
``--feature-dims`` (10 Gaussian classes), then scoring as many new ones.
"""

import argparse

import numpy as np
from _measure import best_time

from sklearn_selective.confidence import (
    get_confidence_function,
    get_confidence_function_names,
)
from sklearn_selective.confidence._feature_space import fit_on_features


def _probabilities(n, k, seed=0):
    """Softmax of scaled Gaussian logits, built in place (one n x k array)."""
    proba = np.random.default_rng(seed).standard_normal((n, k))
    proba *= 3.0
    proba -= proba.max(axis=1, keepdims=True)
    np.exp(proba, out=proba)
    proba /= proba.sum(axis=1, keepdims=True)
    return proba


def _run(names, x, repeat, k):
    base = best_time(lambda: (np.max(x, axis=-1), np.log(x)), repeat)
    for name in names:
        function = get_confidence_function(name)
        seconds = best_time(lambda f=function: f(x), repeat)
        flag = "" if seconds <= 3 * base else "  > 3x"
        print(
            f"{k:>5} {x.shape!s:>18} {name:<24} {seconds * 1e3:>10.1f} "
            f"{base * 1e3:>10.1f} {seconds / base:>6.2f}{flag}",
            flush=True,
        )


def _features(n, d, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n)
    return rng.standard_normal((n, d)) + 2.0 * labels[:, None] / d**0.5, labels


def _run_features(n, dims, repeat):
    print(f"\n{'d':>5} {'n train = n scored':>18} {'csf':<24} {'fit [ms]':>10} "
          f"{'score [ms]':>10}")  # fmt: skip
    for d in dims:
        train, labels = _features(n, d, 0)
        new, _ = _features(n, d, 1)
        for name in ("mahalanobis", "knn_distance"):
            fitted = fit_on_features(name, train, labels)
            fit = best_time(
                lambda f=name, x=train, y=labels: fit_on_features(f, x, y), repeat
            )
            score = best_time(lambda f=fitted, x=new: f(x), repeat)
            print(f"{d:>5} {n:>18} {name:<24} {fit * 1e3:>10.1f} "
                  f"{score * 1e3:>10.1f}", flush=True)  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--classes", type=int, nargs="+", default=[10, 1000])
    parser.add_argument("--members", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--feature-n", type=float, default=1e4)
    parser.add_argument("--feature-dims", type=int, nargs="+", default=[64, 512])
    args = parser.parse_args()
    n = int(args.n)
    by_output = {}
    for name in get_confidence_function_names():
        output = get_confidence_function(name).model_output
        by_output.setdefault(output, []).append(name)

    header = f"{'k':>5} {'input shape':>18} {'csf':<24} {'time [ms]':>10}"
    print(f"{header} {'baseline':>10} {'ratio':>6}")
    for k in args.classes:
        proba = _probabilities(n, k)
        _run(by_output["predict_proba"], proba, args.repeat, k)
        members = proba[: n - n % args.members].reshape(args.members, -1, k)
        _run(by_output["ensemble_proba"], members, args.repeat, k)
        # Positive logits (-log p), so that the baseline's log is defined.
        logits = np.negative(np.log(proba, out=proba), out=proba)
        _run(by_output["decision_function"], logits, args.repeat, k)
        del proba, members, logits
    _run_features(int(args.feature_n), args.feature_dims, args.repeat)


if __name__ == "__main__":
    main()
