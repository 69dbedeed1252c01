"""``evaluate --stream``: the metrics of a file larger than memory.

The file is read in batches (a CSV ``--batch-size`` lines at a time with the
same numpy parser as the whole file, so the same values and the same messages;
a Parquet file with ``ParquetFile.iter_batches``). Each batch is checked by
:func:`~._loading.table_predictions`, the checks of a whole file, and added to a
:class:`FileState`: a :class:`~sklearn_selective.metrics.RiskCoverageAccumulator`
of the tie groups of the confidences, and the counts the summary reports.
Memory is one batch plus the state: one group per distinct confidence (exact),
or at most ``--max-groups`` (then each value comes with certified bounds of the
exact one). The bootstrap needs every sample at once: a streamed file is
evaluated without intervals, and ``uq_c_index``, which ranks by the probability
of the true class, needs the file in memory.
"""

import sys
import time
from pathlib import Path

import numpy as np

from ..metrics import RiskCoverageAccumulator
from ..metrics._metric_registry import find_entry
from . import _ood_column
from ._files import InputError, csv_batches
from ._loading import reader_of, table_predictions
from ._parquet import SUFFIXES as PARQUET_SUFFIXES
from ._parquet import parquet_batches
from ._report import Row, _warnings_of


class FileState:
    """What the metrics of a file need, added batch by batch and mergeable
    (a Dask partition's state is one): the accumulated tie groups of the
    confidences under the file's loss, those of the OOD indicator
    (``--ood-column``), and the counts of the summary."""

    def __init__(self, max_groups=None, ood=False):
        self.accumulator = RiskCoverageAccumulator(max_groups=max_groups)
        self.ood = RiskCoverageAccumulator(max_groups=max_groups) if ood else None
        self.n_samples = self.n_correct = self.n_known = 0
        self.n_ood = self.n_rescaled = 0
        self.has_proba = False

    def add(self, predictions, loss):
        """Add the predictions of one batch (``loss`` the option --loss)."""
        y_true, y_pred = predictions.y_true, predictions.y_pred
        confidence, is_ood = predictions.confidence, predictions.is_ood
        known = slice(None) if is_ood is None else ~is_ood
        if is_ood is not None:
            scod = _ood_column.scod_loss(y_true, y_pred, is_ood)
            self.accumulator.update(None, None, confidence, loss=scod)
            self.ood.update(None, None, confidence, loss=is_ood.astype(np.float64))
            self.n_ood += int(is_ood.sum())
        elif loss == "zero_one":
            self.accumulator.update(y_true, y_pred, confidence)
        else:
            self.accumulator.update(
                y_true,
                predictions.proba,
                confidence,
                loss=loss,
                labels=predictions.labels,
            )
        self.n_samples += confidence.shape[0]
        self.n_correct += int(np.count_nonzero(y_pred[known] == y_true[known]))
        self.n_known += int(np.asarray(y_true[known]).shape[0])
        self.n_rescaled += predictions.n_rescaled
        self.has_proba = self.has_proba or predictions.proba is not None
        return self

    def merge(self, other):
        """Add the data of another state, in place."""
        self.accumulator.merge(other.accumulator)
        if self.ood is not None:
            self.ood.merge(other.ood)
        for name in ("n_samples", "n_correct", "n_known", "n_ood", "n_rescaled"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.has_proba = self.has_proba or other.has_proba
        return self


# --------------------------------------------------------------------------------------
# Options
# --------------------------------------------------------------------------------------
def is_streaming(options):
    return bool(
        options.stream or options.max_groups is not None or options.dask is not None
    )


def _mode(options):
    """How the user asked for streaming, as the messages name it."""
    if options.dask is not None:
        return "--dask"
    return "--stream" if options.stream else "--max-groups"


def check_options(options, specs):
    """Fail before reading when streaming cannot give what the options ask."""
    mode = _mode(options)
    if options.n_resamples:
        raise InputError(
            f"--n-resamples {options.n_resamples}: {mode} computes values without "
            "bootstrap intervals (the bootstrap resamples every sample at once); "
            f"pass --n-resamples 0, or drop {mode} to read the file in memory"
        )
    for spec in specs:
        entry = find_entry(spec.function)
        if entry.name not in _STREAMED:
            raise InputError(
                f"--metrics {spec.name}: ranks by the probability of the true class, "
                f"which {mode} does not keep; drop {spec.name} from --metrics, or "
                f"drop {mode} to read the file in memory"
            )
    if options.plot:
        raise InputError(
            f"--plot draws the curves from every sample in memory; drop --plot "
            f"with {mode}"
        )


_STREAMED = frozenset(
    {
        "aurc",
        "augrc",
        "e_aurc",
        "naurc",
        "sele",
        "uq_auc",
        "selective_risk_at_coverage",
        "coverage_at_risk",
    }
)


# --------------------------------------------------------------------------------------
# Reading in batches
# --------------------------------------------------------------------------------------
def wanted_columns(options, names=None):
    """Whether a column may hold what the options name (Parquet reads no other);
    every column is wanted when the label column is not among ``names`` (the
    message that says so lists the file's columns)."""
    if names is not None and options.label_column not in names:
        return lambda name: True
    named = {
        options.label_column,
        options.pred_column,
        options.confidence_column,
        options.ood_column,
        *(options.proba_columns or ()),
        *(options.logit_columns or ()),
    }
    prefixes = tuple(p for p in (options.proba_prefix, options.logit_prefix) if p)

    def wanted(name):
        return name in named or name.startswith(prefixes)

    return wanted


def _batches(options):
    path = Path(options.file)
    reader = reader_of(path)
    if not reader.columnar:
        raise InputError(
            f"{path}: {_mode(options)} reads .csv and .parquet files in batches; "
            "an .npz file is read whole (drop the option, or save the arrays as "
            "Parquet)"
        )
    if path.suffix.lower() in PARQUET_SUFFIXES:

        def choose(names):
            wanted = wanted_columns(options, names)
            return [name for name in names if wanted(name)]

        return parquet_batches(path, options.batch_size, choose)
    return csv_batches(path, options.batch_size)


def stream_state(options):
    """The state of the whole file, read in batches, with a progress line on
    a terminal."""
    state = FileState(options.max_groups, ood=options.ood_column is not None)
    progress = ProgressLine()
    try:
        for table in _batches(options):
            state.add(table_predictions(table, options), options.loss)
            progress(state.n_samples)
    finally:
        progress.close()
    return state


class ProgressLine:
    """One line on stderr, rewritten in place (carriage return), once the work
    has taken over a second; nothing when stderr is not a terminal."""

    def __init__(self, stream=None, after=1.0, every=0.25):
        self.stream = sys.stderr if stream is None else stream
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = bool(isatty and isatty())
        self.start = time.perf_counter()
        self.last = self.start + after - every
        self.every = every
        self.shown = False

    def __call__(self, n_rows):
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self.last < self.every:
            return
        self.last, self.shown = now, True
        rate = n_rows / max(now - self.start, 1e-9)
        self.stream.write(
            f"\revaluate: {n_rows:,} rows read ({now - self.start:.0f} s, "
            f"{rate:,.0f} rows/s)"
        )
        self.stream.flush()

    def close(self):
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------
def _row(accumulator, spec, bounded):
    name = find_entry(spec.function).name
    with _warnings_of(spec):
        value = accumulator.compute(name, **spec.kwargs)
        bounds = accumulator.bounds(name, **spec.kwargs) if bounded else None
    return Row(
        spec.label, float(value), better=spec.better, name=spec.name, bounds=bounds
    )


def _ood_rows(state, bounded):
    if not state.n_ood:
        return []
    rows = []
    for label, metric, better in (
        ("OOD AUROC", "ood_auroc", "higher"),
        ("FPR @ 95 % TPR", "fpr@95tpr", "lower"),
    ):
        function = "fpr_at_tpr" if metric == "fpr@95tpr" else metric
        value = float(state.ood.compute(function))
        bounds = None
        if bounded:  # fpr_at_tpr has no certified bounds
            bounds = (np.nan, np.nan)
            if function == "ood_auroc":
                bounds = state.ood.bounds(function)
        rows.append(Row(label, value, better=better, name=metric, bounds=bounds))
    return rows


def state_rows(state, specs, options):
    """The metric rows and the summary of a file's state."""
    bounded = options.max_groups is not None
    rows = [_row(state.accumulator, spec, bounded) for spec in specs]
    rows += _ood_rows(state, bounded)
    summary = {
        "file": str(options.file),
        "n_samples": state.n_samples,
        "accuracy": state.n_correct / state.n_known,
        "csf": options.csf if state.has_proba else None,
        "loss": options.loss if options.ood_column is None else "scod",
        "n_resamples": options.n_resamples,
        "confidence_level": options.confidence_level,
    }
    if options.ood_column is not None:
        summary["n_ood"] = state.n_ood
    if bounded:
        exact = state.accumulator.exact_ and (state.ood is None or state.ood.exact_)
        summary.update(
            exact=bool(exact),
            max_groups=options.max_groups,
            n_groups=state.accumulator.n_groups_,
        )
    return rows, summary
