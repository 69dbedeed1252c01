"""Bootstrap resamples drawn as vectors of counts.

A bootstrap resample of ``n`` samples is a vector of counts ``c`` (how often each
sample is drawn) with the multinomial distribution ``Multinomial(n; 1/n, ..., 1/n)``.
Up to ``2**16`` samples it is the count vector of ``n`` uniform indices, the draw of
:func:`scipy.stats.bootstrap`. Above, it is drawn in two exact stages so that the work
stays in cache: the samples are cut into consecutive chunks of ``2**16``; the chunk
totals are one multinomial draw (with probabilities proportional to the chunk
sizes), and within a chunk the total is spread by uniform positions counted with
:func:`numpy.bincount`. Counts are
stored as uint8 (a wider type in the rare block where a count exceeds 255), so a
block of resamples is small and gathering it into another order is cheap.

Each resample consumes the generator's stream in the same way whatever the block
size, so the resamples do not depend on how they are grouped into blocks.

The label-free estimates (ATC, the performance monitor, its per-class values)
draw index resamples instead, the draw of :func:`scipy.stats.bootstrap`, in
blocks of one named size per purpose; and every consumer of a seed draws from
its own named stream (:data:`STREAMS`, :func:`stream_rng`).
"""

import numpy as np

# Samples per chunk of the two-stage draw.
_DRAW_CHUNK = 2**16  # the uint16 range
# Counts per block of resamples (at least one resample): bounds the memory.
_BLOCK_COUNTS = 2**20


