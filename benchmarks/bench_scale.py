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

Data: 0/1 losses whose failure probability falls with the confidence.
``--tiny`` runs every table at 1e4 rows in a few seconds.
"""

import argparse
import time

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

    from sklearn_selective.metrics._dask import dask_metric

    print(f"\n3. Dask vs numpy, {n:.0e} rows in {chunk:.0e}-row chunks, "
          "LocalCluster(2 workers, 1 thread each)")  # fmt: skip
    print(f"{'ties':>10} {'metric':>7} {'|dask-numpy|':>13} {'dask s':>8} "
          f"{'numpy s':>8}")  # fmt: skip
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="1e4 rows everywhere")
    parser.add_argument("--full", action="store_true", help="bound widths at 1e8")
    parser.add_argument("--batch", type=float, default=1e5, help="rows per update")
    parser.add_argument("--no-dask", action="store_true", help="skip table 3")
    parser.add_argument(
        "--compare-sort",
        action="store_true",
        help="table 3 also times the AURC by a distributed sort (set_index)",
    )
    args = parser.parse_args()
    batch = int(args.batch)
    if args.tiny:
        batch = 1000
        throughput([10**4], batch)
        bound_widths(10**4, batch, [2**4, 2**8])
        if not args.no_dask:
            dask_exactness(10**4, 2_000, args.compare_sort)
        return
    throughput([10**6, 10**7], batch)
    bound_widths(
        10**8 if args.full else 10**7, max(batch, 10**6), [2**12, 2**16, 2**20]
    )
    if not args.no_dask:
        dask_exactness(10**7, 10**6, args.compare_sort)


if __name__ == "__main__":
    main()
