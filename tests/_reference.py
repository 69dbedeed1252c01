"""Slow, direct transcriptions of the papers' formulas, used as test oracles.

Nothing here is shared with the package: every formula is written from the paper's
equation, with explicit Python loops, on tie-free orderings. The SPEC's conventions are
layered on top in the most literal way:

- integer sample weights = repeating samples (``np.repeat``);
- tied confidences = the expectation over every order of the tied samples
  (all orderings are enumerated, so inputs must be small).
"""

import itertools
import math

import numpy as np


def expand(confidence, losses, sample_weight):
    """Repeat every sample ``sample_weight[i]`` times (integer weights only)."""
    if sample_weight is None:
        return np.asarray(confidence, float), np.asarray(losses, float)
    counts = np.asarray(sample_weight).astype(int)
    assert np.all(counts == np.asarray(sample_weight))
    return np.repeat(confidence, counts), np.repeat(losses, counts)


def tie_orderings(confidence):
    """Every ascending-confidence ordering of the sample indices (ties permuted)."""
    confidence = np.asarray(confidence)
    values = np.unique(confidence)
    blocks = [np.flatnonzero(confidence == v).tolist() for v in values]
    for choice in itertools.product(*(itertools.permutations(b) for b in blocks)):
        yield [i for block in choice for i in block]


def n_tie_orderings(confidence):
    _, counts = np.unique(confidence, return_counts=True)
    return math.prod(math.factorial(int(c)) for c in counts)


def expectation_over_ties(formula, confidence, losses, sample_weight=None):
    """E over random tie orders of ``formula(losses_in_ascending_order)``."""
    confidence, losses = expand(confidence, losses, sample_weight)
    values = [formula(losses[order]) for order in tie_orderings(confidence)]
    return float(np.mean(values))


# ------------------------------------------------------------------------------------
# Tie-free formulas: ``ordered`` holds the losses by ascending confidence, so the rank
# of ordered[k] is r = k + 1 and "g_i >= g_j" is "position_i >= position_j".
# ------------------------------------------------------------------------------------
def aurc_eq10(ordered):
    """[AURC] Eq. 10: mean over j of the selective risk at threshold g_j."""
    n = len(ordered)
    total = 0.0
    for j in range(n):
        accepted = [ordered[i] for i in range(n) if i >= j]
        total += (sum(accepted) / n) / (len(accepted) / n)
    return total / n


def aurc_log_eq18(ordered):
    """[AURC] Eq. 11 with the weights of Eq. 18."""
    n = len(ordered)
    return sum(-math.log(1 - (k + 1) / (n + 1)) * ordered[k] for k in range(n)) / n


def sele_eq32(ordered):
    """[AURC] Eq. 32, the double sum."""
    n = len(ordered)
    return sum(ordered[i] * (i >= j) for i in range(n) for j in range(n)) / n**2


def augrc_trapezoid(ordered):
    """[AUGRC] Eq. 6: trapezoid area under the generalized risk from coverage 0."""
    n = len(ordered)
    area, previous = 0.0, 0.0
    for k in range(1, n + 1):  # accept the k most confident
        risk = sum(ordered[n - k :]) / n
        area += (risk + previous) / 2 / n
        previous = risk
    return area


def selective_risk_top(ordered, m):
    """Mean loss of the m most confident samples."""
    return sum(ordered[len(ordered) - m :]) / m


def oracle_aurc_eq10(losses, sample_weight=None):
    """Eq. 10 for the oracle ordering: ascending confidence = decreasing loss."""
    _, losses = expand(np.zeros(len(losses)), losses, sample_weight)
    return aurc_eq10(sorted(losses, reverse=True))


# ------------------------------------------------------------------------------------
# Weighted formulas that need no expansion.
# ------------------------------------------------------------------------------------
def curves_direct(confidence, losses, sample_weight):
    """[AURC] Eq. 2 / [AUGRC] Eq. 2-3 at every distinct positive-weight threshold."""
    w = np.ones(len(confidence)) if sample_weight is None else sample_weight
    total = sum(w)
    thresholds = sorted(
        {c for c, wi in zip(confidence, w, strict=True) if wi > 0}, reverse=True
    )
    coverage, selective, generalized = [], [], []
    for t in thresholds:
        accepted_w = sum(wi for c, wi in zip(confidence, w, strict=True) if c >= t)
        accepted_l = sum(
            wi * li for c, wi, li in zip(confidence, w, losses, strict=True) if c >= t
        )
        coverage.append(accepted_w / total)
        selective.append(accepted_l / accepted_w)
        generalized.append(accepted_l / total)
    return (np.array(coverage), np.array(selective), np.array(generalized), thresholds)


