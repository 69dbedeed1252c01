"""Label shift: the chunk's class prior by EM, and the accuracy under it.

Under label shift the class prior moves and ``P(x | y)`` stays: the
posterior of a chunk is the reference posterior reweighted by
``pi_chunk(y) / pi_ref(y)`` and renormalised. Confidence-based estimates read
the reference posterior, so they are biased by the prior's move. Saerens et
al. (2002) estimate ``pi_chunk`` by EM: reweight the posteriors by the current
prior, average them over the chunk for the next prior, until it stops
moving (a maximum-likelihood estimate of the prior).

The accuracy under that prior corrects the mean reweighted posterior of the
predicted class by the reference's residuals per class. Under label shift
``P(x | y)`` holds, so for any function ``g`` of the inputs, with ``c`` the
correctness (a function of ``x`` and ``y``),

    E_chunk[c] = E_chunk[g] + sum_k pi_chunk(k) E_ref[c - g | y = k].

With ``g`` the reweighted posterior of the predicted class, the first term
is its mean over the chunk and the second the reference's mean residual of
``g`` in each class weighted by the chunk's prior (:func:`class_residuals`);
it is zero where the posteriors are calibrated, and otherwise removes the
calibration's error in each class (the one-vs-rest calibration renormalised
is not calibrated on its own reference: without shift, on chunks of 500, the
mean posterior alone was 0.008 too high).

Two checks tell ``"auto"`` when to adjust: whether a chunk's class
probabilities moved (:func:`outputs_moved`, a permutation test of their mean),
and whether a label shift explains a move
(:func:`consistent_with_label_shift`).
"""

import numpy as np
from scipy.stats import norm

from .._utils._draws import evenly_spaced_rows
from .._utils._validation import all_finite
from .._utils._warnings import warn

EM_MAX_ITER = 200
EM_TOL = 1e-6


def _em_step(scaled, proba, prior, weights):
    """``sum_n w_n posterior_n`` for the current prior (two passes over the
    arrays); a sample whose reweighted probabilities are all zero keeps its
    own."""
    norm = np.einsum("rnk,rk->rn", scaled, prior)
    zero = ~(norm > 0)
    share = np.where(zero, 0.0, weights / np.where(zero, 1.0, norm))
    step = prior * np.einsum("rn,rnk->rk", share, scaled)
    if zero.any():
        step += np.einsum("rn,rnk->rk", weights * zero, proba)
    return step


def em_prior(proba, reference_prior, weights):
    """The chunk priors and reweighted posteriors, by EM, for each row.

    ``proba`` (r, n, k) are calibrated reference posteriors, ``reference_prior``
    (r, k) the class frequencies they were calibrated on, ``weights`` (r, n)
    the chunk's sample weights. Returns ``(prior (r, k), posterior (r, n,
    k))``. A class absent from the reference keeps prior 0. EM stops when no
    prior moves by more than ``EM_TOL`` in an iteration (at most
    ``EM_MAX_ITER``): where the maximum is inside the simplex it converges
    linearly and the result is exact to about that; where a class is absent
    from the chunk the maximum is on the boundary, EM slows down, and the
    posteriors are within about 2e-3 (a test checks).
    """
    # posterior ∝ proba * prior / reference_prior = scaled * prior
    scaled = _scaled(proba, reference_prior)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = weights.sum(axis=1, keepdims=True)
        prior = reference_prior.copy()
        for _ in range(EM_MAX_ITER):
            updated = _em_step(scaled, proba, prior, weights) / total
            done = np.nanmax(np.abs(updated - prior)) < EM_TOL
            prior = updated
            if done:
                break
        return prior, _posterior(scaled, proba, prior)


def _scaled(proba, reference_prior):
    """``proba / reference_prior`` (0 for a class absent from the reference)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        scaled = np.where(reference_prior[:, None, :] > 0, proba, 0.0)
        return scaled / np.where(reference_prior > 0, reference_prior, 1.0)[:, None, :]


def shift_posterior(proba, reference_prior, prior):
    """Posteriors ``proba`` (r, n, k) calibrated under ``reference_prior``
    (r, k) moved to ``prior`` (r, k): reweighted by the ratio of the priors
    and renormalised; a sample whose reweighted probabilities are all zero
    keeps its own."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return _posterior(_scaled(proba, reference_prior), proba, prior)


def _posterior(scaled, proba, prior):
    """:func:`shift_posterior` from the scaled posteriors."""
    norm = np.einsum("rnk,rk->rn", scaled, prior)[..., None]
    return np.where(norm > 0, scaled * prior[:, None, :] / norm, proba)


def class_residuals(predicted, correct, one_hot, weights):
    """The weighted mean of ``correct - predicted`` over the samples of each
    class: ``predicted`` (r, n) a prediction of correctness of the reference
    samples for each row, ``correct`` (n,), ``one_hot`` (n, k) their classes,
    ``weights`` (r, n). Returns (r, k); 0 for a class without weight."""
    weighted = weights * (correct[None, :] - predicted)
    totals = weights @ one_hot
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(totals > 0, (weighted @ one_hot) / totals, 0.0)


