"""A table of selective metrics with bootstrap intervals (demo and evaluate)."""

import contextlib
import csv
import io
import json
import sys
import time
import warnings
from typing import NamedTuple

from ..metrics._metric_registry import METRICS, PROBABILITIES, ZERO_ONE_LOSS
from ..metrics._shared_resamples import _SharedResamples


class MetricSpec(NamedTuple):
    label: str
    function: object
    kwargs: dict
    better: str  # "lower" or "higher"
    needs_proba: bool = False
    zero_one_only: bool = False
    name: str = ""


def _spec(label, name, **kwargs):
    """A metric of the registry, as the command line shows it: its direction
    and what it needs come from the registry entry."""
    entry = METRICS[name]
    return MetricSpec(
        label,
        entry.function,
        kwargs,
        "higher" if entry.greater_is_better else "lower",
        needs_proba=PROBABILITIES in entry.needs,
        zero_one_only=ZERO_ONE_LOSS in entry.needs,
    )


_NAMED = {
    "aurc": _spec("AURC (harmonic)", "aurc"),
    "aurc_log": _spec("AURC (log)", "aurc", aurc_estimator="log"),
    "sele": _spec("SELE", "sele"),
    "e_aurc": _spec("E-AURC", "e_aurc"),
    "naurc": _spec("NAURC", "naurc"),
    "augrc": _spec("AUGRC", "augrc"),
    "uq_auc": _spec("UQ-AUC (failure AUROC)", "uq_auc"),
    "uq_c_index": _spec("UQ-C-index", "uq_c_index"),
}
# Working points, e.g. "risk@0.8" and "coverage@0.05": label, metric, parameter.
_WORKING_POINTS = {
    "risk": (
        "selective risk @ {:g} coverage",
        "selective_risk_at_coverage",
        "coverage",
    ),
    "coverage": ("coverage @ {:g} selective risk", "coverage_at_risk", "risk"),
}
# UQ-AUC separates correct from wrong predictions (0/1 loss only); the
# UQ-C-index ranks by the probability given to the true class instead.
_DEFAULT_METRICS = {
    "zero_one": "aurc,augrc,e_aurc,uq_auc,risk@0.8",
    "log_loss": "aurc,augrc,e_aurc,uq_c_index,risk@0.8",
    "brier": "aurc,augrc,e_aurc,uq_c_index,risk@0.8",
}
DEFAULT_METRICS = _DEFAULT_METRICS["zero_one"]
METRIC_HELP = (
    f"names among {', '.join(_NAMED)}, or working points risk@COVERAGE and "
    "coverage@RISK (e.g. risk@0.8, coverage@0.05)"
)


def default_metrics(loss="zero_one"):
    """The default metric names for a loss, comma-separated."""
    return _DEFAULT_METRICS[loss]


def _working_point(entry):
    kind, _, value = entry.partition("@")
    if kind not in _WORKING_POINTS or not value:
        raise ValueError(f"unknown metric {entry!r}; use {METRIC_HELP}")
    try:
        point = float(value)
    except ValueError:
        raise ValueError(f"{entry!r}: {value!r} is not a number") from None
    if not 0 <= point <= 1:
        raise ValueError(f"{entry!r}: {value!r} must be between 0 and 1")
    label, name, parameter = _WORKING_POINTS[kind]
    return _spec(label.format(point), name, **{parameter: point})


def parse_metrics(text, loss="zero_one"):
    """``"aurc,risk@0.8"`` -> list of MetricSpec; ValueError naming a bad entry."""
    specs = []
    for entry in filter(None, (part.strip() for part in text.split(","))):
        spec = _NAMED[entry] if entry in _NAMED else _working_point(entry)
        if spec.zero_one_only and loss != "zero_one":
            raise ValueError(
                f"{entry} measures the 0/1 loss (right or wrong) only; with "
                f"--loss {loss} use uq_c_index instead, or --loss zero_one"
            )
        specs.append(spec._replace(name=entry))
    if not specs:
        raise ValueError(f"no metric given; use {METRIC_HELP}")
    return specs


class Row(NamedTuple):
    label: str
    value: float
    low: float | None = None
    high: float | None = None
    better: str = ""
    name: str = ""
    # (lower, upper): certified range of the exact value when the groups of
    # confidences were merged (evaluate --max-groups); None when exact.
    bounds: tuple | None = None


class _Progress:
    """Progress lines on stderr once the work has taken over a second, then at
    most one every few seconds."""

    def __init__(self, stream=None, every=3.0):
        self.stream = sys.stderr if stream is None else stream
        self.start = self.last = time.perf_counter()
        self.every = every

    def __call__(self, done, total):
        now = time.perf_counter()
        if now - self.start > 1.0 and (now - self.last >= self.every or done == total):
            self.last = now
            print(
                f"bootstrap: {done}/{total} resamples ({now - self.start:.1f} s)",
                file=self.stream,
                flush=True,
            )


