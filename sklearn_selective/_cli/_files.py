"""Reading the files of ``evaluate``: a ``.csv`` or ``.npz`` as named arrays.

Both readers return a :class:`Table`: the arrays by name and a way to say
where sample ``i`` is in the file (``line 7`` of a CSV, ``row 5`` of an NPZ
array), so that every problem names its place. CSV files are read with
numpy's C parser (all-numeric files in one pass); the :mod:`csv` module is used
only to describe a malformed file precisely.
"""

import contextlib
import csv
import itertools
import pickle
import sys
import warnings
import zipfile
import zlib
from pathlib import Path
from typing import NamedTuple

import numpy as np


class InputError(Exception):
    """A problem with the user's file or options, reported without traceback."""


class Table(NamedTuple):
    path: Path
    columns: dict
    locate: object  # sample index -> "line 7" / "row 5"

    def where(self, name, index):
        return f"{self.path}, {name!r}, {self.locate(index)}"


# ----------------------------------------------------------------------------
# CSV
# ----------------------------------------------------------------------------
_ENCODING = "utf-8-sig"  # accepts the byte-order mark of Excel's "CSV UTF-8"
_LOADTXT = {
    "delimiter": ",",
    "skiprows": 1,
    "comments": None,
    "quotechar": '"',
    "ndmin": 2,
    "encoding": _ENCODING,
}


def _header(path):
    try:
        with open(path, newline="", encoding=_ENCODING) as handle:
            first = next(csv.reader(handle), None)
    except UnicodeDecodeError:
        raise InputError(
            f"{path} is not UTF-8 text; save it as CSV UTF-8 (or .npz)"
        ) from None
    except csv.Error as error:
        raise InputError(f"{path}, line 1: {error}") from None
    if first is None:
        raise InputError(f"{path} is empty")
    if not "".join(first).strip():
        raise InputError(
            f"{path}, line 1: the header is blank; the first line must name the "
            "columns, e.g. y_true,proba_0,proba_1"
        )
    header = [name.strip() for name in first]
    separators = [sep for sep in ";\t|" if len(header) == 1 and sep in header[0]]
    if separators:
        raise InputError(
            f"{path}: the header is one column, {header[0]!r}; the file seems "
            f"separated by {separators[0]!r}: save it with commas"
        )
    counts = {}
    for name in header:
        counts[name] = counts.get(name, 0) + 1
    duplicates = [name for name, count in counts.items() if count > 1]
    if duplicates:
        raise InputError(
            f"{path}: the header names the column(s) "
            f"{', '.join(map(repr, duplicates))} more than once; rename them"
        )
    # pandas' default ``DataFrame.to_csv`` writes the index as an unnamed first
    # column; like ``pandas.read_csv(..., index_col=0)`` it is read as the index.
    if "" in header[1:]:
        raise InputError(f"{path}: the header has an empty column name")
    return header


class _Text(NamedTuple):
    """The text of a CSV: the whole file (``lines`` None), or a block of it,
    ``lines`` being the header line and data lines whose first is line
    ``offset + 2`` of the file (the streaming path reads one block at a time)."""

    path: Path
    lines: list | None = None
    offset: int = 0

    @property
    def source(self):
        return self.path if self.lines is None else self.lines


