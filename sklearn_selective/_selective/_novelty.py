"""Rejecting novel inputs: an outlier detector next to the confidence threshold.

The detector sees what the final classifier sees: the output of a Pipeline's
transformers (the raw inputs otherwise). Its threshold is set on scores it did
not train on, for the very detector that is deployed: it is fitted on a share
``1 - HELD_OUT`` of ``fit``'s inputs, and the threshold is the ``novelty_rate``
quantile of its scores on the rest (so that about that share of in-distribution
samples is flagged). Refitting it on all the inputs afterwards would move its
scores (a one-class SVM's scale grows with the training size), so it is not.
Every scikit-learn outlier detector has ``score_samples``, higher meaning more
normal; a sample is novel iff its score is below the threshold.
"""

import math

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import ShuffleSplit

from .._utils._sklearn import num_samples, safe_indexing
from .._utils._warnings import warn
from ..confidence._model_output import classifier_inputs

# Share of fit's inputs held out to set the detector's threshold.
HELD_OUT = 0.2


def fit_novelty(detector, estimator, X, novelty_rate, random_state):
    """``(fitted detector, threshold)`` on the inputs the fitted ``estimator``
    sees, ``(None, None)`` without a detector. The threshold is the
    ``novelty_rate`` quantile of the detector's scores on held-out inputs;
    ``-inf`` (nothing novel) for a rate of 0."""
    if detector is None:
        return None, None
    features = classifier_inputs(estimator, X)
    n_samples = num_samples(features)
    if n_samples < 2:
        raise ValueError(
            f"novelty_detector needs at least 2 samples in fit (one to fit it, "
            f"one to set its threshold); got {n_samples}. Pass more data or "
            "novelty_detector=None."
        )
    split = ShuffleSplit(n_splits=1, test_size=HELD_OUT, random_state=random_state)
    train, test = next(split.split(features))
    _warn_unreachable_rate(novelty_rate, len(test))
    fitted = clone(detector).fit(safe_indexing(features, train))
    threshold = -np.inf
    if novelty_rate > 0:
        scores = fitted.score_samples(safe_indexing(features, test))
        threshold = float(np.quantile(scores, novelty_rate, method="lower"))
    return fitted, threshold


def _warn_unreachable_rate(novelty_rate, n_held_out):
    """A threshold at the lowest of ``m`` held-out scores flags about
    ``1 / (m + 1)`` of new in-distribution samples: no smaller positive rate
    can be set from ``m`` scores."""
    smallest = 1 / (n_held_out + 1)
    if 0 < novelty_rate < smallest:
        needed = math.ceil((1 / novelty_rate - 1) / HELD_OUT)
        warn(
            f"novelty_rate={novelty_rate} cannot be set from the {n_held_out} "
            f"held-out samples (a share {HELD_OUT} of fit's data): the threshold "
            f"flags about {smallest:.3g} of in-distribution samples instead. A rate "
            f"of {novelty_rate} needs at least {needed} samples in fit; or ask for "
            f"novelty_rate >= {smallest:.3g}.",
            UserWarning,
        )


def is_novel(detector, threshold, features):
    """Whether each sample scores below the detector's threshold."""
    return np.asarray(detector.score_samples(features)) < threshold
