"""The calibrator room: calibrators of a probability matrix and calibrators
batched over weightings (isotonic and Platt columns, one-vs-rest, top-label)."""

import itertools

import numpy as np
import pytest
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from sklearn_selective.confidence._calibrators import (
    IdentityColumn,
    IsotonicColumn,
    OneVsRest,
    PlattColumn,
    TopLabelPerClass,
    helped_columns,
    increasing_fit,
    isotonic_helps,
    logit,
    with_top_label,
)


@pytest.mark.parametrize("seed", range(5))
def test_platt_scaling_matches_scikit_learn_with_platt_targets(seed):
    # Platt's smoothed targets as soft labels: two weighted copies of each
    # sample, one per outcome; the same fit per row of bootstrap counts.
    rng = np.random.default_rng(seed)
    n = 200
    p = rng.uniform(0.34, 0.9999, n)
    y = rng.random(n) < 1 / (1 + np.exp(-(rng.normal() + 2 * logit(p))))
    counts = rng.multinomial(n, np.ones(n) / n, size=3)
    column = PlattColumn(p, y, np.r_[np.ones((1, n)), counts])
    for row, w in enumerate(np.r_[np.ones((1, n)), counts]):
        positives = (w * y).sum()
        negatives = w.sum() - positives
        t = np.where(y, (positives + 1) / (positives + 2), 1 / (negatives + 2))
        X = np.r_[logit(p), logit(p)][:, None]
        model = LogisticRegression(C=1e12, tol=1e-10, max_iter=10_000)
        model.fit(
            X, np.r_[np.ones(n), np.zeros(n)], sample_weight=np.r_[w * t, w * (1 - t)]
        )
        assert column.a[row] == pytest.approx(model.intercept_[0], abs=1e-4)
        assert column.b[row] == pytest.approx(model.coef_[0, 0], abs=1e-4)


def test_platt_scaling_stays_finite_and_refuses_empty_rows():
    column = PlattColumn(
        np.full(20, 0.9), np.ones(20, bool), np.r_[[np.ones(20)], [np.zeros(20)]]
    )
    assert column.predict(np.array([0.9]), slice(0, 1))[0, 0] == pytest.approx(21 / 22)
    assert np.isnan(column.predict(np.array([0.9]), slice(1, 2))).all()


def test_top_label_probabilities():
    proba = np.array([[[0.2, 0.5, 0.3], [0.0, 1.0, 0.0]]])
    got = with_top_label(proba, np.array([[0.6, 0.7]]), np.array([1, 1]))
    np.testing.assert_allclose(got, [[[0.16, 0.6, 0.24], [0.15, 0.7, 0.15]]])
    np.testing.assert_allclose(got.sum(axis=-1), 1.0)


@pytest.mark.parametrize("seed", range(10))
def testincreasing_fit_is_scikit_learn_s_isotonic_regression(seed):
    from sklearn.isotonic import isotonic_regression

    rng = np.random.default_rng(seed)
    n = [1, 2, 7, 300][seed % 4]
    values = rng.random(n) if seed % 2 else rng.integers(0, 2, n).astype(float)
    weights = rng.integers(1, 5, n).astype(float)
    expected = isotonic_regression(values, sample_weight=weights, y_min=0, y_max=1)
    np.testing.assert_allclose(increasing_fit(values, weights), expected, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_isotonic_column_is_isotonic_regression_per_row(seed):
    # Each row of counts is one weighted IsotonicRegression (clipped outside
    # the fitted range), ties included.
    rng = np.random.default_rng(seed)
    n = 120
    values = np.round(rng.random(n), 1 + seed % 2)
    outcome = rng.random(n) < values
    counts = np.r_[np.ones((1, n)), rng.multinomial(n, np.ones(n) / n, size=3)]
    column = IsotonicColumn(values, outcome, counts)
    new = np.r_[rng.random(30), -1.0, 2.0]
    for row, weights in enumerate(counts):
        keep = weights > 0
        expected = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip").fit(
            values[keep], outcome[keep], sample_weight=weights[keep]
        )
        np.testing.assert_allclose(
            column.predict(new, slice(row, row + 1))[0],
            expected.predict(new),
            atol=1e-12,
        )


