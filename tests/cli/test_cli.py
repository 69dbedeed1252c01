"""The command line: the demo, and ``evaluate`` on good and broken files.

Most tests call ``main`` in-process (fast); a few run the real entry points.
"""

import importlib
import io
import json
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from sklearn_selective import __version__
from sklearn_selective._cli._main import _build_parser, main
from sklearn_selective.confidence import (
    energy,
    get_confidence_function,
    logit_pnorm,
    margin,
    max_logit,
    msp,
)
from sklearn_selective.metrics import augrc, aurc, e_aurc, uq_c_index

ROOT = Path(__file__).resolve().parents[2]


def _run(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "sklearn_selective", *args],
        capture_output=True,
        text=True,
        cwd=ROOT if cwd is None else cwd,
    )


def _main(capsys, *args):
    """``main`` in-process: (exit status, stdout, stderr); argparse exits too."""
    try:
        status = main([str(arg) for arg in args])
    except SystemExit as exit_:
        status = exit_.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _json(capsys, *args):
    status, out, err = _main(capsys, "evaluate", *args, "--format", "json")
    assert status == 0, err
    result = json.loads(out)
    result["values"] = {row["metric"]: row["value"] for row in result["metrics"]}
    return result


def _error(capsys, *args):
    """The single ``error:`` line of a failing call (exit status 2)."""
    status, out, err = _main(capsys, *args)
    assert status == 2, (out, err)
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if "error:" in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture(scope="module")
def predictions():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(300, 3)) * 2
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y_true = (rng.random(300)[:, None] > proba.cumsum(axis=1)).sum(axis=1)
    return y_true, proba, logits


def _write_csv(path, header, columns, fmt="{:.17g}", encoding="utf-8"):
    lines = [",".join(header)]
    for row in zip(*columns, strict=True):
        lines.append(
            ",".join(
                value if isinstance(value, str) else fmt.format(value) for value in row
            )
        )
    path.write_text("\n".join(lines) + "\n", encoding=encoding)
    return path


def _proba_csv(path, y_true, proba, labels=None, fmt="{:.17g}", **kwargs):
    labels = range(proba.shape[1]) if labels is None else labels
    header = ["y_true", *(f"proba_{label}" for label in labels)]
    return _write_csv(
        path, header, [[str(y) for y in y_true], *proba.T], fmt=fmt, **kwargs
    )


# ----------------------------------------------------------------------------
# demo
# ----------------------------------------------------------------------------
def test_demo_shows_threshold_abstention_metrics_and_saves_a_plot(tmp_path, capsys):
    plot = tmp_path / "curve.png"
    status, out, _ = _main(capsys, "demo", "--n-resamples", "50", "--plot", plot)
    assert status == 0
    for text in ("fitted threshold", "accepts", "AURC (harmonic)", "UQ-C-index"):
        assert text in out
    assert "95% interval" in out and "better" in out
    assert plot.stat().st_size > 10_000


@pytest.mark.parametrize(
    "args, message",
    [
        (["--n-resamples", "-1"], "--n-resamples"),
        (["--random-state", "-5"], "--random-state"),
        (["--random-state", str(2**32)], "--random-state"),
        (["--n-resamples", "many"], "--n-resamples"),
        (["--plot", "no/such/folder/plot.png"], "does not exist"),
        (["--plot", "plot.xyz"], "unknown image type"),
    ],
)
def test_demo_option_errors_are_one_line(capsys, tmp_path, args, message):
    if args[0] == "--plot":
        args = ["--plot", str(tmp_path / args[1])]
    assert message in _error(capsys, "demo", *args)


# ----------------------------------------------------------------------------
# the entry points, help and version
# ----------------------------------------------------------------------------
def test_version_and_usage(capsys):
    status, out, _ = _main(capsys, "--version")
    assert status == 0 and out.strip().endswith(__version__)
    status, _, err = _main(capsys)
    assert status == 2 and "usage:" in err


