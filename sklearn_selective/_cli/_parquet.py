"""Reading the Parquet files of ``evaluate``: whole, in batches, or on Dask.

A Parquet file is a table of named columns, read as a CSV is (columns
``proba_<label>``, ``logit_<label>``, or ``y_pred`` and ``confidence``): each
column becomes one numpy array, text as ``str`` (a missing value as an empty
string, which the checks of the command line name), numbers as ``float64`` or
integers (a missing number as NaN). A column that holds lists, structs or
times is refused with its name. pyarrow is an optional extra
(``pip install 'sklearn-selective[parquet]'``); nothing here imports it before
a Parquet file is read.
"""

from pathlib import Path

import numpy as np

from ._files import InputError, Table

SUFFIXES = (".parquet", ".pq")


def import_pyarrow():
    """pyarrow and its Parquet module, or an InputError naming the extra."""
    try:
        import pyarrow
        import pyarrow.compute
        import pyarrow.parquet
    except ImportError:
        raise InputError(
            "reading Parquet files needs pyarrow: pip install "
            "'sklearn-selective[parquet]'"
        ) from None
    return pyarrow


def _numpy_column(path, name, column):
    """One Arrow column as a numpy array (text as str, a missing value as '')."""
    pyarrow = import_pyarrow()
    types = pyarrow.types
    if types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    kind = column.type
    if types.is_string(kind) or types.is_large_string(kind):
        filled = pyarrow.compute.fill_null(column, "")
        return np.asarray(filled.to_numpy(zero_copy_only=False), dtype=str)
    if types.is_boolean(kind) and column.null_count:
        return np.asarray(column.cast(pyarrow.float64()).to_numpy(zero_copy_only=False))
    if types.is_integer(kind) or types.is_floating(kind) or types.is_boolean(kind):
        return column.to_numpy(zero_copy_only=False)
    raise InputError(
        f"{path}: column {name!r} holds {kind}; evaluate reads one number or "
        "label per column and row (write probabilities as one column per class, "
        "e.g. proba_0, proba_1)"
    )


def _table(path, batch, offset=0):
    """A Table of an Arrow table or record batch whose first row is row
    ``offset`` of the file."""
    columns = {
        name: _numpy_column(path, name, batch.column(index))
        for index, name in enumerate(batch.schema.names)
    }
    return Table(Path(path), columns, lambda index: f"row {offset + index}")


def _open(path, pre_buffer=True):
    pyarrow = import_pyarrow()
    try:
        return pyarrow.parquet.ParquetFile(path, pre_buffer=pre_buffer)
    except (pyarrow.ArrowException, OSError) as error:
        raise InputError(
            f"{path} is not a readable Parquet file ({error}); write it with "
            "pandas.DataFrame.to_parquet or pyarrow.parquet.write_table"
        ) from None


def _empty(path):
    return InputError(f"{path} holds no rows")


def read_parquet(path):
    """Named columns of a Parquet file, all in memory."""
    table = _open(path).read()
    if table.num_rows == 0:
        raise _empty(path)
    return _table(path, table)


def parquet_batches(path, batch_rows, choose=None):
    """The named columns of a Parquet file, ``batch_rows`` rows at a time
    (``ParquetFile.iter_batches``: one row group in memory at a time).

    ``choose(names)`` returns the columns to read among the file's ``names``
    (None or empty: all of them)."""
    # Pre-buffering keeps the column chunks read so far: measured with pyarrow
    # 26, memory grew by 24 MB per batch of 1e6 rows (1 GB at 3e7 rows) with it
    # and stayed at 68 MB without.
    parquet = _open(path, pre_buffer=False)
    names = parquet.schema_arrow.names
    columns = (choose(names) if choose is not None else None) or None
    offset = 0
    for batch in parquet.iter_batches(batch_size=batch_rows, columns=columns):
        if batch.num_rows:
            yield _table(path, batch, offset)
        offset += batch.num_rows
    if offset == 0:
        raise _empty(path)


def partition_table(frame, source, partition):
    """A Table of one partition (a pandas DataFrame) of a Dask DataFrame read
    from Parquet: its rows named by partition and position."""
    pyarrow = import_pyarrow()
    batch = pyarrow.Table.from_pandas(frame, preserve_index=False)
    table = _table(source, batch)
    return table._replace(locate=lambda index: f"partition {partition}, row {index}")
