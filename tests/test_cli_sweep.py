"""The command-line sweep, generated from the parser and from the file formats.

Part 1 walks the argparse parser that ``main`` uses: every subcommand and every
option. The values tried are derived from each action: its ``type`` (a number
domain in ``TYPE_DOMAINS``), its ``choices``, whether it takes a value at all
(flags), or, for free-text options, the kind its ``dest`` names in ``TEXT_KINDS``
(a file to read or to write, a metric list, a CSF name, a column, a prefix). A
bad value gives exit status 2 and one ``error:`` line naming the option, nothing
on stdout and no traceback; the default and other valid values give exit status
0. A new option whose type or choices say what it takes is swept without
editing this file; ``test_every_option_is_known`` fails for one that does not.

Part 2 writes every input format that ``evaluate`` reads (CSV with and without a
byte-order mark, .npz; probabilities, logits, one sigmoid column, ensembles, a
prediction and a confidence) and applies each corruption that applies to it.
Each case gives exit status 0 with the numbers the library's metrics give on
the same arrays (JSON output), or one ``error:`` line naming the column, array
or file and the place -- never a traceback, never a NaN without a warning.

``main`` runs in-process (capsys), so the whole sweep takes seconds.
"""

import argparse
import json
import re
import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pytest
from scipy.special import expit, softmax

from sklearn_selective._cli import _build_parser, main
from sklearn_selective._evaluate import _level, _n_resamples, _seed
from sklearn_selective._report import _NAMED as NAMED_METRICS
from sklearn_selective.confidence import (
    get_confidence_function,
    get_confidence_function_names,
)
from sklearn_selective.metrics import (
    augrc,
    aurc,
    e_aurc,
    selective_risk_at_coverage,
    uq_auc,
)


# ----------------------------------------------------------------------------
# Running the command line in-process
# ----------------------------------------------------------------------------
class Run(NamedTuple):
    status: object
    out: str
    err: str


def _run(capsys, argv):
    try:
        status = main([str(arg) for arg in argv])
    except SystemExit as exit_:  # argparse: usage errors, --help, --version
        status = exit_.code
    captured = capsys.readouterr()
    return Run(status, captured.out, captured.err)


def _check_error(run, names):
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


def _check_ok(run):
    """Exit status 0, no error, and a NaN (or JSON null) only with a warning."""
    assert run.status == 0, run
    assert "Traceback" not in run.err and "error:" not in run.err, run.err
    undefined = re.search(r"\bnan\b|\"value\": null", run.out)
    assert not undefined or "warning: " in run.err, "a NaN without a warning"


# ----------------------------------------------------------------------------
# The input formats of ``evaluate`` (used by both parts)
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
N, K, M = 12, 3, 4


class Data(NamedTuple):
    """What a file holds; ``values`` are the scores in the format's own shape."""

    y_true: np.ndarray
    labels: np.ndarray  # one class label per column
    values: np.ndarray  # (n, k), (n,) for sigmoid, (m, n, k), confidence (n,)
    y_pred: np.ndarray | None = None
    label_name: str = "y_true"
    extra: dict | None = None  # other columns / arrays, ignored by evaluate


def _data(fmt, n=N, seed=0):
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


def _prefix(fmt):
    return "logit_" if fmt.kind in ("logits", "sigmoid_logit") else "proba_"


def _csv_columns(fmt, data):
    columns = {data.label_name: data.y_true}
    if fmt.kind == "conf":
        columns.update(y_pred=data.y_pred, confidence=data.values)
    elif fmt.kind.startswith("sigmoid"):
        columns[f"{_prefix(fmt)}{data.labels[1]}"] = data.values
    else:
        for label, column in zip(data.labels, data.values.T, strict=True):
            columns[f"{_prefix(fmt)}{label}"] = column
    return {**columns, **(data.extra or {})}


def _field(value):
    return repr(value) if isinstance(value, float) else str(value)


def _write_csv(path, fmt, data):
    columns = _csv_columns(fmt, data)
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


def _write(path, fmt, data):
    (_write_csv if fmt.suffix == ".csv" else _write_npz)(path, fmt, data)
    return path