def test_console_script_is_declared_and_resolves():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    target = project["project"]["scripts"]["sklearn-selective"]
    module, _, function = target.partition(":")
    assert (module, function) == ("sklearn_selective._cli", "main")
    assert getattr(importlib.import_module(module), function) is main


def test_every_option_of_every_command_shows_its_default():
    parser = _build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for name, command in commands.items():
        for action in command._actions:
            if action.option_strings and action.dest != "help":
                assert "default" in command._get_formatter()._expand_help(action), (
                    name,
                    action.dest,
                )


# ----------------------------------------------------------------------------
# evaluate: values, formats
# ----------------------------------------------------------------------------
def test_evaluate_probability_csv_table_and_plot(tmp_path, predictions, capsys):
    y_true, proba, _ = predictions
    path = _proba_csv(tmp_path / "preds.csv", y_true, proba)
    plot = tmp_path / "plot.png"
    status, out, err = _main(
        capsys, "evaluate", path, "--n-resamples", "100", "--plot", plot
    )
    assert status == 0, err
    line = next(line for line in out.splitlines() if line.startswith("AURC"))
    _, better, value, *_ = line.rsplit(maxsplit=4)
    assert better == "lower"
    assert float(value) == pytest.approx(
        aurc(y_true, proba.argmax(1), proba.max(1)), abs=5e-5
    )
    uq = next(line for line in out.splitlines() if line.startswith("UQ-AUC"))
    assert " higher " in uq
    assert plot.stat().st_size > 10_000


def test_evaluate_json_and_csv_output(tmp_path, predictions, capsys):
    y_true, proba, _ = predictions
    path = _proba_csv(tmp_path / "preds.csv", y_true, proba)
    result = _json(capsys, path, "--n-resamples", "50")
    assert result["n_samples"] == 300 and result["csf"] == "msp"
    y_pred, confidence = proba.argmax(1), proba.max(1)
    assert result["accuracy"] == pytest.approx(np.mean(y_pred == y_true))
    assert result["values"]["augrc"] == pytest.approx(
        augrc(y_true, y_pred, confidence), rel=1e-12
    )
    row = result["metrics"][0]
    assert row["low"] <= row["value"] <= row["high"] and row["better"] == "lower"
    status, out, _ = _main(capsys, "evaluate", path, "--format", "csv")
    assert status == 0
    lines = out.strip().splitlines()
    assert lines[0] == "metric,label,value,low,high,better,confidence_level"
    assert lines[1].startswith("aurc,AURC (harmonic),")
    assert len(lines) == 6


def test_evaluate_prediction_confidence_npz_and_options(tmp_path, predictions, capsys):
    y_true, proba, _ = predictions
    path = tmp_path / "preds.npz"
    np.savez(path, y_true=y_true, y_pred=proba.argmax(1), confidence=proba.max(1))
    status, out, err = _main(
        capsys, "evaluate", path, "--metrics", "aurc_log,coverage@0.3",
        "--n-resamples", "0",
    )  # fmt: skip
    assert status == 0, err
    assert "AURC (log)" in out and "coverage @ 0.3" in out and "interval" not in out
    proba_path = tmp_path / "proba.npz"
    np.savez(proba_path, y_true=y_true, proba=proba)
    result = _json(
        capsys, proba_path, "--csf", "negative_entropy", "--loss", "brier",
        "--metrics", "augrc,uq_c_index", "--n-resamples", "20",
    )  # fmt: skip
    assert result["values"]["uq_c_index"] == pytest.approx(
        uq_c_index(y_true, proba, (proba * np.log(proba)).sum(1))
    )


