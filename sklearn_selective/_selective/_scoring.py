"""The score of a :class:`~sklearn_selective.SelectiveClassifier`: what
``score`` returns, and so what a search maximises without a ``scoring`` of its
own, by the estimator's ``scoring`` parameter. A method of the estimator
(assigned in its class body, so that it is documented with it)."""

import numpy as np
from sklearn.metrics import get_scorer as sklearn_get_scorer
from sklearn.utils import column_or_1d
from sklearn.utils.validation import check_is_fitted

from ..metrics import get_scorer, get_scorer_names


def score(self, X, y, sample_weight=None):
    """Score the classifier on labelled data, by ``scoring``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Test samples.

    y : array-like of shape (n_samples,)
        True labels; every label must be one of ``classes_``.

    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights.

    Returns
    -------
    score : float
        Greater is better; by default ``-augrc`` of the classifier's
        predictions (without abstention) and confidences on ``X``. So
        ``cross_val_score(clf, X, y)`` shows negative numbers, closer to 0
        is better, and not the accuracy a scikit-learn classifier's
        ``score`` gives: the AUGRC judges what a selective classifier adds,
        the ranking of its confidences. Pass ``scoring="accuracy"`` (or
        any scorer) to the constructor to score otherwise.
    """
    check_is_fitted(self, "threshold_")
    y = column_or_1d(y)
    unseen = ~np.isin(y, self.classes_)
    if unseen.any():
        raise ValueError(
            f"y contains labels unseen at fit: {np.unique(y[unseen]).tolist()} "
            f"(classes_ = {self.classes_.tolist()}). A selective risk is only "
            "defined for classes the classifier can predict; remove those "
            "samples or refit on data that contains them."
        )
    scorer = self.scoring
    if isinstance(scorer, str):
        if scorer in get_scorer_names():
            scorer = get_scorer(scorer)
        else:
            scorer = sklearn_get_scorer(scorer)
    if sample_weight is None:
        return float(scorer(self, X, y))
    return float(scorer(self, X, y, sample_weight=sample_weight))
