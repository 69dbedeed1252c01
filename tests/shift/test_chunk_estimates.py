"""What the monitor records per chunk: the table of chunks and its alerts."""

import numpy as np

from sklearn_selective._shift._chunk_estimates import ChunkTable


def test_alerted_by_names_the_estimates_outside_their_bands_then_the_inputs():
    table = ChunkTable(4, 2)
    table.values["accuracy"][:] = [0.8, 0.5, 0.8, np.nan]
    table.values["selective_accuracy"][:] = [0.9, 0.9, 0.99, np.nan]
    table.bands[:, 0] = [0.7, 0.9]
    table.bands[:, 1] = [0.85, 0.95]
    table.fired[2] = ["novel_share", "drift_score"]
    alerted_by = table.alerted_by()
    assert alerted_by.dtype == object
    assert list(alerted_by) == [
        (),
        ("accuracy",),
        ("selective_accuracy", "novel_share", "drift_score"),
        (),
    ]
