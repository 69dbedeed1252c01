"""The command-line sweep of options, generated from the parser ``main`` uses.

It walks every subcommand and every option of ``_build_parser()``. The values
tried are derived from each action: its ``type`` (a number domain in
``TYPE_DOMAINS``), its ``choices``, whether it takes a value at all (flags), or,
for free-text options, the kind its ``dest`` names in ``TEXT_KINDS`` (a file to
read or to write, a metric list, a CSF name, a column, a column prefix). A bad
value gives exit status 2 and one ``error:`` line naming the option, nothing on
stdout and no traceback; the default and other valid values give exit status 0.
A new option whose type or choices say what it takes is swept without editing
this file; ``test_every_option_is_known`` fails for one that does not.

The files are swept in ``test_files_sweep.py``. ``main`` runs in-process
(capsys), so the sweep takes seconds.
"""

import argparse
from collections.abc import Callable
from typing import NamedTuple

import pytest
from _cli_sweep_data import (
    CSF_FIXTURES,
    FORMATS,
    check_error,
    check_ok,
    csv_columns,
    make_data,
    model_output,
    run_cli,
    write_fixture,
)

from sklearn_selective._cli._arguments import (
    _column_list,
    _level,
    _n_resamples,
    _positive_int,
    _seed,
    usable_csfs,
)
from sklearn_selective._cli._main import _build_parser
from sklearn_selective._cli._report import _NAMED as NAMED_METRICS


# ----------------------------------------------------------------------------
# Part 1: every command, every option
# ----------------------------------------------------------------------------
class Value(NamedTuple):
    """A value to try: argv tokens built from (tmp_path, file path)."""

    id: str
    tokens: Callable
    fixture: str = "csv_proba"  # the file that evaluate reads
    rename: tuple = ()
    writes: str = ""  # a file the command must write (in tmp_path, the cwd)


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
        step = 1
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
    _positive_int: Domain(int, 1, None),
}
# Options whose default is slow or writes a file: their value in every other case.
FAST = {"n_resamples": "9", "plot": ""}
# The options that stream the file compute no bootstrap intervals.
STREAMING = {"stream", "max_groups", "dask"}


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
        Value("default", lambda tmp, path: [], writes=action.default or ""),
        Value("none", _given(option, "")),
        Value("svg", lambda tmp, path: [option, tmp / "p.svg"], writes="p.svg"),
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


def _csf_name(action):
    option = _option(action)
    names = usable_csfs()
    bad = [
        Value(repr(v), _given(option, v))
        for v in ("nope", "", "MSP", "mahalanobis", "knn_distance")
    ]
    for output, fixture in CSF_FIXTURES.items():  # a CSF on a file it cannot read
        name = next(n for n in names if model_output(n) == output)
        for other in sorted({*CSF_FIXTURES.values(), "csv_conf"} - {fixture}):
            if output == "predict_proba" and other != "csv_conf":
                continue  # probability CSFs read logits' softmax, ensembles' mean
            bad.append(Value(f"{name} on {other}", _given(option, name), other))
    good = [Value(n, _given(option, n), CSF_FIXTURES[model_output(n)]) for n in names]
    return bad, good


def _csv_fixture(match):
    """The first CSV format whose header has a column that ``match`` accepts."""
    for name, fmt in FORMATS.items():
        if fmt.suffix == ".csv" and any(map(match, csv_columns(fmt, make_data(fmt)))):
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


def _column_names(action):
    """--proba-columns / --logit-columns: the fixture's columns renamed to their
    labels (``proba_0`` to ``0``), listed."""
    option = _option(action)
    prefix = {"proba_columns": "proba_", "logit_columns": "logit_"}[action.dest]
    fixture = _csv_fixture(lambda column: column.startswith(prefix))
    columns = csv_columns(FORMATS[fixture], make_data(FORMATS[fixture]))
    labels = [name[len(prefix) :] for name in columns if name.startswith(prefix)]
    bad = [
        Value(repr(v), _given(option, v), fixture) for v in ("", "0", "0,0", "no,such")
    ]
    good = [Value("listed", _given(option, ",".join(labels)), fixture, (prefix, ""))]
    return bad, good


def _ood_column(action):
    """--ood-column: a column the file lacks (the values are swept in
    test_ood.py, whose fixtures have one)."""
    option = _option(action)
    bad = [Value(repr(v), _given(option, v)) for v in ("nope", "")]
    return bad, []


def _dask_address(action):
    """--dask: an empty address or a file that is not Parquet fail; a local
    cluster reads a Parquet file."""
    option = _option(action)
    bad = [Value("empty", _given(option, "")), Value("csv", _given(option, "local"))]
    good = [Value("local", _given(option, "local"), "parquet_proba")]
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
    "proba_columns": _column_names,
    "logit_columns": _column_names,
    "ood_column": _ood_column,
    "dask": _dask_address,
}


def _values_of(action):
    """(bad values, good values) of an action, or None if the sweep cannot tell."""
    if action.nargs == 0 and action.option_strings:  # flags
        return _flag(action)
    if action.choices is not None:
        return _choices(action)
    if action.type in TYPE_DOMAINS:
        return _numbers(action)
    if action.dest in TEXT_KINDS and action.type in (None, _column_list):
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
        default = [Value("default", lambda tmp, path: [])]
        if action.required or any(v.id == "default" for v in values[1]):
            default = []  # none, or the kind's own (e.g. a file it writes)
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
    path = write_fixture(tmp_path, case.value.fixture, case.value.rename)
    argv = [case.command]
    for action in COMMANDS[case.command]._actions:
        if action.dest == case.dest or isinstance(action, IGNORED):
            continue
        if not action.option_strings:  # the file evaluate reads
            argv.append(path)
        elif action.dest == "n_resamples" and case.dest in STREAMING:
            argv += [_option(action), "0"]
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
    check_error(run_cli(capsys, argv), names)


def _good_params():
    """Every good case; the demo's (a second each: it fits and bootstraps) in
    the full suite only, but for one, which keeps the demo in the fast loop."""
    demo = [case for case in GOOD_CASES if case.command == "demo"]
    return [
        pytest.param(
            case,
            id=_case_id(case),
            marks=[pytest.mark.slow] if case in demo[1:] else [],
        )
        for case in GOOD_CASES
    ]


@pytest.mark.parametrize("case", _good_params())
def test_good_option_value(case, in_tmp, capsys):
    check_ok(run_cli(capsys, _argv(case, in_tmp)))
    if case.value.writes:
        assert (in_tmp / case.value.writes).stat().st_size > 1000


def test_commands_and_top_level_options(capsys):
    assert {"evaluate", "demo"} <= set(COMMANDS)
    assert run_cli(capsys, ["--version"]).status == 0
    check_error(run_cli(capsys, []), ["command"])
    check_error(run_cli(capsys, ["nope"]), ["command", "nope"])
    for command in COMMANDS:
        assert run_cli(capsys, [command, "--help"]).status == 0


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


def test_the_sweep_is_large():
    assert len(BAD_CASES) > 80 and len(GOOD_CASES) > 40
