"""The risk-coverage metrics of Dask arrays and Dask DataFrame columns, on the cluster.

Every metric that is a function of the tie groups is computed as a tree reduction of
:class:`~sklearn_selective.metrics._accumulator.RiskCoverageAccumulator` states, the
pattern of ``dask.array.reduction(x, chunk, aggregate, combine=...)``: each
partition becomes the state of its tie groups on the worker that holds it (chunk),
the states merge ``split_every`` at a time (combine: a sorted union with sums), and
the last merge computes the metric (aggregate). Tie groups that span partitions
merge exactly, so the result is the in-memory float, up to the rounding of sums
taken in another order. A worker holds its partitions and the states it merges:
memory is bounded by the partitions and the number of distinct confidences, not by
the number of rows (with ``max_groups``, by the budget, and the bounds say how far
the value can be).

The inputs are several collections (labels, predictions, confidence, loss, weight),
so the partitions are aligned first and the tree is built from their
``to_delayed`` blocks rather than from one array's ``reduction``.

The public metric functions send Dask inputs here through :func:`dispatch_dask`
(:mod:`._dask_dispatch`); :meth:`RiskCoverageAccumulator.update` does too.
Dask is optional: nothing here imports it before a Dask collection is passed.

Why a tree of states and not a distributed sort. The alternative (sort the rows
across the cluster, e.g. ``set_index``, then per-partition contributions with
global weight offsets) was measured with ``benchmarks/bench_scale.py
--compare-sort``: at 1e7 rows on 2 workers it took 10.2 s for continuous
confidences (the tree: 7.3 s) and 6.6 s with 1000 distinct values (the tree:
1.9 s, faster than numpy in memory). The tree moves only states, one row per
distinct confidence, and never shuffles the rows; its price is that the last
merge holds every distinct confidence, so with continuous scores beyond a
worker's memory (about 1e8 on a 2 GB worker) a budget ``max_groups`` bounds the
state and the result comes with certified bounds (width below 1e-6 at 2**20
groups on 1e7 rows) instead of being exact.
"""

import sys

import numpy as np

# States merged by one task: a tree of depth log_8(partitions).
SPLIT_EVERY = 8


def is_dask_input(*values):
    """Whether any of ``values`` is a Dask collection (never imports Dask)."""
    if "dask" not in sys.modules:
        return False
    from dask import is_dask_collection

    return any(is_dask_collection(value) for value in values)


def import_dask(needs="Metrics of Dask collections need"):
    """``dask`` (with ``dask.array``), or an ImportError that starts with
    ``needs`` (what needs it) and says how to install it."""
    try:
        import dask
        import dask.array
    except ImportError as error:  # pragma: no cover - Dask is installed in CI
        raise ImportError(
            f"{needs} dask: pip install 'sklearn-selective[dask]'."
        ) from error
    return dask


def _is_frame_column(value):
    """A Dask Series (a DataFrame column): it has partitions but no chunks."""
    return hasattr(value, "npartitions") and not hasattr(value, "chunks")


def _as_arrays(inputs):
    """``inputs`` (name -> collection or array) as Dask arrays with the chunks of
    the first Dask array along the samples (Series get their lengths computed)."""
    import dask.array as da

    arrays = {}
    for name, value in inputs.items():
        if _is_frame_column(value):
            value = value.to_dask_array(lengths=True)
        arrays[name] = value
    chunks = next(
        value.chunks[0] for value in arrays.values() if isinstance(value, da.Array)
    )
    aligned = {}
    for name, value in arrays.items():
        if not isinstance(value, da.Array):
            value = np.asarray(value)
        if value.shape[0] != sum(chunks):
            raise ValueError(
                f"{name} has {value.shape[0]} entries but confidence has "
                f"{sum(chunks)}; pass one value per sample."
            )
        if not isinstance(value, da.Array):
            value = da.from_array(value, chunks=(chunks, *value.shape[1:]))
        value = value.rechunk({0: chunks, **dict.fromkeys(range(1, value.ndim), -1)})
        aligned[name] = value
    return aligned