def _write_fixture(tmp_path, name, rename=()):
    """The base data in format ``name``; ``rename`` replaces header text (CSV)."""
    fmt = FORMATS[name]
    path = _write(tmp_path / f"data{fmt.suffix}", fmt, _data(fmt))
    if rename:
        header, rest = path.read_text().split("\n", 1)
        path.write_text(header.replace(*rename) + "\n" + rest)
    return path


# ----------------------------------------------------------------------------
# Part 1: every command, every option
# ----------------------------------------------------------------------------
class Value(NamedTuple):
    """A value to try: argv tokens built from (tmp_path, file path)."""

    id: str
    tokens: Callable
    fixture: str = "csv_proba"  # the file that evaluate reads
    rename: tuple = ()


def _given(option, value):
    return lambda tmp, path: [option, value] if option else [value]


def _option(action):
    return max(action.option_strings, key=len) if action.option_strings else None


class Domain(NamedTuple):
    """The valid numbers of a ``type=`` function: ``low <= x <= high``."""

    number: type
    low: float | None = None
    high: float | None = None
    open: bool = False  # both bounds excluded

    def bad(self):
        bad = {"text": "abc", "empty": ""}
        if self.number is int:
            bad.update(fraction="1.5", exponent="1e99", nan="nan")
        elif (self.low, self.high) != (None, None):
            bad.update(nan="nan", inf="inf", minus_inf="-inf", overflow="1e999")
        step = 1 if self.number is int else 0.5
        if self.low is not None:
            bad["below"] = repr(self.low - step)
            bad.update({"at low": repr(self.low)} if self.open else {})
        if self.high is not None:
            bad["above"] = repr(self.high + step)
            bad.update({"at high": repr(self.high)} if self.open else {})
        return bad

    def other(self, default):
        if self.low is not None and self.high is not None and self.number is float:
            return (self.low + self.high) / 2
        if self.low is not None:
            return self.low + 1
        return default + 1


TYPE_DOMAINS = {
    int: Domain(int),
    float: Domain(float),
    _n_resamples: Domain(int, 0, 10**7),
    _seed: Domain(int, 0, 2**32 - 1),
    _level: Domain(float, 0.0, 1.0, open=True),
}
# Options whose default is slow or writes a file: their value in every other case.
FAST = {"n_resamples": "9", "plot": ""}


def _numbers(action):
    domain = TYPE_DOMAINS[action.type]
    option = _option(action)
    bad = [Value(key, _given(option, v)) for key, v in domain.bad().items()]
    good = [Value("other", _given(option, repr(domain.other(action.default))))]
    return bad, good


def _choices(action):
    option = _option(action)
    choices = [str(choice) for choice in action.choices]
    unknown = {"unknown": "nope", "empty": "", "upper": choices[0].upper()}
    bad = [Value(k, _given(option, v)) for k, v in unknown.items() if v not in choices]
    good = [Value(choice, _given(option, choice)) for choice in choices]
    return bad, good


def _flag(action):
    option = _option(action)
    bad = [Value("with value", lambda tmp, path: [f"{option}=x"])]
    return bad, [Value("given", lambda tmp, path: [option])]


def _input_file(action):
    def folder(tmp, path):
        (tmp / "folder.csv").mkdir()
        return [tmp / "folder.csv"]

    def other_suffix(tmp, path):
        return [path.rename(path.with_suffix(".txt"))]

    bad = [
        Value("missing", lambda tmp, path: [tmp / "missing.csv"]),
        Value("folder", folder),
        Value("in missing folder", lambda tmp, path: [tmp / "no" / "data.csv"]),
        Value("empty", lambda tmp, path: [""]),
        Value("unknown type", other_suffix),
        Value("not given", lambda tmp, path: []),
    ]
    good = [
        Value(name, lambda tmp, path: [path], fixture=name)
        for name in ("csv_proba", "npz_proba")
    ]
    return bad, good


def _output_file(action):
    option = _option(action)

    def folder(tmp, path):
        (tmp / "folder.png").mkdir()
        return [option, tmp / "folder.png"]

    bad = [
        Value("in missing folder", lambda tmp, path: [option, tmp / "no" / "p.png"]),
        Value("folder", folder),
        Value("unknown type", lambda tmp, path: [option, tmp / "p.xyz"]),
        Value("no suffix", lambda tmp, path: [option, tmp / "p"]),
    ]
    good = [
        Value("none", _given(option, "")),
        Value("svg", lambda tmp, path: [option, tmp / "p.svg"]),
    ]
    return bad, good


