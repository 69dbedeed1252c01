"""Confidence score functions of an ensemble: member probabilities (m, n, k).

The members are the trees of a forest, bagged models, the samples of
Monte-Carlo dropout, or the predictions for test-time augmentations of one
input. Every function returns one confidence per sample, higher meaning more
confident (uncertainty measures are negated).
"""

import numpy as np

from .._utils._row_blocks import (
    _as_float_array,
    apply_blockwise,
    check_probability_block,
    row_max,
)
from .._utils._sklearn import validate_params
from ._functions import _sum_p_log_p
from ._registry import _register


def _ensemble(proba):
    return _as_float_array(proba, "proba", ndim=(3,))


def _check_ensemble_block(block):
    check_probability_block(block, name="proba (the ensemble probabilities)")


def _vote_shares(P):
    """Share of the members voting for each class, ``(n, k)``.

    Each member votes for its most probable class (the first on ties).
    """
    n_members, n_rows, n_classes = P.shape
    votes = P.argmax(axis=2) + n_classes * np.arange(n_rows)
    counts = np.bincount(votes.ravel(), minlength=n_rows * n_classes)
    return counts.reshape(n_rows, n_classes) / n_members


def _predicted_class_variance_kernel(P):
    mean = P.mean(axis=0)
    predicted = P[:, np.arange(P.shape[1]), mean.argmax(axis=1)]  # (m, n)
    return 0.0 - predicted.var(axis=0)  # no negative zero


def _prediction_variance_kernel(P):
    # sum_j p_j (1 - p_j) = 1 - ||p||^2, the trace of the covariance of the
    # one-hot encoded label drawn from the mean probabilities.
    mean = P.mean(axis=0)
    return np.einsum("ij,ij->i", mean, mean) - 1


def _ensemble_entropies(P):
    """(-H(mean p), -E[H(p)]) per sample."""
    total = _sum_p_log_p(P.mean(axis=0))
    aleatoric = _sum_p_log_p(P).mean(axis=0)
    return total, aleatoric


def _on_ensemble(kernel, proba):
    return apply_blockwise(kernel, _ensemble(proba), _check_ensemble_block, row_axis=1)


_ENSEMBLE = {"proba": ["array-like"]}


@_register("ensemble_proba")
@validate_params(_ENSEMBLE, prefer_skip_nested_validation=True)
def ensemble_msp(proba):
    """Maximum of the ensemble's mean probability vector.

    Parameters
    ----------
    proba : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of each ensemble member (trees of a forest,
        bagged models, or Monte-Carlo dropout samples).

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        Higher means more confident.

    See Also
    --------
    msp : The same score of a single probability vector.

    References
    ----------
    .. [1] A. Pignet, C. Regniez, J. Klein. *Legitimate ground-truth-free
       metrics for deep uncertainty classification scoring*, Sec. 7.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.confidence import ensemble_msp
    >>> members = np.array([[[0.9, 0.1]], [[0.5, 0.5]]])
    >>> ensemble_msp(members)
    array([0.7])
    """
    return _on_ensemble(lambda P: row_max(P.mean(axis=0)), proba)


@_register("ensemble_proba")
@validate_params(_ENSEMBLE, prefer_skip_nested_validation=True)
def total_entropy(proba):
    """Negative entropy of the ensemble's mean probabilities (total uncertainty).

    Equals ``aleatoric_entropy(proba) + mutual_information(proba)``.

    Parameters
    ----------
    proba : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of each ensemble member.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        ``-H(mean_m p_m)``; higher means more confident.

    See Also
    --------
    aleatoric_entropy : Negative expected entropy of the members.
    mutual_information : Negative mutual information (epistemic part).

    References
    ----------
    .. [1] A. Pignet, C. Regniez, J. Klein. *Legitimate ground-truth-free
       metrics for deep uncertainty classification scoring*, Sec. 7.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.confidence import total_entropy
    >>> members = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])
    >>> total_entropy(members).round(4)
    array([-0.6931])
    """
    return _on_ensemble(lambda P: _ensemble_entropies(P)[0], proba)


