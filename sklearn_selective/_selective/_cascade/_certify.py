"""The thresholds of a cascade: label-free paths and the policies along them.

A cascade of ``K`` stages answers a sample by the first stage whose confidence
reaches its threshold, and sends it to a person when none does. A threshold
vector ``(t_1, ..., t_K)`` is a *configuration*; lowering any ``t_k`` answers
more samples (a sample that went on now stops at stage ``k``; no answered
sample becomes unanswered), but changes which stage answers, so the errors are
not monotone.

**Paths.** The configurations searched are a fixed family of 1-D paths built
from the validation confidences alone, never the labels. A path fixes the
earlier stages' thresholds: stage ``k < K`` answers the share ``s_k`` (of
``STAGE_SHARES``) of the validation samples that reach it, its threshold the
confidence of rank ``ceil(s_k m_k)`` among those ``m_k`` samples (``s_k = 0``:
``inf``, the stage passes everything on). Along the path the last stage's
threshold runs down its distinct confidences on the samples that reach it,
from ``inf`` (the earlier stages' answers only) to its lowest (every sample
answered): the answered sets are nested, the coverage grows, and the
expected cost is constant (every sample that reaches the last stage pays it,
answered or not). There are ``len(STAGE_SHARES) ** (K - 1)`` paths, one sort
each (``O(n log n)``). ``STAGE_SHARES`` starts at 0, so the strong model alone
(every sample to the last stage) is one of the paths.

**The guarantee** (the proof is in the user guide, ``cascades.rst``). At a
configuration with ``n`` answered validation samples of which ``k`` are
wrong, ``P(Bin(n, target_risk) <= k)`` is an exact p-value of "the cascade's
selective risk exceeds the target", conditional on ``n``: the answered set is
a function of the inputs alone, so given how many are answered, the answered
samples are i.i.d. draws of the answered population and each is wrong with
probability the cascade's selective risk. Which stage answered a sample does
not matter: the test is of the whole cascade's answered set, so no stage's
calibration needs to be valid after the earlier stages' selection. Along
each path, risk walks (the single model's fixed-sequence walks) run toward
more coverage from label-free starts, and the risk level is split equally
(Bonferroni) over the *distinct walks* only (:func:`risk_walks`): two share
combinations whose earlier thresholds coincide, as with tied confidences,
are one path (:func:`distinct_paths`), and two starts that fall on the same
point of a path (its earlier stages already answer more than both counts)
are one walk; the same tests with the same outcomes fail together, so they
pay once. With ``max_abstention_rate`` the level is halved between the risk
and the cap, whose walk (p-value ``P(Bin(N, 1 - cap) >= n)``) runs on each
distinct path from full coverage down, split over those paths. A
configuration is certified when both of its walks reject; among them the
most coverage wins (coverages within ``coverage_tolerance``, relative, of
the most are tied), then the least expected cost, then the earlier path.
Any certified configuration is covered by the guarantee, so the objective
may trade coverage for cost without touching the level.
"""

import itertools
import math
from typing import NamedTuple

import numpy as np
from sklearn.utils import Bunch

from ..._utils._warnings import warn
from ...exceptions import GuaranteeNotMetWarning, TooFewSamplesError
from .._curve import _RELATIVE_TOLERANCE, _ValidationCurve
from .._guarantees import (
    START_RATIO,
    cap_certified,
    clopper_pearson_upper,
    min_samples_for_guarantee,
    risk_p_values,
    walk,
)

# Shares of the samples reaching an earlier stage that the stage answers, one
# path per combination: label-free, fixed before the data are seen.
STAGE_SHARES = (0.0, 0.2, 0.4, 0.6, 0.8)


class CascadeFit(NamedTuple):
    """The chosen configuration and its validation numbers."""

    thresholds: np.ndarray
    coverage: float
    risk: float
    risk_bound: float | None
    expected_cost: float
    stage_share: np.ndarray


class CascadePath(NamedTuple):
    """One label-free path: the earlier stages' thresholds fixed, the last
    stage's running down. ``curve`` counts the whole cascade's answers at each
    point (``thresholds[0] = inf``: the earlier stages' answers only)."""

    earlier: np.ndarray
    earlier_weight: np.ndarray
    curve: _ValidationCurve
    cost: float

    def fit(self, index, risk_bound=None):
        """The :class:`CascadeFit` at point ``index`` of the path."""
        curve = self.curve
        total = curve.total_weight
        answered = float(curve.accepted_weight[index])
        last = answered - float(self.earlier_weight.sum())
        share = np.concatenate(
            [self.earlier_weight / total, [last / total, 1.0 - answered / total]]
        )
        risk = curve.accepted_loss[index] / answered if answered > 0 else math.nan
        return CascadeFit(
            np.append(self.earlier, curve.thresholds[index]),
            answered / total,
            float(risk),
            risk_bound,
            self.cost,
            share,
        )


