"""Input signals of a chunk: novel inputs and a multivariate drift.

A label-free accuracy estimate reads the model's confidence, and a model can
be confidently wrong on inputs it has never seen: the estimate then stays put
while the accuracy falls. The inputs themselves say that something moved.
Both signals compare a chunk with held-out reference inputs, as the final
classifier sees them (after a Pipeline's transformers), and each has a p-value
that is valid when the chunk is drawn like the reference:

- ``novel_share``: the share of the chunk an outlier detector flags. The
  detector is fitted on one half of the reference (``A``); a sample is flagged
  when its score is below the ``k``-th lowest score of the other half
  (``B``, ``m`` samples, ``k = floor(novelty_rate (m + 1))``), a conformal
  threshold. Without shift a new sample is flagged with probability
  ``U ~ Beta(k, m + 1 - k)`` (the ``k``-th order statistic of ``m`` uniforms),
  so the count among ``n`` is Beta-binomial: the p-value is exact.
- ``drift_score``: a domain classifier's AUC. It is fitted to tell ``A`` from
  half of the chunk; the AUC compares its scores on ``B`` and on the chunk's
  other half. Without shift those scores are exchangeable, so the
  Mann-Whitney statistic has its null distribution (normal approximation with
  the tie correction and a continuity correction); ``drift_threshold`` is the
  AUC at which the p-value reaches the signal's level.

A chunk of more than :data:`SIGNAL_SAMPLE_CAP` samples is read through a
uniform sample of that many (drawn without replacement from the chunk's
signal stream): both signals, their p-values and limits are those of the
sample, whose rows are drawn like the chunk's, so each test keeps its level.
"""

import numpy as np
import scipy.sparse as sp
from scipy.stats import betabinom, norm, rankdata
from sklearn.base import clone, is_classifier
from sklearn.ensemble import ExtraTreesClassifier, IsolationForest
from sklearn.linear_model import LogisticRegression
from sklearn.utils import check_array

from .._utils._draws import stream_rng
from .._utils._sklearn import safe_indexing
from .._utils._validation import all_finite
from ..confidence._model_output import classifier_inputs
from ._reliability import excess_repeated_share

# At most this many samples of each side train a domain classifier (speed).
MAX_DRIFT_SAMPLES = 2000
# Above this many samples, the input signals read a uniform sample of this many
# of a chunk's samples (the novelty detector and the domain classifier score
# every sample they read).
SIGNAL_SAMPLE_CAP = 2**14


def monitored_inputs(estimator, X):
    """``X`` as the final classifier sees it (inside a SelectiveClassifier
    too), as a float array or CSR matrix."""
    features = classifier_inputs(getattr(estimator, "estimator_", estimator), X)
    return check_array(
        features, accept_sparse="csr", dtype=np.float64, ensure_all_finite=False
    )


def least_alerting_count(null, n, alpha):
    """The least count ``c`` in ``0..n`` with ``P(X >= c) < alpha`` under the
    discrete distribution ``null`` (None when there is none): from its
    inverse survival function, checked on the counts next to it (scanning
    every count was O(n**2): 23 of 28 s on a 20,000-sample chunk)."""
    guess = null.isf(alpha)
    guess = n if not np.isfinite(guess) else int(guess)
    counts = np.arange(max(guess - 2, 0), min(guess + 3, n + 1))
    alerting = counts[null.sf(counts - 1) < alpha]
    return int(alerting[0]) if alerting.size else None


def check_drift_estimator(drift_estimator):
    """A domain classifier: it tells chunk from reference by its scores."""
    if drift_estimator in ("auto", None) or is_classifier(drift_estimator):
        return
    raise ValueError(
        f"drift_estimator={drift_estimator!r} is not a classifier; the drift "
        "score is the AUC of a domain classifier telling a chunk from the "
        "reference, read from its predict_proba or decision_function. Pass a "
        "classifier (e.g. LogisticRegression()), 'auto' or None."
    )


def _scores_of(estimator, X):
    """Higher = more like the chunk (class 1)."""
    if hasattr(estimator, "predict_proba"):
        return np.asarray(estimator.predict_proba(X))[:, -1]
    return np.asarray(estimator.decision_function(X)).ravel()


def _auc_test(scores_reference, scores_chunk, alpha):
    """``(auc, threshold, p_value)`` of the one-sided Mann-Whitney test that the
    chunk's scores are larger."""
    n_b, n_c = scores_reference.shape[0], scores_chunk.shape[0]
    ranks = rankdata(np.concatenate([scores_reference, scores_chunk]))
    u = ranks[n_b:].sum() - n_c * (n_c + 1) / 2.0
    pairs = n_b * n_c
    total = n_b + n_c
    _, ties = np.unique(ranks, return_counts=True)
    variance = (
        pairs / 12.0 * ((total + 1) - (ties**3 - ties).sum() / (total * (total - 1)))
    )
    if variance <= 0:  # every score tied: nothing tells the samples apart
        return u / pairs, 1.0, 1.0
    sd = np.sqrt(variance)
    p_value = float(norm.sf((u - pairs / 2.0 - 0.5) / sd))
    threshold = (pairs / 2.0 + 0.5 + norm.isf(alpha) * sd) / pairs
    return u / pairs, min(float(threshold), 1.0), p_value