def _metric_list(action):
    option = _option(action)
    bad = ["nope", "", ",", "risk@", "risk@abc", "risk@1.5", "risk@-0.1"]
    bad += ["risk@nan", "coverage@inf", "aurc,nope", "aurc@0.5"]
    good = [*NAMED_METRICS, "risk@0.5", "coverage@0.2", "aurc_log, augrc"]
    return (
        [Value(repr(v), _given(option, v)) for v in bad],
        [Value(v, _given(option, v)) for v in good],
    )


# The file a CSF reads, by the CSF's model_output tag.
CSF_FIXTURES = {
    "predict_proba": "csv_proba",
    "decision_function": "csv_logits",
    "ensemble_proba": "npz_ensemble",
}


def _model_output(csf):
    return getattr(get_confidence_function(csf), "model_output", "predict_proba")


def _csf_name(action):
    option = _option(action)
    names = get_confidence_function_names()
    bad = [Value(repr(v), _given(option, v)) for v in ("nope", "", "MSP")]
    for output, fixture in CSF_FIXTURES.items():  # a CSF on a file it cannot read
        name = next(n for n in names if _model_output(n) == output)
        for other in {*CSF_FIXTURES.values(), "csv_conf"} - {fixture}:
            if output == "predict_proba" and other != "csv_conf":
                continue  # probability CSFs read logits' softmax, ensembles' mean
            bad.append(Value(f"{name} on {other}", _given(option, name), other))
    good = [Value(n, _given(option, n), CSF_FIXTURES[_model_output(n)]) for n in names]
    return bad, good


def _csv_fixture(match):
    """The first CSV format whose header has a column that ``match`` accepts."""
    for name, fmt in FORMATS.items():
        if fmt.suffix == ".csv" and any(map(match, _csv_columns(fmt, _data(fmt)))):
            return name
    raise AssertionError("no CSV format has such a column")


def _column(action):
    option, default = _option(action), action.default
    fixture = _csv_fixture(lambda column: column == default)
    bad = [Value(repr(v), _given(option, v), fixture) for v in ("nope", "")]
    good = [Value("renamed", _given(option, "my col"), fixture, (default, "my col"))]
    return bad, good


def _column_prefix(action):
    option, default = _option(action), action.default
    fixture = _csv_fixture(lambda column: column.startswith(default))
    bad = [Value(repr(v), _given(option, v), fixture) for v in ("", "nope_", "y")]
    good = [Value("renamed", _given(option, "p."), fixture, (default, "p."))]
    return bad, good


# Free-text options, by dest: what the text names.
TEXT_KINDS = {
    "file": _input_file,
    "plot": _output_file,
    "metrics": _metric_list,
    "csf": _csf_name,
    "label_column": _column,
    "pred_column": _column,
    "confidence_column": _column,
    "proba_prefix": _column_prefix,
    "logit_prefix": _column_prefix,
}


def _values_of(action):
    """(bad values, good values) of an action, or None if the sweep cannot tell."""
    if action.nargs == 0 and action.option_strings:  # flags
        return _flag(action)
    if action.choices is not None:
        return _choices(action)
    if action.type in TYPE_DOMAINS:
        return _numbers(action)
    if action.dest in TEXT_KINDS and action.type is None:
        return TEXT_KINDS[action.dest](action)
    return None


IGNORED = (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)


def _commands(parser):
    subparsers = [
        a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
    ]
    return dict(subparsers[0].choices) if subparsers else {}


PARSER = _build_parser()
COMMANDS = _commands(PARSER)


def _swept_actions():
    return [
        (command, action)
        for command, parser in COMMANDS.items()
        for action in parser._actions
        if not isinstance(action, IGNORED)
    ]


class Case(NamedTuple):
    command: str
    dest: str
    value: Value
    names: tuple  # what an error line must name