@_register("ensemble_proba")
@validate_params(_ENSEMBLE, prefer_skip_nested_validation=True)
def aleatoric_entropy(proba):
    """Negative expected entropy of the members (aleatoric uncertainty).

    Parameters
    ----------
    proba : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of each ensemble member.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        ``-mean_m H(p_m)``; higher means more confident.

    See Also
    --------
    total_entropy : Negative entropy of the mean probabilities.
    mutual_information : Their difference.

    References
    ----------
    .. [1] A. Pignet, C. Regniez, J. Klein. *Legitimate ground-truth-free
       metrics for deep uncertainty classification scoring*, Sec. 7.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.confidence import aleatoric_entropy
    >>> members = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])
    >>> aleatoric_entropy(members)
    array([0.])
    """
    return _on_ensemble(lambda P: _ensemble_entropies(P)[1], proba)


@_register("ensemble_proba")
@validate_params(_ENSEMBLE, prefer_skip_nested_validation=True)
def mutual_information(proba):
    """Negative mutual information between prediction and model (epistemic).

    ``MI = H(mean_m p_m) - mean_m H(p_m) >= 0`` (BALD); the score is ``-MI``,
    which is ``total_entropy - aleatoric_entropy`` and never positive.

    Parameters
    ----------
    proba : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of each ensemble member.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        ``-MI``; higher (closer to 0) means the members agree more.

    See Also
    --------
    total_entropy, aleatoric_entropy

    References
    ----------
    .. [1] A. Pignet, C. Regniez, J. Klein. *Legitimate ground-truth-free
       metrics for deep uncertainty classification scoring*, Sec. 7.
    .. [2] J. Traub et al. *Overcoming Common Flaws in the Evaluation of
       Selective Classification Systems.* NeurIPS 2024 (MCD-MI).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.confidence import mutual_information
    >>> members = np.array([[[1.0, 0.0], [0.5, 0.5]], [[0.0, 1.0], [0.5, 0.5]]])
    >>> mutual_information(members).round(4)
    array([-0.6931,  0.    ])
    """

    def kernel(P):
        total, aleatoric = _ensemble_entropies(P)
        return np.minimum(total - aleatoric, 0)

    return _on_ensemble(kernel, proba)


@_register("ensemble_proba")
@validate_params(_ENSEMBLE, prefer_skip_nested_validation=True)
def variation_ratio(proba):
    """Share of the members that vote for the modal class (one minus Freeman's VR).

    Each member votes for its most probable class (the first on ties); the
    score is ``max_j f_j / m``, where ``f_j`` members vote for class ``j``.
    This is ``1 - VR`` for the variation ratio of Freeman (1965) as Gal (2016)
    uses it for Monte-Carlo dropout: a disagreement of the *votes*.

    The UQ paper (Pignet et al., Sec. 7) gives the name "variation ratio" to a
    different score, ``VR = 1 - pihat_yhat``, one minus the mean probability of
    the predicted class: that is ``1 - ensemble_msp(proba)``, so use
    :func:`ensemble_msp` (the same order, higher = more confident) for it.

    Parameters
    ----------
    proba : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of each ensemble member.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        In ``[1/k, 1]``; higher means more agreement.

    See Also
    --------
    ensemble_msp : The UQ paper's "variation ratio" ``1 - pihat_yhat``, negated.
    vote_entropy : Entropy of the whole vote histogram.

    References
    ----------
    .. [1] L. C. Freeman. *Elementary Applied Statistics.* Wiley, 1965
       (variation ratio).
    .. [2] Y. Gal. *Uncertainty in Deep Learning.* PhD thesis, University of
       Cambridge, 2016, Ch. 3 (variation ratios of MC-dropout samples).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.confidence import variation_ratio
    >>> members = np.array([[[0.9, 0.1]], [[0.6, 0.4]], [[0.2, 0.8]]])
    >>> variation_ratio(members).round(4)
    array([0.6667])
    """
    return _on_ensemble(lambda P: row_max(_vote_shares(P)), proba)