def test_one_vs_rest_renormalises_and_keeps_rows_calibrated_to_zero():
    proba = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]] * 10)
    y_index = np.array([0, 1, 2] * 10)
    calibrators = OneVsRest(IsotonicColumn, proba, y_index, np.ones((1, 30)))
    got = calibrators.predict_proba(proba, slice(0, 1))
    assert got.shape == (1, 30, 3)
    np.testing.assert_allclose(got.sum(axis=-1), 1.0)
    np.testing.assert_allclose(got[0, :3], np.eye(3))
    # A class never seen in the labels: the column calibrates to zero.
    zero = OneVsRest(IsotonicColumn, proba, np.zeros(30, int), np.ones((1, 30)))
    np.testing.assert_allclose(zero.predict_proba(proba, slice(0, 1))[0, :, 0], 1.0)


def test_top_label_per_class_falls_back_to_the_pooled_fit():
    rng = np.random.default_rng(0)
    proba_pred = rng.uniform(0.5, 1.0, 200)
    pred_index = np.r_[np.zeros(199, int), 1]  # one sample predicted as class 1
    correct = rng.random(200) < proba_pred
    top = TopLabelPerClass(proba_pred, pred_index, correct, np.ones((1, 200)))
    pooled = PlattColumn(proba_pred, correct, np.ones((1, 200)))
    own = PlattColumn(proba_pred[:199], correct[:199], np.ones((1, 199)))
    got = top.predict(np.array([0.7, 0.7]), np.array([0, 1]), slice(0, 1))
    assert got[0, 0] == own.predict(np.array([0.7]), slice(0, 1))[0, 0]
    assert got[0, 1] == pooled.predict(np.array([0.7]), slice(0, 1))[0, 0]


def test_top_label_residuals_average_zero_under_each_row_of_their_fit():
    # The residual is to Platt's smoothed targets, (n+ + 1) / (n+ + 2) and
    # 1 / (n- + 2) of each row's counts: its weighted mean over a class's
    # samples is 0 (the intercept's score equation), also for a class all
    # right (13 samples: against the correctness itself it would be 1 / 15),
    # and NaN where a row has less than two samples' weight of the class.
    rng = np.random.default_rng(0)
    proba_pred = rng.uniform(0.4, 1.0, 60)
    pred_index = np.r_[np.zeros(45, int), np.ones(13, int), 2, 2]
    correct = (rng.random(60) < proba_pred) | (pred_index == 1)
    counts = np.r_[np.ones((1, 60)), rng.multinomial(60, np.full(60, 1 / 60), 30)]
    counts[-1, 45:] = 0  # the last row has no sample of classes 1 and 2
    counts[-1, 58] = 1
    top = TopLabelPerClass(proba_pred, pred_index, correct, counts)
    residual = top.residual(proba_pred, pred_index, correct, slice(None))
    for k in range(3):
        members = pred_index == k
        weights = counts[:, members]
        scarce = weights.sum(axis=1) < 2
        assert np.isnan(residual[scarce][:, members]).all()
        mean = (weights * residual[:, members]).sum(axis=1)[~scarce]
        np.testing.assert_allclose(mean / weights.sum(axis=1)[~scarce], 0, atol=1e-7)
    # Row 0, class 1 (all 13 right): the target is 14 / 15.
    row0 = top.predict(proba_pred, pred_index, slice(0, 1))[0]
    np.testing.assert_allclose(row0[pred_index == 1], 14 / 15, atol=1e-7)
    got = residual[0, pred_index == 1]
    np.testing.assert_allclose(got, 0, atol=1e-7)
    assert np.all((correct - row0)[pred_index == 1] > 1 / 15 - 1e-6)


# ----------------------------------------------------------------------------------
# The test before calibrating a class (NannyML's): held-out calibration error
# ----------------------------------------------------------------------------------
def _slow_binned_error(values, outcome, n_bins=10):
    """Expected calibration error over bins of equal counts, sample by sample."""
    order = np.argsort(values, kind="stable")
    values, outcome = values[order], outcome[order]
    edges = [i * len(values) // n_bins for i in range(n_bins + 1)]
    total = 0.0
    for left, right in itertools.pairwise(edges):
        gap = sum(values[i] - outcome[i] for i in range(left, right))
        total += abs(gap)
    return total / len(values)


def _slow_isotonic_helps(values, outcome, seed):
    from sklearn.model_selection import StratifiedShuffleSplit

    raw, calibrated, held_out = [], [], []
    splits = StratifiedShuffleSplit(n_splits=10, test_size=0.1, random_state=seed)
    for train, test in splits.split(values, outcome):
        fit = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip")
        fit.fit(values[train], outcome[train])
        raw.extend(values[test])
        calibrated.extend(fit.predict(values[test]))
        held_out.extend(outcome[test].astype(float))
    held_out = np.array(held_out)
    before = _slow_binned_error(np.array(raw), held_out)
    return _slow_binned_error(np.array(calibrated), held_out) < before


@pytest.mark.parametrize("seed", range(12))
def test_isotonic_helps_is_the_held_out_calibration_error_test(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 400))
    values = rng.uniform(0, 1, n).round(int(rng.integers(1, 4)))  # ties
    slope = rng.choice([1.0, 0.5, 1.5])
    outcome = rng.random(n) < np.clip(0.5 + slope * (values - 0.5), 0, 1)
    assert isotonic_helps(values, outcome, seed) == _slow_isotonic_helps(
        values, outcome, seed
    )