# ----------------------------------------------------------------------------
# item 10: labels match their columns (numerically), or the command fails
# ----------------------------------------------------------------------------
def test_pandas_float_labels_match_integer_columns(tmp_path, predictions, capsys):
    y_true, proba, _ = predictions
    path = tmp_path / "p.csv"
    _proba_csv(path, [f"{y:.1f}" for y in y_true], proba)  # "0.0", "1.0", ...
    result = _json(capsys, path, "--n-resamples", "0")
    assert result["accuracy"] == pytest.approx(np.mean(proba.argmax(1) == y_true))
    _proba_csv(path, y_true, proba, labels=["0.0", "1.0", "2.0"])
    assert _json(capsys, path, "--n-resamples", "0")["accuracy"] > 0.3
    npz = tmp_path / "p.npz"
    np.savez(npz, y_true=y_true.astype(float), proba=proba)
    assert _json(capsys, npz, "--n-resamples", "0")["accuracy"] > 0.3


def test_labels_without_a_column_fail_and_are_named(tmp_path, predictions, capsys):
    y_true, proba, _ = predictions
    path = _proba_csv(tmp_path / "p.csv", y_true + 1, proba)  # 1-based labels
    message = _error(capsys, "evaluate", path)
    assert "y_true holds label(s) 3" in message and "proba_<label>" in message
    text = np.array(["cat", "dog", "emu"])[y_true]
    _proba_csv(path, text, proba, labels=["cat", "dog", "eel"])
    assert "'emu'" in _error(capsys, "evaluate", path)
    npz = tmp_path / "p.npz"
    np.savez(npz, y_true=text, proba=proba)
    assert "'cat', 'dog', 'emu'" in _error(capsys, "evaluate", npz)
    np.savez(npz, y_true=text, proba=proba, labels=np.array(["cat", "dog", "emu"]))
    result = _json(capsys, npz, "--n-resamples", "0")
    assert result["accuracy"] == pytest.approx(np.mean(proba.argmax(1) == y_true))


def test_prediction_files_compare_labels_numerically(tmp_path, capsys):
    path = _write_csv(
        tmp_path / "p.csv",
        ["y_true", "y_pred", "confidence"],
        [["0.0", "1.0", "1.0"], ["0", "1", "0"], [0.9, 0.8, 0.1]],
    )
    assert _json(capsys, path, "--n-resamples", "0")["accuracy"] == pytest.approx(2 / 3)
    _write_csv(
        path,
        ["y_true", "y_pred", "confidence"],
        [["cat", "dog"], ["0", "1"], [0.9, 0.8]],
    )
    assert "y_true holds text and y_pred numbers" in _error(capsys, "evaluate", path)
    npz = tmp_path / "p.npz"
    np.savez(npz, y_true=[0.0, np.nan], y_pred=[0, 1], confidence=[0.9, 0.8])
    assert "y_true holds NaN" in _error(capsys, "evaluate", npz)


# ----------------------------------------------------------------------------
# item 11: malformed files are one error line
# ----------------------------------------------------------------------------
def _npy_bytes():
    buffer = io.BytesIO()
    np.save(buffer, np.arange(3))
    return buffer.getvalue()


def _truncated_npz(path):
    np.savez(path, y_true=np.arange(1000), proba=np.full((1000, 2), 0.5))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


NPZ_BROKEN = {
    "0-byte": (lambda p: p.write_bytes(b""), "not a readable .npz"),
    "truncated": (_truncated_npz, "not a readable .npz"),
    "text": (lambda p: p.write_text("not a zip"), "holds text (a CSV?)"),
    "a CSV named .npz": (
        lambda p: p.write_text("y_true,proba_0,proba_1\n0,0.9,0.1\n"),
        "rename it to .csv",
    ),
    "npy": (lambda p: p.write_bytes(_npy_bytes()), "single array"),
    "0-d y_true": (
        lambda p: np.savez(p, y_true=np.array(1), proba=np.array([[0.5, 0.5]])),
        "'y_true' must be one-dimensional",
    ),
    "0-d proba": (
        lambda p: np.savez(p, y_true=np.array([1]), proba=np.array(0.5)),
        "'proba' must be a numeric array",
    ),
    "labels length": (
        lambda p: np.savez(
            p, y_true=[0, 1], proba=[[0.5, 0.5], [0.2, 0.8]], labels=[0, 1, 2]
        ),
        "'labels' has 3 entries but 'proba' has 2 columns",
    ),
    "lengths": (
        lambda p: np.savez(p, y_true=[0, 1, 1], proba=[[0.5, 0.5], [0.2, 0.8]]),
        "'y_true' has 3 samples",
    ),
    "nan proba": (
        lambda p: np.savez(p, y_true=[0, 1], proba=[[0.5, 0.5], [np.nan, 0.8]]),
        "array 'proba', row 1: NaN",
    ),
}


