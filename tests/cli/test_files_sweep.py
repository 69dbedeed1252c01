"""The command-line sweep of files: every format ``evaluate`` reads, corrupted.

Every input format (``FORMATS``: CSV with and without a byte-order mark, .npz;
probabilities, logits, one sigmoid column, ensembles, a prediction and a
confidence) is written with each corruption in ``CORRUPTIONS`` that applies to
it. Each case gives exit status 0 with the numbers the library's metrics give on
the same arrays (JSON output), or one ``error:`` line naming the column, array
or file and the place -- never a traceback, never a NaN without a warning. A new
format or corruption is one entry; every pair is generated.
"""

import json
import warnings
from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import numpy as np
import pytest
from _cli_sweep_data import (
    FORMATS,
    Data,
    N,
    check_error,
    check_ok,
    make_data,
    model_output,
    plain,
    predictions,
    probabilities,
    run_cli,
    score_prefix,
    write,
)
from scipy.special import softmax

from sklearn_selective._cli._arguments import usable_csfs
from sklearn_selective.confidence import get_confidence_function
from sklearn_selective.metrics import (
    augrc,
    aurc,
    e_aurc,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)


# ----------------------------------------------------------------------------
# Part 2: every file format, every corruption
# ----------------------------------------------------------------------------
class Corrupted(NamedTuple):
    data: Data
    error: tuple = ()  # what the error line names (FILE: the path); () = values
    raw: Callable | None = None  # rewrites the written file: path -> None
    args: tuple = ()  # more options for evaluate


FILE, ROW = "<the file>", 3  # ROW: the sample a corruption changes


def _array(fmt):
    if fmt.kind == "conf":
        return "confidence"
    return "logits" if fmt.kind in ("logits", "sigmoid_logit") else "proba"


def _name(fmt, data, column=1):
    """How the file names the scores of ``column``: CSV column, NPZ array."""
    if fmt.suffix == ".npz" or fmt.kind == "conf":
        return f"'{_array(fmt)}'"
    label = data.labels[1 if fmt.kind.startswith("sigmoid") else column]
    return f"'{score_prefix(fmt)}{label}'"


def _group(fmt):
    return f"{score_prefix(fmt)}<label>" if fmt.suffix == ".csv" else f"'{_array(fmt)}'"


def _place(fmt, row=ROW, member=None):
    where = f"line {row + 2}" if fmt.suffix == ".csv" else f"row {row}"
    return where if member is None else f"member {member}, {where}"


def _index(values, row=ROW, column=1):
    return {1: (row,), 2: (row, column), 3: (1, row, column)}[values.ndim]


def _set(data, value):
    values = data.values.astype(np.float64 if np.isscalar(value) else object)
    values[_index(values)] = value
    return data._replace(values=values)


def _non_finite(value):
    def corrupt(fmt, data):
        names = (_name(fmt, data), _place(fmt), "NaN or infinity")
        return Corrupted(_set(data, value), names)

    return corrupt


def _row_sums_to_1_5(renormalize=False):
    def corrupt(fmt, data):
        if fmt.kind not in ("proba", "ensemble"):
            return None
        values = data.values.copy()
        values[_index(values)[:-1]] = 0.5
        if renormalize:
            return Corrupted(data._replace(values=values), args=("--renormalize",))
        names = (_group(fmt), _place(fmt, member=1 if fmt.kind == "ensemble" else None))
        return Corrupted(data._replace(values=values), names)

    return corrupt


def _negative(fmt, data):
    if fmt.kind == "conf":  # a confidence is any real number
        return Corrupted(_set(data, -0.5))
    if fmt.kind not in ("proba", "sigmoid", "ensemble"):
        return None
    values = data.values.copy()
    index = _index(values)
    values[index if fmt.kind == "sigmoid" else index[:-1]] = (
        -0.1 if fmt.kind == "sigmoid" else [-0.1, 0.6, 0.5]
    )
    member = 1 if fmt.kind == "ensemble" else None
    names = (_group(fmt), _place(fmt, member=member), "outside [0, 1]")
    return Corrupted(data._replace(values=values), names)


