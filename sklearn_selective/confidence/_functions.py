"""Confidence score functions (CSFs) of probabilities and logits.

Every function returns a float64 array of shape ``(n_samples,)`` in which a
higher value means a more confident prediction (entropy-type scores are
negated). Each carries a ``model_output`` attribute naming the model output it
reads: ``"predict_proba"`` (probabilities ``(n, k)``), ``"decision_function"``
(logits ``(n, k)``, or a binary decision function ``(n,)``), or
``"ensemble_proba"`` (member probabilities ``(m, n, k)``).
"""

from numbers import Real

import numpy as np

from .._utils._row_blocks import (
    _as_float_array,
    apply_blockwise,
    check_finite_block,
    check_probability_block,
    row_max,
)
from .._utils._sklearn import Interval, Options, validate_params
from ._registry import (
    _register,
)


# ----------------------------------------------------------------------------
# Input conversion
# ----------------------------------------------------------------------------
def _probabilities(proba):
    return _as_float_array(proba, "proba", ndim=(2,))


def _logits(logits):
    """Logits ``(n, k)``; a binary decision function ``d`` becomes ``(-d/2, d/2)``.

    scikit-learn's binary ``decision_function`` is the logit difference of the
    positive over the negative class; centring it keeps every logit-based CSF
    symmetric in the two classes.
    """
    array = _as_float_array(logits, "logits", ndim=(1, 2))
    if array.ndim == 1:
        half = 0.5 * array
        array = np.stack([-half, half], axis=1)
    return array


# ----------------------------------------------------------------------------
# Kernels: float64 blocks -> one value per row
# ----------------------------------------------------------------------------
_TINY = np.finfo(np.float64).tiny


def _sum_p_log_p(p):
    """``sum p log p`` over the last axis, with ``0 log 0 = 0``.

    Adding the smallest normal float maps 0 to a finite logarithm (multiplied
    by 0) and leaves every other probability unchanged; it is several times
    faster than ``np.maximum`` or ``scipy.special.xlogy``. Values within the
    validation tolerance below 0 count as 0.
    """
    if p.min() < 0:
        p = np.maximum(p, 0)
    return np.einsum("...k,...k->...", p, np.log(p + _TINY))


def _margin_kernel(p):
    n_rows, n_classes = p.shape
    if n_classes == 1:
        return np.ones(n_rows)
    rows = np.arange(n_rows)
    top = p.argmax(axis=1)
    others = p.copy()
    others[rows, top] = -np.inf
    return p[rows, top] - row_max(others)


def _squared_norm(p):
    return np.einsum("ij,ij->i", p, p)


def _l2_to_uniform_kernel(p):
    # ||p - u||^2 = ||p||^2 - 2 sum(p) / k + 1 / k. Expanding it through the
    # same sum of squares as l2_norm makes [ATC] Theorem 2 hold exactly in
    # floating point: rows that tie under l2_norm tie here too.
    n_classes = p.shape[1]
    squared = _squared_norm(p) - 2 * p.sum(axis=1) / n_classes + 1 / n_classes
    return np.sqrt(np.maximum(squared, 0))


def _js_to_uniform_kernel(p):
    # JS(p, u) = 1/2 sum p log p - sum m log m - 1/2 log k, with m = (p + u) / 2.
    # Rows are renormalised first, as scipy's jensenshannon does: rows that sum
    # to 1 only within the validation tolerance (float16, rounded probabilities)
    # then give scipy's value, not one off by the rounding (1e-5 for float16).
    n_classes = p.shape[1]
    p = p / p.sum(axis=1, keepdims=True)
    mixture = 0.5 * p + 0.5 / n_classes
    divergence = 0.5 * _sum_p_log_p(p) - _sum_p_log_p(mixture) - 0.5 * np.log(n_classes)
    return np.sqrt(np.maximum(divergence, 0))


def _centre(z):
    """``z - mean(z)`` per row, with the rounding error of the mean removed.

    When the logits of a row differ by a few units in the last place, the
    rounded mean is off by as much as the differences; the differences
    ``z - mean`` are then exact (Sterbenz), so centring them once more
    removes that error and nearly constant rows keep their exact shape.
    """
    centred = z - z.mean(axis=1, keepdims=True)
    centred -= centred.mean(axis=1, keepdims=True)
    return centred


