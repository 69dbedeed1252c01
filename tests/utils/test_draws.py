"""The draws of the package: count vectors, index resamples, named streams."""

import numpy as np
import pytest

from sklearn_selective._utils import _draws


@pytest.mark.parametrize("n_samples", [1, 7, 300])
@pytest.mark.parametrize("block_elements", [1, 50, 2**19])
def test_index_resamples_do_not_depend_on_their_blocks(n_samples, block_elements):
    # The monitor's, ATC's and the per-class estimates' resamples: the indices
    # of scipy.stats.bootstrap, the same whatever the block size.
    expected = np.random.default_rng(3).integers(0, n_samples, (11, n_samples))
    rng = np.random.default_rng(3)
    blocks = list(_draws._bootstrap_indices(rng, n_samples, 11, block_elements))
    assert all(b.shape[0] <= max(1, block_elements // n_samples) for b in blocks)
    np.testing.assert_array_equal(np.concatenate(blocks), expected)
    rng = np.random.default_rng(3)
    counts = np.concatenate(
        list(_draws._bootstrap_index_counts(rng, n_samples, 11, block_elements))
    )
    for row, indices in zip(counts, expected, strict=True):
        np.testing.assert_array_equal(row, np.bincount(indices, minlength=n_samples))
    one_block = _draws._index_counts(np.random.default_rng(3), n_samples, 11)
    np.testing.assert_array_equal(one_block, counts)


def test_one_block_size_per_purpose():
    assert _draws._ATC_BLOCK_ELEMENTS == 2**14
    assert _draws._MONITOR_BLOCK_ELEMENTS == 2**19
    assert _draws._LABEL_DRAW_BLOCK_ELEMENTS == 2**21
    assert _draws._rows_per_block(10**6, 2**14) == 1
    assert _draws._rows_per_block(100, 2**14) == 163


def test_the_draws_leave_the_allocator_alone():
    # issue 34, item 6: no glibc malloc tuning (a library leaves the process
    # as it found it).
    assert not hasattr(_draws, "_warm_allocator")
    assert not hasattr(_draws, "_ALLOCATOR_WARMING_BYTES")


def test_named_streams_are_independent_and_reproducible():
    first = _draws.stream_rng(5, "chunk_resamples", 2).random(4)
    np.testing.assert_array_equal(
        first, _draws.stream_rng(5, "chunk_resamples", 2).random(4)
    )
    assert not np.array_equal(
        first, _draws.stream_rng(5, "chunk_resamples", 3).random(4)
    )
    assert not np.array_equal(first, _draws.stream_rng(5, "signals", 2).random(4))
    assert len(set(_draws.STREAMS.values())) == len(_draws.STREAMS)
