"""Which method estimates a chunk: the monitor's fitted methods, and the choice
``method="auto"`` makes per chunk (adjust to a label shift, re-weight to a
covariate shift, or the calibrated average confidence for a chunk that did not
move)."""

from typing import NamedTuple

import numpy as np

from .._utils._validation import all_finite
from .._utils._warnings import warn
from ._label_shift import consistent_with_label_shift, outputs_moved
from ._methods import METHODS, NOT_FINITE, estimates_for_rows

# What "auto" takes for a chunk that moved in a way a label shift does
# not explain. benchmarks/bench_estimates.py decides (30 repetitions, 12
# covariate-shift settings on 4 data sets; mean |error| of the accuracy /
# selective accuracy): "auto" with it 0.0167 / 0.0151 against 0.0214 /
# 0.0188 with "calibrated_ac" there (NannyML 0.13.1's CBPE: 0.0182 / 0.0162;
# the user guide has the table). Label-shift and no-shift chunks are
# unchanged.
AUTO_COVARIATE = "importance_weighted"


class ChunkMethod(NamedTuple):
    """The method of one chunk: the fitted method (bound to the chunk's inputs
    where it reads them), its name, the chunk's EM prior (or NaN), the share
    of the chunk at the density ratio's clip (NaN where no ratio was fitted)
    and, for a chunk ``"auto"`` adjusted on its model outputs alone, the
    point estimates (accuracy, selective accuracy) of the bands' method,
    which decide its alerts (None for the others)."""

    method: object
    name: str
    prior: object
    clipped_share: float
    unadjusted: tuple | None = None


