"""What the monitor records for each chunk: the estimates with their two
intervals, the reference bands and the signals that alerted."""

import numpy as np

from .._utils._draws import _MONITOR_BLOCK_ELEMENTS, _bootstrap_index_counts
from .._utils._intervals import percentile_interval
from ._failure_floor import FEW_FAILURES, failure_floor_interval
from ._methods import estimates_for_rows, weighted_estimates
from ._monitoring_result import RESULT_ARRAYS
from ._realised import noise_variance, realised_interval
from ._shrinkage import include

# The two estimates, in the order of the bands and of the proxies' pairs.
ESTIMATES = ("accuracy", "selective_accuracy")


def resample_counts(rng, n_samples, n_resamples):
    """Blocks of bootstrap counts, shape ``(block, n_samples)``, drawn in order
    (the reference's and each chunk's resamples)."""
    return _bootstrap_index_counts(rng, n_samples, n_resamples, _MONITOR_BLOCK_ELEMENTS)


def reference_counts(rng, n_samples, n_resamples):
    """The reference's counts ``(1 + n_resamples, n_samples)``: row 0 ones
    (the reference itself), then its bootstrap resamples."""
    blocks = [np.ones((1, n_samples), dtype=np.int64)]
    blocks.extend(resample_counts(rng, n_samples, n_resamples))
    return np.concatenate(blocks)


class ChunkTable:
    """The per-chunk values of one ``estimate`` call, filled chunk by chunk."""

    def __init__(self, n_chunks, n_classes):
        self.values = {name: np.full(n_chunks, np.nan) for name in RESULT_ARRAYS}
        self.bands = np.full((n_chunks, 2, 2), np.nan)
        self.reasons = np.full(n_chunks, "", dtype=object)
        self.fired = [() for _ in range(n_chunks)]  # the input signals that alerted
        # The estimates that alerted, where the bands' method decided them
        # (move_bands); None: the chunk's estimates outside their bands.
        self.estimate_alerts = [None] * n_chunks
        self.chosen = np.full(n_chunks, "", dtype=object)
        self.priors = np.full((n_chunks, n_classes), np.nan)
        self.drifts = [None] * n_chunks  # FeatureDrift of each chunk's inputs
        # The density ratio at each reference sample of a re-weighted chunk
        # (None for the others): its per-class values use the same weights.
        self.ratios = [None] * n_chunks

    # The per-chunk fields besides ``values``, one entry per chunk each.
    ROW_FIELDS = (
        "bands",
        "reasons",
        "fired",
        "estimate_alerts",
        "chosen",
        "priors",
        "drifts",
        "ratios",
    )

    def set_row(self, c, other):
        """Row ``c`` of this table from row ``c`` of ``other`` (a table of a
        chunk filled elsewhere, e.g. on a Dask worker)."""
        for name, values in self.values.items():
            values[c] = other.values[name][c]
        for name in self.ROW_FIELDS:
            getattr(self, name)[c] = getattr(other, name)[c]

    def move_bands(self, c, unadjusted):
        """Let chunk ``c``'s alerts be those of ``unadjusted`` (the bands'
        method's point estimates, for a chunk estimated otherwise; None:
        nothing to do): record which left their bands, and move each band
        with the chunk's recorded estimate by its difference from the
        unadjusted one, so that the estimate leaves the moved band when the
        unadjusted one left the band. An estimate not recorded (NaN) keeps
        its band and does not alert."""
        if unadjusted is None:
            return
        names = []
        for index, name in enumerate(ESTIMATES[: len(unadjusted)]):
            value, (low, high) = unadjusted[index], self.bands[c, index]
            if np.isnan(self.values[name][c]):
                continue
            if value < low or value > high:
                names.append(name)
            self.bands[c, index] += self.values[name][c] - value
        self.estimate_alerts[c] = tuple(names)

    def alerted_by(self):
        """Per chunk, the tuple of signals that alerted: the estimates outside
        their bands, then the input signals."""
        outside = {}
        for index, name in enumerate(ESTIMATES):
            band, value = self.bands[:, index], self.values[name]
            with np.errstate(invalid="ignore"):
                outside[name] = (value < band[:, 0]) | (value > band[:, 1])
        alerted_by = np.empty(len(self.fired), dtype=object)
        for c, fired in enumerate(self.fired):
            estimates = self.estimate_alerts[c]
            if estimates is None:
                estimates = tuple(n for n in ESTIMATES if outside[n][c])
            alerted_by[c] = (*estimates, *fired)
        return alerted_by


# Above this many samples, a chunk's bootstrap resamples a uniform sample of
# this many of its samples (drawn without replacement from the chunk's
# resample stream): the resamples then cost what they cost on a chunk of this
# size whatever the chunk's size (see :func:`bootstrap_estimates`). The point
# estimates always read every sample.
RESAMPLE_CAP = 2**14


