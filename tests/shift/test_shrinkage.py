"""The shrinkage of the re-weighted correction (``_shift/_shrinkage.py``)."""

import numpy as np
import pytest

from sklearn_selective._shift._shrinkage import (
    dropped_correction,
    reach_over,
    shrunk_correction,
)


def test_dropped_correction_is_what_the_shrinkage_leaves_out():
    # Transcribed: D the weighted mean residual, k = max(0, 1 - 2 s^2 / D^2);
    # the shrunk correction k D and the dropped (1 - k) D add up to D.
    rng = np.random.default_rng(4)
    residual = rng.normal(0.05, 0.4, 300)
    weights = rng.exponential(size=(6, 300))
    weights[1] = 0.0  # no weight: nothing defined, nothing dropped
    for row, weight in enumerate(weights):
        got = dropped_correction(residual, weight[None, :])[0]
        if row == 1:
            assert got == 0.0
            continue
        shift = np.sum(weight * residual) / weight.sum()
        noise = np.sum(weight**2 * (residual - shift) ** 2) / weight.sum() ** 2
        keep = max(0.0, 1 - 2 * noise / shift**2)
        assert got == pytest.approx((1 - keep) * shift, abs=1e-15)
        shrunk = shrunk_correction(residual, weight[None, :])[0]
        assert shrunk + got == pytest.approx(shift, abs=1e-15)


def test_reach_over_stretches_the_side_of_the_unshrunk_estimate():
    assert reach_over((0.80, 0.90), 0.01) == (0.80, pytest.approx(0.91))
    assert reach_over((0.80, 0.90), -0.02) == (pytest.approx(0.78), 0.90)
    assert reach_over((0.80, 0.90), 0.0) == (0.80, 0.90)
    assert reach_over((0.01, 0.995), -0.05) == (0.0, 0.995)  # within [0, 1]
    assert reach_over((0.5, 0.995), 0.05) == (0.5, 1.0)
    low, high = reach_over((np.nan, np.nan), 0.1)  # undefined stays undefined
    assert np.isnan(low) and np.isnan(high)
