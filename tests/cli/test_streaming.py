"""``evaluate`` on big files: Parquet, streaming in batches, --max-groups, --dask.

Streamed results equal the in-memory JSON (to 1e-12, heavy ties included); the
checks of a whole file hold for every batch (the CSV formats' corruptions are
swept streamed in test_files_sweep.py).
"""

import contextlib
import io
import json
import socket
import sys
import warnings

import numpy as np
import pytest
from _cli_sweep_data import check_error, check_ok, run_cli

from sklearn_selective._cli._streaming import ProgressLine
from sklearn_selective.metrics import aurc, ood_auroc

pandas = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


def _frame(n=3000, seed=0, decimals=2):
    """Probabilities rounded to ``decimals``: a few hundred tie groups that
    every batch boundary cuts."""
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(3) * 0.7, size=n).round(decimals)
    proba[:, 2] = 1 - proba[:, 0] - proba[:, 1]
    proba = np.clip(proba, 0, 1)
    y_true = np.where(rng.random(n) < 0.6, proba.argmax(axis=1), rng.integers(0, 3, n))
    frame = pandas.DataFrame({"y_true": y_true})
    for k in range(3):
        frame[f"proba_{k}"] = proba[:, k]
    frame["is_ood"] = (rng.random(n) < 0.1).astype(int)
    return frame


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("big")
    frame = _frame()
    frame.to_csv(folder / "p.csv", index=False)
    frame.to_parquet(folder / "p.parquet", row_group_size=700)
    (folder / "parts").mkdir()
    for index, part in enumerate(np.array_split(np.arange(len(frame)), 5)):
        frame.iloc[part].to_parquet(folder / "parts" / f"{index}.parquet")
    return folder


def _json(capsys, *args):
    run = run_cli(capsys, ["evaluate", *args, "--format", "json"])
    check_ok(run)
    return json.loads(run.out)


def _assert_same(streamed, expected):
    assert streamed.keys() == expected.keys()
    for key in streamed:
        if isinstance(expected[key], float):
            assert streamed[key] == pytest.approx(expected[key], rel=1e-12), key
        elif key not in ("file", "metrics"):
            assert streamed[key] == expected[key], key
    for got, want in zip(streamed["metrics"], expected["metrics"], strict=True):
        assert got["metric"] == want["metric"]
        assert got["value"] == pytest.approx(want["value"], rel=1e-12, abs=1e-15)