def uq_auc_pairs(confidence, failures, sample_weight):
    """[UQ] Eq. 15: P(g_correct > g_failure) + P(tie)/2 over all weighted pairs."""
    w = np.ones(len(confidence)) if sample_weight is None else sample_weight
    num = den = 0.0
    for i in range(len(confidence)):  # correct
        for j in range(len(confidence)):  # failure
            if failures[i] == 0 and failures[j] == 1:
                pair = w[i] * w[j]
                den += pair
                if confidence[i] > confidence[j]:
                    num += pair
                elif confidence[i] == confidence[j]:
                    num += pair / 2
    return num / den if den > 0 else float("nan")


def uq_c_index_pairs(gap, confidence, sample_weight):
    """[UQ] Eq. 18 over all weighted pairs with gap_i < gap_j."""
    w = np.ones(len(confidence)) if sample_weight is None else sample_weight
    num = den = 0.0
    for i in range(len(gap)):
        for j in range(len(gap)):
            if gap[i] < gap[j]:
                pair = w[i] * w[j]
                den += pair
                if confidence[i] > confidence[j]:
                    num += pair
                elif confidence[i] == confidence[j]:
                    num += pair / 2
    return num / den if den > 0 else float("nan")


def mean_position_alpha(confidence, sample_weight, alpha_at_position):
    """The SPEC's tie rule read literally for integer weights: each sample gets the
    mean of ``alpha_at_position(r, n)`` over the positions its tie group occupies."""
    confidence = np.asarray(confidence)
    w = np.ones(len(confidence), int) if sample_weight is None else sample_weight
    n = int(sum(w))
    alpha = np.zeros(len(confidence))
    below = 0
    for v in np.unique(confidence):
        members = np.flatnonzero(confidence == v)
        width = int(sum(w[m] for m in members))
        if width:
            values = [
                alpha_at_position(r, n) for r in range(below + 1, below + width + 1)
            ]
            alpha[members] = np.mean(values)
        below += width
    return alpha, n


def selective_risk_at_coverages(confidence, losses, sample_weight, coverages):
    """SPEC section 6 read literally: accept whole tie groups, most confident first,
    and the boundary group in proportion; vectorised over an array of coverages."""
    w = np.ones(len(confidence)) if sample_weight is None else sample_weight
    total = sum(w)
    accepted_weight = np.asarray(coverages) * total
    accepted_loss = np.zeros_like(accepted_weight)
    above = 0.0
    for v in sorted(set(confidence), reverse=True):
        members = [i for i in range(len(confidence)) if confidence[i] == v]
        group_w = sum(w[i] for i in members)
        group_l = sum(w[i] * losses[i] for i in members)
        if group_w > 0:
            share = np.clip((accepted_weight - above) / group_w, 0, 1)
            accepted_loss += share * group_l
        above += group_w
    return accepted_loss / accepted_weight


# ------------------------------------------------------------------------------------
# New metrics (SPEC section 10): partial areas, FD-Shifts conventions, calibration.
# ------------------------------------------------------------------------------------
def aurc_step_partial(ordered, low, high, estimator="harmonic"):
    """Area over coverages (low, high] of the curve the plug-in estimator integrates:
    C(c) = (sum of the ceil(cn) most confident losses) / d(cn), d = ceil (harmonic,
    the step curve of [AURC] Eq. 10) or x + 1 (log, Eq. 18); step by step."""
    n = len(ordered)
    area = 0.0
    for k in range(1, n + 1):  # coverage in ((k - 1)/n, k/n]: top-k accepted
        a, b = max((k - 1) / n, low), min(k / n, high)
        if b <= a:
            continue
        top = sum(ordered[n - k :])
        if estimator == "harmonic":
            area += (b - a) * top / k
        else:  # integral of top / (c n + 1) dc
            area += top * math.log((n * b + 1) / (n * a + 1)) / n
    return area


