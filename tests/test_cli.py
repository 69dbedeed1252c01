"""The command line: the demo, and ``evaluate`` on good and broken files."""

import subprocess
import sys

import numpy as np
import pytest

from sklearn_selective._cli import main
from sklearn_selective.metrics import augrc, aurc


def _run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "sklearn_selective", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def test_demo_shows_abstention_metrics_and_saves_a_plot(tmp_path, capsys):
    plot = tmp_path / "curve.png"
    assert main(["demo", "--n-resamples", "50", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    for text in ("accepts", "AURC (harmonic)", "AUGRC", "UQ-C-index", "95% interval"):
        assert text in out
    assert plot.stat().st_size > 10_000


def test_module_entry_point_without_a_command_fails_with_usage():
    result = _run()
    assert result.returncode == 2
    assert "usage:" in result.stderr


@pytest.fixture(scope="module")
def predictions():
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(3), size=300)
    y_true = np.array([rng.choice(3, p=p) for p in proba])
    return y_true, proba


def _write_proba_csv(path, y_true, proba):
    lines = ["y_true,proba_0,proba_1,proba_2"]
    lines += [
        f"{y},{p[0]:.17g},{p[1]:.17g},{p[2]:.17g}"
        for y, p in zip(y_true, proba, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n")


def _value(stdout, label):
    line = next(line for line in stdout.splitlines() if line.startswith(label))
    return float(line[len(label) :].split()[0])


def test_evaluate_probability_csv(tmp_path, predictions):
    y_true, proba = predictions
    path = tmp_path / "preds.csv"
    _write_proba_csv(path, y_true, proba)
    plot = tmp_path / "plot.png"
    result = _run("evaluate", str(path), "--n-resamples", "200", "--plot", str(plot))
    assert result.returncode == 0, result.stderr
    y_pred, confidence = proba.argmax(1), proba.max(1)
    assert _value(result.stdout, "AURC (harmonic)") == pytest.approx(
        aurc(y_true, y_pred, confidence), abs=5e-5
    )
    assert _value(result.stdout, "AUGRC") == pytest.approx(
        augrc(y_true, y_pred, confidence), abs=5e-5
    )
    assert "[" in result.stdout and plot.exists()


def test_evaluate_prediction_confidence_npz_and_options(tmp_path, predictions):
    y_true, proba = predictions
    path = tmp_path / "preds.npz"
    np.savez(path, y_true=y_true, y_pred=proba.argmax(1), confidence=proba.max(1))
    result = _run(
        "evaluate",
        str(path),
        "--metrics",
        "aurc_log,coverage@0.3",
        "--n-resamples",
        "0",
    )
    assert result.returncode == 0, result.stderr
    assert "AURC (log)" in result.stdout and "coverage @ 0.3" in result.stdout
    proba_path = tmp_path / "proba.npz"
    np.savez(proba_path, y_true=y_true, proba=proba)
    result = _run(
        "evaluate",
        str(proba_path),
        "--csf",
        "negative_entropy",
        "--loss",
        "brier",
        "--metrics",
        "augrc,uq_c_index",
        "--n-resamples",
        "20",
    )
    assert result.returncode == 0, result.stderr


BROKEN = {
    "missing label column": (
        "a.csv",
        "label,proba_0,proba_1\n0,0.5,0.5\n",
        "no label column",
    ),
    "missing columns": (
        "a.csv",
        "y_true,score\n0,0.5\n",
        "neither probability columns",
    ),
    "non-numeric": (
        "a.csv",
        "y_true,proba_0,proba_1\n0,0.5,0.5\n1,abc,0.5\n",
        "line 3: 'abc'",
    ),
    "ragged": ("a.csv", "y_true,y_pred,confidence\n0,1\n", "line 2: 2 fields"),
    "empty": ("a.csv", "", "is empty"),
    "header only": ("a.csv", "y_true,y_pred,confidence\n", "no data rows"),
    "not probabilities": ("a.csv", "y_true,proba_0,proba_1\n0,0.9,0.9\n", "sum to 1"),
    "nan confidence": ("a.csv", "y_true,y_pred,confidence\n0,0,nan\n", "NaN"),
    "extension": ("a.txt", "y_true\n0\n", "unsupported file type"),
    "bad npz": ("a.npz", "not a zip", "not a readable .npz"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_evaluate_broken_files_fail_in_one_line(tmp_path, case):
    name, content, message = BROKEN[case]
    path = tmp_path / name
    path.write_text(content)
    result = _run("evaluate", str(path), "--n-resamples", "10")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert message in result.stderr


def test_evaluate_bad_options(tmp_path, predictions):
    y_true, proba = predictions
    path = tmp_path / "preds.csv"
    _write_proba_csv(path, y_true, proba)
    for args, message in [
        (["--metrics", "accuracy"], "unknown metric 'accuracy'"),
        (["--metrics", "risk@high"], "not a number"),
        (["--csf", "max_logit"], "needs logits"),
        (["--confidence-level", "2"], "confidence-level"),
    ]:
        result = _run("evaluate", str(path), *args)
        assert result.returncode == 2 and message in result.stderr, result.stderr
    missing = _run("evaluate", str(tmp_path / "nope.csv"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