def _logit_pnorm_kernel(z, p):
    with np.errstate(over="ignore", invalid="ignore"):
        centred = _centre(z)
    scale = row_max(np.abs(centred))
    if not np.isfinite(scale).all():
        # Logits near the float limit (1e308) overflow the mean or z - mean.
        # The score is invariant to a positive rescaling of the row, so divide
        # each row by its largest magnitude first; the result is exact for
        # every finite input. (Done only when needed: it costs a pass.)
        z = z / _nonzero(row_max(np.abs(z)))[:, None]
        centred = _centre(z)
        scale = row_max(np.abs(centred))
    constant = scale == 0
    centred /= _nonzero(scale)[:, None]
    if p == np.inf:
        norm = np.ones_like(scale)
    elif p == 2:
        norm = np.sqrt(_squared_norm(centred))
    else:
        norm = (np.abs(centred) ** p).sum(axis=1) ** (1 / p)
    return np.where(constant, 0.0, row_max(centred) / np.where(constant, 1, norm))


def _nonzero(scale):
    """``scale`` with zeros replaced by ones (a safe divisor)."""
    return np.where(scale == 0, 1.0, scale)


def _energy_kernel(z, temperature):
    # Differences to the row maximum below -1.8e308 overflow to -inf, whose
    # exponential is the correct 0: the overflow is harmless, so silenced.
    top = row_max(z)
    with np.errstate(over="ignore"):
        shifted = np.exp((z - top[:, None]) / temperature).sum(axis=1)
        result = top + temperature * np.log(shifted)
    if not np.isfinite(result).all():
        raise ValueError(
            "The energy score exceeds the float64 range for these logits and "
            f"temperature={temperature:g}; divide the logits and the temperature "
            "by the same constant (the order of the scores is unchanged)."
        )
    return result


def _on_probabilities(kernel, proba):
    array = _probabilities(proba)
    return apply_blockwise(kernel, array, check_probability_block)


def _on_logits(kernel, logits, **params):
    return apply_blockwise(kernel, _logits(logits), check_finite_block, **params)


_PROBA = {"proba": ["array-like"]}
_LOGITS = {"logits": ["array-like"]}

_PROBA_DOC = """
    Parameters
    ----------
    proba : array-like of shape (n_samples, n_classes)
        Class probabilities, e.g. the output of ``predict_proba``; each row
        must sum to 1.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        Higher means more confident.
"""


def _doc(func):
    func.__doc__ = func.__doc__.replace("    %(proba)s", _PROBA_DOC.strip("\n"))
    return func


# ----------------------------------------------------------------------------
# From probabilities
# ----------------------------------------------------------------------------
@_register("predict_proba")
@validate_params(_PROBA, prefer_skip_nested_validation=True)
@_doc
def msp(proba):
    """Maximum softmax probability: ``max_j p_j``.

    The baseline CSF (MSR in the AUGRC paper, ATC-MC in Garg et al., the
    L-infinity norm in Maaz et al.). Maaz et al. conclude, for ATC: "the
    L-infinity is the best score function to use. In the binary case, the
    choice definitely does not matter; and in the multi-class case, it may,
    but not so much, and the L-infinity is fastest to compute" (Sec. 4): they
    recommend it mainly because it is cheap, not because it ranked best in
    every experiment.

    %(proba)s

    See Also
    --------
    margin : Gap between the two largest probabilities.
    negative_entropy : Negative Shannon entropy.

    References
    ----------
    .. [1] D. Hendrycks, K. Gimpel. *A Baseline for Detecting Misclassified and
       Out-of-Distribution Examples in Neural Networks.* ICLR 2017.
    .. [2] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Sec. 2.3 (L-infinity)
       and Sec. 4.

    Examples
    --------
    >>> from sklearn_selective.confidence import msp
    >>> msp([[0.7, 0.2, 0.1], [0.4, 0.4, 0.2]])
    array([0.7, 0.4])
    """
    return _on_probabilities(row_max, proba)


@_register("predict_proba")
@validate_params(_PROBA, prefer_skip_nested_validation=True)
@_doc
def margin(proba):
    """Probability margin: the largest minus the second-largest probability.

    With one class the margin is 1 (the second probability is 0).

    %(proba)s

    See Also
    --------
    msp : Maximum probability.

    References
    ----------
    .. [1] H. Zhou, J. Van Landeghem, T. Popordanoska, M. B. Blaschko. *A Novel
       Characterization of the Population Area Under the Risk Coverage Curve
       (AURC) and Rates of Finite Sample Estimators.* ICML 2025, Table S2.

    Examples
    --------
    >>> from sklearn_selective.confidence import margin
    >>> margin([[0.7, 0.2, 0.1], [0.4, 0.4, 0.2]])
    array([0.5, 0. ])
    """
    return _on_probabilities(_margin_kernel, proba)


