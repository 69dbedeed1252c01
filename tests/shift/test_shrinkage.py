"""The shrinkage of the re-weighted correction (``_shift/_shrinkage.py``)."""

import numpy as np
import pytest

from sklearn_selective._shift._shrinkage import (
    include,
    shrunk_correction,
    unshrunk_correction,
)


def test_corrections_transcribed():
    # Transcribed: D the weighted mean residual, k = max(0, 1 - 2 s^2 / D^2),
    # the shrunk correction k D; the unshrunk one D (0 without weight).
    rng = np.random.default_rng(4)
    residual = rng.normal(0.05, 0.4, 300)
    weights = rng.exponential(size=(6, 300))
    weights[1] = 0.0  # no weight: the unshrunk correction is 0
    unshrunk = unshrunk_correction(residual, weights)
    shrunk = shrunk_correction(residual, weights)
    assert unshrunk[1] == 0.0
    for row, weight in enumerate(weights):
        if row == 1:
            continue
        shift = np.sum(weight * residual) / weight.sum()
        noise = np.sum(weight**2 * (residual - shift) ** 2) / weight.sum() ** 2
        keep = max(0.0, 1 - 2 * noise / shift**2)
        assert unshrunk[row] == pytest.approx(shift, abs=1e-15)
        assert shrunk[row] == pytest.approx(keep * shift, abs=1e-15)
    # one residual per row of weights
    per_row = rng.normal(0.05, 0.4, (6, 300))
    got = unshrunk_correction(per_row, weights[[0, 2, 3, 4, 5, 0]])
    assert got[1] == pytest.approx(np.average(per_row[1], weights=weights[2]))


def test_include_widens_to_the_point():
    assert include((0.80, 0.90), 0.85) == (0.80, 0.90)
    assert include((0.80, 0.90), 0.95) == (0.80, 0.95)
    assert include((0.80, 0.90), 0.70) == (0.70, 0.90)
    low, high = include((np.nan, np.nan), 0.5)  # undefined stays undefined
    assert np.isnan(low) and np.isnan(high)
    assert include((0.8, 0.9), np.nan) == (0.8, 0.9)