def _share_threshold(confidence, weights, share):
    """The highest confidence at which the samples at or above it weigh at
    least ``share`` of the total (``inf`` for share 0): with unit weights, the
    confidence of rank ``ceil(share * m)``."""
    positive = weights > 0
    confidence, weights = confidence[positive], weights[positive]
    if share == 0 or confidence.shape[0] == 0:
        return math.inf
    order = np.argsort(-confidence, kind="stable")
    cumulative = np.cumsum(weights[order])
    goal = share * cumulative[-1] * (1 - _RELATIVE_TOLERANCE)
    rank = min(int(np.searchsorted(cumulative, goal)), confidence.shape[0] - 1)
    return float(confidence[order[rank]])


def _path(confidence, losses, weights, cumulative_cost, shares):
    """The path whose earlier stages answer ``shares`` of what reaches them."""
    n_stages = confidence.shape[1]
    reach = np.ones(confidence.shape[0], dtype=bool)
    earlier, earlier_weight = [], []
    answered_loss, paid = 0.0, 0.0
    for stage, share in enumerate(shares):
        threshold = _share_threshold(confidence[reach, stage], weights[reach], share)
        accept = reach & (confidence[:, stage] >= threshold)
        earlier.append(threshold)
        earlier_weight.append(float(weights[accept].sum()))
        answered_loss += float(weights[accept] @ losses[accept, stage])
        paid += cumulative_cost[stage] * earlier_weight[-1]
        reach &= ~accept
    answered_weight = float(np.sum(earlier_weight))
    last = n_stages - 1
    thresholds, weight, loss = np.array([math.inf]), np.zeros(1), np.zeros(1)
    if reach.any():
        tail = _ValidationCurve.from_samples(
            confidence[reach, last], losses[reach, last], weights[reach]
        )
        thresholds = np.append(thresholds, tail.thresholds)
        weight = np.append(weight, tail.accepted_weight)
        loss = np.append(loss, tail.accepted_loss)
    total = float(weights.sum())
    paid += cumulative_cost[last] * float(weights[reach].sum())
    curve = _ValidationCurve(
        thresholds, weight + answered_weight, loss + answered_loss, total
    )
    return CascadePath(
        np.array(earlier, dtype=np.float64),
        np.array(earlier_weight),
        curve,
        paid / total,
    )


def cascade_paths(confidence, losses, weights, stage_costs, shares=STAGE_SHARES):
    """Every label-free path of the cascade (see the module docstring).

    ``confidence`` and ``losses`` have shape ``(n_samples, n_stages)``: each
    stage's confidence and 0/1 loss on every validation sample.
    """
    cumulative_cost = np.cumsum(stage_costs)
    n_earlier = confidence.shape[1] - 1
    return [
        _path(confidence, losses, weights, cumulative_cost, combination)
        for combination in itertools.product(shares, repeat=n_earlier)
    ]


def distinct_paths(paths):
    """For each path, the index of the first path with the same earlier
    thresholds: those two answer the same validation samples by the same
    stages at every point, so they test the same hypotheses with the same
    p-values, one walk (label-free: the thresholds are read from the
    confidences)."""
    earlier = np.array([path.earlier for path in paths]).reshape(len(paths), -1)
    _, first, inverse = np.unique(
        earlier, axis=0, return_index=True, return_inverse=True
    )
    return first[inverse.ravel()]


def _start_counts(n_samples, target_risk, level, ratio):
    """Answered-sample counts where the risk walks of one path start: ``m0,
    ratio m0, ratio**2 m0, ...`` up to ``n_samples``, ``m0`` the fewest
    answered samples at which no error rejects at ``level`` (only
    ``n_samples`` when ``m0`` is more), as for a single model."""
    m0 = math.ceil(math.log(level) / math.log1p(-target_risk))
    if m0 >= n_samples:
        return [n_samples]
    counts = [m0]
    while counts[-1] * ratio <= n_samples:
        counts.append(counts[-1] * ratio)
    return [min(n_samples, math.ceil(count)) for count in counts]


