"""Shared by the command-line sweeps: running ``main`` in-process, and the files.

``FORMATS`` are the input formats ``evaluate`` reads; ``make_data`` makes valid
contents for one and ``write`` writes them; ``predictions`` computes, without
the CLI's code, the labels, predictions and MSP confidences a file stands for.
"""

import re
from typing import NamedTuple

import numpy as np
from scipy.special import expit, softmax

from sklearn_selective._cli._main import main
from sklearn_selective.confidence import get_confidence_function


# ----------------------------------------------------------------------------
# Running the command line in-process
# ----------------------------------------------------------------------------
class Run(NamedTuple):
    status: object
    out: str
    err: str


def run_cli(capsys, argv):
    try:
        status = main([str(arg) for arg in argv])
    except SystemExit as exit_:  # argparse: usage errors, --help, --version
        status = exit_.code
    captured = capsys.readouterr()
    return Run(status, captured.out, captured.err)


def check_error(run, names):
    """Exit status 2, one ``error:`` line holding every entry of ``names``."""
    assert run.status == 2, run
    assert "Traceback" not in run.err, run.err
    lines = [line for line in run.err.splitlines() if "error:" in line]
    assert len(lines) == 1, run.err
    assert run.out == "", f"output before the error: {run.out!r}"
    for name in names:
        alternatives = name if isinstance(name, tuple) else (name,)
        assert any(str(a) in lines[0] for a in alternatives), (name, lines[0])
    return lines[0]


def check_ok(run):
    """Exit status 0, no error, and a NaN (or JSON null) only with a warning."""
    assert run.status == 0, run
    assert "Traceback" not in run.err and "error:" not in run.err, run.err
    undefined = re.search(r"\bnan\b|\"value\": null", run.out)
    assert not undefined or "warning: " in run.err, "a NaN without a warning"


# ----------------------------------------------------------------------------
# The input formats of ``evaluate``
# ----------------------------------------------------------------------------
class Format(NamedTuple):
    kind: str  # proba, logits, sigmoid, sigmoid_logit, ensemble, conf
    suffix: str
    bom: bool = False


FORMATS = {
    "csv_proba": Format("proba", ".csv"),
    "csv_proba_bom": Format("proba", ".csv", bom=True),
    "csv_logits": Format("logits", ".csv"),
    "csv_sigmoid": Format("sigmoid", ".csv"),
    "csv_sigmoid_logit": Format("sigmoid_logit", ".csv"),
    "csv_conf": Format("conf", ".csv"),
    "csv_conf_bom": Format("conf", ".csv", bom=True),
    "npz_proba": Format("proba", ".npz"),
    "npz_logits": Format("logits", ".npz"),
    "npz_sigmoid": Format("sigmoid", ".npz"),
    "npz_sigmoid_logit": Format("sigmoid_logit", ".npz"),
    "npz_ensemble": Format("ensemble", ".npz"),
    "npz_conf": Format("conf", ".npz"),
}
# Parquet holds the columns of a CSV (evaluate --stream, --dask).
PARQUET_FORMATS = {"parquet_proba": Format("proba", ".parquet")}
N, K, M = 12, 3, 4


class Data(NamedTuple):
    """What a file holds; ``values`` are the scores in the format's own shape."""

    y_true: np.ndarray
    labels: np.ndarray  # one class label per column
    values: np.ndarray  # (n, k), (n,) for sigmoid, (m, n, k), confidence (n,)
    y_pred: np.ndarray | None = None
    label_name: str = "y_true"
    extra: dict | None = None  # other columns / arrays, ignored by evaluate


def make_data(fmt, n=N, seed=0):
    rng = np.random.default_rng(seed)
    k = 2 if fmt.kind.startswith("sigmoid") else K
    proba = rng.dirichlet(np.ones(k), size=n)
    values = {
        "proba": proba,
        "logits": rng.normal(size=(n, k)) * 2,
        "sigmoid": proba[:, 1],
        "sigmoid_logit": rng.normal(size=n) * 2,
        "ensemble": rng.dirichlet(np.ones(k), size=(M, n)),
        "conf": np.round(rng.uniform(size=n), 2),
    }[fmt.kind]
    y_true = np.arange(n) % k
    y_pred = np.where(np.arange(n) % 3 == 0, (y_true + 1) % k, y_true)
    return Data(y_true, np.arange(k), values, y_pred if fmt.kind == "conf" else None)