@pytest.mark.parametrize("case", sorted(NPZ_BROKEN))
def test_malformed_npz_is_one_error_line(tmp_path, capsys, case):
    write, message = NPZ_BROKEN[case]
    path = tmp_path / "a.npz"
    write(path)
    assert message in _error(capsys, "evaluate", path)


CSV_BROKEN = {
    "missing label column": (
        "label,proba_0,proba_1\n0,0.5,0.5\n",
        "no 'y_true' (found: label, proba_0, proba_1); name the label column",
    ),
    "missing columns": ("y_true,score\n0,0.5\n", "neither proba_<label>"),
    "pandas' logit column names": (
        ",0,1,y_true\n0,1.5,-0.2,0\n1,-1.0,2.0,1\n",
        "--logit-columns 0,1,2 for pandas' default column names",
    ),
    "non-numeric": ("y_true,proba_0,proba_1\n0,0.5,0.5\n1,abc,0.5\n", "line 3: 'abc'"),
    "ragged": ("y_true,y_pred,confidence\n0,1\n", "line 2: 2 fields"),
    "ragged later": ("y_true,y_pred,confidence\n0,1,0.5\n\n0,1\n", "line 4: 2 fields"),
    "empty": ("", "is empty"),
    "semicolons": ("y_true;proba_0;proba_1\n0;0.5;0.5\n", "separated by ';'"),
    "header only": ("y_true,y_pred,confidence\n", "no data rows"),
    "not probabilities": ("y_true,proba_0,proba_1\n0,0.9,0.9\n", "must sum to 1"),
    "nan confidence": ("y_true,y_pred,confidence\n0,0,0.5\n0,0,nan\n", "line 3: NaN"),
    "long field": (
        "y_true,proba_0,proba_1\n0," + "9" * 140_000 + "x,0.5\n",
        "(140001 characters)",
    ),
    "duplicate columns": (
        "y_true,proba_0,proba_0\n0,0.5,0.5\n",
        "'proba_0' more than once",
    ),
    "same label twice": (
        "y_true,proba_1,proba_1.0\n1,0.5,0.5\n",
        "one label more than once: '1', '1.0'",
    ),
}


@pytest.mark.parametrize("case", sorted(CSV_BROKEN))
def test_broken_csv_is_one_error_line(tmp_path, capsys, case):
    content, message = CSV_BROKEN[case]
    path = tmp_path / "a.csv"
    path.write_text(content)
    assert message in _error(capsys, "evaluate", path, "--n-resamples", "10")


def test_module_entry_point_prints_one_error_line_and_no_traceback(tmp_path):
    (tmp_path / "a.npz").write_bytes(b"")
    result = _run("evaluate", str(tmp_path / "a.npz"))
    assert result.returncode == 2
    assert (
        result.stderr.startswith("error: ") and "not a readable .npz" in result.stderr
    )
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


# ----------------------------------------------------------------------------
# item 12: byte-order mark
# ----------------------------------------------------------------------------
def test_excel_byte_order_mark_is_accepted(tmp_path, predictions, capsys):
    y_true, proba, _ = predictions
    path = _proba_csv(tmp_path / "p.csv", y_true, proba, encoding="utf-8-sig")
    assert path.read_bytes()[:3] == b"\xef\xbb\xbf"
    assert _json(capsys, path, "--n-resamples", "0")["n_samples"] == 300