def mean_band(proxies, n, alpha):
    """Where the mean of ``n`` proxies falls without shift, with probability
    ``1 - alpha``: ``[low, high]`` (NaN for ``n = 0``).

    Without shift, the chunk's estimate (a mean of ``n`` per-sample proxies)
    and the proxies' mean on the reference (``n_ref`` of them) are two sample
    means from one distribution; the reference fit is shared by both, so its
    uncertainty cancels. Their difference has variance
    ``s^2 (1/n + 1/n_ref)`` and third cumulant ``mu_3 (1/n^2 - 1/n_ref^2)``:
    small chunks' means are skewed (a few unsure samples pull a mean of
    near-ones down), so the normal quantiles get the Cornish-Fisher skewness
    term ``(z^2 - 1) g / 6``, with ``g`` the difference's standardised
    skewness.
    """
    if n == 0 or proxies.shape[0] == 0:
        return np.nan, np.nan
    mean, n_reference = proxies.mean(), proxies.shape[0]
    centred = proxies - mean
    variance = np.mean(centred**2) * (1.0 / n + 1.0 / n_reference)
    if variance <= 0:
        return mean, mean
    third = np.mean(centred**3) * (1.0 / n**2 - 1.0 / n_reference**2)
    skewness = third / variance**1.5
    z = norm.isf(alpha / 2.0)
    quantiles = np.array([-z, z])
    quantiles = quantiles + (quantiles**2 - 1.0) * skewness / 6.0
    low, high = mean + np.sqrt(variance) * quantiles
    return low, high


class ReferenceBands:
    """The reference bands of the two estimates (accuracy, selective
    accuracy): where a chunk's estimate falls without shift
    (:func:`mean_band` of the method's proxies on the reference, all and
    accepted samples), clipped to [0, 1]."""

    def __init__(self, proxies, selective_proxies):
        self.proxies = (proxies, selective_proxies)

    @classmethod
    def of_method(cls, method, reference):
        """The bands of a fitted ``method`` (its reference proxies)."""
        shape = (1, reference.score.shape[0])
        everything, selective = method.proxies(reference, slice(0, 1))
        everything = np.broadcast_to(everything, shape)[0]
        selective = np.broadcast_to(selective, shape)[0][reference.accepted]
        return cls(everything.copy(), selective.copy())

    def __call__(self, n_samples, n_accepted, alpha):
        """The bands of a chunk of ``n_samples`` samples, ``n_accepted`` of
        them accepted, each two-sided at level ``1 - alpha``: shape (2, 2)."""
        bands = [
            mean_band(proxies, size, alpha)
            for proxies, size in zip(self.proxies, (n_samples, n_accepted), strict=True)
        ]
        return np.clip(np.array(bands), 0.0, 1.0)


def _split_halves(features, rng):
    """Two halves of a chunk, repeated rows on one side: a domain classifier
    that memorised a row of its training half would otherwise recognise the
    copy in the other half, and the AUC would rise without any shift."""
    n = features.shape[0]
    if sp.issparse(features):
        groups = np.arange(n)
    else:
        _, groups = np.unique(features, axis=0, return_inverse=True)
        groups = groups.ravel()
    rank = rng.permutation(groups.max() + 1)[groups]
    order = np.lexsort((rng.random(n), rank))
    half = n // 2
    # Move the cut to a group boundary (the half with the larger share).
    cut = np.searchsorted(rank[order], rank[order][half], side="left")
    if cut == 0:
        cut = np.searchsorted(rank[order], rank[order][half], side="right")
    return order[:cut], order[cut:]