def score_prefix(fmt):
    return "logit_" if fmt.kind in ("logits", "sigmoid_logit") else "proba_"


def csv_columns(fmt, data):
    columns = {data.label_name: data.y_true}
    if fmt.kind == "conf":
        columns.update(y_pred=data.y_pred, confidence=data.values)
    elif fmt.kind.startswith("sigmoid"):
        columns[f"{score_prefix(fmt)}{data.labels[1]}"] = data.values
    else:
        for label, column in zip(data.labels, data.values.T, strict=True):
            columns[f"{score_prefix(fmt)}{label}"] = column
    return {**columns, **(data.extra or {})}


def _field(value):
    return repr(value) if isinstance(value, float) else str(value)


def _write_csv(path, fmt, data):
    columns = csv_columns(fmt, data)
    values = (np.asarray(c, dtype=object).tolist() for c in columns.values())
    rows = zip(*values, strict=True)
    lines = [",".join(columns), *(",".join(map(_field, row)) for row in rows)]
    path.write_text(
        "\n".join(lines) + "\n", encoding="utf-8-sig" if fmt.bom else "utf-8"
    )


def _write_npz(path, fmt, data):
    arrays = {data.label_name: data.y_true}
    if fmt.kind == "conf":
        arrays.update(y_pred=data.y_pred, confidence=data.values)
    else:
        name = "logits" if fmt.kind in ("logits", "sigmoid_logit") else "proba"
        arrays[name] = data.values
        if np.asarray(data.labels).tolist() != list(range(len(data.labels))):
            arrays["labels"] = data.labels
    with open(path, "wb") as handle:
        np.savez(handle, **arrays, **(data.extra or {}))


def _write_parquet(path, fmt, data):
    import pandas

    pandas.DataFrame(csv_columns(fmt, data)).to_parquet(path)


def write(path, fmt, data):
    writer = {".csv": _write_csv, ".parquet": _write_parquet}.get(fmt.suffix)
    (writer or _write_npz)(path, fmt, data)
    return path


def write_fixture(tmp_path, name, rename=()):
    """The base data in format ``name``; ``rename`` replaces header text (CSV)."""
    fmt = {**FORMATS, **PARQUET_FORMATS}[name]
    path = write(tmp_path / f"data{fmt.suffix}", fmt, make_data(fmt))
    if rename:
        header, rest = path.read_text().split("\n", 1)
        path.write_text(header.replace(*rename) + "\n" + rest)
    return path


# The file a CSF reads, by the CSF's model_output tag.
CSF_FIXTURES = {
    "predict_proba": "csv_proba",
    "decision_function": "csv_logits",
    "ensemble_proba": "npz_ensemble",
}


def model_output(csf):
    return getattr(get_confidence_function(csf), "model_output", "predict_proba")


def plain(values):
    """An array of Python values (object arrays of text become text arrays)."""
    return np.asarray(np.asarray(values).tolist())


def probabilities(fmt, data, renormalize=False):
    """The (n, k) probabilities a file's scores stand for (not conf files)."""
    values = data.values.astype(np.float64)
    if renormalize:
        values = values / values.sum(axis=-1, keepdims=True)
    return {
        "proba": lambda v: v,
        "logits": lambda v: softmax(v, axis=1),
        "sigmoid": lambda v: np.column_stack([1 - v, v]),
        "sigmoid_logit": lambda v: np.column_stack([expit(-v), expit(v)]),
        "ensemble": lambda v: v.mean(axis=0),
    }[fmt.kind](values)


def predictions(fmt, data, renormalize=False):
    """True labels, predictions and MSP confidences, computed independently.

    Column vectors (n, 1) of labels or confidences stand for their n values.
    """
    y_true = plain(data.y_true).reshape(-1)
    if fmt.kind == "conf":
        confidence = data.values.astype(np.float64).reshape(-1)
        return y_true, plain(data.y_pred).reshape(-1), confidence
    proba = probabilities(fmt, data, renormalize)
    return y_true, plain(data.labels)[proba.argmax(axis=1)], proba.max(axis=1)
