"""The support rule: estimate_reliable and its reasons."""

import numpy as np
import pytest
import scipy.sparse as sp

from sklearn_selective._shift._reliability import (
    MAX_CLIPPED_SHARE,
    MAX_NOVEL_SHARE,
    MAX_REPEATED_SHARE,
    estimate_reliable,
    excess_repeated_share,
    unreliable_reasons,
)


def test_rule_at_the_stated_levels():
    novel = np.array([0.0, MAX_NOVEL_SHARE, MAX_NOVEL_SHARE + 0.01, 0.0])
    clipped = np.array([0.0, MAX_CLIPPED_SHARE, 0.0, MAX_CLIPPED_SHARE + 0.01])
    assert estimate_reliable(novel, clipped).tolist() == [True, True, False, False]


def test_repeated_share_at_its_stated_level():
    repeated = np.array([0.0, MAX_REPEATED_SHARE, MAX_REPEATED_SHARE + 0.01])
    assert estimate_reliable(0.0, 0.0, repeated).tolist() == [True, True, False]
    assert unreliable_reasons(0.0, 0.0, 0.8).tolist() == "repeated_share 0.80 > 0.50"
    assert estimate_reliable(0.0, 0.0, 0.8, max_repeated_share=0.9)


def _slow_repeated_share(rows):
    """The share of rows equal to an earlier row, one row at a time (NaN
    equal to NaN: the same bytes)."""
    seen, repeats = set(), 0
    for row in rows:
        key = row.tobytes()
        repeats += key in seen
        seen.add(key)
    return repeats / len(rows)


@pytest.mark.parametrize("seed", range(20))
def test_excess_repeated_share_equals_its_definition(seed):
    # Small integers repeat; sizes from 2 on both sides; the larger side read
    # through a uniform sample of the smaller one's size, drawn by the rng.
    rng = np.random.default_rng(seed)
    n_chunk, n_reference = rng.integers(2, 40, size=2)
    levels = int(rng.integers(1, 4))
    chunk = rng.integers(0, levels, size=(n_chunk, 2)).astype(np.float64)
    reference = rng.integers(0, levels + 2, size=(n_reference, 2)).astype(float)
    if seed % 3 == 0:
        chunk[: n_chunk // 2] = np.nan  # NaN rows equal one another
    draws = np.random.default_rng(seed)
    got = excess_repeated_share(chunk, reference, draws)
    size = min(n_chunk, n_reference)
    sides = [chunk, reference]
    replay = np.random.default_rng(seed)
    for i, side in enumerate(sides):
        if side.shape[0] > size:
            sides[i] = side[np.sort(replay.choice(side.shape[0], size, replace=False))]
    expected = _slow_repeated_share(sides[0]) - _slow_repeated_share(sides[1])
    assert got == pytest.approx(max(0.0, expected), abs=1e-12)


def test_excess_repeated_share_is_zero_for_chunks_drawn_like_the_reference():
    # The monitoring guide's numbers: 200 digits chunks of 200 against the
    # 250-row half of a 500-sample reference, and three binary features
    # (which repeat by nature) at 200 and at 50 samples.
    from sklearn.datasets import load_digits

    X, _ = load_digits(return_X_y=True)
    rng = np.random.default_rng(0)
    shares = []
    for _ in range(200):
        order = rng.permutation(X.shape[0])
        shares.append(excess_repeated_share(X[order[500:700]], X[order[:250]], rng))
    assert max(shares) == 0.0
    binary = rng.integers(0, 2, size=(5000, 3)).astype(float)
    for size, largest in ((200, 0.0), (50, 0.02 + 1e-12)):
        shares = [
            excess_repeated_share(binary[rng.choice(5000, size)], binary[:250], rng)
            for _ in range(200)
        ]
        assert max(shares) <= largest


def test_excess_repeated_share_is_nan_where_it_cannot_be_read():
    rng = np.random.default_rng(0)
    rows = rng.normal(size=(20, 3))
    assert np.isnan(excess_repeated_share(rows[:1], rows, rng))  # one row
    assert np.isnan(excess_repeated_share(sp.csr_matrix(rows), rows, rng))
    assert np.isnan(excess_repeated_share(rows.astype(object), rows, rng))
    assert excess_repeated_share(rows, rows, rng) == 0.0


def test_nan_is_no_evidence():
    assert estimate_reliable(np.nan, np.nan).tolist() is True
    assert estimate_reliable([np.nan, 0.9], 0.0).tolist() == [True, False]


def test_levels_can_be_changed():
    assert not estimate_reliable(0.2, 0.0, max_novel_share=0.1)
    assert estimate_reliable(0.0, 0.5, max_clipped_share=0.6)


def test_reasons_name_the_signals():
    reasons = unreliable_reasons([0.1, 0.7, 0.7], [0.0, 0.0, 0.3])
    assert reasons.tolist() == [
        "",
        "novel_share 0.70 > 0.50",
        "novel_share 0.70 > 0.50, clipped_share 0.30 > 0.10",
    ]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"novel_share": 1.5}, "novel_share"),
        ({"clipped_share": -0.1}, "clipped_share"),
        ({"max_novel_share": 2.0}, "max_novel_share"),
        ({"max_clipped_share": "a"}, "max_clipped_share"),
    ],
)
def test_errors_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        estimate_reliable(**kwargs)


def test_flags_noisy_digits_but_not_clean_ones():
    """On digits, the default novelty detector of the monitor flags most of a
    chunk with Gaussian noise of sd 2, 4, 8, and the rule then says
    unreliable; a clean chunk passes."""
    from sklearn.datasets import load_digits
    from sklearn.ensemble import IsolationForest

    X, _ = load_digits(return_X_y=True)
    rng = np.random.default_rng(0)
    order = rng.permutation(X.shape[0])
    reference, pool = X[order[:600]], X[order[600:900]]
    fit_half, calibration = reference[:300], reference[300:]
    detector = IsolationForest(n_estimators=50, random_state=0).fit(fit_half)
    threshold = np.sort(detector.score_samples(calibration))[
        int(0.05 * (calibration.shape[0] + 1)) - 1
    ]

    def novel_share(chunk):
        return np.mean(detector.score_samples(chunk) < threshold)

    clean = novel_share(pool)
    noisy = [
        novel_share(pool + rng.normal(scale=sd, size=pool.shape)) for sd in (2, 4, 8)
    ]
    assert estimate_reliable(clean)
    assert not estimate_reliable(noisy).any()
