"""The thresholds of a cascade: label-free paths, the policies along them, and
the guarantee checked by simulation on a population of known risk."""

import math
import warnings

import numpy as np
import pytest
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression

from sklearn_selective import SelectiveCascade, SelectiveClassifier
from sklearn_selective._selective._cascade._certify import (
    STAGE_SHARES,
    CoveragePolicy,
    GuaranteePolicy,
    RiskPolicy,
    cascade_paths,
    distinct_paths,
    risk_walks,
)
from sklearn_selective._selective._curve import _ValidationCurve
from sklearn_selective.exceptions import GuaranteeNotMetWarning


def _draw(rng, n, scales):
    """Each stage's confidence ``s_k`` uniform, independent; wrong with
    probability ``a_k (1 - s_k)**2``."""
    s = rng.random((n, len(scales)))
    losses = (rng.random((n, len(scales))) < np.asarray(scales) * (1 - s) ** 2).astype(
        float
    )
    return s, losses


def _population(thresholds, scales):
    """Coverage and selective risk of two stages at thresholds on ``s``."""
    t1, t2 = np.clip(np.asarray(thresholds, dtype=float), 0, 1)
    a1, a2 = scales
    coverage = (1 - t1) + t1 * (1 - t2)
    errors = a1 * (1 - t1) ** 3 / 3 + t1 * a2 * (1 - t2) ** 3 / 3
    return coverage, errors / coverage if coverage > 0 else 0.0


def test_the_population_formula_matches_monte_carlo():
    rng = np.random.default_rng(0)
    s, losses = _draw(rng, 400_000, (0.6, 0.3))
    t = (0.7, 0.4)
    first = s[:, 0] >= t[0]
    second = ~first & (s[:, 1] >= t[1])
    answered = first | second
    errors = np.where(first, losses[:, 0], losses[:, 1])[answered]
    coverage, risk = _population(t, (0.6, 0.3))
    assert answered.mean() == pytest.approx(coverage, abs=3e-3)
    assert errors.mean() == pytest.approx(risk, abs=3e-3)


def test_paths_are_label_free_nested_and_count_the_whole_cascade():
    rng = np.random.default_rng(1)
    s, losses = _draw(rng, 500, (0.6, 0.3))
    weights = np.ones(500)
    paths = cascade_paths(s, losses, weights, [1.0, 4.0])
    assert len(paths) == len(STAGE_SHARES)
    shuffled = cascade_paths(s, rng.permutation(losses), weights, [1.0, 4.0])
    for path, other in zip(paths, shuffled, strict=True):
        np.testing.assert_array_equal(path.curve.thresholds, other.curve.thresholds)
        np.testing.assert_array_equal(path.earlier, other.earlier)
    for path, share in zip(paths, STAGE_SHARES, strict=True):
        curve = path.curve
        assert np.all(np.diff(curve.accepted_weight) > 0)
        assert curve.accepted_weight[-1] == 500
        assert path.earlier_weight[0] == math.ceil(share * 500)
        # Every sample reaching the strong stage pays it, answered or not.
        assert path.cost == pytest.approx(
            1.0 + 4.0 * (1 - path.earlier_weight[0] / 500)
        )
        # Recount a point of the path from scratch.
        j = len(curve.thresholds) // 2
        t1, t2 = path.earlier[0], curve.thresholds[j]
        first = s[:, 0] >= t1
        second = ~first & (s[:, 1] >= t2)
        assert curve.accepted_weight[j] == (first | second).sum()
        assert (
            curve.accepted_loss[j] == losses[first, 0].sum() + losses[second, 1].sum()
        )
    # Share 0: the strong model alone.
    alone = _ValidationCurve.from_samples(s[:, 1], losses[:, 1], None)
    np.testing.assert_array_equal(paths[0].curve.thresholds[1:], alone.thresholds)
    np.testing.assert_array_equal(paths[0].curve.accepted_loss[1:], alone.accepted_loss)


def test_three_stages_give_a_path_per_combination():
    rng = np.random.default_rng(2)
    s, losses = _draw(rng, 300, (0.6, 0.4, 0.2))
    paths = cascade_paths(s, losses, np.ones(300), [1.0, 2.0, 3.0])
    assert len(paths) == len(STAGE_SHARES) ** 2
    fit = CoveragePolicy(0.9).select(paths)[0]
    assert fit.thresholds.shape == (3,) and fit.stage_share.shape == (4,)
    assert fit.coverage >= 0.9


@pytest.mark.parametrize("cap", [None, 0.5])
def test_one_stage_is_the_selective_classifier_guarantee(cap):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(1600, 4))
    y = (X[:, 0] + X[:, 1] + rng.normal(size=1600) > 0).astype(int)
    model = FrozenEstimator(LogisticRegression().fit(X[:600], y[:600]))
    params = {"target_risk": 0.1, "confidence_level": 0.9, "max_abstention_rate": cap}
    cascade = SelectiveCascade([("only", model)], **params).fit(X[600:], y[600:])
    single = SelectiveClassifier(model, **params).fit(X[600:], y[600:])
    assert cascade.thresholds_[0] == single.threshold_
    assert cascade.coverage_ == single.coverage_
    assert cascade.risk_bound_ == pytest.approx(single.risk_bound_, rel=1e-12)


def test_levels_split_over_constraints_then_walks():
    assert GuaranteePolicy(0.05, 0.9).levels() == pytest.approx((0.1, None))
    assert GuaranteePolicy(0.05, 0.9, 0.3).levels() == pytest.approx((0.05, 0.05))


