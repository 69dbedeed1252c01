"""``evaluate --ood-column``: SCOD metrics from a file, equal to the library's."""

import json

import numpy as np
import pytest
from _cli_sweep_data import check_error, run_cli

from sklearn_selective.confidence import msp
from sklearn_selective.metrics import (
    augrc,
    aurc,
    fpr_at_tpr,
    ood_auroc,
    selective_risk_at_coverage,
)


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet([1.0, 1.0, 1.0], n).round(3)
    proba[:, 2] = 1.0 - proba[:, :2].sum(axis=1)
    proba = np.vectorize(lambda v: float(f"{v:.3f}"))(proba)  # as the file says
    is_ood = rng.random(n) < 0.25
    y_true = rng.integers(0, 3, n)
    return proba, y_true, is_ood


def _write_csv(path, proba, labels, ood_values):
    lines = ["proba_a,proba_b,proba_c,y_true,is_ood"]
    for row, label, flag in zip(proba, labels, ood_values, strict=True):
        lines.append(",".join([*(f"{v:.3f}" for v in row), str(label), str(flag)]))
    path.write_text("\n".join(lines) + "\n")
    return path


def _expected(proba, y_true, is_ood):
    confidence = msp(proba)
    loss = ((proba.argmax(axis=1) != y_true) | is_ood).astype(float)
    return {
        "aurc": aurc(None, None, confidence, loss=loss),
        "augrc": augrc(None, None, confidence, loss=loss),
        "risk@0.8": selective_risk_at_coverage(
            None, None, confidence, loss=loss, coverage=0.8
        ),
        "ood_auroc": ood_auroc(is_ood.astype(int), confidence),
        "fpr@95tpr": fpr_at_tpr(is_ood.astype(int), confidence),
    }


def _values(capsys, path, *extra):
    run = run_cli(
        capsys,
        ["evaluate", path, "--ood-column", "is_ood", "--format", "json",
         "--n-resamples", "0", "--metrics", "aurc,augrc,risk@0.8", *extra],
    )  # fmt: skip
    assert run.status == 0, run.err
    result = json.loads(run.out)
    return result, {row["metric"]: row["value"] for row in result["metrics"]}


@pytest.mark.parametrize(
    "ood_label, flags",
    [
        ("unknown", lambda f: f.astype(int)),  # text labels of OOD rows
        ("", lambda f: np.where(f, "true", "false")),  # empty labels, words
        ("-1", lambda f: np.where(f, "1", "0")),
    ],
)
def test_values_equal_the_library_with_any_ood_label(
    capsys, tmp_path, ood_label, flags
):
    proba, y_true, is_ood = _data()
    names = np.array(["a", "b", "c"])[y_true].astype(object)
    names[is_ood] = ood_label
    path = _write_csv(tmp_path / "p.csv", proba, names, flags(is_ood))
    result, values = _values(capsys, path)
    expected = _expected(proba, y_true, is_ood)
    assert values == pytest.approx(expected, rel=1e-12)
    assert result["n_ood"] == int(is_ood.sum()) and result["loss"] == "scod"
    known = ~is_ood
    accuracy = np.mean(proba.argmax(axis=1)[known] == y_true[known])
    assert result["accuracy"] == pytest.approx(accuracy)


def test_npz_with_a_boolean_array_and_intervals(capsys, tmp_path):
    proba, y_true, is_ood = _data(seed=1)
    path = tmp_path / "p.npz"
    np.savez(path, proba=proba, y_true=y_true, is_ood=is_ood)
    run = run_cli(
        capsys,
        ["evaluate", path, "--ood-column", "is_ood", "--n-resamples", "200"],
    )
    assert run.status == 0, run.err
    assert f"{int(is_ood.sum())} OOD" in run.out and "(SCOD)" in run.out
    assert "OOD AUROC" in run.out and "FPR @ 95 % TPR" in run.out
    table = {line.split("  ")[0]: line for line in run.out.splitlines()}
    assert "[" in table["AUGRC"]  # the risk metrics keep their intervals


def test_without_ood_samples_the_loss_is_the_zero_one_loss(capsys, tmp_path):
    proba, y_true, _ = _data(seed=2)
    none = np.zeros(len(y_true), dtype=bool)
    names = np.array(["a", "b", "c"])[y_true]
    path = _write_csv(tmp_path / "p.csv", proba, names, none.astype(int))
    _, values = _values(capsys, path)
    assert "ood_auroc" not in values
    assert values["augrc"] == pytest.approx(augrc(y_true, proba.argmax(1), msp(proba)))


def test_ood_column_is_not_a_score_column(capsys, tmp_path):
    proba, y_true, is_ood = _data(seed=3)
    path = tmp_path / "p.csv"
    _write_csv(path, proba, np.array(["a", "b", "c"])[y_true], is_ood.astype(int))
    text = path.read_text().replace("is_ood", "proba_ood", 1)
    path.write_text(text)
    run = run_cli(
        capsys,
        ["evaluate", path, "--ood-column", "proba_ood", "--n-resamples", "0"],
    )
    assert run.status == 0, run.err


@pytest.mark.parametrize(
    "flags, extra, names",
    [
        (lambda f: np.where(f, "yes", "maybe"), [], ["'maybe'", "line ", "is_ood"]),
        (lambda f: f.astype(int) * 2, [], ["is_ood", "not an OOD indicator"]),
        (lambda f: np.ones(len(f), int), [], ["every sample is OOD"]),
        (lambda f: f.astype(int), ["--loss", "brier"], ["--ood-column", "--loss"]),
        (lambda f: f.astype(int), ["--metrics", "uq_c_index"], ["uq_c_index"]),
    ],
)
def test_bad_ood_input_names_what_to_do(capsys, tmp_path, flags, extra, names):
    proba, y_true, is_ood = _data(seed=4)
    is_ood[1] = False
    path = _write_csv(tmp_path / "p.csv", proba, y_true, flags(is_ood))
    run = run_cli(capsys, ["evaluate", path, "--ood-column", "is_ood", *extra])
    check_error(run, names)


def test_a_pandas_float_column_with_a_missing_value_names_its_line(capsys, tmp_path):
    """Issue 35: pandas writes 0.0/1.0 and an empty field for NaN; the column
    was read as text and the error named line 2 and the valid value '0.0'."""
    path = tmp_path / "ood.csv"
    path.write_text(
        "y_true,proba_0,proba_1,ood\n0,0.9,0.1,0.0\n1,0.2,0.8,0.0\n"
        "1,0.3,0.7,\n0,0.6,0.4,1.0\n"
    )
    argv = ["evaluate", path, "--ood-column", "ood", "--n-resamples", "10"]
    check_error(run_cli(capsys, argv), ["line 4", "a missing value"])
    path.write_text(path.read_text().replace("0.7,\n", "0.7,1.0\n"))
    assert run_cli(capsys, argv).status == 0