@_register("predict_proba")
@validate_params(_PROBA, prefer_skip_nested_validation=True)
@_doc
def negative_entropy(proba):
    """Negative Shannon entropy (natural log): ``sum_j p_j log p_j``.

    ``0 log 0 = 0``; the maximum, 0, is reached at a one-hot vector. ATC-NE in
    Garg et al.; PE (predictive entropy) in the AUGRC paper.

    %(proba)s

    See Also
    --------
    msp : Maximum probability.
    total_entropy : The same score of an ensemble's mean probabilities.

    References
    ----------
    .. [1] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Sec. 2.3.

    Examples
    --------
    >>> from sklearn_selective.confidence import negative_entropy
    >>> negative_entropy([[1.0, 0.0], [0.5, 0.5]]).round(4)
    array([ 0.    , -0.6931])
    """
    return _on_probabilities(_sum_p_log_p, proba)


@_register("predict_proba")
@validate_params(_PROBA, prefer_skip_nested_validation=True)
@_doc
def gini(proba):
    """Negative Gini impurity: ``sum_j p_j^2 - 1``.

    %(proba)s

    See Also
    --------
    l2_norm : ``sqrt(gini + 1)``, the same order.

    References
    ----------
    .. [1] H. Zhou, J. Van Landeghem, T. Popordanoska, M. B. Blaschko. *A Novel
       Characterization of the Population Area Under the Risk Coverage Curve
       (AURC) and Rates of Finite Sample Estimators.* ICML 2025, Table S2.

    Examples
    --------
    >>> from sklearn_selective.confidence import gini
    >>> gini([[1.0, 0.0], [0.5, 0.5]])
    array([ 0. , -0.5])
    """
    return _on_probabilities(lambda p: _squared_norm(p) - 1, proba)


@_register("predict_proba")
@validate_params(_PROBA, prefer_skip_nested_validation=True)
@_doc
def l2_norm(proba):
    """Euclidean norm of the probability vector: ``sqrt(sum_j p_j^2)``.

    Induces the same order as :func:`l2_to_uniform` for any number of classes
    (Maaz et al., Theorem 2).

    %(proba)s

    See Also
    --------
    l2_to_uniform : Same order (Theorem 2).
    gini : Same order.

    References
    ----------
    .. [1] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Sec. 2.3 and Theorem 2.

    Examples
    --------
    >>> from sklearn_selective.confidence import l2_norm
    >>> l2_norm([[0.6, 0.4], [1.0, 0.0]]).round(4)
    array([0.7211, 1.    ])
    """
    return _on_probabilities(lambda p: np.sqrt(_squared_norm(p)), proba)


@_register("predict_proba")
@validate_params(_PROBA, prefer_skip_nested_validation=True)
@_doc
def l1_to_uniform(proba):
    """L1 distance to the uniform vector: ``sum_j |p_j - 1/k|``.

    Twice the total variation distance to the uniform distribution.

    %(proba)s

    See Also
    --------
    l2_to_uniform : Euclidean distance to the uniform vector.
    js_to_uniform : Jensen-Shannon distance to the uniform vector.

    References
    ----------
    .. [1] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Sec. 2.3.

    Examples
    --------
    >>> from sklearn_selective.confidence import l1_to_uniform
    >>> l1_to_uniform([[1.0, 0.0], [0.5, 0.5]])
    array([1., 0.])
    """
    return _on_probabilities(lambda p: np.abs(p - 1 / p.shape[1]).sum(axis=1), proba)


@_register("predict_proba")
@validate_params(_PROBA, prefer_skip_nested_validation=True)
@_doc
def l2_to_uniform(proba):
    """Euclidean distance to the uniform vector: ``||p - 1/k||_2``.

    Computed as ``sqrt(||p||^2 - 2 sum(p) / k + 1 / k)`` from the same sum of
    squares as :func:`l2_norm`, so that the two induce exactly the same order
    in floating point (Theorem 2). Near the uniform vector the cancellation
    limits the absolute accuracy to about ``1e-8``.

    %(proba)s

    See Also
    --------
    l2_norm : Same order (Theorem 2).

    References
    ----------
    .. [1] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Sec. 2.3 and Theorem 2.

    Examples
    --------
    >>> from sklearn_selective.confidence import l2_to_uniform
    >>> l2_to_uniform([[1.0, 0.0], [0.5, 0.5]]).round(4)
    array([0.7071, 0.    ])
    """
    return _on_probabilities(_l2_to_uniform_kernel, proba)


@_register("predict_proba")
@validate_params(_PROBA, prefer_skip_nested_validation=True)
@_doc
def js_to_uniform(proba):
    """Jensen-Shannon distance to the uniform vector (natural logarithm).

    The square root of the Jensen-Shannon divergence between ``p`` and the
    uniform distribution, as :func:`scipy.spatial.distance.jensenshannon`
    computes it, in one vectorised pass.

    %(proba)s

    See Also
    --------
    l1_to_uniform : L1 distance to the uniform vector.

    References
    ----------
    .. [1] M. Maaz, R. Qiao, Y. Zhou, R. Zhang. *On Orderings of Probability
       Vectors and Unsupervised Performance Estimation*, Sec. 2.3.

    Examples
    --------
    >>> from sklearn_selective.confidence import js_to_uniform
    >>> js_to_uniform([[1.0, 0.0], [0.5, 0.5]]).round(4)
    array([0.4645, 0.    ])
    """
    return _on_probabilities(_js_to_uniform_kernel, proba)


