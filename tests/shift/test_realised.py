"""The realised-value room: P(correct | score) on the reference, the label
noise of a chunk, and the normal prediction interval."""

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.isotonic import IsotonicRegression

from sklearn_selective._shift._realised import (
    fit_correctness,
    noise_variance,
    realised_interval,
)


@pytest.mark.parametrize("seed", range(5))
def test_correctness_is_scikit_learn_s_clipped_isotonic_regression(seed):
    rng = np.random.default_rng(seed)
    n = [1, 2, 40, 300, 300][seed]
    score = np.round(rng.random(n), 1 + seed % 3)  # ties
    correct = rng.random(n) < score
    chunk = np.r_[rng.random(200), score, -1.0, 2.0]
    expected = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip")
    expected = expected.fit(score, correct).predict(chunk)
    got = fit_correctness(score, correct).predict(chunk, slice(0, 1))[0]
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_noise_variance_is_its_definition():
    rng = np.random.default_rng(0)
    score, correct = rng.random(500), rng.random(500) < 0.8
    model = fit_correctness(score, correct)
    chunk, proxies = rng.random(50), rng.random(50)
    q = [
        float(np.interp(s, model.grid, model.on_grid[0]))  # q(score), one by one
        for s in chunk
    ]
    gaps = [a - p for a, p in zip(q, proxies, strict=True)]
    mean_gap = sum(gaps) / len(gaps)
    expected = sum(
        a * (1 - a) + (g - mean_gap) ** 2 for a, g in zip(q, gaps, strict=True)
    ) / len(q)
    assert noise_variance(model, chunk, proxies) == pytest.approx(expected, 1e-12)
    assert np.isnan(noise_variance(model, chunk[:0], proxies[:0]))


def test_realised_interval_is_the_normal_prediction_interval():
    # E +- z sqrt(Var(refit values, the finite ones) + v / n), clipped to
    # [0, 1]; undefined with fewer than two finite refit values.
    refit = np.array([0.80, 0.82, 0.81, np.nan, 0.79])
    low, high = realised_interval(0.81, refit, 0.16, 100, 0.95)
    spread = np.var([0.80, 0.82, 0.81, 0.79], ddof=1)
    half = norm.ppf(0.975) * np.sqrt(spread + 0.16 / 100)
    assert (low, high) == pytest.approx((0.81 - half, 0.81 + half), abs=1e-15)
    assert realised_interval(0.99, refit, 0.16, 100, 0.95)[1] == 1.0
    assert np.isnan(realised_interval(0.81, refit[[0, 3]], 0.16, 100, 0.95)).all()