def _cases():
    bad, good = [], []
    for command, action in _swept_actions():
        values = _values_of(action)
        if values is None:
            continue  # test_every_option_is_known fails
        names = (tuple(action.option_strings) or (action.dest,),)
        bad += [Case(command, action.dest, v, names) for v in values[0]]
        if action.option_strings and action.nargs is None:
            option = _option(action)
            missing = Value("no value", lambda tmp, path, o=option: [o])
            bad.append(Case(command, action.dest, missing, names))
        default = [Value("default", lambda tmp, path: [])] * (not action.required)
        good += [Case(command, action.dest, v, names) for v in (*default, *values[1])]
    for command in COMMANDS:
        unknown = Value("unknown option", lambda tmp, path: ["--nope", "1"])
        bad.append(Case(command, "--nope", unknown, (("--nope",),)))
    return bad, good


BAD_CASES, GOOD_CASES = _cases()


def _case_id(case):
    return f"{case.command}:{case.dest}={case.value.id}"


def _argv(case, tmp_path):
    """The command with its positionals, fast values elsewhere, then the case."""
    path = _write_fixture(tmp_path, case.value.fixture, case.value.rename)
    argv = [case.command]
    for action in COMMANDS[case.command]._actions:
        if action.dest == case.dest or isinstance(action, IGNORED):
            continue
        if not action.option_strings:  # the file evaluate reads
            argv.append(path)
        elif action.dest in FAST:
            argv += [_option(action), FAST[action.dest]]
    return argv + case.value.tokens(tmp_path, path)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the demo's default plot is written here
    return tmp_path


@pytest.mark.parametrize("case", BAD_CASES, ids=map(_case_id, BAD_CASES))
def test_bad_option_value(case, in_tmp, capsys):
    argv = _argv(case, in_tmp)
    names = case.names
    if not COMMANDS[case.command]._option_string_actions.get(case.names[0][0]):
        names = ((*case.names[0], *map(str, argv[2:])),)  # a positional: its value
    _check_error(_run(capsys, argv), names)


@pytest.mark.parametrize("case", GOOD_CASES, ids=map(_case_id, GOOD_CASES))
def test_good_option_value(case, in_tmp, capsys):
    _check_ok(_run(capsys, _argv(case, in_tmp)))


def test_commands_and_top_level_options(capsys):
    assert {"evaluate", "demo"} <= set(COMMANDS)
    assert _run(capsys, ["--version"]).status == 0
    _check_error(_run(capsys, []), ["command"])
    _check_error(_run(capsys, ["nope"]), ["command", "nope"])
    for command in COMMANDS:
        assert _run(capsys, [command, "--help"]).status == 0


def test_every_option_is_known():
    """An option whose values the sweep cannot derive is not swept: declare it."""
    for command, action in _swept_actions():
        assert _values_of(action) is not None, (
            f"{command} {_option(action) or action.dest}: give it a type in "
            "TYPE_DOMAINS or choices, or add its dest to TEXT_KINDS"
        )
    swept = {(case.command, case.dest) for case in BAD_CASES + GOOD_CASES}
    assert {(command, a.dest) for command, a in _swept_actions()} <= swept


def test_a_new_option_is_swept_from_its_type_or_choices():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-things", type=_n_resamples, default=3)
    parser.add_argument("--mode", choices=["fast", "exact"], default="fast")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--title", default="")
    actions = {action.dest: action for action in parser._actions}
    bad = {v.id for v in _values_of(actions["n_things"])[0]}
    assert {"below", "above", "text", "empty", "fraction"} <= bad
    assert {v.id for v in _values_of(actions["mode"])[0]} == {
        "unknown",
        "empty",
        "upper",
    }
    assert _values_of(actions["verbose"]) is not None
    assert _values_of(actions["title"]) is None  # free text: must be declared


# ----------------------------------------------------------------------------
# Part 2: every file format, every corruption
# ----------------------------------------------------------------------------
class Corrupted(NamedTuple):
    data: Data
    error: tuple = ()  # what the error line names (FILE: the path); () = values
    raw: Callable | None = None  # rewrites the written file: path -> None


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
    return f"'{_prefix(fmt)}{label}'"


def _group(fmt):
    return f"{_prefix(fmt)}<label>" if fmt.suffix == ".csv" else f"'{_array(fmt)}'"


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


def _row_sums_to_1_5(fmt, data):
    if fmt.kind not in ("proba", "ensemble"):
        return None
    values = data.values.copy()
    values[_index(values)[:-1]] = 0.5
    member = 1 if fmt.kind == "ensemble" else None
    return Corrupted(
        data._replace(values=values), (_group(fmt), _place(fmt, member=member))
    )


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


