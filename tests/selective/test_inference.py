"""The model's inference (``_selective/_inference.py``): the fast MSP path."""

import numpy as np
import pytest

from sklearn_selective._selective._inference import msp_decision


@pytest.mark.parametrize("n_classes", [1, 2, 5, 17])
def test_msp_decision_is_argmax_and_max_with_ties(n_classes):
    rng = np.random.default_rng(n_classes)
    # Quarters: many exact ties between classes; 20,000 rows span several blocks.
    proba = rng.integers(0, 4, (20_000, n_classes)).astype(float) + 0.25
    proba /= proba.sum(axis=1, keepdims=True)
    index, maximum = msp_decision(proba)
    np.testing.assert_array_equal(index, proba.argmax(axis=1))
    np.testing.assert_array_equal(maximum, proba.max(axis=1))
    index32, _ = msp_decision(proba.astype(np.float32))
    np.testing.assert_array_equal(index32, proba.astype(np.float32).argmax(axis=1))


@pytest.mark.parametrize(
    "row", [[np.nan, 0.5, 0.5], [0.2, 0.2, 0.2], [1.5, 0.0, 0.0], [np.inf, 0, 0]]
)
def test_msp_decision_refuses_rows_that_are_not_probabilities(row):
    proba = np.array([[0.2, 0.3, 0.5], row])
    with pytest.raises(ValueError, match="predict_proba returned rows"):
        msp_decision(proba)
