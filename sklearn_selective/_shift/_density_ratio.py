"""The density ratio of chunk to reference inputs, from a domain classifier.

A classifier ``g(x) = P(chunk | x)`` trained to tell a chunk from the
reference gives, by Bayes' rule, ``p_chunk(x) / p_reference(x) = g / (1 - g)
* n_reference / n_chunk`` (the probabilistic-classification estimate of a
density ratio; Sugiyama et al. 2012, Ch. 4). It is *cross-fitted*: the
samples of each side are cut into folds and each fold's ratios come from a
classifier that did not see it, so that a classifier which memorises its
training samples does not inflate their weights. The ratios are clipped to
``[1 / max_ratio, max_ratio]``: a chunk sample at the upper clip lies where
the reference has (next to) no mass, and the share of such samples is the
overlap signal of :mod:`._reliability`.

References
----------
.. [1] M. Sugiyama, T. Suzuki, T. Kanamori. *Density Ratio Estimation in
   Machine Learning.* Cambridge University Press, 2012.
"""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.utils import check_random_state

from .._utils._validation import all_finite

# At most this many samples of each side train a domain classifier (speed).
MAX_DOMAIN_SAMPLES = 2000
# Probabilities of the domain classifier are kept this far from 0 and 1.
_EPS = 1e-12


# ----------------------------------------------------------------------------
# The density ratio
# ----------------------------------------------------------------------------
class DensityRatio(NamedTuple):
    """Cross-fitted, clipped density ratio ``p_chunk(x) / p_reference(x)``.

    Attributes
    ----------
    reference : ndarray of shape (n_reference,)
        The ratio at each reference sample (the importance weights).
    chunk : ndarray of shape (n_chunk,)
        The ratio at each chunk sample.
    max_ratio : float
        The clip: every ratio lies in ``[1 / max_ratio, max_ratio]``.
    """

    reference: np.ndarray
    chunk: np.ndarray
    max_ratio: float

    @property
    def clipped_share(self):
        """Share of chunk samples at the upper clip: inputs where the
        reference has next to no mass (no overlap)."""
        return float(np.mean(self.chunk >= self.max_ratio))

    def effective_size(self, mask=None):
        """Kish's effective sample size ``(sum w)^2 / sum w^2`` of the
        reference weights (of those in ``mask``)."""
        weights = self.reference if mask is None else self.reference[mask]
        total = weights.sum()
        if total <= 0:
            return 0.0
        return float(total**2 / np.sum(weights**2))


def with_squares(X):
    """``[X, X**2]``: the features of a log-density ratio quadratic in each
    feature."""
    if sp.issparse(X):
        return sp.hstack([X, X.multiply(X)]).tocsr()
    return np.hstack([X, X**2])


def default_domain_classifier(sparse=False):
    """The default domain classifier: logistic regression on the
    standardised features and their squares.

    Smooth odds are what a density ratio needs. The log ratio of two
    Gaussians with diagonal covariances is quadratic in each feature, so the
    model is exact for moves and for changes of spread (noise, contraction)
    of such inputs, and its regularised odds stay stable on the small chunks
    a monitor sees (tree ensembles give 0/1 odds on small samples). For
    sparse inputs the features are scaled, not centred.
    """
    return make_pipeline(
        StandardScaler(with_mean=not sparse),
        FunctionTransformer(with_squares, accept_sparse=True),
        LogisticRegression(C=0.1, max_iter=1000),
    )


def _as_features(X, name):
    if sp.issparse(X):
        return X.tocsr()
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be 2-dimensional (n_samples, n_features); got shape "
            f"{X.shape}."
        )
    if not all_finite(X):
        raise ValueError(
            f"{name} contains NaN or infinity; impute the features or pass a "
            "domain classifier that reads missing values (e.g. "
            "HistGradientBoostingClassifier())."
        )
    return X


def _folds(rng, n_samples, n_splits):
    """A fold label per sample, folds as equal as possible, in random order."""
    return rng.permutation(np.arange(n_samples) % n_splits)


def _take(X, rows):
    return X[rows]


def _clipped_ratio(log_ratio, max_ratio):
    """``exp(log_ratio)`` clipped to ``[1 / max_ratio, max_ratio]``, the
    clipped values set to the bounds exactly (``exp(log(20))`` is
    ``19.999999999999996``: a sample at the clip must compare equal to it,
    or :attr:`DensityRatio.clipped_share` misses it)."""
    bound = np.log(max_ratio)
    ratio = np.exp(np.clip(log_ratio, -bound, bound))
    ratio[log_ratio >= bound] = max_ratio
    ratio[log_ratio <= -bound] = 1.0 / max_ratio
    return ratio