class InputSignals:
    """The novelty and drift signals, fitted on the reference inputs."""

    def __init__(self, novelty_detector, drift_estimator, novelty_rate, seed):
        self.novelty_detector = novelty_detector
        self.drift_estimator = drift_estimator
        self.novelty_rate = novelty_rate
        self.seed = seed

    @property
    def n_signals(self):
        return (self.novelty_detector is not None) + (self.drift_estimator is not None)

    def fit(self, features, y_index):
        """Fit on the reference inputs; ``y_index``: their class indices."""
        defaults = [
            name
            for name, value in (
                ("novelty_detector", self.novelty_detector),
                ("drift_estimator", self.drift_estimator),
            )
            if value == "auto"
        ]
        if defaults and not all_finite(features):
            raise ValueError(
                "The inputs the classifier sees contain NaN or infinity, which "
                f"the default {' and '.join(defaults)} cannot read. Pass "
                "estimators that accept missing values (e.g. drift_estimator="
                "HistGradientBoostingClassifier()), or None to turn a signal off."
            )
        n_samples = features.shape[0]
        if n_samples < 2:
            raise ValueError(
                f"X_reference has {n_samples} sample; the input signals fit on one "
                "half of it and calibrate on the other. Pass a reference of many "
                "samples, or novelty_detector=None and drift_estimator=None."
            )
        order = stream_rng(self.seed, "drift_split").permutation(n_samples)
        half = n_samples // 2
        self.calibration_labels = y_index[order[half:]]
        self.fit_half = safe_indexing(features, order[:half])
        calibration = safe_indexing(features, order[half:])
        self.calibration = calibration
        if self.novelty_detector is not None:
            self._fit_novelty(calibration)
        if self.drift_estimator is not None:
            self.drift_estimator_ = self._drift_template(features)
        return self

    def evaluate(self, values, c, features, rng, alpha):
        """Chunk ``c``'s signals into ``values``: the names of those that alert
        at ``alpha``, and the domain classifier's held-out scores (reference,
        chunk; None without one or for a chunk under 4 samples). A chunk of
        more than :data:`SIGNAL_SAMPLE_CAP` samples is read through a uniform
        sample of that many. Its ``repeated_share`` (which does not alert: it
        decides ``estimate_reliable``) is read on the same rows."""
        fired, scores = [], None
        n_samples = features.shape[0]
        if n_samples > SIGNAL_SAMPLE_CAP:
            sample = rng.choice(n_samples, SIGNAL_SAMPLE_CAP, replace=False)
            features = safe_indexing(features, np.sort(sample))
        # against the detector's half of the reference (a uniform sample), on
        # a stream of its own: the other signals' numbers stay as they were
        values["repeated_share"][c] = excess_repeated_share(
            features, self.fit_half, stream_rng(self.seed, "repeats", c)
        )
        if self.novelty_detector is not None:
            share, limit, p_value = self.novelty(features, alpha)
            values["novel_share"][c], values["novel_share_limit"][c] = share, limit
            if p_value < alpha:
                fired.append("novel_share")
        if self.drift_estimator is not None and features.shape[0] >= 4:
            score, threshold, p_value, scores = self.drift(features, rng, alpha)
            values["drift_score"][c], values["drift_threshold"][c] = score, threshold
            if p_value < alpha:
                fired.append("drift_score")
        return fired, scores

    # ----------------------------------------------------------------------------
    # Novel inputs
    # ----------------------------------------------------------------------------
    def _fit_novelty(self, calibration):
        detector = self.novelty_detector
        if detector == "auto":
            detector = IsolationForest(n_estimators=50, random_state=self.seed)
        self.detector_ = clone(detector).fit(self.fit_half)
        scores = np.sort(self.detector_.score_samples(calibration))
        m = scores.shape[0]
        self.k_ = max(1, int(np.floor(self.novelty_rate * (m + 1))))
        self.m_ = m
        self.novelty_threshold_ = scores[self.k_ - 1]

    def novelty(self, features, alpha):
        """``(share, limit, p_value)`` of a chunk: the share flagged, the largest
        share without alert at level ``alpha``, and the exact p-value."""
        n = features.shape[0]
        flagged = int(
            (self.detector_.score_samples(features) < self.novelty_threshold_).sum()
        )
        null = betabinom(n, self.k_, self.m_ + 1 - self.k_)
        p_value = float(null.sf(flagged - 1))
        alerting = least_alerting_count(null, n, alpha)
        limit = (alerting - 1) / n if alerting is not None else 1.0
        return flagged / n, limit, p_value

    # ----------------------------------------------------------------------------
    # Multivariate drift
    # ----------------------------------------------------------------------------
    def _drift_template(self, features):
        if self.drift_estimator != "auto":
            return self.drift_estimator
        if sp.issparse(features):
            return LogisticRegression(max_iter=1000, class_weight="balanced")
        return ExtraTreesClassifier(
            n_estimators=30,
            class_weight="balanced_subsample",
            random_state=self.seed,
        )

    def drift(self, features, rng, alpha):
        """``(auc, threshold, p_value, scores)`` of a chunk's domain classifier;
        ``scores``: its held-out scores of the reference and the chunk."""
        train, test = _split_halves(features, rng)
        if not (train.size and test.size):  # one row repeated: nothing to test
            return np.nan, np.nan, 1.0, None
        reference = self.fit_half
        n_reference = reference.shape[0]
        if n_reference > MAX_DRIFT_SAMPLES:
            reference = safe_indexing(
                reference, rng.choice(n_reference, MAX_DRIFT_SAMPLES, replace=False)
            )
        train = train[:MAX_DRIFT_SAMPLES]
        chunk_train = safe_indexing(features, train)
        stack = sp.vstack if sp.issparse(features) else np.vstack
        X = stack([reference, chunk_train])
        y = np.r_[np.zeros(reference.shape[0]), np.ones(chunk_train.shape[0])]
        classifier = clone(self.drift_estimator_).fit(X, y)
        scores = (
            _scores_of(classifier, self.calibration),
            _scores_of(classifier, safe_indexing(features, test)),
        )
        return (*_auc_test(*scores, alpha), scores)