def _text_in_number(fmt, data):
    values = data.values.astype(str if fmt.suffix == ".npz" else object)
    values[_index(values)] = "abc"
    names = (_name(fmt, data),)
    if fmt.suffix == ".csv" or fmt.kind == "conf":
        names += (_place(fmt),)
    return Corrupted(data._replace(values=values), names)


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


def _string_labels(fmt, data, kind=str):
    k = len(data.labels)
    names = NAMES[:k].astype(kind)
    y_pred = None if data.y_pred is None else names[data.y_pred]
    return Corrupted(
        data._replace(y_true=names[data.y_true], labels=names, y_pred=y_pred)
    )


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
    "row sums to 1.5": _row_sums_to_1_5,
    "negative score": _negative,
    "probability above 1": _above_one,
    "text in a number column": _text_in_number,
    "nan label": _labels(_with_label(np.nan), ("y_true",)),
    "empty label": _labels(
        lambda y, fmt: _with_label("")(y, fmt) if fmt.suffix == ".csv" else None,
        ("y_true",),
    ),
    "label without a column": _labels(_with_label(7), _unknown_label_error),
    "pandas float labels": _labels(lambda y, fmt: y.astype(float)),
    "string labels": _string_labels,
    "object labels": _object_labels,
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
            if corrupt(fmt, _data(fmt)) is not None:
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
JSON_VALUES = [
    "--format", "json", "--n-resamples", "0", "--metrics", ",".join(EXPECTED_METRICS)
]  # fmt: skip


def _plain(values):
    """An array of Python values (object arrays of text become text arrays)."""
    return np.asarray(np.asarray(values).tolist())


def _predictions(fmt, data):
    """True labels, predictions and MSP confidences, computed independently."""
    values = data.values.astype(np.float64)
    if fmt.kind == "conf":
        return _plain(data.y_true), _plain(data.y_pred), values
    proba = {
        "proba": lambda v: v,
        "logits": lambda v: softmax(v, axis=1),
        "sigmoid": lambda v: np.column_stack([1 - v, v]),
        "sigmoid_logit": lambda v: np.column_stack([expit(-v), expit(v)]),
        "ensemble": lambda v: v.mean(axis=0),
    }[fmt.kind](values)
    y_pred = _plain(data.labels)[proba.argmax(axis=1)]
    return _plain(data.y_true), y_pred, proba.max(axis=1)


def _check_values(run, y_true, y_pred, confidence, metrics=EXPECTED_METRICS):
    _check_ok(run)
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
    fmt = FORMATS[fmt_name]
    case = CORRUPTIONS[corruption](fmt, _data(fmt))
    path = _write(tmp_path / f"data{fmt.suffix}", fmt, case.data)
    if case.raw is not None:
        case.raw(path)
    run = _run(capsys, ["evaluate", path, *JSON_VALUES])
    if case.error:
        _check_error(run, [str(path) if n == FILE else n for n in case.error])
    else:
        _check_values(run, *_predictions(fmt, case.data))


CSF_CASES = [
    (csf, fixture)
    for csf in get_confidence_function_names()
    for fixture in {
        "predict_proba": ("csv_proba", "csv_logits", "npz_ensemble"),
        "decision_function": ("csv_logits", "npz_logits"),
        "ensemble_proba": ("npz_ensemble",),
    }[_model_output(csf)]
]


@pytest.mark.parametrize("csf, fixture", CSF_CASES)
def test_every_csf_gives_the_library_value(csf, fixture, tmp_path, capsys):
    fmt = FORMATS[fixture]
    data = _data(fmt)
    path = _write(tmp_path / f"data{fmt.suffix}", fmt, data)
    run = _run(capsys, ["evaluate", path, "--csf", csf, *JSON_VALUES])
    y_true, y_pred, _ = _predictions(fmt, data)
    scores = {  # what the CSF reads from this file
        ("predict_proba", "logits"): softmax(data.values, axis=1),
        ("predict_proba", "ensemble"): data.values.mean(axis=0),
    }.get((_model_output(csf), fmt.kind), data.values)
    confidence = get_confidence_function(csf)(scores)
    _check_values(run, y_true, y_pred, confidence)


def test_the_sweep_is_large():
    assert len(BAD_CASES) > 80 and len(GOOD_CASES) > 40
    assert len(FILE_CASES) > 200
