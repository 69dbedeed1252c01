"""``sklearn-selective evaluate FILE``: metrics of a file of predictions.

The file (``.csv`` with a header row, or ``.npz``) holds the true labels and
one of: class probabilities (columns ``proba_<label>`` / array ``proba``),
logits (columns ``logit_<label>`` / array ``logits``), or a prediction and a
confidence per sample (columns / arrays ``y_pred`` and ``confidence``). Every
problem with the file or the options is reported as one line on stderr with
exit status 2.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from ..confidence import get_confidence_function_names
from ..confidence._registry import model_output_of
from . import _ood_column
from ._files import InputError, read_csv, read_npz
from ._plot_file import check_plot_path, save_risk_coverage_plot
from ._predictions import (
    Predictions,
    Scores,
    align_pred,
    build_predictions,
)
from ._report import (
    METRIC_HELP,
    default_metrics,
    format_rows,
    metric_rows,
    parse_metrics,
)

__all__ = ["InputError", "add_arguments", "run_evaluate"]

_READERS = {".csv": read_csv, ".npz": read_npz}


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


def _column_list(text):
    names = [name.strip() for name in text.split(",")]
    if len(names) < 2 or not all(names) or len(set(names)) < len(names):
        raise argparse.ArgumentTypeError(
            f"{text!r}: give two or more distinct column names separated by commas, "
            "one per class, e.g. 0,1,2"
        )
    return tuple(names)


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


def load_predictions(path, options):
    """Read ``path``: labels, predictions and confidences."""
    path = Path(path)
    reader = _READERS.get(path.suffix.lower())
    if reader is None:
        raise InputError(f"{path}: unsupported file type; use .csv or .npz")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    table = reader(path)
    csv_file = path.suffix.lower() == ".csv"
    if not csv_file and (options.proba_columns or options.logit_columns):
        raise InputError(
            f"{path}: --proba-columns and --logit-columns name CSV columns; a .npz "
            "file holds the arrays 'proba' or 'logits'"
        )
    label = options.label_column
    kind = "column" if csv_file else "array"
    y_true = _column(table, label, f"; name the label {kind} with --label-column")
    if y_true.shape[0] == 0:
        raise InputError(f"{path}: {label!r} is empty; the file holds no samples")
    is_ood = None
    if options.ood_column is not None:
        is_ood = _ood_column.read_indicator(table, options.ood_column, y_true.shape[0])
        y_true = _ood_column.with_known_labels(y_true, is_ood, path)
    return _load_scores(table, y_true, options, csv_file)._replace(is_ood=is_ood)


def _load_scores(table, y_true, options, csv_file):
    """Predictions from the scores in the file, or its predictions and
    confidences."""
    path, label = table.path, options.label_column
    found = (_csv_scores if csv_file else _npz_scores)(table, options)
    if found:
        scores = _choose(found, options, table)
        if scores.n_samples != y_true.shape[0]:
            raise InputError(
                f"{path}: {label!r} has {y_true.shape[0]} samples, the "
                f"{scores.source} {scores.n_samples}; give one per sample"
            )
        return build_predictions(table, y_true, scores, options)
    pred, conf = options.pred_column, options.confidence_column
    _check_has_predictions(path, table, options, (pred, conf), csv_file)
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


def _check_has_predictions(path, table, options, names, csv_file):
    """An InputError naming what the file lacks, and the options that name it."""
    missing = [name for name in names if name not in table.columns]
    if not missing:
        return
    if csv_file:
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


_FORMATS = ("table", "json", "csv")


def usable_csfs():
    """The CSFs a prediction file can feed: all but the feature-space ones,
    which read the model's inputs."""
    return [
        name
        for name in get_confidence_function_names()
        if model_output_of(name) != "features"
    ]