def test_walks_that_start_at_the_same_point_are_one():
    """1000 samples, target 0.05, alpha 0.1, five paths: at 15 walks each
    path's starts are 98, 294 and 882 answered samples, and a path whose
    earlier stages answer 400 at its first point starts the walks of 98 and
    294 there, one walk: 12 distinct walks, at level 0.1 / 12 (0.1 / 15 when
    every start counted)."""
    rng = np.random.default_rng(7)
    s, losses = _draw(rng, 1000, (0.3, 0.15))
    paths = cascade_paths(s, losses, np.ones(1000), [1.0, 1.0])
    starts, level = risk_walks([p.curve for p in paths], 0.05, 0.1)
    assert [len(p) for p in starts] == [3, 3, 2, 2, 2]
    assert level == pytest.approx(0.1 / 12)
    assert starts[3][0] == 0  # the earlier stages' answers only
    for path, start in zip(paths, starts, strict=True):
        counts = path.curve.accepted_weight[start]
        assert np.all(np.diff(counts) > 0)
    # one path with no earlier stage: the single model's starts and level
    single = risk_walks([paths[0].curve], 0.05, 0.1)
    assert single[1] == pytest.approx(0.1 / 3)


def test_the_level_is_split_over_distinct_paths_only():
    """A cheap stage with two distinct confidences: every share above 0 gives
    the same threshold (its top value), so the five paths are two walks and
    each gets half the level, not a fifth."""
    rng = np.random.default_rng(6)
    s, losses = _draw(rng, 2000, (0.2, 0.1))
    s[:, 0] = np.where(s[:, 0] > 0.2, 0.9, 0.1)
    paths = cascade_paths(s, losses, np.ones(2000), [1.0, 1.0])
    assert distinct_paths(paths).tolist() == [0, 1, 1, 1, 1]
    policy = GuaranteePolicy(0.05, 0.9)
    chosen, fits = policy.select(paths)
    starts, level = risk_walks([p.curve for p in paths[:2]], 0.05, 0.1)
    assert 0.1 / level >= sum(len(p) for p in starts) - 1e-9  # Bonferroni
    once = [
        policy.certify(p, st, level, None) for p, st in zip(paths, starts, strict=False)
    ]
    assert fits[0].risk_bound == pytest.approx(once[0].risk_bound, rel=1e-12)
    assert all(f is fits[1] for f in fits[2:])  # one walk, certified once
    assert (fits[1] is None) == (once[1] is None)
    assert chosen.coverage == max(f.coverage for f in once if f is not None)
    independent = _draw(np.random.default_rng(6), 2000, (0.2, 0.1))
    assert distinct_paths(
        cascade_paths(*independent, np.ones(2000), [1.0, 1.0])
    ).tolist() == [0, 1, 2, 3, 4]


def test_the_objective_most_coverage_then_least_cost():
    rng = np.random.default_rng(4)
    s, losses = _draw(rng, 3000, (0.2, 0.1))
    paths = cascade_paths(s, losses, np.ones(3000), [1.0, 10.0])
    chosen, fits = GuaranteePolicy(0.05, 0.9).select(paths)
    most = max(f.coverage for f in fits if f is not None)
    assert chosen.coverage == most
    tolerant = GuaranteePolicy(0.05, 0.9, coverage_tolerance=0.2).select(paths)[0]
    assert tolerant.coverage >= 0.8 * most
    assert tolerant.expected_cost <= chosen.expected_cost
    assert tolerant.expected_cost == min(
        f.expected_cost for f in fits if f is not None and f.coverage >= 0.8 * most
    )
    empirical = RiskPolicy(0.05).select(paths)[0]
    assert empirical.risk <= 0.05


def test_nothing_certified_warns_and_abstains():
    rng = np.random.default_rng(5)
    s, losses = _draw(rng, 400, (0.9, 0.9))
    paths = cascade_paths(s, losses, np.ones(400), [1.0, 1.0])
    with pytest.warns(GuaranteeNotMetWarning, match="5 distinct paths"):
        fit = GuaranteePolicy(0.01, 0.9).select(paths)[0]
    assert np.isinf(fit.thresholds).all() and fit.coverage == 0.0
    assert fit.stage_share[-1] == 1.0 and fit.expected_cost == 2.0


def _violation_rate(n, scales, target, level, cap, repeats, seed):
    rng = np.random.default_rng(seed)
    policy = GuaranteePolicy(target, level, cap)
    bad = 0
    for _ in range(repeats):
        s, losses = _draw(rng, n, scales)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", GuaranteeNotMetWarning)
            fit, _ = policy.select(cascade_paths(s, losses, np.ones(n), [1.0, 1.0]))
        if np.isinf(fit.thresholds).all():
            continue  # abstaining on everything claims nothing
        coverage, risk = _population(fit.thresholds, scales)
        bad += risk > target or (cap is not None and 1 - coverage > cap)
    return bad / repeats


@pytest.mark.slow
@pytest.mark.parametrize("n", [300, 1000])
@pytest.mark.parametrize(
    "scales, target, level, cap",
    [((0.3, 0.15), 0.05, 0.9, None), ((0.6, 0.3), 0.05, 0.95, 0.5)],
)
def test_the_guarantee_holds_in_simulation(n, scales, target, level, cap):
    repeats = 300
    rate = _violation_rate(n, scales, target, level, cap, repeats, seed=n)
    alpha = 1 - level
    assert rate <= alpha + 2 * math.sqrt(alpha * (1 - alpha) / repeats)
