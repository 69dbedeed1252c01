"""Feature-space confidence: how far an input lies from the training inputs.

Probability- and logit-based CSFs read what a classifier *says*; the two CSFs
here read what it *sees*, the inputs of its final step (after a Pipeline's
transformers), and compare them with the inputs it was trained on. Far from
its training data a model can be confidently wrong; the distance says so.

Both need the training inputs, which a fitted scikit-learn model does not
keep. Each is therefore two things with one implementation: a function of the
features and the training data (the definition, for arrays) and
:class:`FeatureConfidence`, the same score fitted once on a model's training
inputs, which the estimators fit on each training fold and a user fits with
:func:`fit_feature_confidence` for a model trained elsewhere.
"""

import warnings
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.covariance import EmpiricalCovariance
from sklearn.frozen import FrozenEstimator
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import normalize as l2_normalize
from sklearn.utils import check_random_state

from .._utils._docstrings import fill_doc
from .._utils._sklearn import (
    HasMethods,
    Interval,
    num_samples,
    safe_indexing,
    validate_params,
)
from ._model_output import classifier_inputs, predict_with_confidence
from ._registry import _register, model_output_of

FEATURES = "features"


def _dense(features, name):
    if sp.issparse(features):
        features = features.toarray()
    features = np.asarray(features)
    if features.dtype.kind == "c":
        raise ValueError(
            f"{name} has complex values; a distance between inputs needs real "
            "features (pass e.g. their real and imaginary parts as two columns)."
        )
    try:
        features = features.astype(np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"{name} must be numeric features; got values of dtype "
            f"{features.dtype} ({error}). Encode text or categories first, as the "
            "classifier's own preprocessing does."
        ) from None
    if features.ndim != 2:
        raise ValueError(
            f"{name} must be 2-d (n_samples, n_features); got shape {features.shape}."
        )
    if not np.isfinite(features).all():
        raise ValueError(f"{name} contains NaN or infinity.")
    return features


def _check_n_features(features, n_features, name):
    if features.shape[1] != n_features:
        raise ValueError(
            f"{name} has {features.shape[1]} features, but the training inputs "
            f"had {n_features}; pass the inputs the classifier's final step sees."
        )


# ----------------------------------------------------------------------------
# The scores, fitted
# ----------------------------------------------------------------------------
def pseudo_inverse_cutoff(eigenvalues):
    """Eigenvalues of the covariance at or below this are taken as zero: a
    relative ``max(1e-12, 10 d eps)`` of the largest, well above the rounding
    of an exact zero (scipy's ``pinvh`` default, ``d eps``, kept one in
    scipy 1.11 and made its inverse 1e15)."""
    largest = max(float(eigenvalues.max(initial=0.0)), 0.0)
    return largest * max(1e-12, 10 * eigenvalues.shape[0] * np.finfo(float).eps)


def _label_index(labels, name):
    """Index of each training label among the distinct labels, refusing NaN
    (an unknown label is no class of its own) and mixed types."""
    if labels.dtype.kind == "f" and np.isnan(labels).any():
        raise ValueError(
            f"{name} contains {int(np.isnan(labels).sum())} NaN value(s); "
            "every training label must be known. Drop the unlabelled samples."
        )
    if labels.dtype == object:
        missing = [value for value in labels.tolist() if value != value]
        if missing:
            raise ValueError(
                f"{name} contains {len(missing)} missing value(s) (NaN); "
                "every training label must be known. Drop the unlabelled samples."
            )
    try:
        return np.unique(labels, return_inverse=True)[1].reshape(-1)
    except TypeError:
        kinds = sorted({type(value).__name__ for value in labels.tolist()})
        raise ValueError(
            f"{name} mix types {kinds}; pass labels of one type (as the "
            "classifier's classes_)."
        ) from None


def _check_knn_params(n_neighbors, normalize, where):
    """``n_neighbors`` an int >= 1 (not a bool) and ``normalize`` a bool."""
    if (
        not isinstance(n_neighbors, Integral)
        or isinstance(n_neighbors, bool | np.bool_)
        or n_neighbors < 1
    ):
        raise ValueError(
            f"{where}n_neighbors must be an int >= 1; got {n_neighbors!r}."
        )
    if not isinstance(normalize, bool | np.bool_):
        raise ValueError(f"{where}normalize must be True or False; got {normalize!r}.")


