"""Metrics of lazily generated Dask arrays on a memory-limited cluster (issue 36).

Run: ``python benchmarks/bench_scale_cluster.py [--sizes 1e7 3e7 1e8] [--tiny]
[--monitor ROWS]``

For each size ``n`` (100 partitions, generated on the workers, never in the
client) a fresh ``LocalCluster`` of 2 worker processes with a 2 GB memory limit
each computes AURC, AUGRC and UQ-AUC of Dask arrays:

- **3 decimals** (1,000 distinct confidences): exact, ``max_groups=None``;
- **continuous** confidences with ``max_groups=2**20``: the exact state would
  hold every distinct confidence in the last merge (about 40 bytes each, 4 GB
  at 1e8), beyond a 2 GB worker, so the budget bounds it and the bounds say
  how far the value can be (``upper - lower``).

Printed per row: wall time, rows per second, the ratio of per-row cost to
in-memory numpy's at 1e7 rows (measured in the same run, same metric and ties),
and the peak resident memory of each worker process (``ru_maxrss``, which
includes the worker's ~150 MB baseline). The goal (issue 36): peak worker
memory independent of ``n`` and per-row cost within 3x of numpy.

``--monitor ROWS`` instead times ``PerformanceMonitor.estimate`` on a Dask
DataFrame of that many rows in 20 partitions (one chunk each) on the same
cluster, against the same chunks in memory, and prints the largest difference
of the result's numbers.
"""

import argparse
import logging
import resource
import time

import numpy as np

from sklearn_selective.metrics import augrc, aurc, uq_auc

METRICS = {"aurc": aurc, "augrc": augrc, "uq_auc": uq_auc}
BUDGET = 2**20


def _data(n, partitions, decimals):
    import dask.array as da

    rng = da.random.default_rng(0)
    chunk = -(-n // partitions)
    confidence = rng.random(n, chunks=chunk)
    if decimals is not None:
        confidence = da.round(confidence, decimals)
    losses = rng.random(n, chunks=chunk) < 0.4 * (1.0 - confidence)
    return confidence, losses.astype(np.float64)


def _peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cluster(memory_limit):
    """2 worker processes of one thread, each with ``memory_limit``."""
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit=memory_limit,
        dashboard_address=":0",
    )


def _numpy_seconds_per_row(n, decimals):
    """In-memory time per row of the three metrics together."""
    confidence, losses = (x.compute() for x in _data(n, 10, decimals))
    start = time.perf_counter()
    for function in METRICS.values():
        function(None, None, confidence, loss=losses)
    return (time.perf_counter() - start) / n


def _on_cluster(n, partitions, decimals, memory_limit):
    """The merged state of the tie groups, built on the workers, then the
    three metrics (and their bounds) from it; wall time and peak worker RSS."""
    from distributed import Client

    from sklearn_selective.metrics import RiskCoverageAccumulator

    max_groups = None if decimals is not None else BUDGET
    with (
        _cluster(memory_limit) as cluster,
        Client(cluster) as client,
    ):
        confidence, losses = _data(n, partitions, decimals)
        start = time.perf_counter()
        state = RiskCoverageAccumulator(max_groups=max_groups)
        state.update(None, None, confidence, loss=losses)
        values = {name: (state.compute(name), *state.bounds(name)) for name in METRICS}
        seconds = time.perf_counter() - start
        peaks = sorted(client.run(_peak_rss_mb).values())
    return values, seconds, peaks


def monitor(n_rows, memory_limit):
    """The monitor on 20 partitions against in memory: time, largest difference."""
    import dask.dataframe as dd
    import pandas as pd
    from distributed import Client
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression

    from sklearn_selective import PerformanceMonitor, SelectiveClassifier

    X, y = make_classification(
        n_samples=n_rows + 4000, n_features=10, n_informative=5, random_state=0
    )
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(10)])
    frame.iloc[4000 + n_rows // 2 :, 0] += 1.0  # the second half moves
    model = SelectiveClassifier(LogisticRegression(), target_coverage=0.8)
    model.fit(frame.iloc[:2000], y[:2000])
    fitted = PerformanceMonitor(model, random_state=0)
    fitted.fit(frame.iloc[2000:4000], y[2000:4000])
    new = frame.iloc[4000:].reset_index(drop=True)
    start = time.perf_counter()
    in_memory = fitted.estimate(new, n_chunks=20).to_frame()
    memory_seconds = time.perf_counter() - start
    with (
        _cluster(memory_limit) as cluster,
        Client(cluster),
    ):
        collection = dd.from_pandas(new, npartitions=20).persist()
        start = time.perf_counter()
        on_dask = fitted.estimate(collection).to_frame()
        dask_seconds = time.perf_counter() - start
    numbers = in_memory.select_dtypes("number").columns
    difference = (on_dask[numbers] - in_memory[numbers]).abs().max().max()
    print(f"PerformanceMonitor.estimate, {n_rows:.0e} rows, 20 chunks, "
          f"LocalCluster(2 processes x 1 thread)")  # fmt: skip
    print(f"{'in memory s':>12} {'on Dask s':>10} {'max |diff|':>11}")
    print(f"{memory_seconds:>12.1f} {dask_seconds:>10.1f} {difference:>11.1e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e7, 3e7, 1e8])
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--memory-limit", default="2GB")
    parser.add_argument("--tiny", action="store_true", help="1e5 and 3e5 rows")
    parser.add_argument("--monitor", type=float, help="time the monitor instead")
    args = parser.parse_args()
    logging.getLogger("distributed").setLevel(logging.ERROR)  # the nannies' notes
    if args.monitor:
        monitor(int(args.monitor), args.memory_limit)
        return
    sizes = [10**5, 3 * 10**5] if args.tiny else [int(s) for s in args.sizes]
    reference = min(10**7, max(sizes))
    print(f"LocalCluster: 2 worker processes x 1 thread, memory_limit="
          f"{args.memory_limit}; {args.partitions} partitions; numpy reference "
          f"at {reference:.0e} rows; AURC, AUGRC, UQ-AUC from one state")  # fmt: skip
    print(f"{'ties':>10} {'n':>7} {'aurc':>9} {'augrc':>9} {'uq_auc':>9} "
          f"{'max bound w':>11} {'s':>7} {'rows/s':>9} {'x numpy':>7} "
          f"{'peak MB/worker':>15}")  # fmt: skip
    for decimals, ties in ((3, "3 decimals"), (None, "continuous")):
        numpy_per_row = _numpy_seconds_per_row(reference, decimals)
        for n in sizes:
            values, seconds, peaks = _on_cluster(
                n, args.partitions, decimals, args.memory_limit
            )
            width = max(upper - lower for _, lower, upper in values.values())
            shown = " ".join(f"{values[name][0]:>9.6f}" for name in METRICS)
            ratio = seconds / n / numpy_per_row
            print(f"{ties:>10} {n:>7.0e} {shown} {width:>11.1e} {seconds:>7.1f} "
                  f"{n / seconds:>9.2e} {ratio:>7.2f} "
                  f"{' / '.join(f'{p:.0f}' for p in peaks):>15}")  # fmt: skip


if __name__ == "__main__":
    main()
