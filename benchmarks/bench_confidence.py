"""Time of every confidence score function against the one-pass baseline.

Run: ``python benchmarks/bench_confidence.py [--n 1e6] [--classes 10 1000]``

For each CSF the input is the float64 array it reads (probabilities or logits
``(n, k)``, or ensemble probabilities ``(m, n / m, k)`` with the same number of
elements), and the baseline is ``np.max(x, axis=-1)`` plus one ``np.log`` pass
over the same array. The goal is a ratio of at most 3. One ``n x k`` array is
alive at a time: n = 1e6, k = 1000 needs about 16 GB (the array and the
baseline's logarithm). Times are the best of ``--repeat``.
"""

import argparse

import numpy as np
from _measure import best_time

from sklearn_selective.confidence import (
    get_confidence_function,
    get_confidence_function_names,
)


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--classes", type=int, nargs="+", default=[10, 1000])
    parser.add_argument("--members", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
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


if __name__ == "__main__":
    main()