class _Mahalanobis:
    """Minus the smallest squared Mahalanobis distance to a class mean.

    The covariance is shared by the classes and estimated around each
    sample's class mean (Lee et al. 2018, Eq. 1), by
    :class:`~sklearn.covariance.EmpiricalCovariance`; its inverse is the
    pseudo-inverse, so directions without training variance (eigenvalues
    below :func:`pseudo_inverse_cutoff`) are ignored. Distances are computed
    in the whitened space ``x W`` with ``W W^T`` the pseudo-inverse:
    ``O(n k d)`` after one ``O(n d^2)`` product.
    """

    def fit(self, features, labels, labels_name="training_labels"):
        features = _dense(features, "training_features")
        labels = np.asarray(labels)
        if labels.shape != (features.shape[0],):
            raise ValueError(
                f"{labels_name} has shape {labels.shape}; pass one label per "
                f"training sample ({features.shape[0]})."
            )
        index = _label_index(labels, labels_name)
        counts = np.bincount(index)
        sums = np.zeros((counts.size, features.shape[1]))
        np.add.at(sums, index, features)
        means = sums / counts[:, None]
        centred = features - means[index]
        with warnings.catch_warnings():  # one sample: a zero covariance, said
            warnings.filterwarnings("ignore", "Only one sample", UserWarning)
            covariance = EmpiricalCovariance(
                assume_centered=True, store_precision=False
            ).fit(centred)
        eigenvalues, eigenvectors = np.linalg.eigh(covariance.covariance_)
        keep = eigenvalues > pseudo_inverse_cutoff(eigenvalues)
        self.whitening_ = eigenvectors[:, keep] / np.sqrt(eigenvalues[keep])
        self.whitened_means_ = means @ self.whitening_
        self.n_features_ = features.shape[1]
        return self

    def __call__(self, features):
        features = _dense(features, "features")
        _check_n_features(features, self.n_features_, "features")
        whitened = features @ self.whitening_
        distance = np.full(features.shape[0], np.inf)
        for mean in self.whitened_means_:  # a loop over classes, not samples
            np.minimum(distance, ((whitened - mean) ** 2).sum(axis=1), out=distance)
        return -distance


class _KNNDistance:
    """Minus the distance to the k-th nearest training input (Sun et al. 2022).

    With ``normalize`` (the paper's choice), inputs are scaled to unit L2
    norm first. The neighbours come from scikit-learn's
    :class:`~sklearn.neighbors.NearestNeighbors` (a tree or brute force in
    blocks; never an ``n x n`` matrix).
    """

    def __init__(self, n_neighbors=50, normalize=True, where=""):
        _check_knn_params(n_neighbors, normalize, where)
        self.n_neighbors = int(n_neighbors)
        self.normalize = bool(normalize)

    def _prepare(self, features, name):
        features = _dense(features, name)
        return l2_normalize(features) if self.normalize else features

    def fit(self, features, labels=None):
        features = self._prepare(features, "training_features")  # labels unused
        if self.n_neighbors > features.shape[0]:
            raise ValueError(
                f"n_neighbors={self.n_neighbors} exceeds the {features.shape[0]} "
                "training inputs; pass csf_params={'n_neighbors': k} with k at most "
                "the number of training samples (Sun et al. use k = 50 for 50,000)."
            )
        self.neighbors_ = NearestNeighbors(n_neighbors=self.n_neighbors).fit(features)
        self.n_features_ = features.shape[1]
        return self

    def __call__(self, features):
        features = self._prepare(features, "features")
        _check_n_features(features, self.n_features_, "features")
        distance, _ = self.neighbors_.kneighbors(features)
        return -distance[:, -1]