# ----------------------------------------------------------------------------
# From logits
# ----------------------------------------------------------------------------
@_register("decision_function")
@validate_params(_LOGITS, prefer_skip_nested_validation=True)
def max_logit(logits):
    """Maximum logit: ``max_j z_j`` (MLS in the AUGRC paper).

    Parameters
    ----------
    logits : array-like of shape (n_samples, n_classes) or (n_samples,)
        Logits or decision values, e.g. the output of ``decision_function``.
        A 1-d array is a binary decision function ``d`` and is handled as the
        two-class logits ``(-d/2, d/2)``, so the score is ``|d| / 2``.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        Higher means more confident.

    See Also
    --------
    logit_pnorm : Maximum of the centred, p-normalised logits.
    energy : Temperature-scaled log-sum-exp of the logits.

    References
    ----------
    .. [1] D. Hendrycks et al. *Scaling Out-of-Distribution Detection for
       Real-World Settings.* ICML 2022.
    .. [2] J. Traub et al. *Overcoming Common Flaws in the Evaluation of
       Selective Classification Systems.* NeurIPS 2024 (MLS).

    Examples
    --------
    >>> from sklearn_selective.confidence import max_logit
    >>> max_logit([[2.0, -1.0, 0.5], [0.1, 0.3, 0.2]])
    array([2. , 0.3])
    >>> max_logit([-3.0, 1.0])
    array([1.5, 0.5])
    """
    return _on_logits(row_max, logits)


@_register("decision_function")
@validate_params(
    {**_LOGITS, "p": [Interval(Real, 1, None, closed="left"), Options(Real, {np.inf})]},
    prefer_skip_nested_validation=True,
)
def logit_pnorm(logits, *, p=2):
    """MaxLogit-pNorm: ``max_j c_j / ||c||_p`` with ``c = z - mean(z)``.

    Logits centred per sample and normalised by their p-norm (Cattelan &
    Silva), which removes the scale that makes raw logits over-confident.
    Constant logits (no preference for any class) score 0, the lowest value.

    Parameters
    ----------
    logits : array-like of shape (n_samples, n_classes) or (n_samples,)
        Logits or decision values. A 1-d binary decision function ``d`` is
        handled as ``(-d/2, d/2)``; note that centring and normalising two
        logits leaves a constant, so this CSF carries no information for
        binary problems (it scores every sample ``2 ** (-1 / p)``).

    p : float >= 1, default=2
        Order of the norm; ``numpy.inf`` is allowed.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        In ``[0, 1]``; higher means more confident.

    See Also
    --------
    max_logit : The raw maximum logit.

    References
    ----------
    .. [1] L. F. P. Cattelan, D. Silva. *How to Fix a Broken Confidence
       Estimator: Evaluating Post-hoc Methods for Selective Classification
       with Deep Neural Networks.* UAI 2024.

    Examples
    --------
    >>> from sklearn_selective.confidence import logit_pnorm
    >>> logit_pnorm([[2.0, 0.0, -2.0], [1.0, 1.0, 1.0]]).round(4)
    array([0.7071, 0.    ])
    """
    return _on_logits(_logit_pnorm_kernel, logits, p=float(p))


@_register("decision_function")
@validate_params(
    {**_LOGITS, "temperature": [Interval(Real, 0, None, closed="neither")]},
    prefer_skip_nested_validation=True,
)
def energy(logits, *, temperature=1.0):
    """Negative free energy: ``T * logsumexp(z / T)``.

    The energy score of Liu et al., negated so that higher means more
    confident; computed stably for logits of any magnitude.

    Parameters
    ----------
    logits : array-like of shape (n_samples, n_classes) or (n_samples,)
        Logits or decision values. A 1-d binary decision function ``d`` is
        handled as ``(-d/2, d/2)``.

    temperature : float > 0, default=1.0
        The temperature ``T``.

    Returns
    -------
    confidence : ndarray of shape (n_samples,)
        Higher means more confident.

    See Also
    --------
    max_logit : The limit of the energy score as ``T -> 0``.

    References
    ----------
    .. [1] W. Liu, X. Wang, J. Owens, Y. Li. *Energy-based Out-of-distribution
       Detection.* NeurIPS 2020.

    Examples
    --------
    >>> from sklearn_selective.confidence import energy
    >>> energy([[0.0, 0.0], [1e4, 0.0]]).round(4)
    array([6.931e-01, 1.000e+04])
    """
    return _on_logits(_energy_kernel, logits, temperature=float(temperature))