def bootstrap_estimates(method, chunk, rng, n_resamples):
    """Point estimates and bootstrap values of one chunk, per estimate
    (accuracy, selective accuracy).

    Returns a pair, one ``(point, joint, refit, proxies)`` per estimate:
    ``point`` the estimate; ``joint`` and ``refit`` the values of the
    intervals' estimate (row 0 on the chunk as it is), ``joint``
    resampling the reference and the chunk together, ``refit`` the
    reference (the chunk's samples weigh one each, but a method fitted on
    the chunk too is fitted on its resample); ``proxies`` the intervals'
    proxies of the chunk's samples (``proxies(chunk, slice(0, 1))``), which
    the realised-value intervals read. The intervals' estimate is the
    method's own, or its ``for_intervals`` (the unshrunk correction of a
    re-weighted chunk, :mod:`._shrinkage`).

    A chunk of more than :data:`RESAMPLE_CAP` samples is resampled through a
    uniform sample of that many (:func:`_sampled_bootstrap`); the point
    estimates (row 0) read every sample.
    """
    n_samples = chunk.score.shape[0]
    estimate = method
    method = getattr(method, "for_intervals", method)
    proxies = method.proxies(chunk, slice(0, 1))
    ones = np.ones((1, n_samples))
    centre = weighted_estimates(proxies, chunk, ones)
    point = centre
    if estimate is not method:
        point = weighted_estimates(estimate.from_intervals(proxies), chunk, ones)
    if n_samples > RESAMPLE_CAP and n_resamples:
        joint, refit = _sampled_bootstrap(method, chunk, rng, n_resamples, centre)
    else:
        joint, refit = _resampled(method, chunk, rng, n_resamples)
        joint, refit = (
            tuple(np.concatenate([centre[k], values[k]]) for k in (0, 1))
            for values in (joint, refit)
        )
    return tuple((point[k][0], joint[k], refit[k], proxies[k]) for k in (0, 1))


def _resampled(method, chunk, rng, n_resamples, fixed=False):
    """The bootstrap values of :func:`bootstrap_estimates` without row 0:
    ``(joint, refit)``, and with ``fixed`` a third pair, the estimates of
    each reference resample with the chunk held fixed (the method's fit on
    the chunk too: ``refit`` itself for a method fitted on the reference
    only)."""
    n_samples = chunk.score.shape[0]
    weighted = getattr(method, "uses_chunk_weights", False)
    values = tuple(([], []) for _ in range(3 if fixed else 2))
    row = 1
    for counts in resample_counts(rng, n_samples, n_resamples):
        rows = slice(row, row + counts.shape[0])
        ones = np.ones_like(counts)
        # A method fitted on the chunk too (its class prior) refits on the
        # chunk's resamples, for both intervals: the prior estimated from
        # these inputs is uncertain even with the chunk held fixed.
        if weighted:
            proxies = method.proxies(chunk, rows, counts)
        else:
            proxies = method.proxies(chunk, rows)
        blocks = [weighted_estimates(proxies, chunk, w) for w in (counts, ones)]
        if fixed:
            held = blocks[1]
            if weighted:
                held = weighted_estimates(method.proxies(chunk, rows), chunk, ones)
            blocks.append(held)
        for pair, block in zip(values, blocks, strict=True):
            pair[0].append(block[0])
            pair[1].append(block[1])
        row = rows.stop
    empty = np.empty(0)
    return tuple(tuple(np.concatenate([empty, *v]) for v in pair) for pair in values)


def _sampled_bootstrap(method, chunk, rng, n_resamples, point):
    """:func:`bootstrap_estimates` of a chunk of more than :data:`RESAMPLE_CAP`
    samples, through a uniform sample ``S`` of ``m = RESAMPLE_CAP`` of them.

    Each bootstrap value splits into the reference's part (the method refitted
    on a reference resample, the chunk held fixed) and the chunk's part (the
    chunk resampled). With ``E_S(r, w)`` the estimate on ``S`` of reference
    resample ``r`` under chunk weights ``w`` (``r = 0``: the reference,
    ``w = 1``: the chunk held fixed), ``E`` the point estimate on the whole
    chunk (``n`` samples) and ``c`` a bootstrap resample of ``S``:

        value_r = E + [E_S(r, 1) - E_S(0, 1)] + sqrt(m / n) [E_S(r, c) - E_S(r, 1)].

    The reference's part is a mean over ``S`` of the change of the proxies
    under refitting (small, so the sample's error on it is smaller still); the
    chunk's part has the variance of a resample of ``m`` samples, ``n / m``
    times that of a resample of the chunk, hence the factor (``m`` and ``n``
    count the accepted samples for the selective accuracy). The coverage of
    the intervals on chunks above the cap is checked by simulation
    (``benchmarks/bench_coverage.py --only monitor_at_scale``).
    """
    n_samples = chunk.score.shape[0]
    sample = np.sort(rng.choice(n_samples, RESAMPLE_CAP, replace=False))
    small = chunk.take(sample)
    base = estimates_for_rows(method, small, np.ones((1, RESAMPLE_CAP)), slice(0, 1))
    joint, refit, fixed = _resampled(method, small, rng, n_resamples, fixed=True)
    sizes = (
        (RESAMPLE_CAP, n_samples),
        (int(small.accepted.sum()), int(chunk.accepted.sum())),
    )
    values = ([], [])
    for k, (m, n) in enumerate(sizes):
        scale = np.sqrt(m / n) if n else np.nan
        reference_part = point[k][0] + (fixed[k] - base[k][0])
        for pair, resampled in zip(values, (joint[k], refit[k]), strict=True):
            value = reference_part + scale * (resampled - fixed[k])
            pair.append(np.concatenate([point[k], np.clip(value, 0.0, 1.0)]))
    return tuple(tuple(pair) for pair in values)