def density_ratio(
    reference_features,
    chunk_features,
    *,
    classifier=None,
    max_ratio=20.0,
    n_splits=2,
    random_state=None,
):
    """Cross-fitted density ratio of chunk to reference inputs, clipped.

    A classifier is trained to tell the chunk (class 1) from the reference
    (class 0); its odds at ``x``, times ``n_reference / n_chunk`` of its
    training sample, estimate ``p_chunk(x) / p_reference(x)`` [3]_. Both sides
    are cut into ``n_splits`` folds and each fold is scored by the classifier
    fitted on the other folds (cross-fitting, at most
    ``MAX_DOMAIN_SAMPLES = 2000`` samples of each side per fit).

    Parameters
    ----------
    reference_features : {ndarray, sparse matrix} of shape (n_reference, n_features)
        The reference inputs.
    chunk_features : {ndarray, sparse matrix} of shape (n_chunk, n_features)
        The chunk's inputs, same features.
    classifier : classifier with ``predict_proba``, default=None
        The domain classifier (cloned per fold); None:
        :func:`default_domain_classifier`.
    max_ratio : float > 1, default=20.0
        Ratios are clipped to ``[1 / max_ratio, max_ratio]``.
    n_splits : int >= 2, default=2
        Folds of the cross-fitting.
    random_state : int, RandomState instance or None, default=None
        Seed of the folds and of the subsampling.

    Returns
    -------
    ratio : DensityRatio
        The ratio at every reference and chunk sample.

    References
    ----------
    .. [3] M. Sugiyama, T. Suzuki, T. Kanamori. *Density Ratio Estimation in
       Machine Learning.* Cambridge University Press, 2012, Ch. 4.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective._shift._density_ratio import density_ratio
    >>> rng = np.random.default_rng(0)
    >>> reference = rng.normal(size=(1000, 2))
    >>> chunk = rng.normal(size=(1000, 2)) + [1.0, 0.0]
    >>> ratio = density_ratio(reference, chunk, random_state=0)
    >>> # the true log ratio, x0 - 0.5, is linear in the first feature
    >>> bool(np.corrcoef(np.log(ratio.reference), reference[:, 0])[0, 1] > 0.95)
    True
    """
    if not (np.isfinite(max_ratio) and max_ratio > 1):
        raise ValueError(f"max_ratio must be a finite number > 1; got {max_ratio!r}.")
    if int(n_splits) != n_splits or n_splits < 2:
        raise ValueError(f"n_splits must be an integer >= 2; got {n_splits!r}.")
    reference = _as_features(reference_features, "reference_features")
    chunk = _as_features(chunk_features, "chunk_features")
    if reference.shape[1] != chunk.shape[1]:
        raise ValueError(
            f"reference_features has {reference.shape[1]} features but "
            f"chunk_features has {chunk.shape[1]}; pass the same columns."
        )
    n_splits = int(n_splits)
    if min(reference.shape[0], chunk.shape[0]) < n_splits:
        raise ValueError(
            f"Cross-fitting with n_splits={n_splits} needs at least {n_splits} "
            f"samples on each side; got {reference.shape[0]} reference and "
            f"{chunk.shape[0]} chunk samples."
        )
    if classifier is None:
        classifier = default_domain_classifier(sp.issparse(reference))
    rng = check_random_state(random_state)
    fold_reference = _folds(rng, reference.shape[0], n_splits)
    fold_chunk = _folds(rng, chunk.shape[0], n_splits)
    log_odds = (np.empty(reference.shape[0]), np.empty(chunk.shape[0]))
    stack = sp.vstack if sp.issparse(reference) else np.vstack
    for fold in range(n_splits):
        train = [
            np.flatnonzero(fold_reference != fold),
            np.flatnonzero(fold_chunk != fold),
        ]
        train = [
            rows
            if rows.size <= MAX_DOMAIN_SAMPLES
            else np.sort(rng.choice(rows, MAX_DOMAIN_SAMPLES, replace=False))
            for rows in train
        ]
        X = stack([_take(reference, train[0]), _take(chunk, train[1])])
        y = np.r_[np.zeros(train[0].size), np.ones(train[1].size)]
        fitted = clone(classifier).fit(X, y)
        prior = np.log(train[0].size / train[1].size)
        for side, (features, folds) in enumerate(
            ((reference, fold_reference), (chunk, fold_chunk))
        ):
            rows = np.flatnonzero(folds == fold)
            proba = np.clip(
                fitted.predict_proba(_take(features, rows))[:, 1], _EPS, 1 - _EPS
            )
            log_odds[side][rows] = np.log(proba) - np.log1p(-proba) + prior
    reference_ratio, chunk_ratio = (_clipped_ratio(v, max_ratio) for v in log_odds)
    return DensityRatio(reference_ratio, chunk_ratio, float(max_ratio))
