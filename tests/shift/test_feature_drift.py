"""Per-feature drift: the tests against scipy, the adjustments, pandas names."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import chi2_contingency, ks_2samp

from sklearn_selective._shift._feature_drift import (
    _adjust_bonferroni,
    _adjust_holm,
    _ks_asymptotic,
    drifted_features,
)


def _holm_by_hand(p_values):
    """Holm's adjusted p-values, the textbook loop (slow, obviously right)."""
    m = len(p_values)
    order = np.argsort(p_values)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p_values[i])
        adjusted[i] = min(running, 1.0)
    return adjusted


def _scipy_ks(reference, chunk, **options):
    """scipy's ks_2samp per column, NaN left out (scipy < 1.12 has no axis)."""
    results = [
        ks_2samp(r[~np.isnan(r)], c[~np.isnan(c)], **options)
        for r, c in zip(reference.T, chunk.T, strict=True)
    ]
    return (
        np.array([r.statistic for r in results]),
        np.array([r.pvalue for r in results]),
    )


def test_ks_matches_scipy_small_samples():
    rng = np.random.default_rng(0)
    reference = rng.normal(size=(120, 5))
    chunk = rng.normal(size=(80, 5)) + np.array([0, 0.5, 0, 0, 1.0])
    drift = drifted_features(reference, chunk, max_categories=0)
    expected_statistic, expected_p_value = _scipy_ks(reference, chunk)
    np.testing.assert_allclose(drift.statistic, expected_statistic)
    np.testing.assert_allclose(drift.p_value, expected_p_value)
    assert set(drift.test) == {"ks"}


def test_ks_asymptotic_matches_scipy_with_ties_and_nan():
    rng = np.random.default_rng(1)
    reference = rng.integers(0, 17, (3000, 4)).astype(float)
    chunk = rng.integers(0, 17, (2500, 4)).astype(float)
    chunk[:, 1] += rng.random(2500) < 0.2
    reference[3, 2] = np.nan
    chunk[5, 0] = np.nan
    statistic, p_value = _ks_asymptotic(list(reference.T), list(chunk.T))
    expected_statistic, expected_p_value = _scipy_ks(reference, chunk, method="asymp")
    np.testing.assert_allclose(statistic, expected_statistic, atol=1e-12)
    np.testing.assert_allclose(p_value, expected_p_value, atol=1e-12)


def test_large_chunk_uses_the_asymptotic_path():
    rng = np.random.default_rng(2)
    reference = rng.normal(size=(500, 2))
    chunk = rng.normal(size=(20_000, 2)) + np.array([0.0, 0.3])
    drift = drifted_features(reference, chunk)
    _, expected_p_value = _scipy_ks(reference, chunk, method="asymp")
    np.testing.assert_allclose(drift.p_value, expected_p_value, atol=1e-12)
    assert drift.drifted() == ["x1"]


def test_chi_square_for_categorical_and_low_cardinality():
    rng = np.random.default_rng(3)
    reference = np.column_stack([rng.integers(0, 3, 400), rng.normal(size=400)])
    chunk = np.column_stack(
        [rng.choice(3, 300, p=[0.6, 0.2, 0.2]), rng.normal(size=300)]
    )
    drift = drifted_features(reference, chunk)
    assert drift.test.tolist() == ["chi2", "ks"]
    table = np.stack(
        [np.bincount(reference[:, 0].astype(int)), np.bincount(chunk[:, 0].astype(int))]
    )
    statistic, p_value, _, _ = chi2_contingency(table, correction=False)
    assert drift.statistic[0] == pytest.approx(statistic)
    assert drift.p_value[0] == pytest.approx(p_value)


def test_new_category_in_chunk_is_a_category():
    reference = np.array([["a"], ["b"]] * 50, dtype=object)
    chunk = np.array([["a"], ["c"]] * 50, dtype=object)
    drift = drifted_features(reference, chunk)
    assert drift.test.tolist() == ["chi2"]
    assert drift.p_value[0] < 1e-10


@pytest.mark.parametrize("correction", ["holm", "bonferroni"])
def test_adjustments(correction):
    p_values = np.array([0.01, 0.04, 0.03, 0.005, 0.5, 0.2])
    if correction == "holm":
        np.testing.assert_allclose(_adjust_holm(p_values), _holm_by_hand(p_values))
    else:
        np.testing.assert_allclose(
            _adjust_bonferroni(p_values), np.minimum(6 * p_values, 1)
        )
    # Holm is never larger than Bonferroni
    assert np.all(_adjust_holm(p_values) <= _adjust_bonferroni(p_values) + 1e-15)


def test_family_wise_error_without_shift():
    """Without shift, some feature is called drifted in at most ~alpha of
    chunks (Holm controls the family-wise error rate)."""
    rng = np.random.default_rng(4)
    false_calls = 0
    for _ in range(200):
        reference = rng.normal(size=(200, 10))
        chunk = rng.normal(size=(100, 10))
        false_calls += bool(drifted_features(reference, chunk).drifted(0.05))
    assert false_calls / 200 <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 200)


def test_pandas_column_names_and_dtypes():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(5)
    reference = pd.DataFrame(
        {
            "age": rng.normal(40, 10, 300),
            "city": rng.choice(["x", "y", "z"], 300),
            "income": rng.normal(size=300),
        }
    )
    chunk = pd.DataFrame(
        {
            "age": rng.normal(50, 10, 200),
            "city": rng.choice(["x", "y", "z"], 200, p=[0.8, 0.1, 0.1]),
            "income": rng.normal(size=200),
        }
    )
    chunk["city"] = chunk["city"].astype("category")
    drift = drifted_features(reference, chunk)
    assert drift.feature_names.tolist() == ["age", "city", "income"]
    assert drift.test.tolist() == ["ks", "chi2", "ks"]
    assert set(drift.drifted()) == {"age", "city"}
    frame = drift.to_frame()
    assert frame["feature"].iloc[0] in {"age", "city"}
    assert list(frame.columns) == [
        "feature",
        "test",
        "statistic",
        "p_value",
        "adjusted_p_value",
    ]
    assert "age (ks" in drift.summary()
    assert "holm" in repr(drift)


def test_categorical_features_argument():
    rng = np.random.default_rng(6)
    reference = rng.normal(size=(100, 3)).round()
    chunk = rng.normal(size=(100, 3)).round()
    by_mask = drifted_features(
        reference, chunk, categorical_features=[True, False, False], max_categories=0
    )
    by_index = drifted_features(
        reference, chunk, categorical_features=[0], max_categories=0
    )
    assert by_mask.test.tolist() == by_index.test.tolist() == ["chi2", "ks", "ks"]


def test_errors_name_the_argument():
    X = np.zeros((10, 2))
    with pytest.raises(ValueError, match="correction"):
        drifted_features(X, X, correction="fdr")
    with pytest.raises(ValueError, match="same features"):
        drifted_features(X, np.zeros((10, 3)))
    with pytest.raises(TypeError, match="sparse"):
        drifted_features(sp.csr_matrix(X), X)
    with pytest.raises(ValueError, match="max_categories"):
        drifted_features(X, X, max_categories=-1)
    with pytest.raises(ValueError, match="unknown columns"):
        drifted_features(X, X, categorical_features=["nope"])