class FittedMethods:
    """The fitted method of a monitor, or for ``"auto"`` the ones it picks from.

    ``bands`` is the method whose reference proxies give the bands;
    :meth:`for_chunk` says which method estimates a chunk. ``inputs`` is
    ``(features, rng)``: the reference inputs as the final classifier sees
    them, for a method that reads them (``needs_inputs``), and the generator
    of its fit. ``adjusts``: whether ``"auto"`` may adjust (it has a drift
    signal), so that inputs it cannot re-weight on are worth a warning; its
    adjustments are fitted on the first chunk that moves (0.3 s of a
    1e6-sample chunk's in ``benchmarks/bench_monitor_scale.py``): fitted in
    ``fit``, they made it 4.8 times slower and the pickled monitor 2.4 times
    larger for a 35,000-sample reference of 50 inputs, for every monitor,
    shifted or not.
    """

    def __init__(
        self, name, reference, correct, counts, y_index, inputs=None, adjusts=True
    ):
        self.name, self.adjusts = name, adjusts
        self._data = (reference, correct, counts, y_index)
        self._inputs = inputs
        self.fitted = {}
        self.bands = self.get("calibrated_ac" if name == "auto" else name)
        # "auto" re-weights for a covariate shift where the inputs are finite
        self.reweights = inputs is not None and all_finite(inputs[0])
        if name == "auto" and adjusts and inputs is not None and not self.reweights:
            warn(
                "The inputs the classifier sees contain NaN or infinity: 'auto' "
                "will not re-weight the reference to a covariate shift (a "
                "logistic regression on them) and takes 'calibrated_ac' there. "
                "Impute them before the classifier to have it."
            )

    @staticmethod
    def needs_inputs(name):
        """Whether the method ``name`` reads each chunk's inputs."""
        if name == "auto":
            name = AUTO_COVARIATE
        return getattr(METHODS[name], "needs_inputs", False)

    def fit_every_choice(self):
        """Fit now every method a chunk may choose (what ``get`` does on
        first use): then chunks estimated at once, in threads or processes
        (Dask), share no lazy state and give the numbers of one by one.
        ``"auto"`` without a drift signal never adjusts: nothing to fit."""
        auto = self.name == "auto" and self.adjusts
        names = ["label_shift_em", AUTO_COVARIATE] if auto else []
        names = names if self.reweights else names[:1]
        for name in names:
            self.get(name)
        return self

    def get(self, name):
        """The method ``name``, fitted on first use (``"auto"`` fits its
        adjustments only once a chunk moves)."""
        if name not in self.fitted:
            method = METHODS[name](*self._data)
            if getattr(method, "needs_inputs", False):
                method.fit_inputs(*self._inputs)
            self.fitted[name] = method
        return self.fitted[name]

    def for_chunk(self, chunk, signals, features, rngs):
        """The :class:`ChunkMethod` of a chunk.

        ``signals`` is ``(drift_scores, calibration_labels, drifted)`` of the
        drift signal; ``features`` the chunk's inputs (None where no method
        reads them); ``rngs`` the generators of its density ratio (and of
        the prior's sample of a large chunk) and of the test that its outputs
        moved.
        """
        rng, outputs_rng = rngs
        method, name, prior, unadjusted = self._choose(
            chunk, signals, features, rng, outputs_rng
        )
        clipped_share = np.nan
        if features is not None and getattr(method, "needs_inputs", False):
            method, clipped_share = method.for_inputs(features, rng)
        return ChunkMethod(method, name, prior, clipped_share, unadjusted)

    def _choose(self, chunk, signals, features, rng, outputs_rng):
        """``(method, its name, the chunk's EM prior or NaN, the bands'
        method's point estimates where they decide the alerts, else None)``.

        ``"auto"`` adjusts a chunk that moved: the drift signal fired, or
        its model outputs moved (:func:`outputs_moved`). It then
        takes the label-shift adjusted estimate where reweighting the
        reference by the chunk's estimated prior makes the domain
        classifier's held-out scores indistinguishable from the chunk's (a
        label shift explains the move), :data:`AUTO_COVARIATE` otherwise;
        and the calibrated average confidence for a chunk that did not move
        (and without a domain classifier). A chunk adjusted on its model
        outputs alone alerts as its calibrated average confidence would
        (:meth:`ChunkTable.move_bands`): the bands are that estimate's, and
        the chunks that alert stay those the Bonferroni bound counts (a chunk
        whose drift signal fired has alerted already). The prior is estimated
        for every chunk of ``"label_shift_em"``, and for the chunks of
        ``"auto"`` that moved (``rng`` draws its sample of a large chunk;
        ``outputs_rng`` the permutations of the test of its outputs).
        The chunk's ``features`` are checked for NaN and infinity here, once:
        a method that reads them refuses them, ``"auto"`` then takes the
        calibrated average confidence.
        """
        drift_scores, calibration_labels, drifted = signals
        if self.name != "auto":
            reads = features is not None and self.needs_inputs(self.name)
            reads = reads and features.shape[0] >= 2  # else no ratio is fitted
            if reads and not all_finite(features):  # the chunk's one check
                raise ValueError(NOT_FINITE.format("X (in this chunk)"))
            prior = np.nan
            if self.name == "label_shift_em":
                prior = self.bands.chunk_prior(chunk, rng)
            return self.bands, self.name, prior, None
        unadjusted = None
        if not drifted:
            if not self._outputs_moved(chunk, drift_scores, outputs_rng):
                return self.bands, "calibrated_ac", np.nan, None
            ones = np.ones((1, chunk.score.shape[0]))
            point = estimates_for_rows(self.bands, chunk, ones, slice(0, 1))
            unadjusted = tuple(float(value[0]) for value in point)
        label_shift = self.get("label_shift_em")
        prior = label_shift.chunk_prior(chunk, rng)
        name = AUTO_COVARIATE
        seen = label_shift.prior[0] > 0  # a class the reference lacks: no EM
        if seen.all() and consistent_with_label_shift(
            *drift_scores, prior / label_shift.prior[0], calibration_labels
        ):
            name = "label_shift_em"
        elif not (self.reweights and all_finite(features)):
            return self.bands, "calibrated_ac", prior, None
        return self.get(name), name, prior, unadjusted

    def _outputs_moved(self, chunk, drift_scores, rng):
        """Whether the chunk's class probabilities moved from the
        reference's (:func:`outputs_moved`), for a monitor with a domain
        classifier (``drift_scores``), which tells a label shift from another
        move."""
        if drift_scores is None:
            return False
        reference = self._data[0]
        return outputs_moved(reference.proba, chunk.proba, rng)