def _check_generator(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(
            random_state.randint(2**32, size=4, dtype=np.uint64)
        )
    return np.random.default_rng(random_state)


def _narrow(counts, n_samples):
    """``counts`` as uint8 when they fit (almost always), else wide enough for n."""
    fits = counts.max(initial=0) <= np.iinfo(np.uint8).max
    return counts.astype(np.uint8 if fits else np.min_scalar_type(n_samples))


def _draw_counts(rng, n_samples, rows):
    """``rows`` bootstrap count vectors of ``n_samples``, shape ``(rows, n)``.

    One chunk: the positions of all rows in one call (the index draw of
    :func:`scipy.stats.bootstrap`). Several chunks: uint16 positions, one call
    per row and chunk. Either way the stream does not depend on ``rows``.
    """
    if n_samples <= _DRAW_CHUNK:
        positions = rng.integers(0, n_samples, (rows, n_samples))
        positions += (np.arange(rows) * n_samples)[:, None]
        counts = np.bincount(positions.ravel(), minlength=rows * n_samples)
        return _narrow(counts, n_samples).reshape(rows, n_samples)
    starts = np.arange(0, n_samples, _DRAW_CHUNK)
    sizes = np.diff(starts, append=n_samples)
    counts = np.empty((rows, n_samples), dtype=np.uint8)
    for row in range(rows):
        totals = rng.multinomial(n_samples, sizes / n_samples)
        for start, size, total in zip(starts, sizes, totals, strict=True):
            positions = rng.integers(0, size, total, dtype=np.uint16)
            chunk = np.bincount(positions, minlength=size)
            if chunk.max() > np.iinfo(counts.dtype).max:
                counts = counts.astype(np.min_scalar_type(n_samples))
            counts[row, start : start + size] = chunk
    return counts


# Counts per block at most when more rows are asked for (parallel workers).
_WIDE_BLOCK_COUNTS = 2**26


def _block_rows(n_samples, min_rows):
    """Resamples per block: ``_BLOCK_COUNTS`` counts, and at least ``min_rows``
    (one per parallel worker) as long as the block holds ``_WIDE_BLOCK_COUNTS``."""
    wide = min(min_rows, max(1, _WIDE_BLOCK_COUNTS // n_samples))
    return max(1, _BLOCK_COUNTS // n_samples, wide)


def _bootstrap_counts(rng, n_samples, n_resamples, min_rows=1):
    """Blocks of bootstrap count vectors, shape ``(block, n_samples)``, in order."""
    step = _block_rows(n_samples, min_rows)
    for start in range(0, n_resamples, step):
        yield _draw_counts(rng, n_samples, min(step, n_resamples - start))


def _jackknife_counts(n_samples, min_rows=1):
    """Blocks of leave-one-out count vectors (ones, and a zero at the left-out)."""
    step = _block_rows(n_samples, min_rows)
    for start in range(0, n_samples, step):
        rows = min(step, n_samples - start)
        counts = np.ones((rows, n_samples), dtype=np.uint8)
        counts[np.arange(rows), np.arange(start, start + rows)] = 0
        yield counts


def _indices(counts):
    """The sample indices of one count vector (each repeated by its count)."""
    return np.repeat(np.arange(counts.shape[0]), counts)


# --------------------------------------------------------------------------------------
# Index resamples, the draw of scipy.stats.bootstrap: ``rng.integers(0, n, (rows,
# n))`` per block of resamples. The indices drawn do not depend on how the
# resamples are grouped into blocks; the block size bounds the memory of one
# block. One size per purpose:
# --------------------------------------------------------------------------------------
# ATC's bootstrap of the source scores and of the target (indices per block).
_ATC_BLOCK_ELEMENTS = 2**14
# The monitor's resamples of the reference and of each chunk (counts per block).
_MONITOR_BLOCK_ELEMENTS = 2**19
# The per-class estimates' label draws (draws x samples x classes per block). Each
# block draws its chunk resamples, then its labels, from one stream: this size
# is part of the numbers drawn for a seed.
_LABEL_DRAW_BLOCK_ELEMENTS = 2**21


def _rows_per_block(row_elements, block_elements):
    """Rows of ``row_elements`` elements in a block of ``block_elements`` (at
    least one)."""
    return max(1, block_elements // row_elements)


def _bootstrap_indices(rng, n_samples, n_resamples, block_elements=_ATC_BLOCK_ELEMENTS):
    """Blocks of resampled indices, shape ``(block, n_samples)``, drawn in order."""
    step = _rows_per_block(n_samples, block_elements)
    for start in range(0, n_resamples, step):
        rows = min(step, n_resamples - start)
        yield rng.integers(0, n_samples, (rows, n_samples))


def _index_counts(rng, n_samples, rows):
    """One block: the count vectors of ``rows`` index resamples, shape ``(rows,
    n_samples)``."""
    return _counts(rng.integers(0, n_samples, (rows, n_samples)), n_samples)


def _bootstrap_index_counts(rng, n_samples, n_resamples, block_elements):
    """Blocks of count vectors of index resamples, shape ``(block, n_samples)``:
    the resamples of :func:`_bootstrap_indices`, counted."""
    for indices in _bootstrap_indices(rng, n_samples, n_resamples, block_elements):
        yield _counts(indices, n_samples)


def _counts(indices, n_samples):
    """How often each sample occurs in each row of ``indices`` (overwritten)."""
    rows = indices.shape[0]
    if rows == 1:
        return np.bincount(indices[0], minlength=n_samples)[None]
    indices += (np.arange(rows) * n_samples)[:, None]
    counts = np.bincount(indices.ravel(), minlength=rows * n_samples)
    return counts.reshape(rows, n_samples)


# --------------------------------------------------------------------------------------
# Named random streams: every consumer of a seed draws from its own stream.
# --------------------------------------------------------------------------------------
# The numbers are part of the results' reproducibility (a seed gives the same
# monitoring result across versions): never renumber, only add.
STREAMS = {
    "reference_resamples": 0,  # the monitor's bootstrap of the reference
    "chunk_resamples": 1,  # the monitor's resamples of one chunk (key: chunk)
    "drift_split": 2,  # the drift signal's split of the reference inputs
    "signals": 3,  # the input signals' draws on one chunk (key: chunk)
    "class_estimates": 4,  # the per-class estimates' label draws (key: chunk)
    "importance_weights": 5,  # the folds of the importance-weighted bases
    "density_ratio": 6,  # the density ratio's folds on one chunk (key: chunk)
    "cascade_report": 7,  # the bootstrap of SelectiveCascade.report
    "repeats": 8,  # the samples of a chunk's repeated_share (key: chunk)
    "outputs_moved": 9,  # the permutations of a chunk's outputs test (key: chunk)
}


def stream_rng(seed, stream, *keys):
    """The generator of the named ``stream`` of ``seed`` (an int), with optional
    integer ``keys`` (e.g. a chunk's index): distinct streams and keys give
    independent generators (:class:`numpy.random.SeedSequence` entropy)."""
    return np.random.default_rng([seed, STREAMS[stream], *keys])


def evenly_spaced_rows(n_rows, cap):
    """The indices of at most ``cap`` evenly spaced rows of ``n_rows`` (all
    of them when there are no more): the rows a test reads of a large sample,
    chosen without looking at the data (rounded to the nearest row, so the
    first and the last are read)."""
    if n_rows <= cap:
        return np.arange(n_rows)
    return np.round(np.linspace(0, n_rows - 1, cap)).astype(np.intp)