# ----------------------------------------------------------------------------
# item 13: default metrics for every loss
# ----------------------------------------------------------------------------
@pytest.mark.parametrize("loss", ["log_loss", "brier"])
def test_default_metrics_work_for_every_loss(tmp_path, predictions, capsys, loss):
    y_true, proba, _ = predictions
    path = _proba_csv(tmp_path / "p.csv", y_true, proba)
    result = _json(capsys, path, "--loss", loss, "--n-resamples", "20")
    assert "uq_c_index" in result["values"] and "uq_auc" not in result["values"]
    assert result["values"]["aurc"] == pytest.approx(
        aurc(y_true, proba, proba.max(1), loss=loss)
    )
    message = _error(capsys, "evaluate", path, "--loss", loss, "--metrics", "uq_auc")
    assert "0/1 loss" in message and "uq_c_index" in message
    assert "_" + "values" not in message and "StrOptions" not in message


# ----------------------------------------------------------------------------
# item 14: logits, sigmoid columns, object arrays, rounded probabilities
# ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "csf, function, on_logits",
    [
        ("max_logit", max_logit, True),
        ("energy", energy, True),
        ("logit_pnorm", logit_pnorm, True),
        ("msp", msp, False),
        ("margin", margin, False),
    ],
)
def test_logit_files_with_every_kind_of_csf(
    tmp_path, predictions, capsys, csf, function, on_logits
):
    y_true, proba, logits = predictions
    path = _write_csv(
        tmp_path / "l.csv",
        ["y_true", "logit_0", "logit_1", "logit_2"],
        [[str(y) for y in y_true], *logits.T],
    )
    confidence = function(logits if on_logits else proba)
    expected = e_aurc(y_true, logits.argmax(1), confidence)
    result = _json(
        capsys, path, "--csf", csf, "--metrics", "e_aurc", "--n-resamples", 0
    )
    assert result["values"]["e_aurc"] == pytest.approx(expected, rel=1e-9, abs=1e-12)
    npz = tmp_path / "l.npz"
    np.savez(npz, y_true=y_true, logits=logits.astype(np.float32))
    result = _json(capsys, npz, "--csf", csf, "--metrics", "e_aurc", "--n-resamples", 0)
    assert result["values"]["e_aurc"] == pytest.approx(expected, rel=1e-5, abs=1e-6)


def test_messages_about_csfs_do_not_contradict(tmp_path, predictions, capsys):
    y_true, proba, logits = predictions
    path = _proba_csv(tmp_path / "p.csv", y_true, proba)
    message = _error(capsys, "evaluate", path, "--csf", "max_logit")
    assert "reads logits" in message and "logit_<label>" in message
    message = _error(capsys, "evaluate", path, "--csf", "ensemble_msp")
    assert "ensemble" in message and "needs logits" not in message
    # Logits in probability columns: the advice given is one that works.
    _proba_csv(path, y_true, logits)
    message = _error(capsys, "evaluate", path)
    assert "outside [0, 1]" in message and "logit_<label>" in message
    text = path.read_text().replace("proba_", "logit_")
    path.write_text(text)
    assert _json(capsys, path, "--csf", "max_logit", "--n-resamples", 0)


