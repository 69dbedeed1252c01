"""The Gaussian-mixture benchmark of the UQ paper (Pignet et al., Sec. 17.1)."""

from numbers import Integral, Real

import numpy as np
from scipy.special import softmax
from sklearn.utils import check_random_state

from .._utils._row_blocks import check_probabilities
from .._utils._sklearn import Interval, validate_params
from .._utils._validation import _check_array


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "n_classes": [Interval(Integral, 2, None, closed="left")],
        "priors": ["array-like", None],
        "tau": [Interval(Real, 0, None, closed="neither")],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
        "return_means": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def make_gaussian_mixture_uq(
    n_samples=1000,
    *,
    n_features=2,
    n_classes=2,
    priors=None,
    tau=1.0,
    sigma=1.0,
    random_state=None,
    return_means=False,
):
    """Gaussian classes with random means, and the exact posterior of every sample.

    The synthetic benchmark of Pignet et al. (Sec. 17.1): the class means are
    drawn as ``mu_j ~ N(0, tau I)``; each label as ``y ~ Categorical(priors)``
    (Bernoulli for two classes); each input as ``x ~ N(mu_y, sigma^2 I)``. The
    true posterior is then known in closed form (their Eq. 122)::

        pi_j(x) = w_j N(x; mu_j, sigma^2 I) / sum_l w_l N(x; mu_l, sigma^2 I),

    from which :func:`uq_ground_truth` computes the paper's two uncertainty
    ground truths for any classifier. The defaults are the paper's: two
    features, two classes with equal priors, ``tau = sigma = 1``, 1000 samples
    (which the paper splits 600/400, stratified).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of samples.

    n_features : int, default=2
        Dimension of the inputs.

    n_classes : int, default=2
        Number of classes (Gaussian components).

    priors : array-like of shape (n_classes,), default=None
        Class priors ``P(Y = j)``, non-negative and summing to 1; None means
        equal priors (the ``weights`` of :func:`sklearn.datasets.make_classification`,
        named as in :class:`sklearn.naive_bayes.GaussianNB`). The paper's
        ``p = P(Y = 1)`` is ``priors=[1 - p, p]``.

    tau : float > 0, default=1.0
        Variance of the distribution of the class means: ``tau`` controls how
        far apart the classes are, hence their overlap.

    sigma : float > 0, default=1.0
        Standard deviation of each class around its mean (the paper's
        ``N(mu_y, sigma)``; with the default ``sigma = 1`` standard deviation
        and variance coincide).

    random_state : int, RandomState instance or None, default=None
        Determines the means, labels and inputs. Pass an int for reproducible
        output.

    return_means : bool, default=False
        Also return the class means.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The inputs.

    y : ndarray of shape (n_samples,)
        The labels, integers in ``0 .. n_classes - 1``.

    posterior : ndarray of shape (n_samples, n_classes)
        The true class probabilities ``P(Y = j | X = x)`` of every sample
        (Eq. 122), rows summing to 1.

    means : ndarray of shape (n_classes, n_features)
        The class means. Only returned if ``return_means=True``.

    See Also
    --------
    uq_ground_truth : The paper's two ground truths from the posterior.
    sklearn.datasets.make_blobs : Gaussian blobs without the posterior.

    References
    ----------
    .. [1] A. Pignet, C. Regniez, J. Klein. *Legitimate ground-truth-free
       metrics for deep uncertainty classification scoring*, Sec. 17.1,
       Eq. 122.

    Examples
    --------
    >>> from sklearn_selective.datasets import make_gaussian_mixture_uq
    >>> X, y, posterior = make_gaussian_mixture_uq(n_samples=5, random_state=0)
    >>> X.shape, y.shape, posterior.shape
    ((5, 2), (5,), (5, 2))
    >>> posterior.sum(axis=1)
    array([1., 1., 1., 1., 1.])
    """
    priors = _check_priors(priors, n_classes)
    rng = check_random_state(random_state)
    means = rng.normal(scale=np.sqrt(tau), size=(n_classes, n_features))
    y = rng.choice(n_classes, size=n_samples, p=priors)
    X = means[y] + sigma * rng.normal(size=(n_samples, n_features))
    # Eq. 122 in log space: log w_j - ||x - mu_j||^2 / (2 sigma^2), normalised.
    squared = ((X[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    with np.errstate(divide="ignore"):  # a zero prior: log 0 = -inf, posterior 0
        log_joint = np.log(priors) - squared / (2 * sigma**2)
    posterior = softmax(log_joint, axis=1)
    if return_means:
        return X, y, posterior, means
    return X, y, posterior


def _check_priors(priors, n_classes):
    if priors is None:
        return np.full(n_classes, 1 / n_classes)
    priors = _check_array(priors, "priors", ensure_2d=False)
    if priors.shape != (n_classes,):
        raise ValueError(
            f"priors must have one prior per class, shape ({n_classes},); got "
            f"shape {priors.shape}. Pass n_classes={priors.size} or {n_classes} "
            "priors."
        )
    if priors.min() < 0 or not np.isclose(priors.sum(), 1.0, rtol=0, atol=1e-8):
        raise ValueError(
            f"priors must be non-negative and sum to 1; got {priors.tolist()}."
        )
    return priors / priors.sum()


@validate_params(
    {
        "posterior": ["array-like"],
        "y_pred": ["array-like"],
        "y_proba": ["array-like"],
    },
    prefer_skip_nested_validation=True,
)
def uq_ground_truth(posterior, y_pred, y_proba):
    """The UQ paper's two uncertainty ground truths of a classifier.

    With the true posterior ``pi(x)`` (known for
    :func:`make_gaussian_mixture_uq`), a classifier's prediction ``yhat`` and
    its probabilities ``pihat(x)``:

    * ``phi(x) = 1 - pi_yhat(x)``, the probability that the prediction is
      wrong (Eq. 4-6); UQ-AUC is maximised by scores that rank like it
      (Theorem 3.1);
    * ``varphi(x) = 1 - pihat_ybayes(x)`` with ``ybayes = argmax_j pi_j(x)``,
      how little probability the model gives to the Bayes-optimal class
      (Eq. 7-8); UQ-C-index is maximised by scores that rank like it.

    Both are uncertainties (higher = less reliable): a confidence score should
    be *decreasing* in them, e.g. ``kendalltau(-confidence, phi)`` close to 1.

    Parameters
    ----------
    posterior : array-like of shape (n_samples, n_classes)
        True class probabilities; column ``j`` belongs to class ``j``.

    y_pred : array-like of shape (n_samples,)
        The classifier's predictions, integers in ``0 .. n_classes - 1``.

    y_proba : array-like of shape (n_samples, n_classes)
        The classifier's probabilities, columns in the same class order.

    Returns
    -------
    phi : ndarray of shape (n_samples,)
        True probability that the prediction is wrong.

    varphi : ndarray of shape (n_samples,)
        One minus the model's probability of the Bayes-optimal class.

    See Also
    --------
    make_gaussian_mixture_uq : Data with a known posterior.
    sklearn_selective.metrics.uq_auc : The metric that tracks ``phi``.
    sklearn_selective.metrics.uq_c_index : The metric that tracks ``varphi``.

    References
    ----------
    .. [1] A. Pignet, C. Regniez, J. Klein. *Legitimate ground-truth-free
       metrics for deep uncertainty classification scoring*, Eq. 4-8.

    Examples
    --------
    >>> from sklearn_selective.datasets import uq_ground_truth
    >>> posterior = [[0.9, 0.1], [0.4, 0.6]]
    >>> phi, varphi = uq_ground_truth(posterior, [0, 0], [[0.8, 0.2], [0.7, 0.3]])
    >>> phi.round(2), varphi.round(2)
    (array([0.1, 0.6]), array([0.2, 0.7]))
    """
    posterior = _check_probability_matrix(posterior, "posterior")
    y_proba = _check_probability_matrix(y_proba, "y_proba")
    y_pred = _check_array(y_pred, "y_pred", ensure_2d=False, dtype=None)
    if not len(posterior) == len(y_pred) == len(y_proba):
        raise ValueError(
            "posterior, y_pred and y_proba must describe the same samples; got "
            f"{len(posterior)}, {len(y_pred)} and {len(y_proba)} rows."
        )
    n_classes = posterior.shape[1]
    if y_proba.shape[1] != n_classes:
        raise ValueError(
            f"y_proba has {y_proba.shape[1]} columns and posterior {n_classes}; "
            "pass both with one column per class, in the same order."
        )
    if y_pred.dtype.kind == "f" and np.all(np.mod(y_pred, 1) == 0):
        y_pred = y_pred.astype(np.intp)  # labels read back as 0.0, 1.0
    if (
        y_pred.ndim != 1
        or y_pred.dtype.kind not in "iu"
        or y_pred.min() < 0
        or y_pred.max() >= n_classes
    ):
        raise ValueError(
            "y_pred must be a 1-d array of class indices, integers in 0 .. "
            f"{n_classes - 1} (the columns of posterior); got {y_pred[:5]!r}..."
        )
    rows = np.arange(len(y_pred))
    phi = 1 - posterior[rows, y_pred]
    varphi = 1 - y_proba[rows, posterior.argmax(axis=1)]
    return phi, varphi


def _check_probability_matrix(values, name):
    """A float array of probability rows, ``(n_samples, n_classes)``."""
    array = _check_array(values, name, ensure_2d=False, dtype=np.float64)
    if array.ndim != 2:
        raise ValueError(
            f"{name} must have shape (n_samples, n_classes), one column per class; "
            f"got an array of shape {array.shape}."
        )
    check_probabilities(array, name)
    return array
