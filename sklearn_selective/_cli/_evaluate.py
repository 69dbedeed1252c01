"""``sklearn-selective evaluate FILE``: metrics of a file of predictions.

The file (``.csv`` with a header row, ``.parquet``, or ``.npz``) holds the true
labels and one of: class probabilities (columns ``proba_<label>`` / array
``proba``), logits (columns ``logit_<label>`` / array ``logits``), or a
prediction and a confidence per sample (columns / arrays ``y_pred`` and
``confidence``). A file larger than memory is streamed in batches
(``--stream``, ``--max-groups``, :mod:`._streaming`) or read on a Dask cluster
(``--dask``, :mod:`._cluster`). Every problem with the file or the options is
reported as one line on stderr with exit status 2.
"""

import sys
import time
from pathlib import Path

import numpy as np

from . import _ood_column
from ._arguments import add_arguments, check_csf
from ._cluster import cluster_state
from ._files import InputError
from ._loading import load_predictions
from ._plot_file import check_plot_path, save_risk_coverage_plot
from ._report import (
    default_metrics,
    format_rows,
    metric_rows,
    parse_metrics,
)
from ._streaming import check_options, is_streaming, state_rows, stream_state

__all__ = ["InputError", "add_arguments", "run_evaluate"]

# Resamples of the bootstrap when --n-resamples is not given (in memory).
DEFAULT_RESAMPLES = 1000


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
    _note_rescaled(predictions.n_rescaled)
    return predictions


def _note_rescaled(n_rescaled):
    if n_rescaled:
        print(
            f"note: --renormalize divided {n_rescaled} probability rows by their sums",
            file=sys.stderr,
        )


def _specs(options):
    """The metrics asked for, once the options are checked together."""
    check_csf(options)
    metrics = default_metrics(options.loss) if options.metrics is None else None
    try:
        specs = parse_metrics(metrics or options.metrics, options.loss)
    except ValueError as error:
        raise InputError(f"--metrics {options.metrics!r}: {error}") from None
    _ood_column.check_options(options, specs)
    streaming = is_streaming(options)
    if streaming:
        check_options(options, specs)
    if options.n_resamples is None:
        options.n_resamples = 0 if streaming else DEFAULT_RESAMPLES
    check_plot_path(options.plot)
    return specs


def _evaluate(options, out, log):
    specs = _specs(options)
    if is_streaming(options):
        state = _read_state(options)
        _note_rescaled(state.n_rescaled)
        rows, summary = state_rows(state, specs, options)
        print(format_rows(rows, summary, options.format), file=out)
        return
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


def _read_state(options):
    """The accumulated state of the file: on a Dask cluster, or streamed."""
    if options.dask is not None:
        return cluster_state(options)
    return stream_state(options)


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