def test_single_sigmoid_column_is_a_binary_problem(tmp_path, capsys):
    rng = np.random.default_rng(1)
    p = rng.random(200)
    y_true = (rng.random(200) < p).astype(int)
    two = _proba_csv(tmp_path / "two.csv", y_true, np.column_stack([1 - p, p]))
    one = _write_csv(tmp_path / "one.csv", ["y_true", "proba_1"], [y_true, p])
    expected = _json(capsys, two, "--n-resamples", 0)
    for path in (one,):
        assert _json(capsys, path, "--n-resamples", 0)["values"] == pytest.approx(
            expected["values"]
        )
    npz = tmp_path / "one.npz"
    np.savez(npz, y_true=y_true, proba=p)
    assert _json(capsys, npz, "--n-resamples", 0)["values"] == pytest.approx(
        expected["values"]
    )
    logit = np.log(p / (1 - p))
    np.savez(npz, y_true=y_true, logits=logit)
    assert _json(capsys, npz, "--n-resamples", 0)["values"] == pytest.approx(
        expected["values"]
    )
    np.savez(npz, y_true=np.array(["yes"] * 3), proba=[0.9, 0.8, 0.4],
             labels=["no", "yes"])  # fmt: skip
    assert _json(capsys, npz, "--n-resamples", 0)["accuracy"] == pytest.approx(2 / 3)
    three = np.where(y_true == 1, 1, rng.integers(2, 4, size=200) * (y_true == 0))
    _write_csv(one, ["y_true", "proba_1"], [three, p])
    assert "binary problem" in _error(capsys, "evaluate", one)


def test_object_arrays_load_safely(tmp_path, predictions, capsys):
    y_true, proba, _ = predictions
    names = np.array(["cat", "dog", "emu"], dtype=object)  # as pandas saves text
    npz = tmp_path / "o.npz"
    np.savez(
        npz, y_true=names[y_true], proba=proba, labels=names.copy(), allow_pickle=True
    )
    result = _json(capsys, npz, "--n-resamples", 0)
    assert result["accuracy"] == pytest.approx(np.mean(proba.argmax(1) == y_true))


class _Exploit:
    def __reduce__(self):
        return (Path.touch, (Path(_Exploit.target),))


def test_object_arrays_never_run_code(tmp_path, capsys):
    _Exploit.target = str(tmp_path / "pwned")
    payload = np.empty(2, dtype=object)
    payload[:] = [_Exploit(), _Exploit()]
    npz = tmp_path / "evil.npz"
    np.savez(npz, y_true=payload, proba=np.full((2, 2), 0.5))
    assert pickle.dumps is not None and zipfile.is_zipfile(npz)
    message = _error(capsys, "evaluate", npz)
    assert "'y_true' is an object array" in message and "dtype=str" in message
    assert not (tmp_path / "pwned").exists()


def test_rounded_probabilities_and_renormalize(tmp_path, predictions, capsys):
    y_true, proba, _ = predictions
    path = _proba_csv(tmp_path / "p.csv", y_true, proba, fmt="{:.3f}")
    status, _, err = _main(capsys, "evaluate", path, "--n-resamples", "0")
    assert status == 0 and "divided" not in err
    # One rule (issue 35): the rounded rows are used as given, as by the API.
    rounded = np.round(proba, 3)
    expected = aurc(y_true, rounded.argmax(axis=1), rounded.max(axis=1))
    assert _json(capsys, path, "--n-resamples", 0)["metrics"][0]["value"] == expected
    _proba_csv(path, y_true, proba, fmt="{:.1f}")
    message = _error(capsys, "evaluate", path)
    assert "--renormalize" in message and "must sum to 1 (within 0.003" in message
    assert _json(capsys, path, "--renormalize", "--n-resamples", 0)["n_samples"] == 300
    status, _, err = _main(capsys, "evaluate", path, "--renormalize", "--n-resamples=0")
    assert "--renormalize divided" in err
    npz = tmp_path / "p.npz"
    np.savez(npz, y_true=y_true, proba=proba.astype(np.float16))
    assert _json(capsys, npz, "--n-resamples", 0)["n_samples"] == 300


