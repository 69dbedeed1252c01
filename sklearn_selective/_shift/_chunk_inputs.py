"""What a chunk's inputs say about its estimates: which features moved, and
whether the estimate is inside what the reference supports.

The per-feature tests are :func:`drifted_features` (:mod:`._feature_drift`,
Kolmogorov-Smirnov or chi-square per feature, Holm's adjustment), run on the
inputs as the user passed them (a pandas DataFrame's column names name the
features); the support rule is :func:`estimate_reliable`
(:mod:`._reliability`), on the chunk's ``novel_share``, ``clipped_share`` and
``repeated_share``.
This module only decides which inputs can be tested and how a result shows
the tests.
"""

import numpy as np
import scipy.sparse as sp

from .._utils._draws import evenly_spaced_rows
from ._feature_drift import drifted_features
from ._reliability import estimate_reliable

# Level of the adjusted p-values below which a feature is listed as drifted.
DRIFT_ALPHA = 0.05
# Features named per chunk in a table cell (the rest are counted).
MAX_LISTED = 3
# At most this many rows of a chunk are tested, evenly spaced (a test on 1e5
# samples already sees a shift of a hundredth of a standard deviation; the
# whole of a 1e6-row chunk took 0.6 s for five features).
MAX_TESTED_ROWS = 100_000


def _layout(X):
    """``("frame", column names)`` of a DataFrame, ``("array", n_features)``
    of a dense 2-D array, None for what the per-feature tests cannot read
    (sparse matrices, text, one column of objects; Dask collections, which
    would be computed whole)."""
    if type(X).__module__.split(".")[0] == "dask":
        return None
    if hasattr(X, "columns") and hasattr(X, "iloc"):
        return "frame", tuple(map(str, X.columns))
    if sp.issparse(X) or not hasattr(X, "shape") or len(X.shape) != 2:
        return None
    return "array", X.shape[1]


class ChunkInputs:
    """The reference inputs as passed to ``fit``, for the per-feature tests
    of each chunk (none when the inputs are not a table of features)."""

    def __init__(self, X_reference):
        self.layout = _layout(X_reference)
        self.reference = X_reference if self.layout is not None else None

    def drift(self, X, members):
        """The :class:`FeatureDrift` of the chunk ``X[members]`` against the
        reference; None where the inputs are not a table with the reference's
        columns, or the chunk is empty. Of a chunk above ``MAX_TESTED_ROWS``
        rows, that many evenly spaced rows are tested."""
        if self.layout is None or _layout(X) != self.layout or not len(members):
            return None
        members = np.asarray(members)
        members = members[evenly_spaced_rows(members.shape[0], MAX_TESTED_ROWS)]
        rows = X.iloc[members] if self.layout[0] == "frame" else X[members]
        return drifted_features(self.reference, rows)


def object_array(drifts):
    """The per-chunk :class:`FeatureDrift` (or None) as a 1-D object array."""
    array = np.empty(len(drifts), dtype=object)
    array[:] = drifts
    return array


def reliability(values):
    """``estimate_reliable`` of every chunk from the table's input signals."""
    return estimate_reliable(
        values["novel_share"], values["clipped_share"], values["repeated_share"]
    )


def drift_cells(drifts, structured=False):
    """What a result shows of each chunk's feature drift: one line of text
    (:meth:`FeatureDrift.summary`, ``""`` where nothing moved or nothing was
    tested), or with ``structured`` a list of the drifted features with their
    test, statistic, p-value and adjusted p-value (most drifted first)."""
    cells = np.empty(len(drifts), dtype=object)
    for c, drift in enumerate(drifts):
        if drift is None:
            cells[c] = [] if structured else ""
        elif structured:
            cells[c] = drift.records(DRIFT_ALPHA)
        else:
            cells[c] = drift.summary(DRIFT_ALPHA, MAX_LISTED)
    return cells


def top_drifted(drift, n_features=2):
    """The names of the (at most ``n_features``) most drifted features of a
    chunk, for a plot's label; ``[]`` where none drifted."""
    if drift is None:
        return []
    return drift.drifted(DRIFT_ALPHA)[:n_features]
