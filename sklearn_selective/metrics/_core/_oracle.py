"""The oracle: the ranking by the losses themselves (confidence = -loss), and
the AURC measured against it (E-AURC, NAURC).

Its group statistics feed the same ``*_from_stats`` functions as any ranking
(:mod:`._group_stats`); 0/1 losses need no sort (failures first).
"""

import math

import numpy as np

from ._group_stats import GroupStats, _scale_exponent, aurc_from_stats, group_ties


def oracle_stats(losses, sample_weight, binary=False):
    """Group statistics of the oracle ranking, confidence = -loss; ``binary``
    says that the losses are known to be 0 or 1."""
    if losses.ndim == 1:
        failures = np.count_nonzero(losses)
        if binary or failures == np.count_nonzero(losses == 1):
            return _binary_oracle_stats(losses, sample_weight, failures)
    groups = group_ties(-losses)
    return GroupStats.from_samples(groups, losses, sample_weight)


def is_oracle_order(groups, losses, sample_weight=None):
    """Whether ranking by the confidences of ``groups`` is as good as the oracle.

    True exactly when, among the samples of positive weight, the losses do not
    increase with the confidence and every tie group holds a single loss value:
    then every AURC estimator (whose weights ``alpha`` increase strictly with the
    rank) equals that of the oracle, which :func:`e_aurc_from_stats` can only
    reproduce up to rounding.
    """
    sorted_losses = np.take(losses, groups.order)
    if groups.starts is None and sample_weight is None:
        return bool(np.all(sorted_losses[1:] <= sorted_losses[:-1]))
    group = groups.group_index[groups.order]  # ascending along the sorted samples
    if sample_weight is not None:
        positive = np.take(sample_weight, groups.order) > 0
        sorted_losses, group = sorted_losses[positive], group[positive]
    later, earlier = sorted_losses[1:], sorted_losses[:-1]
    new_group = group[1:] != group[:-1]
    return bool(np.all((later <= earlier) & ((later == earlier) | new_group)))


def _binary_oracle_stats(losses, sample_weight, failures):
    """Oracle statistics of 0/1 losses (``failures`` of them) without sorting:
    failures, then successes (the groups of a weight of zero are left out, as
    :func:`group_ties` would)."""
    n_samples = losses.shape[0]
    if sample_weight is None:
        failed, succeeded = float(failures), float(n_samples - failures)
    else:
        failed = float(np.dot(sample_weight, losses))
        succeeded = float(np.dot(sample_weight, losses == 0))
    if failures == 0:
        return GroupStats(np.array([succeeded]), np.array([0.0]))
    if failures == n_samples:
        return GroupStats(np.array([failed]), np.array([failed]))
    return GroupStats(np.array([failed, succeeded]), np.array([failed, 0.0]))


def e_aurc_from_stats(stats, oracle, aurc_estimator="harmonic"):
    """AURC minus the oracle's AURC, clipped at 0 against rounding; batched."""
    excess = aurc_from_stats(stats, aurc_estimator) - aurc_from_stats(
        oracle, aurc_estimator
    )
    return np.maximum(excess, 0.0)


def naurc_from_stats(stats, oracle, aurc_estimator="harmonic"):
    """E-AURC over (random AURC - oracle AURC); ``nan`` where undefined; batched.

    The denominator is zero exactly when every sample has the same loss; it can
    also underflow to zero for losses that differ by less than the resolution.
    """
    # Scale invariant in the losses: bring both to a moderate range at once.
    exponent = np.expand_dims(
        np.maximum(_scale_exponent(stats.loss), _scale_exponent(oracle.loss)), -1
    )
    if np.any(exponent):
        stats = GroupStats(stats.weight, np.ldexp(stats.loss, -exponent))
        oracle = GroupStats(oracle.weight, np.ldexp(oracle.loss, -exponent))
    oracle_value = aurc_from_stats(oracle, aurc_estimator)
    return naurc_from_values(
        aurc_from_stats(stats, aurc_estimator), oracle_value, oracle
    )


def naurc_from_values(value, oracle_value, oracle):
    """:func:`naurc_from_stats` from the AURC of the ranking and of the oracle."""
    if oracle.loss.ndim == 1:  # one ranking: the same operations on scalars
        loss, weight = oracle.loss, oracle.weight
        if loss.shape[0] <= 2:  # the 0/1 oracle: Python floats cost less
            loss, weight = loss.tolist(), weight.tolist()
            with_weight = sum(1 for group_weight in weight if group_weight)
            random_minus_oracle = math.fsum(loss) / math.fsum(weight) - oracle_value
        else:
            with_weight = np.count_nonzero(weight)
            random_minus_oracle = float(loss.sum()) / float(weight.sum()) - oracle_value
        if with_weight < 2 or not random_minus_oracle > 0:
            return np.nan
        return max(value - oracle_value, 0.0) / random_minus_oracle
    excess = np.maximum(value - oracle_value, 0.0)
    random_minus_oracle = oracle.loss.sum(axis=-1) / oracle.total_weight - oracle_value
    undefined = (np.count_nonzero(oracle.weight, axis=-1) < 2) | (
        random_minus_oracle <= 0
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(undefined, np.nan, excess / random_minus_oracle)
