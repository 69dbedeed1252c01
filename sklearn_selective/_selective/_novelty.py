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

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import ShuffleSplit

from .._utils._sklearn import safe_indexing
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
    split = ShuffleSplit(n_splits=1, test_size=HELD_OUT, random_state=random_state)
    train, test = next(split.split(features))
    fitted = clone(detector).fit(safe_indexing(features, train))
    threshold = -np.inf
    if novelty_rate > 0:
        scores = fitted.score_samples(safe_indexing(features, test))
        threshold = float(np.quantile(scores, novelty_rate, method="lower"))
    return fitted, threshold


def is_novel(detector, threshold, features):
    """Whether each sample scores below the detector's threshold."""
    return np.asarray(detector.score_samples(features)) < threshold