# The level of the test that a chunk's model outputs moved.
OUTPUTS_MOVED_LEVEL = 0.05
# The level of the check that a label shift explains a chunk's move. Its two
# errors do not cost alike: a label shift taken for a covariate one is
# estimated by re-weighting inputs, which cannot follow the change of
# P(y | x); a covariate shift taken for a label shift is estimated by EM.
# benchmarks/bench_estimates.py, 30 repetitions: at 0.05 the check turned
# away 7 of the 120 Gaussian label shifts (as a 5 % test does), re-weighting
# then erred 0.058-0.114 on five of them; at 0.01 none, and 5 of 101 digits
# covariate shifts went to EM, which erred 0.001-0.020 more (0.009 on
# average). Mean |error| of "auto" (accuracy / selective accuracy) under
# label shift 0.0143 / 0.0152 -> 0.0120 / 0.0128, covariate shifts 0.0166 /
# 0.0151 -> 0.0167 / 0.0151 (the user guide has the table).
LABEL_SHIFT_EXPLAINS_LEVEL = 0.01


def _weighted_auc(scores_reference, weights, scores_chunk):
    """AUC of chunk vs reference scores, the reference samples weighted (ties
    count one half)."""
    order = np.argsort(scores_reference, kind="stable")
    sorted_scores = scores_reference[order]
    cumulative = np.r_[0.0, np.cumsum(weights[order])]
    below = cumulative[np.searchsorted(sorted_scores, scores_chunk, side="left")]
    at_most = cumulative[np.searchsorted(sorted_scores, scores_chunk, side="right")]
    return float((below + 0.5 * (at_most - below)).sum()) / (
        cumulative[-1] * scores_chunk.shape[0]
    )


def warn_unseen_classes(method, classes, y_index, adjusts=True):
    """Warn at ``fit`` where the reference holds no sample of some classes:
    a label shift reweights the reference per class, and a class of weight
    zero cannot be reweighted (EM keeps its prior at 0, so every prediction
    of it counts as an error: on digits without the 3s, 0.79 for a realised
    0.94). ``"auto"`` then never takes the label-shift estimate (nor ever
    does without a drift signal: ``adjusts`` False, no warning)."""
    unseen = np.setdiff1d(np.arange(classes.shape[0]), y_index)
    warned = method == "label_shift_em" or (method == "auto" and adjusts)
    if not (unseen.size and warned):
        return
    effect = (
        "every prediction of them counts as an error"
        if method == "label_shift_em"
        else "'auto' will not adjust for a label shift"
    )
    warn(
        f"y_reference holds no sample of the classes {classes[unseen][:5].tolist()}"
        f"{'...' if unseen.size > 5 else ''}, so a label shift cannot be "
        f"estimated for them: {effect}. Use a reference with every class."
    )


def consistent_with_label_shift(scores_reference, scores_chunk, ratio, labels):
    """Whether the reference, reweighted by the prior ratio of its labels, is
    indistinguishable from the chunk by a domain classifier's held-out scores.

    Under a pure label shift the reweighted reference is distributed as the
    chunk, so the weighted AUC is about 0.5; a covariate shift leaves it
    above. The check rejects when the weighted AUC exceeds the one-sided
    normal critical value at ``LABEL_SHIFT_EXPLAINS_LEVEL``, with the Kish
    effective size of the weighted reference. A choice between two
    estimates, not an alert: its error rates are the benchmark's.
    """
    ratio = np.nan_to_num(np.asarray(ratio, dtype=np.float64), nan=0.0, posinf=0.0)
    weights = ratio[labels]
    if not weights.sum() > 0:
        return False
    auc = _weighted_auc(scores_reference, weights, scores_chunk)
    sd = np.sqrt(_auc_null_variance(weights, scores_chunk.shape[0]))
    return auc <= 0.5 + norm.isf(LABEL_SHIFT_EXPLAINS_LEVEL) * sd


def _auc_null_variance(weights, n_chunk):
    """Variance of the weighted AUC of :func:`_weighted_auc` when both samples
    come from one distribution, without ties: the Mann-Whitney variance
    ``(n + m + 1) / (12 n m)`` with ``n`` the Kish effective size of the
    reference ``weights`` and ``m`` the chunk's size."""
    n_reference = weights.sum() ** 2 / (weights**2).sum()
    return (n_reference + n_chunk + 1) / (12.0 * n_reference * n_chunk)


