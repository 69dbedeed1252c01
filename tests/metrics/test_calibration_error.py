"""expected_calibration_error (SPEC section 10)."""

import numpy as np
import pytest
from _reference import ece_loops
from hypothesis import given
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve

from sklearn_selective.metrics import (
    expected_calibration_error,
)

TOL = {"rel": 1e-12, "abs": 1e-12}


# --------------------------------------------------------------------------------------
# expected_calibration_error
# --------------------------------------------------------------------------------------
@st.composite
def calibration_problems(draw, max_n=12):
    n = draw(st.integers(1, max_n))
    k = draw(st.integers(2, 4))
    # Probabilities on a coarse grid (ties, values on bin edges) or continuous.
    grid = draw(st.booleans())
    values = (
        st.sampled_from([0.0, 0.1, 0.2, 0.25, 0.5, 1.0]) if grid else st.floats(0, 1)
    )
    raw = np.array(draw(st.lists(values, min_size=n * k, max_size=n * k))).reshape(n, k)
    raw[:, 0] += 1e-3  # no all-zero row
    y_proba = raw / raw.sum(axis=1, keepdims=True)
    y_true = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    weights = draw(
        st.one_of(
            st.none(), st.lists(st.integers(0, 3), min_size=n, max_size=n).map(np.array)
        )
    )
    if weights is not None and weights.sum() == 0:
        weights = None
    return y_true, y_proba, weights


@given(
    calibration_problems(),
    st.integers(1, 7),
    st.sampled_from(["uniform", "quantile"]),
    st.sampled_from(["top_label", "classwise"]),
)
def test_ece_equals_slow_transcription(problem, n_bins, strategy, multiclass):
    y_true, y_proba, w = problem
    if strategy == "quantile":
        w = None  # the transcription's quantiles are unweighted
    k = y_proba.shape[1]
    expected = ece_loops(y_true, y_proba, n_bins, strategy, multiclass, w)
    got = expected_calibration_error(
        y_true,
        y_proba,
        n_bins=n_bins,
        strategy=strategy,
        multiclass=multiclass,
        labels=np.arange(k),
        sample_weight=w,
    )
    assert got == pytest.approx(expected, rel=1e-10, abs=1e-12)


@given(
    calibration_problems(),
    st.sampled_from(["top_label", "classwise"]),
    st.sampled_from(["uniform", "quantile"]),
)
def test_ece_integer_weights_equal_repetition(problem, multiclass, strategy):
    y_true, y_proba, w = problem
    k = y_proba.shape[1]
    kwargs = {"multiclass": multiclass, "labels": np.arange(k), "n_bins": 5}
    kwargs["strategy"] = strategy
    ones = expected_calibration_error(
        y_true, y_proba, sample_weight=np.ones(len(y_true)), **kwargs
    )
    assert ones == pytest.approx(
        expected_calibration_error(y_true, y_proba, **kwargs), **TOL
    )
    if w is None:
        return
    weighted = expected_calibration_error(y_true, y_proba, sample_weight=w, **kwargs)
    repeated = expected_calibration_error(
        np.repeat(y_true, w), np.repeat(y_proba, w, axis=0), **kwargs
    )
    assert weighted == pytest.approx(repeated, **TOL)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_ece_bins_are_those_of_calibration_curve(strategy):
    rng = np.random.default_rng(0)
    p = rng.random(300).round(2)  # values on bin edges too
    y = (rng.random(300) < p).astype(int)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=10, strategy=strategy)
    edges = (
        np.linspace(0, 1, 11)
        if strategy == "uniform"
        else np.percentile(p, np.linspace(0, 100, 11))
    )
    counts = np.bincount(np.searchsorted(edges[1:-1], p), minlength=10)
    expected = np.sum(counts[counts > 0] / 300 * np.abs(prob_true - prob_pred))
    # Class-wise ECE of a binary problem, positive class only: the ECE of p.
    from sklearn_selective.metrics._calibration_error import _ece_columns

    got = _ece_columns(p[:, None], y[:, None].astype(float), None, 10, strategy)[0]
    assert got == pytest.approx(expected, rel=1e-12)


