"""Exact metrics beyond memory (issue 36): the accumulator and Dask.

Run: ``python benchmarks/bench_scale.py [--tiny] [--full]``

Prints three tables:

1. accumulator update throughput (rows/s, batches of ``--batch`` rows, then
   ``compute("aurc")``) against in-memory ``aurc`` on the same rows, exact state and
   a budget of 2**16 groups;
2. bound width (``upper - lower``) of AURC and AUGRC with budgets 2**12, 2**16,
   2**20 on continuous confidences (1e7 rows; 1e8 with ``--full``, generated batch
   by batch), and whether the exact value (in memory, up to 1e7 rows) is inside;
3. Dask against numpy on a ``LocalCluster`` of 2 workers: exactness and wall time
   with continuous confidences and with heavy ties (rounded to 3 decimals); with
   ``--compare-sort`` also the AURC by the alternative, a distributed sort
   (``set_index``) with per-partition contributions and global offsets.

4. ``sklearn-selective evaluate`` on a Parquet file (``--evaluate-rows``, 1e7 by
   default; written row group by row group): wall time and peak RSS of the child
   process (``resource.getrusage(RUSAGE_CHILDREN)`` of a wrapper that runs it
   alone), in memory against ``--stream``, with three-class probabilities
   rounded to 3 decimals (the exact state is a few thousand groups) and
   continuous ones streamed with ``--max-groups 65536``.

Data: 0/1 losses whose failure probability falls with the confidence.
``--tiny`` runs every table at 1e4 rows in a few seconds.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sklearn_selective.metrics import augrc, aurc, uq_auc
from sklearn_selective.metrics._accumulator import RiskCoverageAccumulator


def _batch(n, seed, decimals=None):
    rng = np.random.default_rng(seed)
    confidence = rng.random(n)
    losses = (rng.random(n) < 0.4 * (1.0 - confidence)).astype(np.float64)
    if decimals is not None:
        confidence = np.round(confidence, decimals)
    return confidence, losses


def _batches(n, batch):
    for index, start in enumerate(range(0, n, batch)):
        yield _batch(min(batch, n - start), seed=index)


def _accumulate(n, batch, max_groups):
    accumulator = RiskCoverageAccumulator(max_groups=max_groups)
    for confidence, losses in _batches(n, batch):
        accumulator.update(None, None, confidence, loss=losses)
    return accumulator


def throughput(sizes, batch):
    print("\n1. Accumulator update throughput (exact AURC at the end)")
    print(f"{'n':>10} {'state':>12} {'rows/s':>12} {'aurc rows/s':>12} "
          f"{'time ratio':>10} {'|diff|':>9}")  # fmt: skip
    for n in sizes:
        data = list(_batches(n, batch))
        confidence = np.concatenate([c for c, _ in data])
        losses = np.concatenate([loss for _, loss in data])
        start = time.perf_counter()
        expected = aurc(None, None, confidence, loss=losses)
        in_memory = time.perf_counter() - start
        del confidence, losses
        for max_groups in (None, 2**16):
            start = time.perf_counter()
            accumulator = RiskCoverageAccumulator(max_groups=max_groups)
            for confidence, losses in data:
                accumulator.update(None, None, confidence, loss=losses)
            value = accumulator.compute("aurc")
            elapsed = time.perf_counter() - start
            state = (
                "exact" if max_groups is None else f"2**{max_groups.bit_length() - 1}"
            )
            print(f"{n:>10.0e} {state:>12} {n / elapsed:>12.3g} "
                  f"{n / in_memory:>12.3g} {elapsed / in_memory:>10.2f} "
                  f"{abs(value - expected):>9.1e}")  # fmt: skip


def bound_widths(n, batch, budgets):
    print(f"\n2. Bound width on {n:.0e} continuous confidences")
    exact = {}
    if n <= 10**7:
        data = list(_batches(n, batch))
        confidence = np.concatenate([c for c, _ in data])
        losses = np.concatenate([loss for _, loss in data])
        exact = {
            "aurc": aurc(None, None, confidence, loss=losses),
            "augrc": augrc(None, None, confidence, loss=losses),
        }
        del confidence, losses, data
    print(f"{'budget':>8} {'groups':>8} {'metric':>6} {'width':>10} "
          f"{'compute-exact':>14} {'inside':>6} {'seconds':>8}")  # fmt: skip
    for max_groups in budgets:
        start = time.perf_counter()
        accumulator = _accumulate(n, batch, max_groups)
        elapsed = time.perf_counter() - start
        for metric in ("aurc", "augrc"):
            lower, upper = accumulator.bounds(metric)
            value = accumulator.compute(metric)
            if metric in exact:
                error = f"{value - exact[metric]:>14.1e}"
                inside = str(lower <= exact[metric] <= upper)
            else:
                error, inside = f"{'':>14}", "-"
            print(f"2**{max_groups.bit_length() - 1:<5} {accumulator.n_groups_:>8} "
                  f"{metric:>6} {upper - lower:>10.2e} {error} {inside:>6} "
                  f"{elapsed:>8.1f}")  # fmt: skip


def _partition_groups(frame):
    values, inverse = np.unique(frame.index.to_numpy(), return_inverse=True)
    weight = np.bincount(inverse, minlength=values.shape[0]).astype(np.float64)
    loss = np.bincount(inverse, frame["l"].to_numpy(), minlength=values.shape[0])
    return weight, loss


def _sorted_contribution(frame, offset, n):
    from sklearn_selective.metrics._core._alpha import ALPHA_ESTIMATORS

    weight, loss = _partition_groups(frame)
    upto = np.cumsum(weight) + offset
    keep = loss > 0
    below = upto[keep] - weight[keep]
    alpha = ALPHA_ESTIMATORS["harmonic"](below, upto[keep], np.full(below.shape, n))
    return float(np.dot(alpha, loss[keep]))


def sorted_aurc(confidence, losses):
    """The alternative to the tree of states: a distributed sort (``set_index``,
    whose divisions keep each tie group in one partition), then the partitions'
    sizes, global offsets, and per-partition contributions of the harmonic AURC."""
    import dask
    import dask.array as da
    import dask.dataframe as dd

    frame = dd.from_dask_array(
        da.stack([confidence, losses], axis=1), columns=["c", "l"]
    )
    ordered = frame.set_index("c").persist()
    sizes = ordered.map_partitions(len).compute().to_numpy().astype(np.float64)
    offsets = np.concatenate([[0.0], np.cumsum(sizes)[:-1]])
    n = float(sizes.sum())
    contribution = dask.delayed(_sorted_contribution)
    parts = [
        contribution(part, offset, n)
        for part, offset in zip(ordered.to_delayed(), offsets, strict=True)
    ]
    return sum(dask.compute(*parts)) / n


def dask_exactness(n, chunk, compare_sort=False):
    import dask.array as da
    from distributed import Client, LocalCluster

    from sklearn_selective.metrics._dask_dispatch import dask_metric

    print(f"\n3. Dask vs numpy, {n:.0e} rows in {chunk:.0e}-row chunks, "
          "LocalCluster(2 workers, 1 thread each)")  # fmt: skip
    print(f"{'ties':>10} {'metric':>7} {'|dask-numpy|':>13} {'dask s':>8} "
          f"{'numpy s':>8}")  # fmt: skip
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster,
        Client(cluster),
    ):
        for decimals in (None, 3):
            rng = da.random.default_rng(0)
            confidence = rng.random(n, chunks=chunk)
            if decimals is not None:
                confidence = da.round(confidence, decimals)
            losses = (rng.random(n, chunks=chunk) < 0.4 * (1.0 - confidence)).astype(
                np.float64
            )
            local_confidence, local_losses = (x.compute() for x in (confidence, losses))
            if compare_sort:
                start = time.perf_counter()
                value = sorted_aurc(confidence, losses)
                on_dask = time.perf_counter() - start
                expected = aurc(None, None, local_confidence, loss=local_losses)
                ties = "continuous" if decimals is None else f"{decimals} decimals"
                print(f"{ties:>10} {'sort':>7} {abs(value - expected):>13.1e} "
                      f"{on_dask:>8.2f}   (aurc by a distributed sort)")  # fmt: skip
            for name, function in (
                ("aurc", aurc),
                ("augrc", augrc),
                ("uq_auc", uq_auc),
            ):
                start = time.perf_counter()
                value = dask_metric(name, None, None, confidence, loss=losses)
                on_dask = time.perf_counter() - start
                start = time.perf_counter()
                expected = function(None, None, local_confidence, loss=local_losses)
                in_memory = time.perf_counter() - start
                ties = "continuous" if decimals is None else f"{decimals} decimals"
                print(f"{ties:>10} {name:>7} {abs(value - expected):>13.1e} "
                      f"{on_dask:>8.2f} {in_memory:>8.2f}")  # fmt: skip


def _write_parquet(path, n, decimals, batch=10**6):
    """n rows of y_true and proba_0..2, written one row group at a time."""
    import pyarrow
    import pyarrow.parquet

    writer = None
    for index, start in enumerate(range(0, n, batch)):
        rng = np.random.default_rng(index)
        size = min(batch, n - start)
        proba = rng.dirichlet(np.full(3, 0.5), size=size)
        if decimals is not None:
            proba = np.round(proba, decimals)
            proba[:, 2] = np.clip(1.0 - proba[:, 0] - proba[:, 1], 0.0, 1.0)
        wrong = rng.random(size) < 0.5 * (1.0 - proba.max(axis=1))
        y_true = np.where(wrong, rng.integers(0, 3, size), proba.argmax(axis=1))
        columns = {"y_true": y_true, **{f"proba_{k}": proba[:, k] for k in range(3)}}
        table = pyarrow.table(columns)
        if writer is None:
            writer = pyarrow.parquet.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()


# Runs the command line as its only child and prints the child's peak RSS.
_WRAPPER = """
import resource, subprocess, sys, time
start = time.perf_counter()
run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(run.returncode, elapsed, peak)
print(run.stdout)
print(run.stderr, file=sys.stderr)
"""


def _evaluate_child(path, *options):
    command = [sys.executable, "-m", "sklearn_selective", "evaluate", str(path)]
    command += ["--format", "json", "--metrics", "aurc,augrc,uq_auc", *options]
    run = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *command], capture_output=True, text=True
    )
    status, elapsed, peak = run.stdout.splitlines()[0].split()
    if status != "0":
        raise RuntimeError(run.stderr)
    result = json.loads("\n".join(run.stdout.splitlines()[1:]))
    return float(elapsed), float(peak), result


# Above this many rows table 4 runs only what holds bounded memory.
_IN_MEMORY_ROWS = 3 * 10**7


def evaluate_files(n):
    print(f"\n4. evaluate on a Parquet file of {n:.0e} rows (child process)")
    print(f"{'probabilities':>13} {'mode':>22} {'time (s)':>9} {'peak RSS (MB)':>14} "
          f"{'AURC':>10} {'bounds width':>13}")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        for decimals in (3, None):
            path = Path(folder) / f"predictions_{decimals}.parquet"
            _write_parquet(path, n, decimals)
            modes = {
                "in memory": ["--n-resamples", "0"],
                "--stream": ["--stream"],
            }
            if n > _IN_MEMORY_ROWS:  # the in-memory arrays would not fit
                del modes["in memory"]
                if decimals is None:  # one group per row: the exact state neither
                    del modes["--stream"]
            if decimals is None:
                modes["--max-groups 65536"] = ["--max-groups", "65536"]
            ties = "continuous" if decimals is None else f"{decimals} decimals"
            for mode, options in modes.items():
                elapsed, peak, result = _evaluate_child(path, *options)
                row = result["metrics"][0]
                width = row.get("upper_bound", row["value"]) - row.get(
                    "lower_bound", row["value"]
                )
                print(f"{ties:>13} {mode:>22} {elapsed:>9.1f} {peak:>14.0f} "
                      f"{row['value']:>10.6f} {width:>13.1e}")  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="1e4 rows everywhere")
    parser.add_argument("--full", action="store_true", help="bound widths at 1e8")
    parser.add_argument("--batch", type=float, default=1e5, help="rows per update")
    parser.add_argument("--no-dask", action="store_true", help="skip table 3")
    parser.add_argument(
        "--evaluate-rows",
        type=float,
        default=1e7,
        help="rows of the Parquet file of table 4 (0: skip it)",
    )
    parser.add_argument("--only-evaluate", action="store_true", help="table 4 alone")
    parser.add_argument(
        "--compare-sort",
        action="store_true",
        help="table 3 also times the AURC by a distributed sort (set_index)",
    )
    args = parser.parse_args()
    batch = int(args.batch)
    if args.only_evaluate:
        evaluate_files(int(1e4 if args.tiny else args.evaluate_rows))
        return
    if args.tiny:
        batch = 1000
        throughput([10**4], batch)
        bound_widths(10**4, batch, [2**4, 2**8])
        if not args.no_dask:
            dask_exactness(10**4, 2_000, args.compare_sort)
        evaluate_files(10**4)
        return
    throughput([10**6, 10**7], batch)
    bound_widths(
        10**8 if args.full else 10**7, max(batch, 10**6), [2**12, 2**16, 2**20]
    )
    if not args.no_dask:
        dask_exactness(10**7, 10**6, args.compare_sort)
    if args.evaluate_rows:
        evaluate_files(int(args.evaluate_rows))


if __name__ == "__main__":
    main()
