"""Per-sample plug-in weights of the finite-sample AURC estimators.

The plug-in AURC estimators of [AURC] are weighted means of the per-sample losses,
``(1/n) sum_i alpha_i l_i``, with weights that depend only on the confidence ranking.
:func:`aurc_weights` returns those weights, so that they can be used as sample
weights of a training loss (the AURC-weighted fine-tuning of [AURC], Table 1).
"""

import numpy as np
from scipy.special import digamma

from .._utils._docstrings import fill_doc
from .._utils._param_validation import validate_params
from .._utils._sklearn import StrOptions
from .._utils._validation import (
    _check_confidence,
    _check_frequency_total,
    _check_sample_weight,
)
from ._core._alpha import ALPHA_ESTIMATORS
from ._core._group_stats import GroupStats, group_ties


def _sele_alpha(below, upto, n):
    """Mean of ``r / n`` over the positions ``r`` in ``(below, upto]`` (Eq. 33)."""
    return (below + upto + 1.0) / (2.0 * n)


def _position_value(position, n, aurc_estimator):
    """Weight at the single position ``position`` (the limit of an empty tie group)."""
    point = {
        "harmonic": lambda: digamma(n + 1.0) - digamma(n - position + 1.0),
        "log": lambda: -np.log1p(-position / (n + 1.0)),
        "sele": lambda: position / n,
    }
    return point[aurc_estimator]()


WEIGHT_ESTIMATORS = {**ALPHA_ESTIMATORS, "sele": _sele_alpha}


def group_alpha(stats, aurc_estimator):
    """Plug-in weight of every tie group (ascending confidence), shape ``(n_groups,)``.

    Groups of zero weight get the weight of the position they sit at, a finite
    value that multiplies a zero weight in every use.
    """
    below, upto = stats.bounds
    n = np.full(below.shape, upto[-1])
    alpha = np.empty(below.shape)
    wide = upto > below
    alpha[wide] = WEIGHT_ESTIMATORS[aurc_estimator](below[wide], upto[wide], n[wide])
    if not wide.all():
        empty = ~wide
        alpha[empty] = _position_value(below[empty], n[empty], aurc_estimator)
    return alpha


@validate_params(
    {
        "confidence": ["array-like"],
        "aurc_estimator": [StrOptions(set(WEIGHT_ESTIMATORS))],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
@fill_doc
def aurc_weights(confidence, *, aurc_estimator="harmonic", sample_weight=None):
    """Per-sample plug-in weights ``alpha_i`` of the finite-sample AURC estimators.

    The plug-in estimators of [AURC] are weighted means of the per-sample
    losses (Eq. 11),

    .. math::

        \\widehat{\\mathrm{AURC}} = \\frac{1}{n} \\sum_{i=1}^{n} \\alpha_i l_i,

    with weights that depend only on the rank ``r_i`` of sample ``i`` in
    ascending confidence:

    - ``"harmonic"``: ``alpha_i = H_n - H_{n - r_i}`` (Eq. 13), the weights of
      the classic empirical AURC (Eq. 10); they average to exactly 1 (Eq. 14);
    - ``"log"``: ``alpha_i = -ln(1 - r_i / (n + 1))`` (Eq. 18), never larger;
    - ``"sele"``: ``alpha_i = r_i / n``, the weights of the SELE score
      (Eq. 32-33), so that ``sele == mean(alpha * l)``.

    So ``aurc(None, None, confidence, loss=l, aurc_estimator=e)`` equals
    ``numpy.average(aurc_weights(confidence, aurc_estimator=e) * l,
    weights=sample_weight)`` for every loss ``l``. The weights do not depend on
    the losses: used as sample weights of a training loss with the ranking held
    fixed, the weighted loss of a batch is its plug-in AURC estimate ([AURC],
    Table 1).

    Parameters
    ----------
    confidence : array-like of shape (n_samples,)
        Confidence score of each sample; higher means more confident.

    aurc_estimator : {"harmonic", "log", "sele"}, default="harmonic"
        Which estimator's weights: see above.

    %(sample_weight_frequency)s

    Returns
    -------
    alpha : ndarray of shape (n_samples,)
        The weight of each sample, in input order. Tied confidences share the
        mean of the weights of the positions their tie group occupies (the
        expectation over a random order of the ties). A sample of zero weight
        gets the weight of the position it sits at; it contributes nothing.

    See Also
    --------
    aurc : The plug-in AURC estimate ``mean(alpha * l)``.
    sele : The SELE score, the weighted mean with ``aurc_estimator="sele"``.

    Notes
    -----
    With weights, ranks are cumulative weights in ascending confidence and
    ``n = sum(sample_weight)``; harmonic numbers are extended to real
    arguments by ``H_x = digamma(x + 1) + euler_gamma``, as in :func:`aurc`.

    References
    ----------
    %(ref_aurc)s

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_selective.metrics import aurc, aurc_weights
    >>> confidence = np.array([0.9, 0.2, 0.6, 0.4])
    >>> alpha = aurc_weights(confidence)
    >>> alpha.round(4)
    array([2.0833, 0.25  , 1.0833, 0.5833])
    >>> round(float(alpha.mean()), 12)
    1.0
    >>> losses = np.array([0.1, 2.0, 0.0, 1.0])
    >>> value = aurc(None, None, confidence, loss=losses)
    >>> bool(np.isclose(np.mean(alpha * losses), value))
    True
    """
    confidence = _check_confidence(confidence)
    sample_weight = _check_sample_weight(sample_weight, confidence.shape[0])
    _check_frequency_total(sample_weight)  # n = sum of the weights
    groups = group_ties(confidence)
    stats = GroupStats(groups.weight(sample_weight), np.zeros(groups.n_groups))
    return group_alpha(stats, aurc_estimator)[groups.group_index]