def record_estimate(values, c, chunk, selective, estimates, fit):
    """Record in ``values`` chunk ``c``'s estimate, its realised-value and its
    expected-value intervals.

    ``estimates`` is ``(point, joint, refit, proxies)`` of one estimate
    (``selective`` picks which; :func:`bootstrap_estimates`): ``joint`` the
    intervals' estimate under paired resamples of the reference and the
    chunk (the expected value), ``refit`` under resamples of the reference
    with the chunk fixed (plus label noise: the realised value). Where
    ``point`` is not their row 0 (the shrunk estimate of a re-weighted
    chunk), each interval is widened to include it
    (:func:`._shrinkage.include`).
    ``fit`` is ``(method, realised, confidence_level)``: the chunk's method,
    the reference's :class:`ReferenceRealised` and the level. The label
    noise of the realised-value interval is the method's own
    ``noise_variances`` where it has one (a re-weighted chunk of
    ``"importance_weighted"``), else :func:`noise_variance`.
    """
    point, joint, refit, proxies = estimates
    method, (correctness, failures), confidence_level = fit
    name = ESTIMATES[selective]
    values[name][c] = point
    expected = _with_point(percentile_interval(joint[1:], confidence_level), estimates)
    values[f"expected_{name}_lower"][c] = expected[0]
    values[f"expected_{name}_upper"][c] = expected[1]
    proxies = np.broadcast_to(proxies, (1, chunk.score.shape[0]))[0]
    rows = chunk.accepted if selective else slice(None)
    score = chunk.score[rows]
    variances = getattr(method, "noise_variances", None)
    if variances is None:
        variance = noise_variance(correctness[selective], score, proxies[rows])
    else:
        variance = variances()[selective]
    low, high = realised_interval(
        joint[0], refit[1:], variance, score.shape[0], confidence_level
    )
    reference = (*failures[selective], confidence_level)
    chunk_values = (joint[0], score.shape[0])
    low, high = _failure_floor(method, selective, (low, high), chunk_values, reference)
    low, high = _with_point((low, high), estimates)
    values[f"{name}_lower"][c], values[f"{name}_upper"][c] = low, high


def _with_point(interval, estimates):
    """``interval`` widened to include the point estimate where it is not
    the intervals' own (``estimates`` of :func:`record_estimate`)."""
    point, joint = estimates[:2]
    return interval if point == joint[0] else include(interval, point)


def _failure_floor(method, selective, interval, chunk_values, reference):
    """The realised-value interval widened by :func:`failure_floor_interval`
    where the reference has fewer than ``FEW_FAILURES`` failures.

    With no failure on the reference every proxy of a calibration is one and
    the normal interval is zero wide; with a few, its normal approximation of
    a count of failures is poor. The floor is the Beta-binomial predictive
    interval of the chunk's failures under a Jeffreys prior, centred on the
    estimate: ``(1 - estimate) n_ref`` failures among ``n_ref`` reference
    samples (for ``"importance_weighted"``, Kish's effective size of the
    weighted reference), so that it widens an interval only where the
    reference's evidence is thinner than the interval claims.
    """
    low, high = interval
    estimate, n_samples = chunk_values
    failures, n_reference, confidence_level = reference
    if failures >= FEW_FAILURES or not (np.isfinite(low) and np.isfinite(estimate)):
        return low, high
    sizes = getattr(method, "effective_sizes", None)
    if sizes is not None:
        n_reference = sizes()[selective]
    return failure_floor_interval(
        low,
        high,
        n_samples,
        (1.0 - estimate) * n_reference,
        n_reference,
        confidence_level,
    )