def test_isotonic_helps_a_miscalibrated_score_and_leaves_edge_cases_alone():
    rng = np.random.default_rng(0)
    values = rng.uniform(0.5, 1.0, 2000)
    overconfident = rng.random(2000) < values - 0.3
    assert isotonic_helps(values, overconfident, 0)
    assert not isotonic_helps(values, np.ones(2000, dtype=bool), 0)  # one outcome
    assert not isotonic_helps(values, values > 0.7, 0)  # ranked perfectly
    assert not isotonic_helps(values[:15], overconfident[:15], 0)  # too few


def test_helped_columns_mix_kinds_and_one_vs_rest_keeps_the_others():
    rng = np.random.default_rng(1)
    n = 3000
    proba = rng.dirichlet(np.ones(3), n)
    y = np.array([rng.choice(3, p=p) for p in proba])  # calibrated...
    proba[:, 0] = proba[:, 0] ** 2  # ... but class 0 distorted
    kinds = helped_columns(proba, y)
    assert kinds[0] is IsotonicColumn
    columns = OneVsRest(kinds, proba, y, np.ones((2, n)))
    out = columns.predict(proba, slice(0, 2))
    assert out.shape == (2, n, 3)
    for j, kind in enumerate(kinds):
        if kind is IdentityColumn:
            np.testing.assert_array_equal(
                out[:, :, j], np.broadcast_to(proba[:, j], (2, n))
            )
    binary = helped_columns(np.column_stack([1 - proba[:, 0], proba[:, 0]]), y == 0)
    assert binary[0] is binary[1]


@pytest.mark.parametrize("n_classes", [1, 2, 3, 10])
def test_predict_picked_is_the_picked_column_of_predict_proba(n_classes):
    rng = np.random.default_rng(n_classes)
    proba = rng.dirichlet(np.ones(n_classes), 400)
    y = rng.integers(0, n_classes, 400)
    for kinds in (
        [IsotonicColumn] * n_classes,
        [IdentityColumn] + [IsotonicColumn] * (n_classes - 1),
    ):
        columns = OneVsRest(kinds, proba, y, rng.poisson(1.0, (9, 400)))
        chunk = np.r_[rng.dirichlet(np.ones(n_classes), 300), proba[:50], 0 * proba[:3]]
        index = rng.integers(0, n_classes, chunk.shape[0])
        # One row (numpy's interpolation), a few (gathers), many (sparse).
        for rows in (slice(0, 1), slice(4, 5), slice(1, 4), slice(None)):
            full = columns.predict_proba(chunk, rows)
            expected = np.take_along_axis(full, index[None, :, None], axis=-1)[..., 0]
            picked = columns.predict_picked(chunk, index, rows)
            assert picked.flags.c_contiguous
            np.testing.assert_allclose(picked, expected, atol=1e-15)


@pytest.mark.parametrize("seed", range(6))
def test_isotonic_column_interpolates_one_fit_on_its_knots_to_the_last_bit(seed):
    # One row's fit is read on the ends of its flat runs only: the same numbers
    # as numpy's interpolation on every distinct value, bit for bit, at the
    # grid's own points (those dropped included), between them, outside the
    # range, for a row without weight (NaN) and with ties.
    rng = np.random.default_rng(seed)
    n = 300
    values = np.round(rng.random(n), 2 + seed % 2)
    outcome = rng.random(n) < values**2
    counts = np.r_[np.ones((1, n)), rng.poisson(1.0, (2, n)), np.zeros((1, n))]
    column = IsotonicColumn(values, outcome, counts)
    new = np.r_[column.grid, rng.random(500), -0.5, 1.5, 0.0, 1.0, np.nan]
    for row in range(counts.shape[0]):
        knots = column.knots(row)[0]
        if row < 3:
            assert knots.shape[0] < column.grid.shape[0] / 2
        expected = np.interp(new, column.grid, column.on_grid[row])
        got = column.predict(new, slice(row, row + 1))[0]
        np.testing.assert_array_equal(got, expected)
