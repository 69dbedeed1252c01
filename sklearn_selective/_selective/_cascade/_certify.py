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
each path the single model's fixed-sequence walks run from the label-free
starts of :func:`risk_certified`; the risk level is split equally over the
paths (Bonferroni), and with ``max_abstention_rate`` the level is halved
between the risk and the cap, whose walk (p-value ``P(Bin(N, 1 - cap) >=
n)``) runs on each path from full coverage down, also split over the paths.
A configuration is certified when both of its walks reject; among them the
most coverage wins (coverages within ``coverage_tolerance``, relative, of the
most are tied), then the least expected cost, then the earlier path. Any
certified configuration is covered by the guarantee, so the objective may
trade coverage for cost without touching the level.
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
    cap_certified,
    clopper_pearson_upper,
    min_samples_for_guarantee,
    risk_certified,
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

    def levels(self, n_paths):
        """``(alpha_risk, alpha_cap)`` of each path."""
        alpha = 1.0 - self.confidence_level
        if self.max_abstention_rate is None:
            return alpha / n_paths, None
        return alpha / 2 / n_paths, alpha / 2 / n_paths

    def _check_enough_samples(self, n_samples, alpha_risk):
        needed = min_samples_for_guarantee(self.target_risk, 1.0 - alpha_risk, 1)
        if n_samples < needed:
            raise TooFewSamplesError(
                f"A cascade's selective risk <= {self.target_risk} with "
                f"confidence_level={self.confidence_level} cannot be certified "
                f"from {n_samples} validation samples: even with no error at all, "
                f"at least {needed} are needed (the level is split over "
                "the cascade's paths). Use more validation data (a larger cv "
                "fraction or held-out set), a larger target_risk or a smaller "
                "confidence_level.",
                needed,
            )

    def certify(self, path, alpha_risk, alpha_cap):
        """The certified fit of most coverage on ``path``, or None."""
        best, level = risk_certified(path.curve, self.target_risk, alpha_risk)
        if best is None:
            return None
        if alpha_cap is not None:
            lowest = cap_certified(path.curve, self.max_abstention_rate, alpha_cap)
            if lowest is None or best < lowest:
                return None
        bound = clopper_pearson_upper(
            round(path.curve.accepted_loss[best]),
            round(path.curve.accepted_weight[best]),
            level,
        )
        return path.fit(best, risk_bound=float(bound))

    def select(self, paths):
        alpha_risk, alpha_cap = self.levels(len(paths))
        self._check_enough_samples(round(paths[0].curve.total_weight), alpha_risk)
        candidates = [self.certify(path, alpha_risk, alpha_cap) for path in paths]
        certified = [fit for fit in candidates if fit is not None]
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
                f"{self.confidence_level} on this validation data ({len(paths)} "
                "paths, the level split over them). More validation data, a "
                "larger target_risk or a smaller confidence_level may certify "
                "one. The cascade abstains on every sample (thresholds_ = inf).",
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