def risk_walks(curves, target_risk, alpha_risk, ratio=START_RATIO):
    """``(starts, level)``: the distinct start indices of the risk walks on
    each curve, and the level of every walk. With ``w`` walks in all, each
    is at ``alpha_risk / w`` and its starts are the points where the curve
    first reaches the counts of :func:`_start_counts` at that level; two
    counts reaching the same point (the earlier stages of a path answer more
    than both at its first point) start one walk, not two. ``w`` is the
    smallest number at which the distinct starts number at most ``w``: label
    free (the curves' answered counts only), and the walks share
    ``alpha_risk`` by Bonferroni."""
    n_samples = round(curves[0].total_weight)
    n_walks = len(curves)
    while True:
        level = alpha_risk / n_walks
        counts = np.array(_start_counts(n_samples, target_risk, level, ratio))
        starts = [
            np.unique(np.searchsorted(curve.accepted_weight, counts - 0.5))
            for curve in curves
        ]
        if sum(s.shape[0] for s in starts) <= n_walks:
            return starts, level
        n_walks += 1


def _best(candidates, coverage_tolerance=0.0):
    """Most coverage, then least expected cost, then the first path: the
    coverages within ``coverage_tolerance`` (relative) of the most are tied."""
    if not candidates:
        return None
    most = max(fit.coverage for fit in candidates)
    floor = most * (1 - max(coverage_tolerance, _RELATIVE_TOLERANCE))
    top = [fit for fit in candidates if fit.coverage >= floor]
    return min(top, key=lambda fit: (fit.expected_cost, -fit.coverage))


def _abstain(paths, risk_bound=None):
    """Every sample to a person: each passes through every stage (the first
    path, whose earlier stages pass everything on, pays exactly that)."""
    n_stages = paths[0].earlier.shape[0] + 1
    share = np.zeros(n_stages + 1)
    share[-1] = 1.0
    thresholds = np.full(n_stages, math.inf)
    return CascadeFit(thresholds, 0.0, math.nan, risk_bound, paths[0].cost, share)


class CoveragePolicy:
    """Each policy's ``select(paths)`` returns the chosen :class:`CascadeFit`
    and the fit of each path under the policy (None where a path has none).

    Empirical: on each path the first point whose validation coverage
    reaches the target; the least validation risk among the paths, then the
    least expected cost."""

    def __init__(self, target_coverage):
        self.target_coverage = target_coverage

    def select(self, paths):
        fits = []
        for path in paths:
            coverage = path.curve.coverage
            reached = coverage >= self.target_coverage * (1 - _RELATIVE_TOLERANCE)
            fits.append(path.fit(int(np.argmax(reached))))
        least = min(_risk_or_zero(fit) for fit in fits)
        best = min(
            (fit for fit in fits if _risk_or_zero(fit) <= least * (1 + 1e-12)),
            key=lambda fit: fit.expected_cost,
        )
        return best, fits


def _risk_or_zero(fit):
    return 0.0 if math.isnan(fit.risk) else fit.risk


class RiskPolicy:
    """Empirical: on each path the most coverage whose validation selective
    risk is at most the target; most coverage among the paths, then least
    expected cost. Abstains on everything with a warning when no point has."""

    def __init__(self, target_risk, coverage_tolerance=0.0):
        self.target_risk = target_risk
        self.coverage_tolerance = coverage_tolerance

    def select(self, paths):
        candidates = []
        for path in paths:
            curve = path.curve
            with np.errstate(invalid="ignore", divide="ignore"):
                risk = curve.accepted_loss / curve.accepted_weight
            feasible = np.flatnonzero(
                risk <= self.target_risk * (1 + _RELATIVE_TOLERANCE)
            )
            candidates.append(path.fit(int(feasible[-1])) if feasible.size else None)
        best = _best(
            [fit for fit in candidates if fit is not None], self.coverage_tolerance
        )
        if best is None:
            warn(
                f"No configuration of the cascade has a validation selective risk "
                f"<= {self.target_risk}. The cascade abstains on every sample "
                "(thresholds_ = inf).",
                GuaranteeNotMetWarning,
            )
            return _abstain(paths), candidates
        return best, candidates