def outputs_moved(reference_proba, chunk_proba, rng):
    """Whether the chunk's mean class probabilities moved from the
    reference's: :func:`probabilities_p_value` at most
    ``OUTPUTS_MOVED_LEVEL`` (``rng``: the generator of its permutations).

    A label shift moves the model's outputs whenever the model knows more
    than its prior, and a test on them sees it where a domain classifier on
    the inputs may not (black-box shift detection: Lipton et al. 2018 on the
    predicted classes, Rabanser et al. 2019 on the probabilities). In
    ``benchmarks/bench_monitor.py`` (naive Bayes, repetition 10) the model
    predicts one class for 93 % of a chunk of 10000 whose true class 0 went
    from 19 % to 60 %: Pearson's chi-square test of the predicted classes
    gave p = 0.059 and the drift signal's AUC 0.509 stayed under its
    threshold 0.521; the test of the probabilities' mean gives its smallest
    p-value, 1 / 200. A choice between two estimates, not an alert: its
    error rates are the benchmark's.
    """
    p_value = probabilities_p_value(reference_proba, chunk_proba, rng)
    return bool(p_value <= OUTPUTS_MOVED_LEVEL)


# The permutation test reads at most this many rows of each sample (evenly
# spaced), so that a large chunk or reference costs what these do (about
# 0.02-0.03 s for ten classes), and draws this many permutations (p-values
# in steps of 1 / 200).
PERMUTATION_ROWS = 4096
PERMUTATIONS = 199


def probabilities_p_value(reference_proba, chunk_proba, rng):
    """The p-value of a permutation test that the chunk's mean class
    probabilities equal the reference's, with Hotelling's two-sample
    statistic.

    Under a label shift of a calibrated model the chunk's density is the
    reference's times ``sum_k w_k p_k(x)``, with ``w`` the ratio of the
    priors, so the score of the likelihood EM maximises, at ``w = 1`` (no
    shift), is the chunk's sum of the probabilities ``p(x)``: a test of
    their mean is the score test of "no label shift". Its statistic is
    ``d' S^+ d`` with ``d`` the difference of the means of all columns but the
    last (the rows sum to one) and ``S`` the covariance of the two samples
    pooled together: a monotone function of Hotelling's ``T^2`` (whose ``S``
    pools the covariances within the samples) where the move lies in the
    span of those, and at its largest where it does not (a mean that moved
    where neither sample varies). Its null distribution is that of
    :data:`PERMUTATIONS` reassignments of the pooled rows to the two
    samples, the chunk's statistic counted among them: a test of any model
    at any sample size without a large-sample approximation. The
    reassignments are drawn from ``rng`` (a :class:`numpy.random.Generator`;
    the monitor's is a named stream of its seed per chunk), so that the
    chance of a p-value at most ``a`` is at most ``a`` for every ``a`` where
    the reference's and the chunk's rows are drawn alike, over the data and
    the permutations together (a Monte Carlo permutation test; a monitor
    with a fixed ``random_state`` reads chunk ``c`` of every ``estimate``
    call with the same permutations; the user guide measures it).
    Hotelling's F distribution is a large-sample one: a class the reference
    never gave probability that one row of a chunk of 200 gives got p =
    0.0016 from it, one draw of the permutations 0.11 (one plus the number
    of the 199 that put that row in the chunk, over 200; 0.095 on average).
    Given one reference the share of unshifted chunks called moved still
    varies where a class's probabilities are skewed (a few rows near the top
    weigh on a mean, not on ranks): the user guide measures it. Each sample
    is read on at most :data:`PERMUTATION_ROWS` evenly spaced rows. 1 for an
    empty sample, outputs that do not vary, or outputs that are not finite
    (no test of a mean can read them).
    """
    if not (all_finite(reference_proba) and all_finite(chunk_proba)):
        return 1.0
    reference, chunk = (
        np.asarray(proba)[evenly_spaced_rows(len(proba), PERMUTATION_ROWS)]
        for proba in (reference_proba, chunk_proba)
    )
    reference, chunk = reference.astype(np.float64), chunk.astype(np.float64)
    n_reference, n_chunk = reference.shape[0], chunk.shape[0]
    if n_reference == 0 or n_chunk == 0:
        return 1.0
    pooled = np.concatenate([reference, chunk])[:, :-1]
    pooled -= pooled.mean(axis=0)
    values, vectors = np.linalg.eigh(pooled.T @ pooled)
    kept = values > 1e-12 * values.max(initial=0.0)
    if not kept.any():
        return 1.0
    whitened = pooled @ (vectors[:, kept] / np.sqrt(values[kept]))
    observed = np.square(whitened[n_reference:].sum(axis=0)).sum()
    # Each permutation's chunk is the rows of its smallest n_chunk keys.
    keys = rng.random((PERMUTATIONS, pooled.shape[0]))
    picked = np.argpartition(keys, n_chunk - 1, axis=1)[:, :n_chunk]
    in_chunk = np.zeros(keys.shape)
    np.put_along_axis(in_chunk, picked, 1.0, axis=1)
    permuted = np.square(in_chunk @ whitened).sum(axis=1)
    # Rounding in the sums must not split the statistic's ties.
    at_least = np.count_nonzero(permuted >= observed * (1.0 - 1e-9))
    return (1.0 + at_least) / (PERMUTATIONS + 1.0)
