"""``python -m sklearn_selective evaluate FILE``: metrics of a file of predictions.

The file (``.csv`` with a header row, or ``.npz``) holds the true labels and
either class probabilities (columns ``proba_<label>`` / array ``proba``) or a
prediction and a confidence per sample (columns / arrays ``y_pred`` and
``confidence``). Every problem with the file is reported as one line on stderr
with exit status 2.
"""

import csv
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ._report import (
    DEFAULT_METRICS,
    METRIC_HELP,
    format_table,
    metric_rows,
    parse_metrics,
)
from .confidence import get_confidence_function


class InputError(Exception):
    """A problem with the user's file or options, reported without traceback."""


class Predictions(NamedTuple):
    y_true: np.ndarray
    y_pred: np.ndarray
    confidence: np.ndarray
    proba: np.ndarray | None
    labels: np.ndarray | None


def _numbers(values, where):
    """Float array from strings; InputError naming the first non-number."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except ValueError:
        for line, value in enumerate(values, start=2):
            try:
                float(value)
            except ValueError:
                raise InputError(
                    f"{where}, line {line}: {value!r} is not a number"
                ) from None
        raise
    if not np.isfinite(array).all():
        raise InputError(f"{where} contains NaN or infinity")
    return array


def _read_csv(path, options):
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    if not rows:
        raise InputError(f"{path} is empty")
    header = [name.strip() for name in rows[0]]
    body = rows[1:]
    if not body:
        raise InputError(f"{path} has a header but no data rows")
    for line, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise InputError(
                f"{path}, line {line}: {len(row)} fields, the header has {len(header)}"
            )
    columns = {name: [row[i].strip() for row in body] for i, name in enumerate(header)}
    if options.label_column not in columns:
        raise InputError(
            f"{path} has no label column {options.label_column!r} (columns: "
            f"{', '.join(header)}); name it with --label-column"
        )
    y_true = np.asarray(columns[options.label_column])
    proba_columns = [name for name in header if name.startswith(options.proba_prefix)]
    if proba_columns:
        labels = np.asarray(
            [name[len(options.proba_prefix) :] for name in proba_columns]
        )
        proba = np.column_stack(
            [_numbers(columns[name], f"column {name!r}") for name in proba_columns]
        )
        return y_true, None, None, proba, labels
    missing = [
        name
        for name in (options.pred_column, options.confidence_column)
        if name not in columns
    ]
    if missing:
        raise InputError(
            f"{path} has neither probability columns ({options.proba_prefix}<label>) "
            f"nor the column(s) {', '.join(map(repr, missing))} (columns: "
            f"{', '.join(header)})"
        )
    confidence = _numbers(
        columns[options.confidence_column], f"column {options.confidence_column!r}"
    )
    return y_true, np.asarray(columns[options.pred_column]), confidence, None, None


def _read_npz(path, options):
    try:
        arrays = dict(np.load(path, allow_pickle=False))
    except (OSError, ValueError) as error:
        raise InputError(f"{path} is not a readable .npz file ({error})") from None
    if "y_true" not in arrays:
        raise InputError(f"{path} has no array 'y_true' (arrays: {', '.join(arrays)})")
    y_true = arrays["y_true"]
    if "proba" in arrays:
        proba = arrays["proba"]
        if proba.dtype.kind not in "fiu" or proba.ndim != 2:
            raise InputError(f"{path}: 'proba' must be a numeric (n, k) array")
        labels = arrays.get("labels", np.arange(proba.shape[1]))
        return y_true, None, None, proba.astype(np.float64), labels
    missing = [name for name in ("y_pred", "confidence") if name not in arrays]
    if missing:
        raise InputError(
            f"{path} has neither 'proba' nor {', '.join(map(repr, missing))} "
            f"(arrays: {', '.join(arrays)})"
        )
    confidence = arrays["confidence"]
    if confidence.dtype.kind not in "fiu":
        raise InputError(f"{path}: 'confidence' must be numeric")
    return y_true, arrays["y_pred"], confidence.astype(np.float64), None, None


def load_predictions(path, options):
    """Read ``path`` and derive predictions and confidences from probabilities."""
    path = Path(path)
    readers = {".csv": _read_csv, ".npz": _read_npz}
    if path.suffix.lower() not in readers:
        raise InputError(f"{path}: unsupported file type; use .csv or .npz")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    y_true, y_pred, confidence, proba, labels = readers[path.suffix.lower()](
        path, options
    )
    if proba is not None:
        if proba.shape[0] != y_true.shape[0]:
            raise InputError("the labels and the probabilities differ in length")
        function = get_confidence_function(options.csf)
        if getattr(function, "model_output", "predict_proba") != "predict_proba":
            raise InputError(
                f"--csf {options.csf} needs logits; the file holds probabilities"
            )
        confidence = function(proba)
        y_pred = labels[proba.argmax(axis=1)]
    elif options.csf_given:
        raise InputError("--csf needs class probabilities; the file has confidences")
    if not (y_true.shape[0] == y_pred.shape[0] == confidence.shape[0]):
        raise InputError("the columns differ in length")
    return Predictions(y_true, y_pred, confidence, proba, labels)


def add_arguments(parser):
    parser.add_argument("file", help="a .csv (with header) or .npz file")
    parser.add_argument(
        "--metrics",
        default=None,
        help=f"comma-separated {METRIC_HELP} (default: {DEFAULT_METRICS})",
    )
    parser.add_argument(
        "--csf",
        default=None,
        help="confidence score function applied to probabilities (default: msp)",
    )
    parser.add_argument(
        "--loss",
        choices=["zero_one", "log_loss", "brier"],
        default="zero_one",
        help="per-sample loss; log_loss and brier need probabilities",
    )
    parser.add_argument(
        "--n-resamples",
        type=int,
        default=1000,
        help="bootstrap resamples for the intervals (0: no intervals)",
    )
    parser.add_argument("--confidence-level", type=float, default=0.95)
    parser.add_argument("--random-state", type=int, default=0)
    parser.add_argument("--plot", default=None, help="save a risk-coverage plot here")
    parser.add_argument("--label-column", default="y_true")
    parser.add_argument("--pred-column", default="y_pred")
    parser.add_argument("--confidence-column", default="confidence")
    parser.add_argument("--proba-prefix", default="proba_")


def save_risk_coverage_plot(y_true, y_pred, confidence, path, name, **kwargs):
    """Selective and generalized risk-coverage curves side by side, as a file."""
    try:
        import matplotlib
    except ImportError:
        raise InputError(
            "saving a plot needs matplotlib: pip install 'sklearn-selective[plot]'"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ._plot import RiskCoverageDisplay

    figure, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, kind in zip(axes, ("selective", "generalized"), strict=True):
        RiskCoverageDisplay.from_predictions(
            y_true,
            y_pred,
            confidence,
            kind=kind,
            ax=ax,
            plot_oracle=True,
            plot_chance_level=True,
            name=name,
            **kwargs,
        )
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def run_evaluate(options, out=sys.stdout):
    """The ``evaluate`` command; returns the exit status."""
    try:
        options.csf_given = options.csf is not None
        options.csf = options.csf or "msp"
        specs = parse_metrics(options.metrics or DEFAULT_METRICS)
        if options.n_resamples < 0:
            raise InputError("--n-resamples must be >= 0")
        if not 0 < options.confidence_level < 1:
            raise InputError("--confidence-level must be in (0, 1)")
        predictions = load_predictions(options.file, options)
        if options.loss != "zero_one" and predictions.proba is None:
            raise InputError(f"--loss {options.loss} needs class probabilities")
        rows = metric_rows(
            predictions.y_true,
            predictions.y_pred,
            predictions.confidence,
            specs,
            proba=predictions.proba,
            labels=predictions.labels,
            loss=options.loss,
            n_resamples=options.n_resamples,
            confidence_level=options.confidence_level,
            random_state=options.random_state,
        )
        print(
            f"{options.file}: {predictions.y_true.shape[0]} samples, accuracy "
            f"{np.mean(predictions.y_pred == predictions.y_true):.4f}",
            file=out,
        )
        print(format_table(rows, options.confidence_level), file=out)
        if options.plot:
            probabilities = options.loss != "zero_one"
            save_risk_coverage_plot(
                predictions.y_true,
                predictions.proba if probabilities else predictions.y_pred,
                predictions.confidence,
                options.plot,
                name=options.csf if predictions.proba is not None else "confidence",
                loss=options.loss,
                labels=predictions.labels if probabilities else None,
            )
            print(f"risk-coverage plot saved to {options.plot}", file=out)
    except (InputError, ValueError, OSError) as error:
        message = " ".join(str(error).split())
        print(f"error: {message}", file=sys.stderr)
        return 2
    return 0
