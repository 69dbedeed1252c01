"""
======================================================
Exact metrics on ten million predictions, with Dask
======================================================

A month of a moderation system's predictions does not fit in one array. The
risk-coverage metrics are functions of *tie groups* (one per distinct
confidence, with its total weight and loss), and tie groups merge exactly: the
sum of two tables is the table of the union. So the metric functions accept
Dask arrays and DataFrame columns, build one table per partition on the
cluster, merge them in a tree and return **exactly** the number numpy gives on
the same data in memory, ties across partitions included.

Where even the distinct confidences do not fit,
:class:`~sklearn_selective.metrics.RiskCoverageAccumulator` with a budget of
groups keeps memory bounded and returns certified bounds that always contain
the exact value.
"""

# %%
# Ten million predictions on a local cluster
# ------------------------------------------
# Two workers on this machine; on a real cluster pass its address to
# ``Client``. The data are generated lazily in partitions of a million rows:
# confidences rounded to three decimals (heavy ties across partitions) and
# errors more likely at low confidence.
import time

import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster

from sklearn_selective.metrics import RiskCoverageAccumulator, augrc, aurc, uq_auc

n_rows, chunk = 10_000_000, 1_000_000
cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False)
client = Client(cluster)

rng = da.random.default_rng(0)
confidence = da.round(rng.random(n_rows, chunks=chunk), 3)
loss = (rng.random(n_rows, chunks=chunk) > confidence).astype(np.float64)

# %%
# The same numbers as numpy
# -------------------------
# The Dask call computes on the cluster; the numpy call needs the whole arrays
# in one process (here they still fit, so we can compare).
local_confidence, local_loss = da.compute(confidence, loss)
print(f"{'metric':<8} {'dask':>22} {'numpy':>22} {'|difference|':>13}")
for metric in (aurc, augrc, uq_auc):
    start = time.perf_counter()
    on_dask = metric(None, None, confidence, loss=loss)
    dask_seconds = time.perf_counter() - start
    start = time.perf_counter()
    in_memory = metric(None, None, local_confidence, loss=local_loss)
    numpy_seconds = time.perf_counter() - start
    print(
        f"{metric.__name__:<8} {on_dask:>14.12f} ({dask_seconds:4.1f} s) "
        f"{in_memory:>14.12f} ({numpy_seconds:4.1f} s) "
        f"{abs(on_dask - in_memory):>13.1e}"
    )

# %%
# Bounded memory: an accumulator with a budget
# --------------------------------------------
# Batch by batch, as a PyTorch evaluation loop would feed it. With continuous
# confidences every sample is its own group; a budget of 2**12 groups merges
# neighbours and certifies the range the exact AURC lies in.
budget = RiskCoverageAccumulator(max_groups=2**12)
exact = RiskCoverageAccumulator()
batches = np.random.default_rng(1)
continuous = batches.random(1_000_000)
errors = (batches.random(1_000_000) > continuous).astype(np.float64)
for start in range(0, continuous.shape[0], 100_000):
    stop = start + 100_000
    budget.update(None, None, continuous[start:stop], loss=errors[start:stop])
    exact.update(None, None, continuous[start:stop], loss=errors[start:stop])
lower, upper = budget.bounds("aurc")
print(f"exact AURC {exact.compute('aurc'):.8f} in [{lower:.8f}, {upper:.8f}]")
print(f"width of the certified range: {upper - lower:.1e}")

client.close()
cluster.close()
