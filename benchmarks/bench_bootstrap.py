"""Time and peak memory of ``bootstrap_metric``: fast (count) path vs generic path.

Run: ``python benchmarks/bench_bootstrap.py [--max-n 1e6] [--n-resamples 1000]
[--max-generic-n 1e4]``

For each n the inputs are a continuous confidence (few ties) and labels with a 20 %
error rate, as in ``bench_metrics.py``. The fast path sorts the data once and
evaluates blocks of resamples as integer sample weights; the generic path (forced by
wrapping the metric in a lambda) calls the public metric on every index-resampled
copy, one process. Both draw the same resamples, and the table checks that they agree.
``per resample`` is the fast path's time per resample divided by the time of one
call of the public metric on the original data (best of three). Peak memory is the
largest extra allocation seen by ``tracemalloc`` during one fast-path run of two
blocks of resamples (the peak does not grow with more resamples).
"""

import argparse
import time
from functools import partial

import numpy as np
from _measure import peak_memory

from sklearn_selective.metrics import augrc, aurc, uq_auc
from sklearn_selective.metrics._bootstrap import _block_size, bootstrap_metric

METRICS = {"aurc": aurc, "augrc": augrc, "uq_auc": uq_auc}


def _inputs(n, rng, n_classes=10):
    y_true = rng.integers(0, n_classes, n)
    wrong = rng.random(n) < 0.2
    y_pred = np.where(wrong, (y_true + 1) % n_classes, y_true)
    confidence = rng.random(n) + 0.3 * ~wrong
    return y_true, y_pred, confidence


def _unwrapped(metric, *args, **kwargs):
    """The metric behind another function object: forces the generic path."""
    return metric(*args, **kwargs)


def _timed(func):
    start = time.perf_counter()
    result = func()
    return time.perf_counter() - start, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=float, default=1e6)
    parser.add_argument("--n-resamples", type=int, default=1000)
    parser.add_argument("--max-generic-n", type=float, default=1e4)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n_resamples = args.n_resamples

    sizes = [int(10**k) for k in range(3, 8) if 10**k <= args.max_n]
    header = (
        f"{'n':>8} {'metric':<7} {'fast [s]':>9} {'per resample':>13} "
        f"{'generic [s]':>12} {'speed-up':>9} {'max |diff|':>11} {'peak MiB':>9}"
    )
    print(f"{n_resamples} resamples per run")
    print(header)
    print("-" * len(header))
    for n in sizes:
        data = _inputs(n, rng)
        for name, metric in METRICS.items():
            single = min(_timed(partial(metric, *data))[0] for _ in range(3))
            run = partial(bootstrap_metric, name, *data, random_state=0)
            fast_time, fast = _timed(partial(run, n_resamples=n_resamples))
            peak = peak_memory(
                partial(run, n_resamples=min(n_resamples, 2 * _block_size(n)))
            )
            generic_text = f"{'':>12} {'':>9} {'':>11}"
            if n <= args.max_generic_n:
                generic_time, generic = _timed(
                    partial(
                        bootstrap_metric,
                        partial(_unwrapped, metric),
                        *data,
                        n_resamples=n_resamples,
                        random_state=0,
                    )
                )
                diff = np.nanmax(
                    np.abs(fast.bootstrap_distribution - generic.bootstrap_distribution)
                )
                generic_text = (
                    f"{generic_time:>12.3f} {generic_time / fast_time:>9.1f} "
                    f"{diff:>11.1e}"
                )
            per_resample = fast_time / n_resamples / single
            print(
                f"{n:>8} {name:<7} {fast_time:>9.3f} {per_resample:>12.2f}x "
                f"{generic_text} {peak / 2**20:>9.1f}",
                flush=True,
            )
        print()


if __name__ == "__main__":
    main()
