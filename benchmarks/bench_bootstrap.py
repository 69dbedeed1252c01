"""Time and peak memory of ``bootstrap_metric``: fast (count) path vs generic path.

Run: ``python benchmarks/bench_bootstrap.py [--sizes 1e3 1e4 1e5 1e6]
[--n-resamples 1000] [--max-generic-n 1e4] [--metrics aurc augrc ...] [--n-jobs 2]``

For each n the inputs are a continuous confidence (few ties) and labels with a 20 %
error rate, as in ``bench_metrics.py``. The fast path draws every resample as a
vector of counts and evaluates it on the once-sorted data; the generic path (forced
by wrapping the metric in another function) calls the public metric on every
index-resampled copy, one process. Both use the same resamples, and the table checks
that they agree. ``per resample`` is the fast path's time per resample divided by
the time of one call of the public metric on the original data (best of three), so
it does not depend on the machine's speed. ``uq_c_index`` evaluates one resample at
a time: it runs at most ``--max-c-index-resamples`` resamples and the time is
scaled to ``--n-resamples`` (marked ``*``). Peak memory is the largest extra
allocation seen by ``tracemalloc`` during one fast-path run of 20 resamples.
"""

import argparse
import time
from functools import partial

import numpy as np
from _measure import peak_memory

from sklearn_selective.metrics import (
    augrc,
    aurc,
    bootstrap_metric,
    coverage_at_risk,
    e_aurc,
    naurc,
    sele,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)

METRICS = {
    "aurc": (aurc, {}),
    "augrc": (augrc, {}),
    "sele": (sele, {}),
    "uq_auc": (uq_auc, {}),
    "e_aurc": (e_aurc, {}),
    "naurc": (naurc, {}),
    "risk@0.8": (selective_risk_at_coverage, {"coverage": 0.8}),
    "cov@0.1": (coverage_at_risk, {"risk": 0.1}),
    "uq_c_index": (uq_c_index, {}),
}


def _inputs(n, rng, n_classes=10):
    y_true = rng.integers(0, n_classes, n)
    wrong = rng.random(n) < 0.2
    y_pred = np.where(wrong, (y_true + 1) % n_classes, y_true)
    confidence = rng.random(n) + 0.3 * ~wrong
    proba = rng.dirichlet(np.ones(n_classes), n)
    return y_true, y_pred, confidence, proba


def _unwrapped(metric, *args, **kwargs):
    """The metric behind another function object: forces the generic path."""
    return metric(*args, **kwargs)


def _timed(func):
    start = time.perf_counter()
    result = func()
    return time.perf_counter() - start, result


def _row(name, n, data, args):
    metric, kwargs = METRICS[name]
    y_true, y_pred, confidence, proba = data
    second = proba if metric is uq_c_index else y_pred
    call = partial(metric, y_true, second, confidence, **kwargs)
    single = min(_timed(call)[0] for _ in range(3))
    n_resamples = args.n_resamples
    if metric is uq_c_index:
        n_resamples = min(n_resamples, args.max_c_index_resamples)
    run = partial(
        bootstrap_metric,
        metric,
        y_true,
        second,
        confidence,
        random_state=0,
        n_jobs=args.n_jobs,
        **kwargs,
    )
    fast_time, fast = _timed(partial(run, n_resamples=n_resamples))
    scaled = fast_time * args.n_resamples / n_resamples
    mark = "*" if n_resamples < args.n_resamples else " "
    peak = peak_memory(partial(run, n_resamples=20))
    generic_text = f"{'':>12} {'':>9} {'':>11}"
    if n <= args.max_generic_n:
        generic = partial(_unwrapped, metric)
        generic_time, result = _timed(
            partial(
                bootstrap_metric,
                generic,
                y_true,
                second,
                confidence,
                n_resamples=n_resamples,
                random_state=0,
                **kwargs,
            )
        )
        diff = np.nanmax(
            np.abs(fast.bootstrap_distribution - result.bootstrap_distribution)
        )
        generic_text = (
            f"{generic_time:>12.3f} {generic_time / fast_time:>9.1f} {diff:>11.1e}"
        )
    per_resample = fast_time / n_resamples / single
    return (
        f"{n:>8} {name:<10} {scaled:>9.3f}{mark} {per_resample:>12.2f}x "
        f"{generic_text} {peak / 2**20:>9.1f}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e3, 1e4, 1e5, 1e6])
    parser.add_argument("--n-resamples", type=int, default=1000)
    parser.add_argument("--max-generic-n", type=float, default=1e4)
    parser.add_argument("--max-c-index-resamples", type=int, default=20)
    parser.add_argument("--metrics", nargs="+", default=list(METRICS))
    parser.add_argument(
        "--n-jobs",
        type=int,
        default=None,
        help="bootstrap_metric's n_jobs: threads for uq_c_index (the risk "
        "metrics ignore it)",
    )
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    header = (
        f"{'n':>8} {'metric':<10} {'fast [s]':>10} {'per resample':>13} "
        f"{'generic [s]':>12} {'speed-up':>9} {'max |diff|':>11} {'peak MiB':>9}"
    )
    print(f"{args.n_resamples} resamples per run (* scaled from fewer)")
    print(header)
    print("-" * len(header))
    for n in map(int, args.sizes):
        data = _inputs(n, rng)
        for name in args.metrics:
            print(_row(name, n, data, args), flush=True)
        print()


if __name__ == "__main__":
    main()