METRICS = "aurc,aurc_log,sele,e_aurc,naurc,augrc,uq_auc,risk@0.8,coverage@0.3"
CASES = {
    "zero_one": ["--metrics", METRICS],
    "brier": ["--loss", "brier", "--metrics", METRICS.replace(",uq_auc", "")],
    "ood": ["--ood-column", "is_ood", "--metrics", METRICS],
    "entropy": ["--csf", "negative_entropy", "--metrics", METRICS],
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", ["p.csv", "p.parquet"])
@pytest.mark.parametrize("batch_size", ["7", "999", "100000"])
def test_streamed_equals_in_memory(capsys, files, case, name, batch_size):
    options = CASES[case]
    expected = _json(capsys, files / "p.csv", "--n-resamples", "0", *options)
    streamed = _json(
        capsys, files / name, "--stream", "--batch-size", batch_size, *options
    )
    _assert_same(streamed, expected)
    assert streamed["n_resamples"] == 0


def test_parquet_in_memory_equals_csv_with_intervals(capsys, files):
    expected = _json(capsys, files / "p.csv", "--n-resamples", "50")
    got = _json(capsys, files / "p.parquet", "--n-resamples", "50")
    for want, row in zip(expected["metrics"], got["metrics"], strict=True):
        for key in ("value", "low", "high"):
            assert row[key] == pytest.approx(want[key], rel=1e-12)


def test_max_groups_reports_certified_bounds(capsys, files):
    frame = _frame(decimals=6)  # continuous: 1000s of distinct confidences
    path = files / "continuous.parquet"
    frame.to_parquet(path)
    result = _json(capsys, path, "--max-groups", "64", "--metrics", "aurc,augrc")
    assert result["exact"] is False and result["max_groups"] == 64
    assert result["n_groups"] <= 64
    proba = frame[[f"proba_{k}" for k in range(3)]].to_numpy()
    exact = aurc(frame["y_true"], proba.argmax(axis=1), proba.max(axis=1))
    row = result["metrics"][0]
    assert row["lower_bound"] <= exact <= row["upper_bound"]
    assert row["upper_bound"] - row["lower_bound"] < 0.05
    run = run_cli(capsys, ["evaluate", path, "--max-groups", "64"])
    check_ok(run)
    assert "bounded, not exact" in run.out and "certified bounds" in run.out
    table = run_cli(capsys, ["evaluate", path, "--max-groups", "64", "--format", "csv"])
    assert "lower_bound,upper_bound" in table.out.splitlines()[0]


def test_max_groups_that_keep_every_group_is_exact(capsys, files):
    result = _json(capsys, files / "p.csv", "--max-groups", "100000")
    assert result["exact"] is True
    for row in result["metrics"]:
        assert row["lower_bound"] == row["value"] == row["upper_bound"]


def test_max_groups_with_ood_bounds_the_ood_auroc(capsys, files):
    frame = _frame(decimals=6)
    path = files / "continuous_ood.csv"
    frame.to_csv(path, index=False)
    result = _json(capsys, path, "--max-groups", "32", "--ood-column", "is_ood")
    rows = {row["metric"]: row for row in result["metrics"]}
    proba = frame[[f"proba_{k}" for k in range(3)]].to_numpy()
    exact = ood_auroc(frame["is_ood"], proba.max(axis=1))
    assert rows["ood_auroc"]["lower_bound"] <= exact <= rows["ood_auroc"]["upper_bound"]
    assert rows["fpr@95tpr"]["lower_bound"] is None  # no certified bounds


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--stream", "--n-resamples", "10"], ["--n-resamples 10", "--stream"]),
        (["--max-groups", "8", "--n-resamples", "5"], ["--max-groups"]),
        (["--stream", "--metrics", "aurc,uq_c_index"], ["uq_c_index", "--stream"]),
        (["--stream", "--plot", "x.png"], ["--plot", "--stream"]),
    ],
)
def test_what_cannot_stream_names_the_option(capsys, files, args, names):
    check_error(run_cli(capsys, ["evaluate", files / "p.csv", *args]), names)


def test_npz_is_not_streamed(capsys, tmp_path):
    path = tmp_path / "p.npz"
    np.savez(path, y_true=[0, 1], y_pred=[0, 1], confidence=[0.5, 0.7])
    check_error(run_cli(capsys, ["evaluate", path, "--stream"]), [str(path), ".npz"])


def test_a_bad_row_is_named_by_its_place_in_the_file(capsys, files, tmp_path):
    frame = _frame()
    frame.loc[2345, "proba_1"] = np.inf
    csv_path, parquet_path = tmp_path / "bad.csv", tmp_path / "bad.parquet"
    frame.to_csv(csv_path, index=False)
    frame.to_parquet(parquet_path)
    for path, place in ((csv_path, "line 2347"), (parquet_path, "row 2345")):
        for extra in ([], ["--stream", "--batch-size", "1000"]):
            run = run_cli(capsys, ["evaluate", path, "--n-resamples", "0", *extra])
            check_error(run, [str(path), "'proba_1'", place, "NaN"])


def test_parquet_text_labels_and_missing_values(capsys, tmp_path):
    frame = pandas.DataFrame(
        {
            "y_true": ["cat", "dog", "cat", "dog"],
            "y_pred": ["cat", "cat", "cat", "dog"],
            "confidence": [0.9, 0.8, 0.3, 0.7],
        }
    )
    path = tmp_path / "labels.parquet"
    frame.to_parquet(path)
    result = _json(capsys, path, "--n-resamples", "0", "--metrics", "aurc")
    assert result["accuracy"] == 0.75
    numbers = frame.assign(y_true=[0, 1, None, 1], y_pred=[0, 0, 0, 1])
    numbers.to_parquet(path)  # a missing number is NaN
    check_error(run_cli(capsys, ["evaluate", path]), ["y_true", "NaN"])
    frame["y_true"] = [[0], [1], [0], [1]]  # a list per row
    frame.to_parquet(path)
    check_error(run_cli(capsys, ["evaluate", path]), ["'y_true'", "list"])


