"""Coverage and risk of one confidence threshold: the working point that
accepting ``confidence >= threshold`` gives on the data."""

import math

import numpy as np


def coverage_and_risk_at_threshold(confidence, losses, threshold, sample_weight=None):
    """``(coverage, selective_risk, generalized_risk)`` of accepting the samples
    with ``confidence >= threshold``.

    With weights ``w`` and accepted set ``A``: coverage ``sum_A w / sum w``,
    selective risk ``sum_A w l / sum_A w`` (nan when nothing is accepted) and
    generalized risk ``sum_A w l / sum w``; all nan when the total weight is 0.

    Examples
    --------
    >>> coverage_and_risk_at_threshold([0.9, 0.8, 0.3, 0.1], [0, 1, 1, 0], 0.5)
    (0.5, 0.5, 0.25)
    """
    confidence = np.asarray(confidence)
    losses = np.asarray(losses, dtype=np.float64)
    weight = np.ones_like(losses) if sample_weight is None else sample_weight
    total = weight.sum()
    if total == 0:
        return math.nan, math.nan, math.nan
    accepted = weight * (confidence >= threshold)
    kept = accepted.sum()
    accepted_loss = (accepted * losses).sum()
    selective = accepted_loss / kept if kept > 0 else math.nan
    return float(kept / total), float(selective), float(accepted_loss / total)
