"""Edges of the per-sample AURC weights (metrics/_weights.py); their values are
checked against the estimators in test_areas.py."""

import numpy as np
import pytest

from sklearn_selective.metrics import aurc_weights


def test_weights_summing_past_the_float_range_are_refused():
    """Issue 35: weights of 1e308 gave all NaN with numpy's overflow warnings."""
    with pytest.raises(ValueError, match="sums to more than the largest float64"):
        aurc_weights([0.9, 0.8, 0.7, 0.6], sample_weight=[1e308, 1e308, 1, 1])


def test_large_weights_within_range_stay_finite():
    alpha = aurc_weights([0.9, 0.8, 0.7, 0.6], sample_weight=[1e300, 1e300, 1, 1])
    assert np.isfinite(alpha).all()
