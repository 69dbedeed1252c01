"""``evaluate --dask ADDRESS``: the metrics of many Parquet files, on a cluster.

``FILE`` is a directory or a glob of Parquet files (or one file), read with
``dask.dataframe.read_parquet`` (only the columns the options name). Each
partition is checked on its worker by the checks of a whole file
(:func:`~._loading.table_predictions`; a problem names the partition and the
row in it) and becomes a :class:`~._streaming.FileState`; the states merge in
the tree of :func:`sklearn_selective.metrics._dask.merge_tree`, the one the
metric functions use on Dask collections, and the client computes the
metrics of the last state. Rows never leave their worker; the exact state
holds one group per distinct confidence (``--max-groups`` bounds it).

``--dask local`` starts a :class:`distributed.LocalCluster` of threads in this
process (numpy releases the GIL while it sorts); any other value is the
address of a running scheduler, e.g. ``tcp://10.0.0.5:8786``.
"""

import contextlib
import logging

from ..metrics._dask import merge_tree
from ._files import InputError
from ._loading import table_predictions
from ._parquet import import_pyarrow, partition_table
from ._streaming import FileState, wanted_columns


def _import_dask():
    try:
        import dask
        import dask.dataframe
        import distributed
    except ImportError:
        raise InputError(
            "--dask needs dask and distributed: pip install 'sklearn-selective[dask]'"
        ) from None
    return dask, dask.dataframe, distributed


@contextlib.contextmanager
def _quiet_workers():
    """The local workers log a failed task (a bad row) to stderr with its
    traceback; the command line reports it once, as its one error line."""
    logger = logging.getLogger("distributed")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


@contextlib.contextmanager
def _client(address):
    """A client of the cluster ``address`` ('local': a new local cluster)."""
    _, _, distributed = _import_dask()
    if address == "local":
        with (
            _quiet_workers(),
            # The dashboard on a free port: the default, 8787, warns where
            # another cluster (the user's) already holds it.
            distributed.LocalCluster(
                processes=False, dashboard_address=":0"
            ) as cluster,
            distributed.Client(cluster, set_as_default=False) as client,
        ):
            yield client
        return
    try:
        client = distributed.Client(address, timeout="10s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise InputError(
            f"--dask {address}: cannot reach the scheduler ({error}); give its "
            "address, e.g. tcp://10.0.0.5:8786, or 'local'"
        ) from None
    with client:
        yield client


def _frame(options):
    """The Dask DataFrame of the Parquet files, with the columns named."""
    _, dataframe, _ = _import_dask()
    import_pyarrow()
    source = str(options.file)
    if source.lower().endswith((".csv", ".npz")):
        raise InputError(
            f"--dask {options.dask}: {source} is not Parquet; --dask reads a "
            "directory or glob of Parquet files (stream a CSV with --stream)"
        )
    try:
        frame = dataframe.read_parquet(source)
    except (OSError, ValueError, IndexError) as error:
        raise InputError(
            f"{source}: no Parquet files to read with --dask {options.dask} "
            f"({' '.join(str(error).split())[:200]}); give a directory or a glob "
            "such as 'predictions/*.parquet'"
        ) from None
    wanted = wanted_columns(options, list(frame.columns))
    return frame[[name for name in frame.columns if wanted(name)] or frame.columns]


def _partition_state(frame, partition, options):
    """The state of one partition (a pandas DataFrame), on its worker."""
    state = FileState(options.max_groups, ood=options.ood_column is not None)
    if len(frame):
        table = partition_table(frame, options.file, partition)
        state.add(table_predictions(table, options), options.loss)
    return state


def _merge_states(*states):
    merged = FileState(states[0].accumulator.max_groups, states[0].ood is not None)
    for state in states:
        merged.merge(state)
    return merged


def cluster_state(options):
    """The state of all the Parquet files, computed on the cluster."""
    dask, _, _ = _import_dask()
    if not options.dask.strip():
        raise InputError(
            "--dask is empty; give a scheduler's address (e.g. "
            "tcp://10.0.0.5:8786) or 'local'"
        )
    frame = _frame(options)
    state = dask.delayed(_partition_state, pure=True)
    states = [
        state(part, index, options) for index, part in enumerate(frame.to_delayed())
    ]
    with _client(options.dask) as client:
        result = client.compute(merge_tree(states, _merge_states)).result()
    if result.n_samples == 0:
        raise InputError(f"{options.file}: the Parquet files hold no rows")
    return result