# ----------------------------------------------------------------------------
# The definitions, as functions of arrays
# ----------------------------------------------------------------------------
@_register(FEATURES)
@fill_doc
@validate_params(
    {
        "features": ["array-like", "sparse matrix"],
        "training_features": ["array-like", "sparse matrix"],
        "training_labels": ["array-like"],
    },
    prefer_skip_nested_validation=True,
)
def mahalanobis(features, *, training_features, training_labels):
    r"""Mahalanobis confidence: minus the distance to the nearest class Gaussian.

    With class means :math:`\mu_c` and the covariance :math:`\Sigma` shared by
    the classes, both estimated on the training inputs,

    .. math::
        M(x) = -\min_c\,(x - \mu_c)^\top \Sigma^{+} (x - \mu_c),

    where :math:`\Sigma = \frac{1}{N}\sum_c \sum_{i: y_i = c}
    (x_i - \mu_c)(x_i - \mu_c)^\top` and :math:`\Sigma^{+}` is its
    pseudo-inverse: directions without training variance (eigenvalues below
    ``max(1e-12, 10 d eps)`` times the largest) are ignored; a single
    training sample gives 0 everywhere.

    Parameters
    ----------
    %(feature_space_inputs)s

    training_labels : array-like of shape (n_train,)
        Their labels; one Gaussian per label present.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        Minus the squared Mahalanobis distance; higher means more confident
        (closer to the training data). At most 0.

    See Also
    --------
    knn_distance : Distance to the k-th nearest training input.
    fit_feature_confidence : The same score fitted once, for a fitted model.

    References
    ----------
    .. [1] K. Lee, K. Lee, H. Lee, J. Shin. *A Simple Unified Framework for
       Detecting Out-of-Distribution Samples and Adversarial Attacks.*
       NeurIPS 2018, Eq. 1-2.

    Examples
    --------
    >>> from sklearn_selective.confidence import mahalanobis
    >>> train = [[0.0, 0.0], [2.0, 0.0], [10.0, 0.0], [12.0, 0.0], [1.0, 1.0]]
    >>> labels = [0, 0, 1, 1, 0]
    >>> mahalanobis([[1.0, 0.0], [50.0, 0.0]], training_features=train,
    ...             training_labels=labels).round(2).tolist()
    [-0.83, -1901.25]
    """
    scorer = _Mahalanobis().fit(training_features, training_labels)
    return scorer(features)


