"""A table of selective metrics with bootstrap intervals (demo and evaluate)."""

import sys
import time
from typing import NamedTuple

from .metrics import (
    augrc,
    aurc,
    bootstrap_metric,
    coverage_at_risk,
    e_aurc,
    naurc,
    sele,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)


class MetricSpec(NamedTuple):
    label: str
    function: object
    kwargs: dict
    needs_proba: bool = False


_NAMED = {
    "aurc": MetricSpec("AURC (harmonic)", aurc, {}),
    "aurc_log": MetricSpec("AURC (log)", aurc, {"estimator": "log"}),
    "sele": MetricSpec("SELE", sele, {}),
    "e_aurc": MetricSpec("E-AURC", e_aurc, {}),
    "naurc": MetricSpec("NAURC", naurc, {}),
    "augrc": MetricSpec("AUGRC", augrc, {}),
    "uq_auc": MetricSpec("UQ-AUC (failure AUROC)", uq_auc, {}),
    "uq_c_index": MetricSpec("UQ-C-index", uq_c_index, {}, needs_proba=True),
}
# Working points, e.g. "risk@0.8" and "coverage@0.05".
_WORKING_POINTS = {
    "risk": ("selective risk @ {:g} coverage", selective_risk_at_coverage, "coverage"),
    "coverage": ("coverage @ {:g} selective risk", coverage_at_risk, "risk"),
}
DEFAULT_METRICS = "aurc,augrc,e_aurc,uq_auc,risk@0.8"
METRIC_HELP = (
    f"names among {', '.join(_NAMED)}, or working points risk@COVERAGE and "
    "coverage@RISK (e.g. risk@0.8, coverage@0.05)"
)


def parse_metrics(text):
    """``"aurc,risk@0.8"`` -> list of MetricSpec; ValueError naming a bad entry."""
    specs = []
    for entry in filter(None, (part.strip() for part in text.split(","))):
        if entry in _NAMED:
            specs.append(_NAMED[entry])
            continue
        kind, _, value = entry.partition("@")
        if kind not in _WORKING_POINTS or not value:
            raise ValueError(f"unknown metric {entry!r}; use {METRIC_HELP}")
        try:
            point = float(value)
        except ValueError:
            raise ValueError(f"{entry!r}: {value!r} is not a number") from None
        label, function, parameter = _WORKING_POINTS[kind]
        specs.append(MetricSpec(label.format(point), function, {parameter: point}))
    if not specs:
        raise ValueError(f"no metric given; use {METRIC_HELP}")
    return specs


class Row(NamedTuple):
    label: str
    value: float
    low: float | None = None
    high: float | None = None


class _Progress:
    """Progress lines on stderr, only once the work has taken over a second."""

    def __init__(self, total, stream=None):
        self.total, self.done = total, 0
        self.stream = sys.stderr if stream is None else stream
        self.start = time.perf_counter()

    def step(self, label):
        self.done += 1
        elapsed = time.perf_counter() - self.start
        if elapsed > 1.0:
            print(
                f"[{self.done}/{self.total}] {label} ({elapsed:.1f} s)",
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
    """One row per metric, with a bootstrap interval when ``n_resamples > 0``."""
    progress = _Progress(len(specs))
    rows = []
    for spec in specs:
        if spec.needs_proba and proba is None:
            raise ValueError(f"{spec.label} needs class probabilities")
        predictions = proba if (spec.needs_proba or loss != "zero_one") else y_pred
        kwargs = dict(spec.kwargs)
        if not spec.needs_proba:
            kwargs["loss"] = loss
        if labels is not None and predictions is proba:
            kwargs["labels"] = labels
        if n_resamples == 0:
            value = spec.function(y_true, predictions, confidence, **kwargs)
            rows.append(Row(spec.label, value))
        else:
            result = bootstrap_metric(
                spec.function,
                y_true,
                predictions,
                confidence,
                n_resamples=n_resamples,
                confidence_level=confidence_level,
                random_state=random_state,
                **kwargs,
            )
            low, high = result.confidence_interval
            rows.append(Row(spec.label, result.statistic, low, high))
        progress.step(spec.label)
    return rows


def format_table(rows, confidence_level=0.95):
    """The rows as aligned text: metric, value and interval."""
    width = max(len("metric"), *(len(row.label) for row in rows))
    level = f"{confidence_level:.0%} interval"
    lines = [f"{'metric':<{width}}  {'value':>8}  {level}"]
    for row in rows:
        interval = "" if row.low is None else f"[{row.low:.4f}, {row.high:.4f}]"
        lines.append(f"{row.label:<{width}}  {row.value:>8.4f}  {interval}")
    return "\n".join(lines)