def _partitions(inputs):
    """One list of delayed blocks per input, aligned partition by partition."""
    columns = [value for value in inputs.values() if _is_frame_column(value)]
    if len(columns) == len(inputs) and all(
        column.npartitions == columns[0].npartitions
        and column.divisions == columns[0].divisions
        for column in columns
    ):  # columns of one frame: its partitions as they are
        return {name: list(value.to_delayed()) for name, value in inputs.items()}
    blocks = {}
    for name, value in _as_arrays(inputs).items():
        delayed = value.to_delayed()
        blocks[name] = list(delayed.reshape(delayed.shape[0], -1)[:, 0])
    return blocks


def _partition_state(template, loss, labels, y_true, y_pred, confidence, weight):
    """The state of one partition, a new accumulator like the empty
    ``template`` (folded: shared read-only by later tasks)."""
    accumulator = type(template)(max_groups=template.max_groups)
    accumulator.update(
        y_true, y_pred, confidence, loss=loss, sample_weight=weight, labels=labels
    )
    accumulator.n_groups_  # noqa: B018 - folds the batch into the state
    return accumulator


def _merge_states(*states):
    """One state of several (new: task outputs are shared and never changed)."""
    merged = states[0]._copy()
    for state in states[1:]:
        merged._absorb(state)
    merged._fold()  # one sorted union of all
    return merged


def partition_columns(y_true, y_pred, confidence, loss, sample_weight, **more):
    """The aligned partitions of the inputs: their number and, per input name
    (``more`` adds columns such as ``groups``), one block per partition (None
    for an input not given; a loss name or callable repeated)."""
    inputs = {
        "y_true": y_true,
        "y_pred": y_pred,
        "confidence": confidence,
        "loss": None if isinstance(loss, str) or callable(loss) else loss,
        "sample_weight": sample_weight,
        **more,
    }
    blocks = _partitions({k: v for k, v in inputs.items() if v is not None})
    n_blocks = len(blocks["confidence"])
    column = {name: blocks.get(name, [None] * n_blocks) for name in inputs}
    if inputs["loss"] is None:
        column["loss"] = [loss] * n_blocks
    return n_blocks, column


def accumulate_dask(
    template,
    y_true,
    y_pred,
    confidence,
    *,
    loss="zero_one",
    sample_weight=None,
    labels=None,
    split_every=SPLIT_EVERY,
):
    """The delayed state of all the partitions, merged in a tree on the cluster.

    ``template`` is an empty :class:`RiskCoverageAccumulator` (each partition's
    state is a new one with its ``max_groups``); the other parameters are
    those of :meth:`RiskCoverageAccumulator.update`, as Dask arrays, Dask
    DataFrame columns or arrays in memory (at least one Dask collection).

    Returns
    -------
    state : dask.delayed.Delayed
        Computes to a :class:`RiskCoverageAccumulator` of all the data.
    """
    dask = import_dask()
    n_blocks, column = partition_columns(
        y_true, y_pred, confidence, loss, sample_weight
    )
    state = dask.delayed(_partition_state, pure=True)
    states = [
        state(
            template,
            column["loss"][index],
            labels,
            column["y_true"][index],
            column["y_pred"][index],
            column["confidence"][index],
            column["sample_weight"][index],
        )
        for index in range(n_blocks)
    ]
    return merge_tree(states, _merge_states, split_every)


def merge_tree(states, merge, split_every=SPLIT_EVERY):
    """The delayed states merged ``split_every`` at a time, in a tree of depth
    ``log_split_every(len(states))``: ``merge(*states)`` returns a new state.

    Returns
    -------
    state : dask.delayed.Delayed
        The merge of all the states (the only state when there is one).
    """
    dask = import_dask()
    merge = dask.delayed(merge, pure=True)
    while len(states) > 1:
        states = [
            merge(*states[start : start + split_every])
            for start in range(0, len(states), split_every)
        ]
    return states[0]