def test_ece_reference_values():
    # Perfectly calibrated bins give 0; a constant over-confident model its gap.
    y_true = np.array([0, 0, 0, 1])
    y_proba = np.tile([0.75, 0.25], (4, 1))
    assert expected_calibration_error(y_true, y_proba) == pytest.approx(0.0, abs=1e-15)
    assert expected_calibration_error(
        y_true, y_proba, multiclass="classwise"
    ) == pytest.approx(0.0, abs=1e-15)
    wrong = np.array([1, 1, 1, 0])
    assert expected_calibration_error(wrong, y_proba) == pytest.approx(0.5)
    # 1-D positive-class probabilities of a binary problem.
    assert expected_calibration_error(
        y_true, y_proba[:, 1], multiclass="classwise"
    ) == pytest.approx(0.0, abs=1e-15)


def test_ece_of_calibrated_samples_is_small_and_miscalibration_is_seen():
    rng = np.random.default_rng(1)
    p = rng.random(200_000)
    y = (rng.random(p.shape[0]) < p).astype(int)
    y_proba = np.column_stack([1 - p, p])
    assert expected_calibration_error(y, y_proba) < 0.01
    sharpened = np.column_stack([1 - p**2, p**2])
    assert expected_calibration_error(y, sharpened, multiclass="classwise") > 0.1


def test_ece_input_errors_name_the_argument():
    with pytest.raises(ValueError, match="y_proba"):
        expected_calibration_error([0, 1, 1], [[0.5, 0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="labels"):
        expected_calibration_error([0, 1, 2], [[0.5, 0.5]] * 3)
    with pytest.raises(ValueError, match=r"y_proba .*\[0, 1\]"):
        expected_calibration_error([0, 1], [[1.5, -0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="y_proba"):
        expected_calibration_error([0, 1], [[np.nan, 1.0], [0.5, 0.5]])


def test_ece_messages_name_its_own_arguments():
    # issue 28: ECE's message named a ``confidence`` argument it does not have.
    message = "sample_weight has 2 entries but y_true has 3"
    with pytest.raises(ValueError, match=message):
        expected_calibration_error(
            [0, 1, 1], [[0.2, 0.8], [0.1, 0.9], [0.5, 0.5]], sample_weight=[1, 2]
        )


def test_ece_quantile_unit_weights_equal_no_weights_with_tied_scores():
    # Probabilities rounded to one decimal, as exported by many tools: scores
    # fall exactly on interpolated edges, where a last-bit difference between
    # the weighted and unweighted edges moved a sample to another bin
    # (0.25 against 0.23 before the fix).
    rng = np.random.default_rng(0)
    for _ in range(300):
        n, k, n_bins = rng.integers(2, 60), rng.integers(2, 4), rng.integers(2, 12)
        y_proba = np.round(rng.dirichlet(np.ones(k), size=n), 1) + 1e-3
        y_proba /= y_proba.sum(axis=1, keepdims=True)
        y_true = rng.integers(0, k, n)
        for multiclass in ("top_label", "classwise"):
            kwargs = {"strategy": "quantile", "n_bins": int(n_bins)}
            kwargs.update(multiclass=multiclass, labels=np.arange(k))
            plain = expected_calibration_error(y_true, y_proba, **kwargs)
            unit = expected_calibration_error(
                y_true, y_proba, sample_weight=np.ones(n), **kwargs
            )
            assert unit == plain
            w = rng.integers(1, 4, n)
            weighted = expected_calibration_error(
                y_true, y_proba, sample_weight=w, **kwargs
            )
            repeated = expected_calibration_error(
                np.repeat(y_true, w), np.repeat(y_proba, w, axis=0), **kwargs
            )
            assert weighted == pytest.approx(repeated, rel=1e-12)


def test_n_bins_true_is_refused_with_the_argument_named():
    """Issue 35: n_bins=True gave 'an integer is required'."""
    with pytest.raises(ValueError, match="n_bins must be an int >= 1, not a bool"):
        expected_calibration_error([0, 1], [[0.2, 0.8], [0.3, 0.7]], n_bins=True)