def _above_one(fmt, data):
    if fmt.kind != "sigmoid":
        return None
    return Corrupted(_set(data, 1.2), (_group(fmt), _place(fmt), "outside [0, 1]"))


def _text_in_number(text):
    def corrupt(fmt, data):
        values = data.values.astype(str if fmt.suffix == ".npz" else object)
        values[_index(values)] = text
        names = (_name(fmt, data),)
        if fmt.suffix == ".csv" or fmt.kind == "conf":
            names += (_place(fmt),)
        return Corrupted(data._replace(values=values), names)

    return corrupt


def _npz_dtype(dtype):
    """Scores of a dtype that is not real numbers: the array is named."""

    def corrupt(fmt, data):
        if fmt.suffix != ".npz":
            return None
        values = data.values.astype(dtype)
        return Corrupted(data._replace(values=values), (_name(fmt, data),))

    return corrupt


def _column_vectors(fmt, data):
    """y_true (and y_pred, confidence) of shape (n, 1), as PyTorch often saves."""
    if fmt.suffix != ".npz":
        return None
    column = {"y_true": data.y_true[:, None]}
    if fmt.kind == "conf":
        column.update(y_pred=data.y_pred[:, None], values=data.values[:, None])
    return Corrupted(data._replace(**column))


def _labels(change, error=()):
    def corrupt(fmt, data):
        y_true = np.asarray(data.y_true).astype(object)
        result = change(y_true, fmt)
        if result is None:
            return None
        error_ = error(fmt) if callable(error) else error
        return Corrupted(data._replace(y_true=result), error_)

    return corrupt


def _with_label(value):
    def change(y_true, fmt):
        y_true[ROW] = value
        return y_true

    return change


def _unknown_label_error(fmt):
    return () if fmt.kind == "conf" else ("y_true", "7")


def _slice(n):
    def corrupt(fmt, data):
        axis = 1 if fmt.kind == "ensemble" else 0
        values = np.take(data.values, np.arange(n), axis=axis)
        y_pred = None if data.y_pred is None else data.y_pred[:n]
        data = data._replace(y_true=data.y_true[:n], values=values, y_pred=y_pred)
        return Corrupted(data, (FILE, ("no data rows", "no samples")) * (n == 0))

    return corrupt


NAMES = np.array(["cat", "dog", "emu"])
UNICODE_NAMES = np.array(["chat", "猫", "ñandú"])


def _string_labels(fmt, data, kind=str, names=NAMES):
    k = len(data.labels)
    names = names[:k].astype(kind)
    y_pred = None if data.y_pred is None else names[data.y_pred]
    return Corrupted(
        data._replace(y_true=names[data.y_true], labels=names, y_pred=y_pred)
    )


def _unicode_labels(fmt, data):
    return _string_labels(fmt, data, names=UNICODE_NAMES)


def _latin_1(fmt, data):
    if fmt.suffix != ".csv":
        return None

    def raw(path):
        text = path.read_text(encoding="utf-8-sig").replace("cat", "café")
        path.write_bytes(text.encode("latin-1"))

    return _string_labels(fmt, data)._replace(error=(FILE, "UTF-8"), raw=raw)


def _truncated(fmt, data):
    if fmt.suffix != ".npz":
        return None

    def raw(path):
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    return Corrupted(data, (FILE, "not a readable .npz"), raw)


def _object_labels(fmt, data):
    return _string_labels(fmt, data, object) if fmt.suffix == ".npz" else None


def _csv_only(raw, error=()):
    def corrupt(fmt, data):
        return Corrupted(data, error, raw) if fmt.suffix == ".csv" else None

    return corrupt


def _edit_lines(edit):
    def raw(path):
        text = path.read_text(encoding="utf-8-sig")
        path.write_text(edit(text.split("\n")), encoding="utf-8")

    return raw


def _duplicate_last_column(lines):
    return "\n".join(f"{line},{line.split(',')[-1]}" if line else "" for line in lines)