def metric_rows(
    y_true,
    y_pred,
    confidence,
    specs,
    *,
    proba=None,
    labels=None,
    loss="zero_one",
    n_resamples=1000,
    confidence_level=0.95,
    random_state=0,
):
    """One row per metric, with a bootstrap interval when ``n_resamples > 0``.

    Every metric is evaluated on the same resamples, each drawn once. Warnings
    (an undefined metric) are printed as one ``warning:`` line each on stderr,
    with progress lines once the bootstrap takes more than a second.
    """
    if n_resamples and len(y_true) < 2:
        raise ValueError(
            f"the bootstrap needs at least 2 samples, the file has {len(y_true)}; "
            "pass --n-resamples 0 for the values alone"
        )
    shared = _SharedResamples(n_resamples, random_state) if n_resamples else None
    values = []
    for spec in specs:
        if spec.needs_proba and proba is None:
            raise ValueError(
                f"{spec.name or spec.label} needs probabilities or logits; the file "
                "holds a confidence per sample"
            )
        probabilistic = isinstance(loss, str) and loss != "zero_one"
        predictions = proba if (spec.needs_proba or probabilistic) else y_pred
        kwargs = dict(spec.kwargs)
        if not spec.needs_proba:
            kwargs["loss"] = loss
        if labels is not None and predictions is proba:
            kwargs["labels"] = labels
        arrays = (y_true, predictions, confidence)
        with _warnings_of(spec):
            if shared is None:
                values.append(spec.function(*arrays, **kwargs))
            else:
                values.append(shared.add(spec.function, *arrays, **kwargs))
    if shared is None:
        return [
            Row(spec.label, value, better=spec.better, name=spec.name)
            for spec, value in zip(specs, values, strict=True)
        ]
    shared.run(progress=_Progress())
    rows = []
    for spec, index in zip(specs, values, strict=True):
        with _warnings_of(spec):
            result = shared.result(index, confidence_level=confidence_level)
        low, high = result.confidence_interval
        rows.append(
            Row(spec.label, result.statistic, low, high, spec.better, spec.name)
        )
    return rows


@contextlib.contextmanager
def _warnings_of(spec):
    """Print the warnings raised inside as ``warning: <metric>: message`` lines."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    for message in dict.fromkeys(str(w.message) for w in caught):
        print(f"warning: {spec.label}: {message}", file=sys.stderr)


def format_table(rows, confidence_level=0.95):
    """The rows as aligned text: metric, which direction is better, value, interval."""
    width = max(len("metric"), *(len(row.label) for row in rows))
    level = f"{confidence_level:.0%} interval"
    if all(row.low is None for row in rows):
        level = ""
    bounded = any(row.bounds is not None for row in rows)
    if bounded:
        level = "exact value within (certified bounds)"
    lines = [f"{'metric':<{width}}  {'better':<6}  {'value':>8}  {level}"]
    for row in rows:
        interval = "" if row.low is None else f"[{row.low:.4f}, {row.high:.4f}]"
        if bounded:
            interval = _bounds_text(row.bounds)
        lines.append(
            f"{row.label:<{width}}  {row.better:<6}  {row.value:>8.4f}  {interval}"
        )
    lines = [line.rstrip() for line in lines]
    return "\n".join(lines)


def _bounds_text(bounds):
    if bounds is None or bounds[0] != bounds[0]:
        return "(no certified bounds)"
    return f"[{bounds[0]:.6g}, {bounds[1]:.6g}]"


def _number(value):
    """JSON has no NaN: an undefined metric (or a missing bound) is null."""
    return None if value is None or value != value else float(value)


def _records(rows):
    records = [
        {
            "metric": row.name,
            "label": row.label,
            "value": _number(row.value),
            "low": _number(row.low),
            "high": _number(row.high),
            "better": row.better,
        }
        for row in rows
    ]
    if any(row.bounds is not None for row in rows):  # evaluate --max-groups
        for record, row in zip(records, rows, strict=True):
            bounds = (None, None) if row.bounds is None else row.bounds
            record["lower_bound"] = _number(bounds[0])
            record["upper_bound"] = _number(bounds[1])
    return records


def _as_json(rows, summary):
    return json.dumps({**summary, "metrics": _records(rows)}, indent=2)


def _as_csv(rows, summary):
    buffer = io.StringIO()
    fields = ["metric", "label", "value", "low", "high", "better", "confidence_level"]
    records = _records(rows)
    if records and "lower_bound" in records[0]:
        fields += ["lower_bound", "upper_bound"]
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for record in records:
        writer.writerow({**record, "confidence_level": summary["confidence_level"]})
    return buffer.getvalue().rstrip("\n")


def _as_table(rows, summary):
    head = (
        f"{summary['file']}: {summary['n_samples']} samples, accuracy "
        f"{summary['accuracy']:.4f}"
    )
    if "n_ood" in summary:
        head = (
            f"{summary['file']}: {summary['n_samples']} samples, "
            f"{summary['n_ood']} OOD; accuracy {summary['accuracy']:.4f} on the "
            "in-distribution ones; an accepted OOD sample counts as a failure (SCOD)"
        )
    if summary.get("exact") is False:
        head += (
            f"\nbounded, not exact: confidences merged into {summary['n_groups']} "
            f"groups (--max-groups {summary['max_groups']}); each exact value lies "
            "within its bounds"
        )
    return head + "\n" + format_table(rows, summary["confidence_level"])


_FORMATTERS = {"table": _as_table, "json": _as_json, "csv": _as_csv}


def format_rows(rows, summary, output_format="table"):
    """The metric rows as an aligned ``table``, ``json`` or ``csv`` text.

    ``summary`` holds the file-level facts (file, n_samples, accuracy,
    confidence_level, ...); JSON carries all of them, CSV the table only.
    """
    return _FORMATTERS[output_format](rows, summary)
