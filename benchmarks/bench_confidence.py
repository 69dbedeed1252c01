"""Time of every confidence score function against the one-pass baseline.

Run: ``python benchmarks/bench_confidence.py [--n 1e6] [--classes 10 1000]``

For each CSF the input is the array it reads (probabilities or logits
``(n, k)``, or ensemble probabilities ``(m, n / m, k)`` with the same number of
elements), and the baseline is ``np.max(x, axis=-1)`` plus one ``np.log`` pass
over the same array. The goal is a ratio of at most 3. Arrays with more than
2e8 elements are float32 (the CSFs convert row blocks to float64 as they go),
so that n = 1e6, k = 1000 fits in memory. Times are the best of ``--repeat``.
"""

import argparse
import time

import numpy as np

from sklearn_selective.confidence import (
    get_confidence_function,
    get_confidence_function_names,
)


def _best(func, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def _inputs(n, k, members, dtype, seed=0):
    rng = np.random.default_rng(seed)
    logits = rng.normal(scale=3.0, size=(n, k)).astype(dtype)
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    return {
        "predict_proba": proba,
        "decision_function": logits,
        "ensemble_proba": proba[: n - n % members].reshape(members, -1, k),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e6)
    parser.add_argument("--classes", type=int, nargs="+", default=[10, 1000])
    parser.add_argument("--members", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = int(args.n)

    header = f"{'k':>5} {'dtype':>7} {'csf':<20} {'time [ms]':>10} {'baseline':>10}"
    print(f"{header} {'ratio':>6}")
    for k in args.classes:
        dtype = np.float32 if n * k > 2e8 else np.float64
        inputs = _inputs(n, k, args.members, dtype)
        baselines = {
            output: _best(lambda x=x: (np.max(x, axis=-1), np.log(x)), args.repeat)
            for output, x in inputs.items()
        }
        for name in get_confidence_function_names():
            function = get_confidence_function(name)
            x = inputs[function.model_output]
            seconds = _best(lambda f=function, x=x: f(x), args.repeat)
            base = baselines[function.model_output]
            flag = "" if seconds <= 3 * base else "  > 3x"
            print(
                f"{k:>5} {np.dtype(dtype).name:>7} {name:<20} {seconds * 1e3:>10.1f} "
                f"{base * 1e3:>10.1f} {seconds / base:>6.2f}{flag}"
            )
        del inputs


if __name__ == "__main__":
    main()