def _drop_a_field(lines):
    lines[ROW + 1] = lines[ROW + 1].rsplit(",", 1)[0]
    return "\n".join(lines)


def _quoted(lines):
    return "\n".join(
        ",".join(f'"{f}"' for f in line.split(",")) if line else "" for line in lines
    )


def _npz_only(change, error=()):
    def corrupt(fmt, data):
        if fmt.suffix != ".npz":
            return None
        changed = change(fmt, data)
        error_ = error(fmt) if callable(error) else error
        return None if changed is None else Corrupted(changed, error_)

    return corrupt


def _shorter_scores(fmt, data):
    if fmt.suffix != ".npz":
        return None
    axis = 1 if fmt.kind == "ensemble" else 0
    values = np.take(data.values, np.arange(N - 1), axis=axis)
    return Corrupted(data._replace(values=values), ("y_true", _array(fmt)))


def _wrong_ndim(fmt, data):
    return data._replace(values=data.values[None, None])


def _one_hot(fmt, data):
    return data._replace(y_true=np.eye(len(data.labels))[data.y_true])


def _extra_labels(labels):
    def change(fmt, data):
        if fmt.kind == "conf":
            return None
        return data._replace(extra={"labels": labels(len(data.labels))})

    return change


def _scaled(factor):
    def corrupt(fmt, data):
        if fmt.kind not in ("logits", "sigmoid_logit", "conf"):
            return None
        return Corrupted(data._replace(values=data.values * factor))

    return corrupt


def _ties(fmt, data):
    values = np.zeros_like(data.values)
    if fmt.kind in ("proba", "ensemble"):
        values += 1 / values.shape[-1]
    elif fmt.kind in ("sigmoid", "conf"):
        values += 0.5
    return Corrupted(data._replace(values=values))


def _float32(fmt, data):
    if fmt.suffix != ".npz":
        return None
    return Corrupted(data._replace(values=data.values.astype(np.float32)))


def _text_column(fmt, data):
    ids = np.array([f"sample {i}" for i in range(len(data.y_true))])
    return Corrupted(data._replace(extra={"id": ids}))


def _single_class(label_index):
    def corrupt(fmt, data):
        if label_index and not fmt.kind.startswith("sigmoid"):
            return None
        y_true = np.full(len(data.y_true), data.labels[label_index])
        return Corrupted(data._replace(y_true=y_true))

    return corrupt