def test_evaluate_bad_options(tmp_path, predictions, capsys):
    y_true, proba, _ = predictions
    path = _proba_csv(tmp_path / "preds.csv", y_true, proba)
    for args, message in [
        (["--metrics", "accuracy"], "unknown metric 'accuracy'"),
        (["--metrics", "risk@high"], "not a number"),
        (["--metrics", "risk@80"], "between 0 and 1"),
        (["--csf", "nope"], "unknown"),
        (["--confidence-level", "2"], "--confidence-level"),
        (["--n-resamples", "-1"], "--n-resamples"),
        (["--plot", tmp_path / "no" / "p.png"], "does not exist"),
    ]:
        assert message in _error(capsys, "evaluate", path, *args)
    assert "no such file" in _error(capsys, "evaluate", tmp_path / "nope.csv")
    npz = tmp_path / "c.npz"
    np.savez(npz, y_true=[0, 1], y_pred=[0, 1], confidence=[0.2, 0.4])
    assert "drop --csf" in _error(capsys, "evaluate", npz, "--csf", "margin")
    message = _error(capsys, "evaluate", npz, "--loss", "brier")
    assert "needs probabilities or logits" in message


def test_tiny_files_give_values_and_one_line_warnings(tmp_path, capsys):
    path = _write_csv(
        tmp_path / "one.csv", ["y_true", "y_pred", "confidence"], [["0"], ["0"], [0.5]]
    )
    assert "--n-resamples 0" in _error(capsys, "evaluate", path)
    status, out, err = _main(capsys, "evaluate", path, "--n-resamples", "0")
    assert status == 0 and "nan" in out
    assert err.startswith("warning: UQ-AUC (failure AUROC): ")
    assert all(line.startswith("warning: ") for line in err.strip().splitlines())


@pytest.mark.parametrize("csf", ["ensemble_msp", "mutual_information", "msp"])
def test_ensemble_npz_with_ensemble_and_probability_csfs(tmp_path, capsys, csf):
    rng = np.random.default_rng(3)
    members = rng.dirichlet(np.ones(3), size=(4, 100))
    y_true = rng.integers(0, 3, size=100)
    npz = tmp_path / "e.npz"
    np.savez(npz, y_true=y_true, proba=members)
    mean = members.mean(axis=0)
    function = get_confidence_function(csf)
    confidence = function(mean if csf == "msp" else members)
    result = _json(capsys, npz, "--csf", csf, "--metrics", "augrc", "--n-resamples", 0)
    assert result["values"]["augrc"] == pytest.approx(
        augrc(y_true, mean.argmax(axis=1), confidence), rel=1e-12
    )
    members[2, 7] = [0.5, 0.5, 0.5]
    np.savez(npz, y_true=y_true, proba=members)
    assert "member 2, row 7 sums to 1.5" in _error(capsys, "evaluate", npz)


def test_confidence_named_as_the_prediction_column_is_refused(tmp_path, capsys):
    # issue 28: ``--pred-column confidence`` scored AURC 1.0 and exited 0.
    path = _write_csv(
        tmp_path / "p.csv",
        ["y_true", "y_pred", "confidence"],
        [["0", "1", "1", "0"], ["0", "1", "0", "0"], [0.9, 0.8, 0.3, 0.7]],
    )
    line = _error(capsys, "evaluate", path, "--pred-column", "confidence")
    assert "continuous values" in line and "confidence" in line


def test_a_csv_with_a_nul_byte_is_refused(tmp_path, capsys):
    # issue 28: a CSV holding a NUL byte was accepted and scored.
    path = tmp_path / "p.csv"
    path.write_bytes(b"y_true,y_pred,confidence\n0,0,0.9\n1,1\x00,0.8\n1,0,0.3\n")
    line = _error(capsys, "evaluate", path)
    assert "NUL byte" in line and "CSV UTF-8" in line


