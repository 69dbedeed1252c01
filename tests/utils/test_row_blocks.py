"""Probability checks and row-block evaluation of model outputs (_utils/_row_blocks)."""

import numpy as np
import pytest

from sklearn_selective._utils._row_blocks import (
    check_probabilities,
    probability_tolerance,
)
from sklearn_selective.metrics import aurc


def test_probability_tolerance_formula():
    assert probability_tolerance(np.float64, 3) == pytest.approx(3e-4)
    assert probability_tolerance(np.int64, 2) == pytest.approx(2e-4)
    assert probability_tolerance(np.float16, 10) == pytest.approx(10 * 2.0**-10)
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