CORRUPTIONS = {
    "nan score": _non_finite(np.nan),
    "inf score": _non_finite(np.inf),
    "-inf score": _non_finite(-np.inf),
    "row sums to 1.5": _row_sums_to_1_5(),
    "row sums to 1.5, --renormalize": _row_sums_to_1_5(renormalize=True),
    "negative score": _negative,
    "probability above 1": _above_one,
    "text in a number column": _text_in_number("abc"),
    "empty number field": _text_in_number(""),  # pandas writes NaN so
    "complex scores": _npz_dtype(complex),
    "datetime scores": _npz_dtype("datetime64[s]"),
    "column vectors": _column_vectors,
    "nan label": _labels(_with_label(np.nan), ("y_true",)),
    "empty label": _labels(
        lambda y, fmt: _with_label("")(y, fmt) if fmt.suffix == ".csv" else None,
        ("y_true",),
    ),
    "label without a column": _labels(_with_label(7), _unknown_label_error),
    "pandas float labels": _labels(lambda y, fmt: y.astype(float)),
    "string labels": _string_labels,
    "object labels": _object_labels,
    "unicode labels": _unicode_labels,
    "latin-1 file": _latin_1,
    "truncated": _truncated,
    "single class": _single_class(0),
    "single positive class": _single_class(1),
    "no y_true": lambda fmt, data: Corrupted(
        data._replace(label_name="label"), ("'y_true'",)
    ),
    "n=0": _slice(0),
    "n=1": _slice(1),
    "n=2": _slice(2),
    "0-byte file": lambda fmt, data: Corrupted(
        data, (FILE,), lambda path: path.write_bytes(b"")
    ),
    "header only": _csv_only(_edit_lines(lambda lines: lines[0]), (FILE, "no data")),
    "blank file": _csv_only(
        lambda path: path.write_text("\n\n"), (FILE, "line 1", "blank")
    ),
    "semicolons": _csv_only(
        _edit_lines(lambda lines: "\n".join(lines).replace(",", ";")), (FILE, "';'")
    ),
    "spaces after commas": _csv_only(
        _edit_lines(lambda lines: "\n".join(lines).replace(",", ", "))
    ),
    "duplicate column": _csv_only(
        _edit_lines(_duplicate_last_column), ("more than once",)
    ),
    "ragged row": _csv_only(_edit_lines(_drop_a_field), (f"line {ROW + 2}",)),
    "crlf": _csv_only(_edit_lines("\r\n".join)),
    "blank lines": _csv_only(_edit_lines(lambda lines: "\n".join(lines) + "\n\n")),
    "quoted fields": _csv_only(_edit_lines(_quoted)),
    "extra text column": _text_column,
    "ties": _ties,
    "huge scores": _scaled(1e306),
    "tiny scores": _scaled(1e-306),
    "float32": _float32,
    "mismatched lengths": _shorter_scores,
    "wrong ndim": _npz_only(
        _wrong_ndim,
        lambda fmt: (f"'{_array(fmt)}'", ("one-dimensional", "numeric", "samples")),
    ),
    "one-hot y_true": _npz_only(_one_hot, ("'y_true'", "one-dimensional")),
    "0-d y_true": _npz_only(
        lambda fmt, data: data._replace(y_true=np.array(1)), ("'y_true'",)
    ),
    "labels too long": _npz_only(
        _extra_labels(lambda k: np.arange(k + 1)), ("'labels'",)
    ),
    "labels repeated": _npz_only(
        _extra_labels(lambda k: np.zeros(k, dtype=int)), ("more than once",)
    ),
}


def _file_cases():
    cases = []
    for fmt_name, fmt in FORMATS.items():
        for name, corrupt in CORRUPTIONS.items():
            if corrupt(fmt, make_data(fmt)) is not None:
                cases.append((fmt_name, name))
    return cases


FILE_CASES = _file_cases()
EXPECTED_METRICS = {
    "aurc": aurc,
    "augrc": augrc,
    "e_aurc": e_aurc,
    "uq_auc": uq_auc,
    "risk@0.8": lambda *arrays: selective_risk_at_coverage(*arrays, coverage=0.8),
}
BRIER_METRICS = {
    "aurc": partial(aurc, loss="brier"),
    "augrc": partial(augrc, loss="brier"),
    "e_aurc": partial(e_aurc, loss="brier"),
    "uq_c_index": uq_c_index,
    "risk@0.8": partial(selective_risk_at_coverage, loss="brier", coverage=0.8),
}
JSON_VALUES = [
    "--format", "json", "--n-resamples", "0", "--metrics", ",".join(EXPECTED_METRICS)
]  # fmt: skip


def _check_values(run, y_true, y_pred, confidence, metrics=EXPECTED_METRICS):
    check_ok(run)
    result = json.loads(run.out)
    assert result["n_samples"] == len(y_true)
    assert result["accuracy"] == pytest.approx(np.mean(y_pred == y_true))
    got = {row["metric"]: row["value"] for row in result["metrics"]}
    for name, metric in metrics.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = metric(y_true, y_pred, confidence)
        if np.isnan(expected):
            assert got[name] is None, name
        else:
            assert got[name] == pytest.approx(expected, rel=1e-12, abs=1e-15), name


@pytest.mark.parametrize(
    "fmt_name, corruption", FILE_CASES, ids=[f"{f}:{c}" for f, c in FILE_CASES]
)
def test_file(fmt_name, corruption, tmp_path, capsys):
    fmt, case = _case(fmt_name, corruption)
    path = write(tmp_path / f"data{fmt.suffix}", fmt, case.data)
    if case.raw is not None:
        case.raw(path)
    run = run_cli(capsys, ["evaluate", path, *JSON_VALUES, *case.args])
    if case.error:
        check_error(run, [str(path) if n == FILE else n for n in case.error])
    else:
        renormalize = "--renormalize" in case.args
        _check_values(run, *predictions(fmt, case.data, renormalize))


