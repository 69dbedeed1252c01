"""``PerformanceMonitor.estimate`` on a Dask array or DataFrame, chunk by chunk.

A chunk is the unit of work and of memory. Its rows are gathered on one worker
from the partitions they span, and there the fitted monitor (sent once) runs the
model and computes the chunk's row of the table exactly as in memory: the draws
of chunk ``c`` are the named streams of ``c`` (``stream_rng(seed, ..., c)``),
wherever it runs, so the same seeds give the same result. The inputs never leave
the workers; the client receives per chunk the model's outputs (prediction,
acceptance, score and probabilities: what the result's per-class values read
later) and one row of the table, and builds the same
:class:`~sklearn_selective.MonitoringResult` as in memory.

Chunks: one per partition by default; or ``chunk_size``, ``n_chunks``, or
``timestamps`` with ``freq`` as in memory (the timestamps, one number per sample,
are read to the client; a chunk by time must be consecutive rows, so the
collection must be in time order). Dask is imported only when a Dask collection
is passed.
"""

import numpy as np

from ..metrics._dask import import_dask
from ._chunk_estimates import ChunkTable
from ._chunks import _contiguous, make_chunks, warn_undefined
from ._method_choice import FittedMethods
from ._monitored_outputs import ModelOutputs
from ._signals import monitored_inputs

# What import_dask names in its error when Dask is missing.
_NEEDS = "estimate on a Dask collection needs"


def _partitions(X):
    """The row blocks of ``X`` (delayed) and their numbers of rows."""
    dask = import_dask(_NEEDS)
    if hasattr(X, "chunks"):  # a Dask array: one block per row chunk
        if X.ndim != 2:
            raise ValueError(
                f"X must be 2-D (n_samples, n_features); got a Dask array of "
                f"shape {X.shape}."
            )
        X = X.rechunk({1: -1})
        if np.isnan(X.shape[0]):
            X = X.compute_chunk_sizes()
        return list(X.to_delayed()[:, 0]), np.asarray(X.chunks[0], dtype=np.int64)
    parts = list(X.to_delayed())
    (lengths,) = dask.compute(X.map_partitions(len))
    return parts, np.asarray(lengths, dtype=np.int64)


def _rows(start, stop, *parts):
    """Rows ``[start, stop)`` of the partitions ``parts`` put end to end."""
    if len(parts) == 1:
        block = parts[0]
    elif hasattr(parts[0], "iloc"):
        import pandas as pd

        block = pd.concat(parts)
    else:
        block = np.concatenate(parts)
    return block.iloc[start:stop] if hasattr(block, "iloc") else block[start:stop]


def _empty_outputs(monitor):
    """The outputs of a chunk without samples (an empty period)."""
    return ModelOutputs(
        monitor.classes_[:0],
        np.empty(0, dtype=np.intp),
        np.empty(0),
        np.empty(0, dtype=bool),
        None,
    )


def _chunk_task(monitor, c, n_chunks, start, stop, *parts):
    """Chunk ``c`` on a worker, as ``estimate`` does it in memory: the model's
    outputs and a table with row ``c`` filled."""
    X = _rows(start, stop, *parts)
    table = ChunkTable(n_chunks, monitor.classes_.shape[0])
    if stop == start:
        outputs, features = _empty_outputs(monitor), None
    else:
        outputs, features = monitor._outputs(X, "X"), None
        if monitor._signals.n_signals or FittedMethods.needs_inputs(monitor.method):
            features = monitored_inputs(monitor.estimator, X)
    table.drifts[c] = monitor._chunk_inputs.drift(X, np.arange(stop - start))
    monitor._estimate_chunk(table, c, outputs, features)
    return outputs, table


def _chunks(lengths, chunk_size, n_chunks, timestamps, freq):
    """The chunks of ``lengths.sum()`` rows: by partition when no rule is
    given, else by the rule, each a run of consecutive rows."""
    n_samples = int(lengths.sum())
    if chunk_size is None and n_chunks is None and timestamps is None:
        return _contiguous(n_samples, lengths, np.zeros(len(lengths), dtype=bool))
    if timestamps is not None and hasattr(timestamps, "compute"):
        timestamps = timestamps.compute()
    chunks = make_chunks(n_samples, chunk_size, n_chunks, timestamps, freq)
    for members in chunks.members:
        if len(members) and not np.array_equal(
            members, np.arange(members[0], members[0] + len(members))
        ):
            raise ValueError(
                "On a Dask collection a chunk by time must be consecutive rows: "
                "sort X (and timestamps) by time first, e.g. "
                "X.set_index(<time column>) for a Dask DataFrame."
            )
    return chunks


def _concatenate(outputs):
    """One :class:`ModelOutputs` of the chunks' outputs, in order."""
    outputs = [output for output in outputs if output.score.shape[0]]
    return ModelOutputs(
        *(
            None if column[0] is None else np.concatenate(column)
            for column in zip(*outputs, strict=True)
        )
    )


def _gather(rows, n_classes):
    """The table whose row ``c`` is row ``c`` of ``rows[c]``."""
    table = ChunkTable(len(rows), n_classes)
    for c, row in enumerate(rows):
        table.set_row(c, row)
    return table


def _shipped(dask, monitor):
    """The fitted monitor as the tasks receive it: sent once to every worker
    of a distributed client (a graph that embeds it warns above 10 MB and
    is sent with every task), or embedded for Dask's local schedulers."""
    try:
        from distributed import get_client

        client = get_client()
    except (ImportError, ValueError):  # no distributed, or no client
        return dask.delayed(monitor, pure=True)
    return client.scatter(monitor, broadcast=True, hash=False)


def estimate_on_dask(monitor, X, chunk_size, n_chunks, timestamps, freq):
    """What ``monitor.estimate`` returns on ``X`` in memory, computed chunk by
    chunk on the cluster (see the module docstring)."""
    dask = import_dask(_NEEDS)
    monitor._methods.fit_every_choice()  # no lazy fit in the tasks' threads
    parts, lengths = _partitions(X)
    chunks = _chunks(lengths, chunk_size, n_chunks, timestamps, freq)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    task = dask.delayed(_chunk_task, pure=True)
    fitted = _shipped(dask, monitor)
    n_chunks = len(chunks.members)
    tasks = []
    for c, members in enumerate(chunks.members):
        start = int(members[0]) if len(members) else 0
        stop = start + len(members)
        first = max(int(np.searchsorted(offsets, start, side="right")) - 1, 0)
        last = max(int(np.searchsorted(offsets, stop, side="left")), first + 1)
        begin = start - int(offsets[first])
        tasks.append(
            task(fitted, c, n_chunks, begin, begin + len(members), *parts[first:last])
        )
    results = dask.compute(*tasks)
    outputs = _concatenate([output for output, _ in results])
    table = _gather([row for _, row in results], monitor.classes_.shape[0])
    warn_undefined(table.reasons)
    return monitor._result(table, chunks, outputs)