@_register(FEATURES)
@fill_doc
@validate_params(
    {
        "features": ["array-like", "sparse matrix"],
        "training_features": ["array-like", "sparse matrix"],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "normalize": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def knn_distance(features, *, training_features, n_neighbors=50, normalize=True):
    r"""k-NN confidence: minus the distance to the k-th nearest training input.

    .. math::
        S(x) = -\lVert z(x) - z_{(k)}(x) \rVert_2,

    where :math:`z` is the input scaled to unit L2 norm (``normalize=True``,
    the paper's choice; the raw input otherwise) and :math:`z_{(k)}(x)` its
    k-th nearest neighbour among the training inputs, found by
    :class:`~sklearn.neighbors.NearestNeighbors`.

    Parameters
    ----------
    %(feature_space_inputs)s

    n_neighbors : int, default=50
        k; at most ``n_train``. Sun et al. use 50 with 50,000 training images
        (CIFAR-10).

    normalize : bool, default=True
        Scale every input to unit L2 norm first. Without it the score also
        sees the input's magnitude (e.g. added noise raises a pixel vector's
        norm), which the normalised score ignores.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        Minus the distance; higher means more confident. At most 0.

    See Also
    --------
    mahalanobis : Distance to the nearest class Gaussian.
    fit_feature_confidence : The same score fitted once, for a fitted model.

    References
    ----------
    .. [1] Y. Sun, Y. Ming, X. Zhu, Y. Li. *Out-of-Distribution Detection with
       Deep Nearest Neighbors.* ICML 2022, Sec. 3.

    Examples
    --------
    >>> from sklearn_selective.confidence import knn_distance
    >>> train = [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]]
    >>> knn_distance([[0.0, 2.0], [-1.0, 0.0]], training_features=train,
    ...              n_neighbors=2).round(3)
    array([-0.765, -1.848])
    """
    scorer = _KNNDistance(n_neighbors, normalize).fit(training_features)
    return scorer(features)


# ----------------------------------------------------------------------------
# Fitted once, on a model's training inputs
# ----------------------------------------------------------------------------
class FeatureConfidence:
    """A feature-space CSF fitted on a classifier's training inputs.

    Made by :func:`fit_feature_confidence` (or by an estimator given
    ``csf="mahalanobis"`` or ``"knn_distance"``); pass it as ``csf=`` wherever
    a CSF goes. Called on the features the classifier's final step sees, it
    returns one confidence per sample.

    Parameters
    ----------
    name : str
        ``"mahalanobis"`` or ``"knn_distance"``.

    params : dict
        The CSF's parameters (``n_neighbors``, ``normalize`` for k-NN).

    scorer : callable
        The fitted score of features, made by :func:`fit_feature_confidence`
        (not a user's argument: build one with that function).

    n_training_samples : int
        Number of training inputs it was fitted on.

    Attributes
    ----------
    name : str
        ``"mahalanobis"`` or ``"knn_distance"``.

    params : dict
        The CSF's parameters.

    n_training_samples : int
        Number of training inputs it was fitted on.

    model_output : str
        ``"features"``: it reads the inputs of the final step.

    See Also
    --------
    fit_feature_confidence : Makes one.

    References
    ----------
    .. [1] K. Lee, K. Lee, H. Lee, J. Shin. *A Simple Unified Framework for
       Detecting Out-of-Distribution Samples and Adversarial Attacks.*
       NeurIPS 2018, Eq. 1-2.
    .. [2] Y. Sun, Y. Ming, X. Zhu, Y. Li. *Out-of-Distribution Detection with
       Deep Nearest Neighbors.* ICML 2022, Sec. 3.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_selective.confidence import fit_feature_confidence
    >>> X, y = load_iris(return_X_y=True)
    >>> model = LogisticRegression(max_iter=1000).fit(X, y)
    >>> csf = fit_feature_confidence("knn_distance", model, X,
    ...                              csf_params={"n_neighbors": 10})
    >>> csf.name, csf.n_training_samples
    ('knn_distance', 150)
    >>> bool(csf([[5.0, 3.4, 1.5, 0.2]])[0] > csf([[9.0, 1.0, 9.0, 0.1]])[0])
    True
    """

    model_output = FEATURES

    def __init__(self, name, params, scorer, n_training_samples):
        self.name = name
        self.params = params
        self._scorer = scorer
        self.n_training_samples = n_training_samples

    @property
    def __name__(self):
        return self.name

    def __call__(self, features):
        return self._scorer(features)

    def __repr__(self):
        params = "".join(f", {key}={value!r}" for key, value in self.params.items())
        return (
            f"FeatureConfidence({self.name!r}{params}, "
            f"n_training_samples={self.n_training_samples})"
        )


_PARAMETERS = {"mahalanobis": (), "knn_distance": ("n_neighbors", "normalize")}


def fit_on_features(csf, features, y, csf_params=None):
    """``FeatureConfidence`` of the CSF named ``csf`` fitted on ``features``."""
    params = dict(csf_params or {})
    unknown = sorted(set(params) - set(_PARAMETERS[csf]))
    if unknown:
        takes = " and ".join(_PARAMETERS[csf]) or "no parameters"
        raise ValueError(
            f"csf_params {unknown} are not parameters of {csf!r}; it takes {takes}."
        )
    if csf == "knn_distance":
        scorer = _KNNDistance(**params, where="csf_params ").fit(features)
    else:
        scorer = _Mahalanobis().fit(features, y, labels_name="y")
    return FeatureConfidence(csf, params, scorer, num_samples(features))


def is_feature_csf(csf):
    """Whether ``csf`` (a name or callable) reads the final step's inputs."""
    return model_output_of(csf) == FEATURES


def needs_training_inputs(csf):
    """Whether ``csf`` is a feature-space CSF that still has to be fitted."""
    return isinstance(csf, str) and is_feature_csf(csf)


@validate_params(
    {
        "csf": [str],
        "estimator": [HasMethods(["predict"])],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like", None],
        "csf_params": [dict, None],
    },
    prefer_skip_nested_validation=True,
)
def fit_feature_confidence(csf, estimator, X, y=None, csf_params=None):
    """Fit a feature-space CSF on the inputs a fitted classifier was trained on.

    For a model trained elsewhere (a ``FrozenEstimator`` in
    :class:`~sklearn_selective.SelectiveClassifier` or
    :class:`~sklearn_selective.ATCEstimator`, any fitted classifier in
    :class:`~sklearn_selective.PerformanceMonitor`): the result goes in
    ``csf=``. ``X`` passes through a Pipeline's transformers first, so the
    score reads what the final classifier sees.

    Parameters
    ----------
    csf : {"mahalanobis", "knn_distance"}
        The feature-space CSF.

    estimator : fitted classifier
        The classifier (or Pipeline, or ``FrozenEstimator``) trained on ``X``.

    X : {array-like, sparse matrix} of shape (n_train, n_features)
        Its training inputs (raw: a Pipeline transforms them).

    y : array-like of shape (n_train,), default=None
        Its training labels; needed by ``"mahalanobis"``.

    csf_params : dict, default=None
        ``{"n_neighbors": k, "normalize": bool}`` for ``"knn_distance"``.

    Returns
    -------
    csf : FeatureConfidence
        The fitted score, to pass as ``csf=``.

    See Also
    --------
    mahalanobis, knn_distance : The definitions.

    References
    ----------
    .. [1] K. Lee, K. Lee, H. Lee, J. Shin. *A Simple Unified Framework for
       Detecting Out-of-Distribution Samples and Adversarial Attacks.*
       NeurIPS 2018, Eq. 1-2.
    .. [2] Y. Sun, Y. Ming, X. Zhu, Y. Li. *Out-of-Distribution Detection with
       Deep Nearest Neighbors.* ICML 2022, Sec. 3.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_selective.confidence import (
    ...     fit_feature_confidence, predict_with_confidence)
    >>> X, y = load_iris(return_X_y=True)
    >>> model = LogisticRegression(max_iter=1000).fit(X, y)
    >>> csf = fit_feature_confidence("mahalanobis", model, X, y)
    >>> csf
    FeatureConfidence('mahalanobis', n_training_samples=150)
    >>> _, confidence = predict_with_confidence(model, [[5.0, 3.4, 1.5, 0.2],
    ...                                                 [9.0, 1.0, 9.0, 0.1]], csf)
    >>> confidence.round(1).tolist()  # a typical flower, an impossible one
    [-0.1, -321.3]
    """
    if not is_feature_csf(csf):
        raise ValueError(
            f"csf={csf!r} is not a feature-space CSF; use 'mahalanobis' or "
            "'knn_distance' (other CSFs need no fitting)."
        )
    if csf == "mahalanobis" and y is None:
        raise ValueError("csf='mahalanobis' needs y, the training labels.")
    return fit_on_features(csf, classifier_inputs(estimator, X), y, csf_params)


# ----------------------------------------------------------------------------
# The held-out inference of the estimators
# ----------------------------------------------------------------------------
class _Inference:
    """``predict_with_confidence`` with a fixed CSF, which it exposes as ``csf``."""

    def __init__(self, csf, csf_params=None):
        self.csf, self.csf_params = csf, csf_params or {}

    def __call__(self, estimator, X):
        return predict_with_confidence(estimator, X, self.csf, self.csf_params)


class _TrainingFoldInference:
    """The inference of a feature-space CSF named by a string: ``fit`` fits it
    on a model's training inputs and returns that model's inference."""

    def __init__(self, csf, csf_params=None):
        self.csf, self.csf_params = csf, csf_params

    def fit(self, estimator, X, y, reference_size=None, random_state=None):
        """The inference of ``estimator`` trained on ``(X, y)``. With
        ``reference_size`` below the number of samples, the score is fitted on
        a random subset of that size (drawn with ``random_state``), so that its
        distances are distributed as those of a training fold of that size."""
        if isinstance(estimator, FrozenEstimator):  # X is not its training data
            self(estimator.estimator, X)
        features = classifier_inputs(estimator, X)
        n_samples = num_samples(features)
        if reference_size is not None and reference_size < n_samples:
            rng = check_random_state(random_state)
            keep = np.sort(rng.choice(n_samples, reference_size, replace=False))
            features = safe_indexing(features, keep)
            y = None if y is None else safe_indexing(y, keep)
        return _Inference(fit_on_features(self.csf, features, y, self.csf_params))

    def __call__(self, estimator, X):  # a model trained elsewhere
        raise ValueError(
            f"csf={self.csf!r} measures the distance to the classifier's training "
            f"inputs, which a {type(estimator).__name__} does not keep. Pass "
            f"csf=fit_feature_confidence({self.csf!r}, model, X_train, y_train) "
            "with the model's training data, or an unfitted classifier."
        )


def held_out_inference(csf, csf_params=None):
    """The inference the held-out loop of an estimator runs for ``csf``."""
    if needs_training_inputs(csf):
        return _TrainingFoldInference(csf, csf_params)
    return _Inference(csf, csf_params)


def fit_for_deployment(csf, estimator, X, y, csf_params=None):
    """``csf`` for a model trained on ``(X, y)``: fitted if it must be."""
    if needs_training_inputs(csf):
        return _TrainingFoldInference(csf, csf_params).fit(estimator, X, y).csf
    return csf