def test_parquet_needs_pyarrow(capsys, monkeypatch, files):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import fails
    check_error(
        run_cli(capsys, ["evaluate", files / "p.parquet"]),
        ["pyarrow", "sklearn-selective[parquet]"],
    )


def test_not_a_parquet_file(capsys, tmp_path):
    path = tmp_path / "broken.parquet"
    path.write_text("y_true,confidence\n1,0.5\n")
    check_error(run_cli(capsys, ["evaluate", path]), [str(path), "Parquet"])


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_line_only_on_a_terminal():
    quiet = io.StringIO()
    line = ProgressLine(quiet, after=0.0, every=0.0)
    line(10)
    line.close()
    assert quiet.getvalue() == ""
    terminal = _Terminal()
    line = ProgressLine(terminal, after=0.0, every=0.0)
    line(1_000)
    line(2_000)
    line.close()
    text = terminal.getvalue()
    assert text.startswith("\revaluate: 1,000 rows") and "\revaluate: 2,000" in text
    assert text.endswith("\n")


def test_progress_line_waits_for_long_runs():
    terminal = _Terminal()
    line = ProgressLine(terminal)  # first line after a second
    line(10)
    line.close()
    assert terminal.getvalue() == ""


# ----------------------------------------------------------------------------
# --dask
# ----------------------------------------------------------------------------
def test_dask_local_equals_in_memory(capsys, files):
    pytest.importorskip("distributed")
    for case in ("zero_one", "ood"):
        options = CASES[case]
        expected = _json(capsys, files / "p.csv", "--n-resamples", "0", *options)
        for source in (files / "parts", f"{files / 'parts'}/*.parquet"):
            got = _json(capsys, source, "--dask", "local", *options)
            _assert_same(got, expected)


def test_dask_local_warns_nothing_where_the_default_dashboard_port_is_taken(
    capsys, files
):
    # The user's own cluster holds 8787, Dask's default dashboard port.
    pytest.importorskip("distributed")
    with socket.socket() as taken:
        # Already held by another process: the same situation.
        with contextlib.suppress(OSError):
            taken.bind(("", 8787))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = _json(
                capsys, files / "parts", "--dask", "local", "--n-resamples", "0"
            )
    assert "aurc" in json.dumps(got)


def test_dask_names_the_partition_of_a_bad_row(capsys, tmp_path):
    pytest.importorskip("distributed")
    frame = _frame(n=400)
    frame.loc[250, "proba_0"] = np.inf
    (tmp_path / "parts").mkdir()
    for index in range(2):
        part = frame.iloc[index * 200 : (index + 1) * 200]
        part.to_parquet(tmp_path / "parts" / f"{index}.parquet")
    run = run_cli(capsys, ["evaluate", tmp_path / "parts", "--dask", "local"])
    check_error(run, ["'proba_0'", "partition 1, row 50", "NaN or infinity"])


@pytest.mark.parametrize(
    ("source", "address", "names"),
    [
        ("missing", "local", ["missing", "--dask", "glob"]),
        ("p.csv", "local", ["--dask", "not Parquet"]),
        ("p.parquet", "", ["--dask", "local"]),
    ],
)
def test_dask_errors(capsys, files, source, address, names):
    pytest.importorskip("distributed")
    check_error(run_cli(capsys, ["evaluate", files / source, "--dask", address]), names)


def test_a_missing_label_column_lists_every_column(capsys, files):
    for extra in ([], ["--stream"]):
        args = ["evaluate", files / "p.parquet", "--label-column", "y", *extra]
        check_error(
            run_cli(capsys, args), ["'y'", "proba_0", "is_ood", "--label-column"]
        )