def fdshifts_trapezoid_aurc(confidence, losses):
    """FD-Shifts ``selective_risk_stats`` + ``-np.trapz``: risk at each distinct
    threshold, descending coverage, then the last risk again at coverage 0."""
    order = np.argsort(confidence, kind="stable")
    residuals, confids = np.asarray(losses, float)[order], np.asarray(confidence)[order]
    n = len(residuals)
    cov, error_sum = n, sum(residuals)
    coverages, risks = [1.0], [error_sum / n]
    for i in range(n - 1):
        cov -= 1
        error_sum -= residuals[i]
        if confids[i] != confids[i + 1]:
            coverages.append(cov / n)
            risks.append(error_sum / cov)
    coverages.append(0.0)
    risks.append(risks[-1])
    return _trapezoid_descending(coverages, risks)


def _trapezoid_descending(coverages, risks):
    area = 0.0
    for j in range(len(coverages) - 1):
        area += (coverages[j] - coverages[j + 1]) * (risks[j] + risks[j + 1]) / 2
    return area


def fdshifts_aurc_ba(confidence, losses, labels):
    """FD-Shifts ``selective_risk_ba_stats`` + trapezoid: the mean over the classes
    of the selective risk within the class (0 for a class without accepted sample)."""
    order = np.argsort(confidence, kind="stable")
    residuals = np.asarray(losses, float)[order]
    confids, labels = np.asarray(confidence)[order], np.asarray(labels)[order]
    classes = sorted(set(labels.tolist()))
    n = len(residuals)
    class_count = {c: float(np.sum(labels == c)) for c in classes}
    error_sum = {c: float(np.sum(residuals[labels == c])) for c in classes}

    def risk():
        return np.mean(
            [error_sum[c] / class_count[c] if class_count[c] else 0.0 for c in classes]
        )

    cov, coverages, risks = n, [1.0], [risk()]
    for i in range(n - 1):
        cov -= 1
        class_count[labels[i]] -= 1
        error_sum[labels[i]] -= residuals[i]
        if confids[i] != confids[i + 1]:
            coverages.append(cov / n)
            risks.append(risk())
    coverages.append(0.0)
    risks.append(risks[-1])
    return _trapezoid_descending(coverages, risks)


def fdshifts_augrc_ba(confidence, losses, labels):
    """FD-Shifts ``generalized_risk_ba_stats``: residuals times n / (K n_class), then
    the trapezoid area under the generalized risk from (0, 0)."""
    labels = np.asarray(labels)
    classes = sorted(set(labels.tolist()))
    n = len(labels)
    scale = [n / (len(classes) * np.sum(labels == label)) for label in labels]
    residuals = np.asarray(losses, float) * np.array(scale)
    order = np.argsort(confidence, kind="stable")
    residuals, confids = residuals[order], np.asarray(confidence)[order]
    error_sum = sum(residuals)
    coverages, risks = [1.0], [error_sum / n]
    cov = n
    for i in range(n - 1):
        cov -= 1
        error_sum -= residuals[i]
        if confids[i] != confids[i + 1]:
            coverages.append(cov / n)
            risks.append(error_sum / n)
    coverages.append(0.0)
    risks.append(0.0)
    return _trapezoid_descending(coverages, risks)


def ece_loops(y_true, y_proba, n_bins, strategy, multiclass, sample_weight=None):
    """Guo et al. Eq. 3 / Kull et al. classwise-ECE, one sample at a time, with the
    bins of sklearn's calibration_curve: right-closed, the first one closed."""
    y_true, y_proba = np.asarray(y_true), np.asarray(y_proba, float)
    n, k = y_proba.shape
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
    if multiclass == "top_label":
        columns = [
            (
                [max(row) for row in y_proba],
                [float(np.argmax(y_proba[i]) == y_true[i]) for i in range(n)],
            )
        ]
    else:
        columns = [
            (list(y_proba[:, j]), [float(y_true[i] == j) for i in range(n)])
            for j in range(k)
        ]
    total = []
    for scores, targets in columns:
        if strategy == "uniform":
            edges = [b / n_bins for b in range(n_bins + 1)]
        else:
            # as calibration_curve: np.percentile(p, np.linspace(0, 1, B + 1) * 100)
            edges = list(np.percentile(scores, np.linspace(0, 1, n_bins + 1) * 100))
        ece = 0.0
        for b in range(n_bins):
            members = [
                i
                for i in range(n)
                if (scores[i] > edges[b] or b == 0)
                and (scores[i] <= edges[b + 1] or b == n_bins - 1)
                and not any(
                    scores[i] <= edges[c + 1] and (scores[i] > edges[c] or c == 0)
                    for c in range(b)
                )
            ]
            gap = sum(w[i] * (targets[i] - scores[i]) for i in members)
            ece += abs(gap)
        total.append(ece / sum(w))
    return float(np.mean(total))
