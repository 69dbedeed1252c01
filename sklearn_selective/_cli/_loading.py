"""From a file's table of columns to labels, predictions and confidences.

The checks every reader shares (in memory, in batches, per Dask partition):
the columns the options name, probabilities or logits, the labels they carry,
a finite confidence; each problem is an InputError naming its place.
"""

from pathlib import Path
from typing import NamedTuple

import numpy as np

from ..confidence._registry import model_output_of
from . import _ood_column
from ._files import InputError, read_csv, read_npz
from ._parquet import SUFFIXES as PARQUET_SUFFIXES
from ._parquet import read_parquet
from ._predictions import (
    Predictions,
    Scores,
    align_pred,
    build_predictions,
)


def _column(table, name, hint=""):
    if name not in table.columns:
        raise InputError(
            f"{table.path} has no {name!r} (found: {', '.join(table.columns)}){hint}"
        )
    values = table.columns[name]
    if values.ndim == 2 and values.shape[1] == 1:  # a column vector, (n, 1)
        values = values[:, 0]
    if values.ndim != 1:
        raise InputError(
            f"{table.path}: {name!r} must be one-dimensional (one value per "
            f"sample); it has shape {values.shape} (one-hot labels: save "
            "y.argmax(axis=1))"
        )
    return values


def _listed_scores(table, options):
    """Scores from the columns listed by --proba-columns or --logit-columns, each
    named by its label (None when neither is given)."""
    for kind, option, names in (
        ("proba", "--proba-columns", options.proba_columns),
        ("logits", "--logit-columns", options.logit_columns),
    ):
        if names is None:
            continue
        missing = [name for name in names if name not in table.columns]
        if missing:
            raise InputError(
                f"{table.path} has no column {missing[0]!r} of {option} (found: "
                f"{', '.join(table.columns)})"
            )
        values = np.column_stack(
            [_numeric(table, name, table.columns[name]) for name in names]
        )
        source = f"columns {', '.join(names)} ({option})"
        return {kind: Scores(kind, values, np.asarray(names), source, names)}
    return None


def _csv_scores(table, options):
    """Scores from proba_<label> or logit_<label> columns (None if there are none)."""
    listed = _listed_scores(table, options)
    if listed is not None:
        return listed
    found = {}
    # The label, prediction and confidence columns are never scores, whatever
    # the prefix (e.g. --proba-prefix y).
    named = {
        options.label_column,
        options.pred_column,
        options.confidence_column,
        options.ood_column,
    }
    for kind, option, prefix in (
        ("proba", "--proba-prefix", options.proba_prefix),
        ("logits", "--logit-prefix", options.logit_prefix),
    ):
        if not prefix:
            raise InputError(
                f"{option} is empty; give the prefix of the columns, e.g. "
                f"{option} {kind[:5]}_ for columns {kind[:5]}_0, {kind[:5]}_1, ..."
            )
        names = [
            name
            for name in table.columns
            if name.startswith(prefix) and name not in named
        ]
        if names:
            labels = np.asarray([name[len(prefix) :] for name in names])
            values = np.column_stack(
                [_numeric(table, name, table.columns[name]) for name in names]
            )
            source = f"columns {prefix}<label>"
            found[kind] = Scores(kind, values, labels, source, tuple(names))
    return found


def _npz_scores(table, options):
    found = {}
    for kind in ("proba", "logits"):
        if kind not in table.columns:
            continue
        values = table.columns[kind]
        ensemble = kind == "proba" and values.ndim == 3
        if not (values.ndim in (1, 2) or ensemble) or values.dtype.kind not in "biuf":
            raise InputError(
                f"{table.path}: {kind!r} must be a numeric array of shape "
                f"(n_samples, n_classes) or (n_samples,)"
                f"{' or (n_members, n_samples, n_classes)' * (kind == 'proba')}; "
                f"got {values.dtype} of shape {values.shape}"
            )
        binary = values.ndim == 1 or values.shape[-1] == 1
        n_labels = 2 if binary else values.shape[-1]
        labels = table.columns.get("labels", np.arange(n_labels))
        if labels.ndim != 1 or labels.shape[0] != n_labels:
            shape = "one-dimensional (binary)" if binary else f"{n_labels} columns"
            raise InputError(
                f"{table.path}: 'labels' has {labels.size} entries but {kind!r} "
                f"has {shape}; give {n_labels} labels, one per class"
            )
        found[kind] = Scores(
            "ensemble" if ensemble else kind, values, labels, f"array {kind!r}"
        )
    return found


def _numeric(table, name, values):
    """Float array of a column; InputError naming the first bad value's place."""
    if values.dtype.kind in "biuf":
        return values
    if values.dtype.kind not in "USO":  # complex, datetime, ...
        raise InputError(
            f"{table.path}: {name!r} must hold real numbers; it holds {values.dtype}"
        )
    for index, value in enumerate(values.tolist()):
        try:
            float(value)
        except ValueError:
            shown = (
                value
                if len(value) <= 40
                else f"{value[:40]}... ({len(value)} characters)"
            )
            raise InputError(
                f"{table.where(name, index)}: {shown!r} is not a number"
            ) from None
    return values.astype(np.float64)


