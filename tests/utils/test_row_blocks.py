"""Probability checks and row-block evaluation of model outputs (_utils/_row_blocks)."""

import numpy as np
import pytest

from sklearn_selective._utils._row_blocks import (
    check_probabilities,
    probability_tolerance,
)
from sklearn_selective.metrics import aurc


def test_probability_tolerance_formula():
    assert probability_tolerance(np.float64, 3) == pytest.approx(3e-3)
    assert probability_tolerance(np.int64, 2) == pytest.approx(2e-3)
    assert probability_tolerance(np.float16, 10) == pytest.approx(10 * 1e-3)
    assert probability_tolerance(np.float16, 1) > 2.0**-10  # the resolution rules
    # Just outside the tolerance is rejected, in every precision.
    for dtype in [np.float16, np.float32, np.float64]:
        off = 2 * probability_tolerance(dtype, 2)
        proba = np.array([[0.5, 0.5 - off]], dtype=np.float64).astype(dtype)
        with pytest.raises(ValueError, match="sum to 1"):
            aurc([0], proba, [0.5], loss="log_loss")


def test_check_probabilities_names_the_argument_and_accepts_rounding():
    proba = np.array([[0.5, 0.5], [0.2, 0.8]])
    check_probabilities(proba, name="y_proba")  # passes
    check_probabilities(proba + 1e-5, name="y_proba")  # within the tolerance
    with pytest.raises(ValueError, match="y_proba"):
        check_probabilities(np.array([[0.5, 0.6]]), name="y_proba")


def test_rows_rounded_to_3_decimals_are_used_as_given_by_api_and_command_line(
    tmp_path, capsys
):
    """Issue 35: rows off by 0.003 were refused by the API and renormalised by
    the command line. One rule now: accepted within n_classes * 1e-3, used as
    given by both; further off, refused by both."""
    from sklearn_selective._cli._main import main
    from sklearn_selective.confidence import negative_entropy

    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(10), size=200)
    rounded = np.round(proba, 3)
    y_true = rng.integers(0, 10, size=200)
    assert np.abs(rounded.sum(axis=1) - 1).max() >= 0.002
    check_probabilities(rounded)
    confidence = negative_entropy(rounded)
    api = aurc(y_true, rounded.argmax(axis=1), confidence)
    path = tmp_path / "rounded.csv"
    header = "y_true," + ",".join(f"proba_{k}" for k in range(10))
    rows = [
        f"{y}," + ",".join(f"{p:.3f}" for p in row)
        for y, row in zip(y_true, rounded, strict=True)
    ]
    path.write_text("\n".join([header, *rows]) + "\n")
    args = ["evaluate", str(path), "--csf", "negative_entropy", "--metrics", "aurc"]
    assert main([*args, "--n-resamples", "0", "--format", "json"]) == 0
    import json

    assert json.loads(capsys.readouterr().out)["metrics"][0]["value"] == api
    off = rounded.copy()
    off[:, 0] += 0.011  # beyond 10 * 1e-3
    with pytest.raises(ValueError, match="sum to 1"):
        check_probabilities(off)