@_register("ensemble_proba")
@validate_params(_ENSEMBLE, prefer_skip_nested_validation=True)
def predicted_class_variance(proba):
    """Negative variance of the predicted class's probability across members.

    With ``yhat = argmax_j mean_m p_mj`` (the ensemble's prediction, the first
    class on ties), the score is ``-(1/m) sum_m (p_m,yhat - mean_m p_m,yhat)^2``
    (population variance, ``ddof=0``): members that agree on how probable the
    prediction is give a higher confidence. "The variance of the predicted
    class" that the UQ paper scores deep ensembles and MC dropout with.

    Parameters
    ----------
    proba : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of each ensemble member.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        In ``[-1/4, 0]``; higher means more confident.

    See Also
    --------
    prediction_variance : The first-order variance of the prediction.
    mutual_information : Disagreement of the members measured by entropy.

    References
    ----------
    .. [1] A. Pignet, C. Regniez, J. Klein. *Legitimate ground-truth-free
       metrics for deep uncertainty classification scoring*, Sec. 7 and
       Sec. 17.1.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.confidence import predicted_class_variance
    >>> members = np.array([[[0.9, 0.1], [0.6, 0.4]], [[0.5, 0.5], [0.6, 0.4]]])
    >>> predicted_class_variance(members).round(4)
    array([-0.04,  0.  ])
    """
    return _on_ensemble(_predicted_class_variance_kernel, proba)


@_register("ensemble_proba")
@validate_params(_ENSEMBLE, prefer_skip_nested_validation=True)
def prediction_variance(proba):
    """Negative variance of the prediction under the mean probabilities.

    The first-order score of the UQ paper, ``Var[Y~ | X = x]`` with ``Y~``
    drawn from the ensemble's mean probabilities ``pbar``. For ``k`` classes
    ``Y~`` is one-hot encoded and its variance is the trace of the covariance,
    ``sum_j pbar_j (1 - pbar_j) = 1 - ||pbar||^2``; for two classes this is
    ``2 pbar_1 (1 - pbar_1)``, twice the paper's Bernoulli variance (the same
    order). With one member it is the softmax baseline's score and equals
    :func:`gini` of the probabilities.

    Parameters
    ----------
    proba : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of each ensemble member (pass ``proba[None]`` for a
        single model).

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        ``||pbar||^2 - 1`` in ``[1/k - 1, 0]``; higher means more confident.

    See Also
    --------
    predicted_class_variance : Variance across the members.
    gini : The same score of one probability vector.

    References
    ----------
    .. [1] A. Pignet, C. Regniez, J. Klein. *Legitimate ground-truth-free
       metrics for deep uncertainty classification scoring*, Sec. 7 and
       Sec. 17.1 ("the variance of the prediction").

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.confidence import prediction_variance
    >>> members = np.array([[[0.9, 0.1]], [[0.7, 0.3]]])
    >>> prediction_variance(members).round(4)
    array([-0.32])
    """
    return _on_ensemble(_prediction_variance_kernel, proba)


@_register("ensemble_proba")
@validate_params(_ENSEMBLE, prefer_skip_nested_validation=True)
def vote_entropy(proba):
    """Negative entropy of the members' predicted-label histogram.

    Each member (a test-time augmentation of the input, an MC-dropout sample,
    an ensemble member) votes for its most probable class (the first on
    ties); with ``q_j`` the share of votes for class ``j``, the score is
    ``sum_j q_j log q_j`` (natural logarithm, ``0 log 0 = 0``). The
    test-time-augmentation uncertainty of Wang et al. (2019), as the UQ paper
    describes it in Sec. 7, negated.

    Parameters
    ----------
    proba : array-like of shape (n_members, n_samples, n_classes)
        Class probabilities of each member, e.g. of one model on ``m``
        augmented copies of the inputs.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        In ``[-log min(m, k), 0]``; 0 when every member votes alike.

    See Also
    --------
    variation_ratio : Share of the modal vote.
    total_entropy : Entropy of the mean probabilities.

    References
    ----------
    .. [1] A. Pignet, C. Regniez, J. Klein. *Legitimate ground-truth-free
       metrics for deep uncertainty classification scoring*, Sec. 7.
    .. [2] G. Wang, W. Li, M. Aertsen, J. Deprest, S. Ourselin, T. Vercauteren.
       *Aleatoric uncertainty estimation with test-time augmentation for
       medical image segmentation with convolutional neural networks.*
       Neurocomputing 338, 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.confidence import vote_entropy
    >>> members = np.array([[[0.9, 0.1]], [[0.6, 0.4]], [[0.2, 0.8]], [[0.1, 0.9]]])
    >>> vote_entropy(members).round(4)
    array([-0.6931])
    """
    return _on_ensemble(lambda P: _sum_p_log_p(_vote_shares(P)), proba)