def _finite_confidence(table, name, values):
    values = _numeric(table, name, values).astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise InputError(f"{table.where(name, int(bad[0]))}: NaN or infinity")
    return values


def _choose(found, options, table):
    """Probabilities or logits: what the CSF reads when the file has both."""
    if len(found) == 2:
        logit_csf = model_output_of(options.csf) == "decision_function"
        return found["logits" if logit_csf else "proba"]
    return next(iter(found.values()))


class Reader(NamedTuple):
    """How ``evaluate`` reads one kind of file."""

    read: object  # path -> Table
    columnar: bool  # named columns (CSV, Parquet) rather than arrays (NPZ)


READERS = {
    ".csv": Reader(read_csv, True),
    ".npz": Reader(read_npz, False),
    **dict.fromkeys(PARQUET_SUFFIXES, Reader(read_parquet, True)),
}


def reader_of(path):
    """The reader of ``path`` by its suffix; an InputError for any other file."""
    path = Path(path)
    reader = READERS.get(path.suffix.lower())
    if reader is None:
        raise InputError(f"{path}: unsupported file type; use .csv, .parquet or .npz")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    return reader


def load_predictions(path, options):
    """Read ``path``: labels, predictions and confidences."""
    reader = reader_of(path)
    return table_predictions(reader.read(Path(path)), options, reader.columnar)


def table_predictions(table, options, columnar=True):
    """Labels, predictions and confidences of a table of columns (a whole file,
    a batch of one, or a Dask partition), checked as the command line checks
    every file."""
    path = table.path
    if not columnar and (options.proba_columns or options.logit_columns):
        raise InputError(
            f"{path}: --proba-columns and --logit-columns name CSV columns; a .npz "
            "file holds the arrays 'proba' or 'logits'"
        )
    label = options.label_column
    kind = "column" if columnar else "array"
    y_true = _column(table, label, f"; name the label {kind} with --label-column")
    if y_true.shape[0] == 0:
        raise InputError(f"{path}: {label!r} is empty; the file holds no samples")
    is_ood = None
    if options.ood_column is not None:
        is_ood = _ood_column.read_indicator(table, options.ood_column, y_true.shape[0])
        y_true = _ood_column.with_known_labels(y_true, is_ood, path)
    predictions = _load_scores(table, y_true, options, columnar)
    if options.loss != "zero_one" and predictions.proba is None:
        raise InputError(
            f"--loss {options.loss} needs probabilities or logits; the file holds "
            "a confidence per sample"
        )
    return predictions._replace(is_ood=is_ood)


def _load_scores(table, y_true, options, columnar):
    """Predictions from the scores in the file, or its predictions and
    confidences."""
    path, label = table.path, options.label_column
    found = (_csv_scores if columnar else _npz_scores)(table, options)
    if found:
        scores = _choose(found, options, table)
        if scores.n_samples != y_true.shape[0]:
            raise InputError(
                f"{path}: {label!r} has {y_true.shape[0]} samples, the "
                f"{scores.source} {scores.n_samples}; give one per sample"
            )
        return build_predictions(table, y_true, scores, options)
    pred, conf = options.pred_column, options.confidence_column
    _check_has_predictions(path, table, options, (pred, conf), columnar)
    if options.csf_given:
        raise InputError(
            f"--csf needs probabilities or logits; {path} holds a confidence per "
            "sample already (drop --csf)"
        )
    y_pred = _column(table, pred)
    confidence = _finite_confidence(table, conf, _column(table, conf))
    if not y_true.shape[0] == y_pred.shape[0] == confidence.shape[0]:
        raise InputError(f"{path}: y_true, y_pred and confidence differ in length")
    y_true, y_pred = align_pred(y_true, y_pred)
    return Predictions(y_true, y_pred, confidence, None, None)


def _check_has_predictions(path, table, options, names, columnar):
    """An InputError naming what the file lacks, and the options that name it."""
    missing = [name for name in names if name not in table.columns]
    if not missing:
        return
    if columnar:
        options_of = dict(
            zip(names, ("--pred-column", "--confidence-column"), strict=True)
        )
        kinds = (
            f"{options.proba_prefix}<label> nor {options.logit_prefix}<label> "
            "columns (set --proba-prefix or --logit-prefix, or name the columns "
            "with --proba-columns or --logit-columns, e.g. --logit-columns 0,1,2 "
            "for pandas' default column names)"
        )
        wanted = [f"{name!r} ({options_of[name]})" for name in missing]
    else:
        options_of = dict(
            zip(names, ("--pred-column", "--confidence-column"), strict=True)
        )
        kinds = "arrays 'proba' or 'logits'"
        wanted = [f"{name!r} ({options_of[name]})" for name in missing]
    raise InputError(
        f"{path} has neither {kinds} nor {' and '.join(wanted)} "
        f"(found: {', '.join(table.columns)})"
    )