def _loadtxt(text, dtype, usecols=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
        return np.loadtxt(text.source, dtype=dtype, usecols=usecols, **_LOADTXT)


def _csv_records(text):
    """(line number, fields) of every non-blank data row; csv errors -> InputError.

    numpy's parser has no limit on the length of a field; the csv module's
    default of 131,072 characters is lifted while reading, so that both read
    the same files (a long field is then reported as what it is).
    """
    path, offset = text.path, text.offset
    limit = csv.field_size_limit()
    csv.field_size_limit(sys.maxsize)
    try:
        with contextlib.ExitStack() as stack:
            lines = text.lines
            if lines is None:
                lines = stack.enter_context(open(path, newline="", encoding=_ENCODING))
            reader = csv.reader(lines)
            next(reader, None)
            for row in reader:
                if row:
                    yield reader.line_num + offset, row
    except csv.Error as error:
        raise InputError(f"{path}, line {reader.line_num + offset}: {error}") from None
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text; save it as CSV UTF-8") from None
    finally:
        csv.field_size_limit(limit)


def _describe_malformed(text, n_fields):
    """The first malformed row, found with the csv module (error path only)."""
    for line, row in _csv_records(text):
        if len(row) != n_fields:
            raise InputError(
                f"{text.path}, line {line}: {len(row)} fields, the header has "
                f"{n_fields}"
            )


def _line_locator(text):
    lines = None

    def locate(index):
        nonlocal lines
        if lines is None:  # error path only: count the non-blank records
            lines = [line for line, _ in _csv_records(text)]
        return f"line {lines[index]}" if index < len(lines) else f"row {index}"

    return locate


def _as_numbers_if_possible(column):
    try:
        return np.asarray(column, dtype=np.float64)
    except ValueError:
        return np.char.strip(column)


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _text_columns(text, n_columns, n_rows=1000):
    """Columns with a value that is not a number among the first rows."""
    found = set()
    for count, (_, row) in enumerate(_csv_records(text)):
        if count == n_rows:
            break
        found.update(
            i for i, value in enumerate(row[:n_columns]) if not _is_number(value)
        )
    return sorted(found)


def _read_mixed(text, n_columns):
    """Columns of a file with text columns: numbers and text read separately."""
    strings = _text_columns(text, n_columns)
    numbers = [i for i in range(n_columns) if i not in strings]
    try:
        columns = dict(
            zip(strings, _loadtxt(text, str, usecols=strings).T, strict=True)
        )
        if numbers:
            values = _loadtxt(text, np.float64, usecols=numbers).T
            columns.update(zip(numbers, values, strict=True))
        return [columns[i] for i in range(n_columns)]
    except (ValueError, MemoryError):  # a number column holds text further down
        pass
    try:
        table = _loadtxt(text, str)
    except (ValueError, MemoryError):
        _describe_malformed(text, n_columns)
        rows = [row for _, row in _csv_records(text)]  # e.g. odd quoting
        table = np.array(rows, dtype=str).reshape(len(rows), n_columns)
    return [_as_numbers_if_possible(column) for column in table.T]


def _check_no_nul(path):
    """A NUL byte means a binary or UTF-16 file, never a UTF-8 CSV: refuse it
    before a parser drops or reads past it (it was scored)."""
    offset = 0
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            at = block.find(b"\x00")
            if at >= 0:
                raise InputError(
                    f"{path} holds a NUL byte (byte {offset + at}): it is not a "
                    "UTF-8 text CSV (a binary, UTF-16 or damaged file?); save it as "
                    "CSV UTF-8"
                )
            offset += len(block)


def read_csv(path):
    """Named columns of a CSV file: float64 where every value is a number, else str."""
    _check_no_nul(path)
    return _read_text(_Text(Path(path)), _header(path))


def _read_text(text, header):
    """The named columns of a CSV's text (the whole file or one block)."""
    try:
        body = list(_loadtxt(text, np.float64).T)
    except UnicodeDecodeError:
        raise InputError(
            f"{text.path} is not UTF-8 text; save it as CSV UTF-8"
        ) from None
    except ValueError:
        body = _read_mixed(text, len(header))
    if len(body) != len(header):  # loadtxt saw a consistent but different width
        _describe_malformed(text, len(header))
    if not body or body[0].shape[0] == 0:
        raise InputError(f"{text.path} has a header but no data rows")
    if header[0] == "":  # the unnamed index column of pandas' to_csv
        header, body = header[1:], body[1:]
    return Table(text.path, dict(zip(header, body, strict=True)), _line_locator(text))


def csv_batches(path, batch_rows):
    """The named columns of a CSV file, ``batch_rows`` lines at a time: each
    block is read as the whole file would be (same parser, same messages, the
    lines numbered as in the file)."""
    _check_no_nul(path)
    header = _header(path)
    first_line, text = 2, None
    try:
        with open(path, newline="", encoding=_ENCODING) as handle:
            head = handle.readline()
            while block := list(itertools.islice(handle, batch_rows)):
                if "".join(block).strip():  # not only blank lines
                    text = _Text(Path(path), [head, *block], first_line - 2)
                    yield _read_text(text, header)
                first_line += len(block)
    except UnicodeDecodeError:
        raise InputError(f"{path} is not UTF-8 text; save it as CSV UTF-8") from None
    if first_line == 2 or text is None:
        raise InputError(f"{path} has a header but no data rows")


# ----------------------------------------------------------------------------
# NPZ
# ----------------------------------------------------------------------------
class _PlainObjectUnpickler(pickle.Unpickler):
    """Unpickles a numpy object array of plain values, and nothing else.

    pandas saves text columns as object arrays, which ``numpy.load`` reads only
    with ``allow_pickle=True`` -- and a pickle can run any code. This
    unpickler resolves only the numpy names an array needs; strings, numbers
    and ``None`` need no name, so no other object can be built.
    """

    _ALLOWED = frozenset(
        (module, name)
        for module in ("numpy.core.multiarray", "numpy._core.multiarray")
        for name in ("_reconstruct", "scalar")
    ) | {("numpy", "ndarray"), ("numpy", "dtype")}

    def find_class(self, module, name):
        if (module, name) not in self._ALLOWED:
            raise pickle.UnpicklingError(f"{module}.{name} is not a plain value")
        return super().find_class(module, name)


def _read_object_array(archive, name):
    fmt = np.lib.format
    with archive.open(f"{name}.npy") as handle:
        version = fmt.read_magic(handle)
        read_header = {
            (1, 0): fmt.read_array_header_1_0,
            (2, 0): fmt.read_array_header_2_0,
        }[version]
        shape, _, _ = read_header(handle)
        array = _PlainObjectUnpickler(handle).load()
    if not isinstance(array, np.ndarray) or array.shape != shape:
        raise pickle.UnpicklingError("not an array")
    values = array.ravel().tolist()
    types = set(map(type, values))
    if types <= {str}:
        return np.asarray(values, dtype=str).reshape(shape)
    if types <= {int, float, bool}:
        return np.asarray(values, dtype=np.float64).reshape(shape)
    raise pickle.UnpicklingError(
        f"it holds {', '.join(sorted(t.__name__ for t in types))} values"
    )


def _read_member(npz, path, name):
    try:
        return npz[name]
    except ValueError as error:
        if "allow_pickle" not in str(error):
            raise
    try:
        return _read_object_array(npz.zip, name)
    except (pickle.UnpicklingError, KeyError, ValueError, EOFError) as error:
        raise InputError(
            f"{path}: array {name!r} is an object array that is not plain text or "
            f"numbers ({error}); evaluate does not unpickle objects, which could "
            "run code. Save it with np.asarray(values, dtype=str) or as numbers"
        ) from None


_NPZ_ERRORS = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)


def _looks_like_text(path):
    """A zip archive (``.npz``) starts with ``PK``; a CSV with printable text."""
    with open(path, "rb") as file:
        head = file.read(64)
    return bool(head) and not head.startswith(b"PK") and head.isascii()


def read_npz(path):
    """Arrays of an ``.npz`` file; object arrays of plain values load safely."""
    if _looks_like_text(path):
        raise InputError(
            f"{path} is named .npz but holds text (a CSV?): rename it to .csv, "
            "or write the arrays with numpy.savez(path, y_true=..., proba=...)"
        )
    try:
        npz = np.load(path, allow_pickle=False)
        if not isinstance(npz, np.lib.npyio.NpzFile):
            raise ValueError("it holds a single array (.npy); use numpy.savez")
        with npz:
            arrays = {name: _read_member(npz, path, name) for name in npz.files}
    except _NPZ_ERRORS as error:
        message = str(error) or type(error).__name__
        raise InputError(
            f"{path} is not a readable .npz file ({message}); write it with "
            "numpy.savez(path, y_true=..., proba=...)"
        ) from None
    return Table(Path(path), arrays, lambda index: f"row {index}")
