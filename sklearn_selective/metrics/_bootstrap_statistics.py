"""Several statistics of the same data bootstrapped together.

The statistics (e.g. a cascade's coverage, risk and cost, and each stage's) are
evaluated on each resample at once; each interval is the one
:func:`bootstrap_metric` reads off its distribution, and the double bootstrap
draws its inner resamples once for all of them.
"""

from functools import partial

import numpy as np

from .._utils._draws import _bootstrap_counts
from ._bootstrap import _chosen_method, _outer_shares, _result, _Shares


def bootstrap_statistics(
    names, statistics, values, n_samples, *, n_resamples, confidence_level, method, rng
):
    """One :class:`BootstrapResult` per statistic, all from the same resamples.

    ``values(count_blocks)`` evaluates the ``m`` statistics on each resample
    (shape ``(n_resamples, m)``; ``nan`` where one is undefined) and
    ``statistics`` are their values on the data. Each interval is the one
    :func:`bootstrap_metric` reads off its distribution with ``method``
    (``"auto"``: the default rule), and the double bootstrap's inner
    resamples are drawn once for all the statistics.
    """
    method = _chosen_method(method, n_samples)
    blocks = list(_bootstrap_counts(rng, n_samples, n_resamples))
    distribution = values(blocks)
    statistics = np.asarray(statistics, dtype=np.float64)
    shares = [None] * statistics.shape[0]
    if method == "double":
        below, below_or_equal = _outer_shares(values, statistics, blocks, rng)
        pairs = zip(below.T, below_or_equal.T, strict=True)
        shares = [_Shares(*pair) for pair in pairs]
    results = []
    for j, name in enumerate(names):
        column = partial(_column, values, j)
        column.block_rows = 1
        result, _ = _result(
            name,
            float(statistics[j]),
            distribution[:, j],
            column,
            n_samples,
            confidence_level,
            method,
            outer=shares[j],
        )
        results.append(result)
    return results


def _column(values, j, count_blocks):
    return values(count_blocks)[:, j]
