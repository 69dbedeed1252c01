"""The metric table behind ``evaluate`` and ``demo``: shared resamples, progress."""

import itertools

import numpy as np
import pytest

from sklearn_selective._cli import _report
from sklearn_selective.metrics import (
    aurc,
    bootstrap_metric,
    selective_risk_at_coverage,
)


def _specs(text):
    return _report.parse_metrics(text)


def test_rows_are_the_bootstraps_of_each_metric():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, 80)
    y_pred = np.where(rng.random(80) < 0.8, y_true, 1 - y_true)
    confidence = rng.random(80)
    rows = _report.metric_rows(
        y_true, y_pred, confidence, _specs("aurc,risk@0.5"), n_resamples=40
    )
    expected = bootstrap_metric(
        aurc, y_true, y_pred, confidence, n_resamples=40, random_state=0
    )
    assert rows[0].value == expected.statistic
    assert (rows[0].low, rows[0].high) == expected.confidence_interval
    risk = selective_risk_at_coverage(y_true, y_pred, confidence, coverage=0.5)
    assert rows[1].value == risk
    assert rows[1].low <= risk <= rows[1].high


@pytest.mark.parametrize("n_resamples", [0, 30])
def test_progress_lines_once_slow(monkeypatch, capsys, n_resamples):
    # A fake clock where every reading is 2 s after the previous one.
    clock = itertools.count(start=0.0, step=2.0)
    monkeypatch.setattr(_report.time, "perf_counter", lambda: next(clock))
    rng = np.random.default_rng(1)
    y_true = rng.integers(0, 2, 70_000)  # several blocks of resamples
    y_pred = np.where(rng.random(70_000) < 0.8, y_true, 1 - y_true)
    _report.metric_rows(
        y_true, y_pred, rng.random(70_000), _specs("augrc"), n_resamples=n_resamples
    )
    lines = capsys.readouterr().err.splitlines()
    if n_resamples == 0:
        assert lines == []
    else:
        assert lines[-1].startswith(f"bootstrap: {n_resamples}/{n_resamples} resamples")
        assert len(lines) > 1