def _nonnegative_int(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return value


# More resamples never change a printed interval, and would run for hours (the
# bootstrap keeps every resampled value): a typo's extra zeros fail at once.
MAX_RESAMPLES = 10**7


def _n_resamples(text):
    value = _nonnegative_int(text)
    if value > MAX_RESAMPLES:
        raise argparse.ArgumentTypeError(
            f"expected at most {MAX_RESAMPLES:_} resamples (1000 to 10_000 give "
            f"stable intervals), got {text!r}"
        )
    return value


def _seed(text):
    value = _nonnegative_int(text)
    if value >= 2**32:
        raise argparse.ArgumentTypeError(f"expected an integer < 2**32, got {text!r}")
    return value


def _level(text):
    try:
        value = float(text)
    except ValueError:
        value = np.nan
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(
            f"expected a number strictly between 0 and 1 (e.g. 0.95), got {text!r}"
        )
    return value


def add_arguments(parser):
    """The options of ``evaluate``: what to compute, what to write, where the
    predictions are in the file."""
    parser.add_argument("file", help="a .csv (with header row) or .npz file")
    _add_metric_arguments(parser)
    _add_output_arguments(parser)
    _add_column_arguments(parser)
    _ood_column.add_arguments(parser)


def _add_metric_arguments(parser):
    parser.add_argument(
        "--metrics",
        default=None,
        help=f"comma-separated {METRIC_HELP} (default: {default_metrics('zero_one')}"
        f"; with --loss log_loss or brier: {default_metrics('brier')})",
    )
    parser.add_argument(
        "--csf",
        default=None,
        metavar="NAME",
        help="confidence score function applied to the probabilities or logits "
        f"in the file, one of {', '.join(usable_csfs())} (default: msp; "
        "max_logit, energy and logit_pnorm read logits, the others read "
        "probabilities, the softmax of logits if the file holds logits)",
    )
    parser.add_argument(
        "--loss",
        choices=["zero_one", "log_loss", "brier"],
        default="zero_one",
        help="per-sample loss; log_loss and brier need probabilities or logits",
    )
    parser.add_argument(
        "--n-resamples",
        type=_n_resamples,
        default=1000,
        help="bootstrap resamples for the intervals (0: values without "
        f"intervals; at most {MAX_RESAMPLES:_})",
    )
    parser.add_argument(
        "--confidence-level",
        type=_level,
        default=0.95,
        help="probability that each interval covers the metric",
    )
    parser.add_argument(
        "--random-state",
        type=_seed,
        default=0,
        help="seed of the bootstrap",
    )
    parser.add_argument(
        "--renormalize",
        action="store_true",
        help="divide each probability row that does not sum to 1 by its sum "
        "(without it, rows must sum to 1 within 1e-3 per class, as probabilities "
        "rounded to 3 decimals do, and are used as given)",
    )


def _add_output_arguments(parser):
    parser.add_argument(
        "--format",
        choices=_FORMATS,
        default="table",
        help="output: an aligned table, or JSON / CSV for pipelines",
    )
    parser.add_argument(
        "--plot",
        default=None,
        metavar="FILE",
        help="save the risk-coverage curves here, e.g. curves.png (default: none)",
    )


def _add_column_arguments(parser):
    parser.add_argument(
        "--label-column", default="y_true", help="CSV column or .npz array: labels"
    )
    parser.add_argument(
        "--pred-column", default="y_pred", help="CSV column or .npz array: predictions"
    )
    parser.add_argument(
        "--confidence-column",
        default="confidence",
        help="CSV column or .npz array: confidences",
    )
    parser.add_argument(
        "--proba-prefix", default="proba_", help="CSV: probability columns' prefix"
    )
    parser.add_argument(
        "--logit-prefix", default="logit_", help="CSV: logit columns' prefix"
    )
    parser.add_argument(
        "--proba-columns",
        type=_column_list,
        default=None,
        metavar="A,B,...",
        help="CSV: the probability columns, one per class, each named by its "
        "label, e.g. 0,1,2 for pandas' to_csv (default: the --proba-prefix "
        "columns)",
    )
    parser.add_argument(
        "--logit-columns",
        type=_column_list,
        default=None,
        metavar="A,B,...",
        help="CSV: the logit columns, one per class, each named by its label "
        "(default: the --logit-prefix columns)",
    )


def _check_csf(options):
    """``options.csf`` resolved (msp by default); an InputError for a CSF a
    prediction file cannot feed."""
    options.csf_given = options.csf is not None
    options.csf = "msp" if options.csf is None else options.csf
    if (
        options.csf in get_confidence_function_names()
        and model_output_of(options.csf) == "features"
    ):
        raise InputError(
            f"--csf {options.csf}: reads the model's inputs and training data, "
            "which a prediction file does not hold. Compute it in Python "
            "(sklearn_selective.confidence.fit_feature_confidence) and pass the "
            "values with --confidence-column"
        )
    if options.csf not in get_confidence_function_names():
        raise InputError(
            f"--csf {options.csf!r}: unknown; use one of {', '.join(usable_csfs())}"
        )


def _read_predictions(options):
    """The file's predictions, with progress notes on stderr for large files."""
    start = time.perf_counter()
    size = Path(options.file).stat().st_size if Path(options.file).is_file() else 0
    if size > 10_000_000:
        print(f"reading {options.file} ({size / 1e6:.0f} MB)", file=sys.stderr)
    predictions = load_predictions(options.file, options)
    elapsed = time.perf_counter() - start
    if elapsed > 1.0:
        print(
            f"read {predictions.y_true.shape[0]} samples ({elapsed:.1f} s)",
            file=sys.stderr,
        )
    if predictions.n_rescaled:
        print(
            f"note: --renormalize divided {predictions.n_rescaled} probability "
            "rows by their sums",
            file=sys.stderr,
        )
    if options.loss != "zero_one" and predictions.proba is None:
        raise InputError(
            f"--loss {options.loss} needs probabilities or logits; the file holds "
            "a confidence per sample"
        )
    return predictions


def _evaluate(options, out, log):
    _check_csf(options)
    metrics = default_metrics(options.loss) if options.metrics is None else None
    try:
        specs = parse_metrics(metrics or options.metrics, options.loss)
    except ValueError as error:
        raise InputError(f"--metrics {options.metrics!r}: {error}") from None
    _ood_column.check_options(options, specs)
    check_plot_path(options.plot)
    predictions = _read_predictions(options)
    n_samples = predictions.y_true.shape[0]
    loss, known = options.loss, slice(None)
    is_ood = predictions.is_ood
    if is_ood is not None:
        loss = _ood_column.scod_loss(predictions.y_true, predictions.y_pred, is_ood)
        known = ~is_ood
    rows = metric_rows(
        predictions.y_true,
        predictions.y_pred,
        predictions.confidence,
        specs,
        proba=predictions.proba,
        labels=predictions.labels,
        loss=loss,
        n_resamples=options.n_resamples,
        confidence_level=options.confidence_level,
        random_state=options.random_state,
    )
    if is_ood is not None:
        rows += _ood_column.ood_rows(is_ood, predictions.confidence)
    summary = {
        "file": str(options.file),
        "n_samples": int(n_samples),
        "accuracy": float(
            np.mean(predictions.y_pred[known] == predictions.y_true[known])
        ),
        "csf": options.csf if predictions.proba is not None else None,
        "loss": options.loss if is_ood is None else "scod",
        "n_resamples": options.n_resamples,
        "confidence_level": options.confidence_level,
    }
    if is_ood is not None:
        summary["n_ood"] = int(is_ood.sum())
    print(format_rows(rows, summary, options.format), file=out)
    if options.plot:
        probabilities = options.loss != "zero_one"
        save_risk_coverage_plot(
            predictions.y_true,
            predictions.proba if probabilities else predictions.y_pred,
            predictions.confidence,
            options.plot,
            name=options.csf if predictions.proba is not None else "confidence",
            loss=options.loss if is_ood is None else loss,
            labels=predictions.labels if probabilities else None,
        )
        log(f"risk-coverage plot saved to {options.plot}")


def run_evaluate(options, out=None):
    """The ``evaluate`` command; returns the exit status."""
    out = sys.stdout if out is None else out

    def log(message):  # stdout holds only the JSON or CSV when one is asked for
        stream = out if options.format == "table" else sys.stderr
        print(message, file=stream)

    try:
        _evaluate(options, out, log)
    except (InputError, ValueError, TypeError, OSError, MemoryError) as error:
        message = " ".join(str(error).split()) or type(error).__name__
        print(f"error: {message}", file=sys.stderr)
        return 2
    return 0