class GuaranteePolicy:
    """Learn-then-Test over the paths (see the module docstring)."""

    def __init__(
        self,
        target_risk,
        confidence_level,
        max_abstention_rate=None,
        coverage_tolerance=0.0,
    ):
        self.target_risk = target_risk
        self.confidence_level = confidence_level
        self.max_abstention_rate = max_abstention_rate
        self.coverage_tolerance = coverage_tolerance

    def levels(self):
        """``(alpha_risk, alpha_cap)``: the level of the risk walks together
        and of the cap walks together (Bonferroni over the two constraints)."""
        alpha = 1.0 - self.confidence_level
        if self.max_abstention_rate is None:
            return alpha, None
        return alpha / 2, alpha / 2

    def _check_enough_samples(self, n_samples, alpha_risk):
        needed = min_samples_for_guarantee(self.target_risk, 1.0 - alpha_risk, 1)
        if n_samples < needed:
            raise TooFewSamplesError(
                f"A cascade's selective risk <= {self.target_risk} with "
                f"confidence_level={self.confidence_level} cannot be certified "
                f"from {n_samples} validation samples: even with no error at all, "
                f"at least {needed} are needed (the level is split over "
                "the cascade's distinct paths). Use more validation data (a larger "
                "cv fraction or held-out set), a larger target_risk or a smaller "
                "confidence_level.",
                needed,
            )

    def certify(self, path, starts, level, alpha_cap):
        """The certified fit of most coverage on ``path`` from the risk walks
        at ``starts`` (indices on the path), each at ``level``, and the cap
        walk at ``alpha_cap``; or None."""
        curve = path.curve
        p_values = risk_p_values(
            curve.accepted_loss, curve.accepted_weight, self.target_risk
        )
        ends = [walk(p_values, level, start, +1) for start in starts]
        ends = [end for end in ends if end is not None]
        if not ends:
            return None
        best = max(ends)
        if alpha_cap is not None:
            lowest = cap_certified(curve, self.max_abstention_rate, alpha_cap)
            if lowest is None or best < lowest:
                return None
        bound = clopper_pearson_upper(
            round(curve.accepted_loss[best]), round(curve.accepted_weight[best]), level
        )
        return path.fit(best, risk_bound=float(bound))

    def select(self, paths):
        first = distinct_paths(paths)
        distinct = np.unique(first)
        alpha_risk, alpha_cap = self.levels()
        n_samples = round(paths[0].curve.total_weight)
        self._check_enough_samples(n_samples, alpha_risk / distinct.shape[0])
        starts, level = risk_walks(
            [paths[j].curve for j in distinct], self.target_risk, alpha_risk
        )
        if alpha_cap is not None:
            alpha_cap = alpha_cap / distinct.shape[0]
        fits = {
            j: self.certify(paths[j], path_starts, level, alpha_cap)
            for j, path_starts in zip(distinct, starts, strict=True)
        }
        candidates = [fits[j] for j in first]
        certified = [fits[j] for j in distinct if fits[j] is not None]
        n_distinct = distinct.shape[0]
        best = _best(certified, self.coverage_tolerance)
        if best is None:
            cap = (
                ""
                if self.max_abstention_rate is None
                else f" and a share sent to a person <= {self.max_abstention_rate}"
            )
            warn(
                f"No configuration of the cascade certifies a selective risk <= "
                f"{self.target_risk}{cap} with confidence_level="
                f"{self.confidence_level} on this validation data ({n_distinct} "
                "distinct paths, the level split over their walks). More "
                "validation data, a larger target_risk or a smaller "
                "confidence_level may certify one. The cascade abstains on "
                "every sample (thresholds_ = inf).",
                GuaranteeNotMetWarning,
            )
            return _abstain(paths, risk_bound=math.nan), candidates
        return best, candidates


def resolve_policy(cascade):
    """The policy object of a :class:`SelectiveCascade`'s parameters, and its
    name (resolved once)."""
    if cascade.target_coverage is not None and cascade.target_risk is not None:
        raise ValueError(
            "Set at most one of target_coverage and target_risk; got both."
        )
    if cascade.confidence_level is not None:
        if cascade.target_risk is None:
            raise ValueError(
                "confidence_level is the level of a risk guarantee: set "
                "target_risk too (e.g. target_risk=0.05)."
            )
        policy = GuaranteePolicy(
            cascade.target_risk,
            cascade.confidence_level,
            cascade.max_abstention_rate,
            cascade.coverage_tolerance,
        )
        return policy, "guaranteed_risk"
    if cascade.max_abstention_rate is not None:
        raise ValueError(
            "max_abstention_rate is certified with the risk guarantee: set "
            "target_risk and confidence_level too."
        )
    if cascade.target_risk is not None:
        policy = RiskPolicy(cascade.target_risk, cascade.coverage_tolerance)
        return policy, "target_risk"
    coverage = 0.9 if cascade.target_coverage is None else cascade.target_coverage
    return CoveragePolicy(coverage), "target_coverage"


def paths_table(path_fits, n_stages):
    """The ``paths_`` table: one row per path, nan where it offers nothing."""
    nothing = np.full(n_stages, np.nan)
    rows = [
        fit
        if fit is not None
        else (nothing, np.nan, np.nan, np.nan, np.nan, np.full(n_stages + 1, np.nan))
        for fit in path_fits
    ]
    thresholds, coverage, risk, bound, cost, share = zip(*rows, strict=True)
    return Bunch(
        thresholds=np.vstack(thresholds),
        stage_share=np.vstack(share),
        coverage=np.array(coverage, dtype=np.float64),
        risk=np.array(risk, dtype=np.float64),
        risk_bound=np.array([np.nan if b is None else b for b in bound]),
        expected_cost=np.array(cost, dtype=np.float64),
    )