def test_pandas_default_csv_with_its_index_column(tmp_path, capsys, predictions):
    # issue 28: df.to_csv("x.csv") writes an unnamed index column first; evaluate
    # stopped with "the header has an empty column name".
    pandas = pytest.importorskip("pandas")
    y_true, proba, _ = predictions
    frame = pandas.DataFrame(proba, columns=[f"proba_{k}" for k in range(3)])
    frame.insert(0, "y_true", y_true)
    path = tmp_path / "x.csv"
    frame.to_csv(path)  # the user's own call, index included
    assert path.read_text().startswith(",y_true,proba_0")
    with_index = _json(capsys, path, "--n-resamples", "0")
    frame.to_csv(path, index=False)
    assert with_index["values"] == _json(capsys, path, "--n-resamples", "0")["values"]
    path.write_text("y_true,,proba_0\n0,1,0.5\n")
    assert "empty column name" in _error(capsys, "evaluate", path)


def test_a_pandas_frame_of_logits_named_by_its_columns(tmp_path, capsys, predictions):
    # issue 28: a DataFrame of logits has columns 0..k-1; --logit-columns names
    # them (each column's name is its class label).
    pandas = pytest.importorskip("pandas")
    y_true, _, logits = predictions
    frame = pandas.DataFrame(logits)
    frame["target"] = y_true
    path = tmp_path / "logits.csv"
    frame.to_csv(path)
    got = _json(
        capsys, path, "--label-column", "target", "--logit-columns", "0,1,2",
        "--n-resamples", "0", "--csf", "max_logit",
    )  # fmt: skip
    npz = tmp_path / "logits.npz"
    np.savez(npz, y_true=y_true, logits=logits)
    want = _json(capsys, npz, "--n-resamples", "0", "--csf", "max_logit")
    assert got["values"] == pytest.approx(want["values"], rel=1e-12)
    line = _error(capsys, "evaluate", path, "--label-column", "target",
                  "--logit-columns", "0,1,7")  # fmt: skip
    assert "no column '7' of --logit-columns" in line
    line = _error(capsys, "evaluate", npz, "--logit-columns", "0,1,2")
    assert "name CSV columns" in line


def test_npz_arrays_are_named_by_the_column_options(tmp_path, capsys, predictions):
    y_true, proba, _ = predictions
    path = tmp_path / "named.npz"
    np.savez(path, truth=y_true, guess=proba.argmax(axis=1), score=proba.max(axis=1))
    got = _json(
        capsys, path, "--label-column", "truth", "--pred-column", "guess",
        "--confidence-column", "score", "--n-resamples", "0",
    )  # fmt: skip
    plain = tmp_path / "plain.npz"
    np.savez(
        plain,
        y_true=y_true,
        y_pred=proba.argmax(axis=1),
        confidence=proba.max(axis=1),
    )
    assert got["values"] == _json(capsys, plain, "--n-resamples", "0")["values"]
    line = _error(capsys, "evaluate", path, "--label-column", "truth")
    assert "'y_pred' (--pred-column)" in line
    line = _error(capsys, "evaluate", path)
    assert "--label-column" in line


def test_the_plot_marks_the_fitted_thresholds_working_point():
    # issue 28: the demo's plot shows where the fitted threshold works, and its
    # legend does not hide the chance line.
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from sklearn_selective._cli._plot_file import _LEGEND_PLACES, _mark_working_point

    y_true = np.array([0, 1, 1, 0, 1, 0])
    y_pred = np.array([0, 1, 0, 0, 0, 0])
    confidence = np.array([0.9, 0.8, 0.7, 0.6, 0.3, 0.2])
    figure, ax = plt.subplots()
    try:
        for kind, risk in (("selective", 1 / 4), ("generalized", 1 / 6)):
            ax.cla()
            _mark_working_point(ax, kind, y_true, y_pred, confidence, 0.6)
            (line,) = ax.get_lines()
            assert line.get_label() == "fitted threshold"
            assert line.get_xdata()[0] == pytest.approx(4 / 6)
            assert line.get_ydata()[0] == pytest.approx(risk)
    finally:
        plt.close(figure)
    assert _LEGEND_PLACES == {"selective": "center left", "generalized": "upper left"}