CSV_CASES = [case for case in FILE_CASES if FORMATS[case[0]].suffix == ".csv"]


@pytest.mark.parametrize(
    "fmt_name, corruption", CSV_CASES, ids=[f"{f}:{c}" for f, c in CSV_CASES]
)
def test_file_streamed(fmt_name, corruption, tmp_path, capsys):
    """--stream reads the CSV 5 lines at a time through the same checks: the
    same values, or the same error naming the same line."""
    fmt, case = _case(fmt_name, corruption)
    path = write(tmp_path / f"data{fmt.suffix}", fmt, case.data)
    if case.raw is not None:
        case.raw(path)
    stream = ["--stream", "--batch-size", "5"]
    run = run_cli(capsys, ["evaluate", path, *JSON_VALUES, *case.args, *stream])
    if case.error:
        check_error(run, [str(path) if n == FILE else n for n in case.error])
    else:
        renormalize = "--renormalize" in case.args
        _check_values(run, *predictions(fmt, case.data, renormalize))


def _case(fmt_name, corruption):
    fmt = FORMATS[fmt_name]
    return fmt, CORRUPTIONS[corruption](fmt, make_data(fmt))


PROBABILITY_CASES = [
    (fmt_name, corruption)
    for fmt_name, corruption in FILE_CASES
    if FORMATS[fmt_name].kind != "conf" and not _case(fmt_name, corruption)[1].error
]


@pytest.mark.parametrize(
    "fmt_name, corruption",
    PROBABILITY_CASES,
    ids=[f"{f}:{c}" for f, c in PROBABILITY_CASES],
)
def test_file_with_the_brier_loss(fmt_name, corruption, tmp_path, capsys):
    """The loss reads the probabilities: every label maps to its own column."""
    fmt, case = _case(fmt_name, corruption)
    path = write(tmp_path / f"data{fmt.suffix}", fmt, case.data)
    if case.raw is not None:
        case.raw(path)
    options = ["--loss", "brier", "--metrics", ",".join(BRIER_METRICS)]
    run = run_cli(capsys, ["evaluate", path, *JSON_VALUES, *case.args, *options])
    renormalize = "--renormalize" in case.args
    proba = probabilities(fmt, case.data, renormalize)
    labels = plain(case.data.labels)
    bound = {  # each metric of (y_true, y_pred, confidence), on the probabilities
        name: (lambda y, _, c, f=f: f(y, proba, c, labels=labels))
        for name, f in BRIER_METRICS.items()
    }
    _check_values(run, *predictions(fmt, case.data, renormalize), bound)


CSF_CASES = [
    (csf, fixture)
    for csf in usable_csfs()
    for fixture in {
        "predict_proba": ("csv_proba", "csv_logits", "npz_ensemble"),
        "decision_function": ("csv_logits", "npz_logits"),
        "ensemble_proba": ("npz_ensemble",),
    }[model_output(csf)]
]


@pytest.mark.parametrize("csf, fixture", CSF_CASES)
def test_every_csf_gives_the_library_value(csf, fixture, tmp_path, capsys):
    fmt = FORMATS[fixture]
    data = make_data(fmt)
    path = write(tmp_path / f"data{fmt.suffix}", fmt, data)
    run = run_cli(capsys, ["evaluate", path, "--csf", csf, *JSON_VALUES])
    y_true, y_pred, _ = predictions(fmt, data)
    scores = {  # what the CSF reads from this file
        ("predict_proba", "logits"): softmax(data.values, axis=1),
        ("predict_proba", "ensemble"): data.values.mean(axis=0),
    }.get((model_output(csf), fmt.kind), data.values)
    confidence = get_confidence_function(csf)(scores)
    _check_values(run, y_true, y_pred, confidence)


def test_the_sweep_is_large():
    assert len(FILE_CASES) > 200 and len(CSF_CASES) > 30
