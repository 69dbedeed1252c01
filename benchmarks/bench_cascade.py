"""SelectiveCascade's guarantee: validity, power and cost, in simulation.

A population whose risk at every threshold of every stage is known. Two
stages, a cheap one and a strong one, each with a confidence ``s_k`` uniform
on [0, 1], independent of each other (the stages are confident on different
samples), and wrong with probability ``a_k (1 - s_k)**2`` independently given
the confidences. Stage ``k`` predicts with MSP ``0.5 + s_k / 2``. Answering by
stage 1 when ``s_1 >= t_1`` and else by stage 2 when ``s_2 >= t_2`` gives

- coverage ``(1 - t_1) + t_1 (1 - t_2)``;
- errors ``a_1 (1 - t_1)**3 / 3 + t_1 a_2 (1 - t_2)**3 / 3`` (share of all
  samples), so the selective risk is their ratio;
- strong-model calls ``t_1`` (share of samples that reach stage 2).

The three-stage setting extends it (stage ``k`` is reached by ``t_1 ...
t_{k-1}`` of the samples; the strong model is the last stage). In the
*complementary* setting the strong model's confidence is ``1 - s_1``: the
two stages are confident on different samples (every sample the cheap stage
passes on is one the strong stage is sure of), so the cheap stage answering
``1 - t_1`` leaves the strong stage ``min(1 - t_2, t_1)`` with errors
``a_2 min(1 - t_2, t_1)**3 / 3``.

Each cell draws ``--repeats`` validation sets, fits the cascade (both stages
``FrozenEstimator``) and the strong model alone (``SelectiveClassifier``) under
the same guarantee (the cascade also with ``coverage_tolerance``: the
cheapest certified configuration within that share of the most coverage),
and reports

- ``violations``: the rate at which a certified constraint (risk, and the
  share sent to a person with a cap) fails on the population, with its
  Monte-Carlo s.e. (nominal: at most ``1 - confidence_level`` + 2 s.e.);
  abstaining on everything, with its warning, certifies nothing;
- ``coverage``: mean population coverage, and its ratio to the strong
  model's alone;
- ``strong calls``: mean population share of samples the strong model sees;
- ``abstain``: the rate of fits that certify nothing;
- ``goal``: the goal of issue 38 met, coverage at least 0.95 of the strong
  model's alone with strong calls at most 0.5 (means over the draws).

Each cell also prints the *oracle*, the population known: the most coverage
at a population selective risk <= the target (and the cap) of the strong
model alone and of the cascade with strong calls <= 0.5 (``n = inf``: what
no sample size can beat); and, at the cell's ``n``, the most expected
certified coverage (coverage times the probability that one binomial test
at the full level certifies it; with a cap, the risk and the cap each at
half the level) of one configuration chosen in advance, alone and for the
cascade with strong calls <= 0.5. The latter is a reference, not a bound:
a procedure that adapts to the draw can do better at small ``n``.

Then the time to fit the thresholds on 1e5 validation samples beyond the
models' predictions (the paths and the certification).

Run: ``python benchmarks/bench_cascade.py [--repeats 500]``
"""

import argparse
import itertools
import warnings

import numpy as np
from _measure import best_cpu_time, best_time
from scipy.stats import binom
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.frozen import FrozenEstimator

from sklearn_selective import SelectiveCascade, SelectiveClassifier
from sklearn_selective._selective._cascade._certify import (
    GuaranteePolicy,
    cascade_paths,
)
from sklearn_selective.exceptions import GuaranteeNotMetWarning


class _StageModel(ClassifierMixin, BaseEstimator):
    """Reads its prediction from column ``2 * stage`` of X and its confidence
    ``s`` from the next column: MSP ``0.5 + s / 2``."""

    def __init__(self, stage=0):
        self.stage = stage

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        return self

    def predict(self, X):
        return X[:, 2 * self.stage].astype(int)

    def predict_proba(self, X):
        predicted, s = X[:, 2 * self.stage].astype(int), X[:, 2 * self.stage + 1]
        proba = np.empty((X.shape[0], 2))
        proba[np.arange(X.shape[0]), predicted] = 0.5 + s / 2
        proba[np.arange(X.shape[0]), 1 - predicted] = 0.5 - s / 2
        return proba


def _stages(n_stages=2):
    names = ("cheap", "strong") if n_stages == 2 else ("cheap", "middle", "strong")
    return [
        (name, FrozenEstimator(_StageModel(stage).fit(None, None)))
        for stage, name in enumerate(names)
    ]


def draw(rng, n, scales, complementary=False):
    """``n`` samples: columns (prediction, s) of each stage, and the labels
    (``complementary``: two stages, ``s_2 = 1 - s_1``)."""
    y = rng.integers(0, 2, n)
    columns = []
    first = None
    for scale in scales:
        s = rng.random(n) if first is None or not complementary else 1 - first
        first = s
        wrong = rng.random(n) < scale * (1 - s) ** 2
        columns += [np.where(wrong, 1 - y, y), s]
    return np.column_stack(columns), y


def population(thresholds, scales, complementary=False):
    """Population ``(coverage, risk, strong calls)`` of the cascade at MSP
    ``thresholds`` (``inf``: the stage passes everything on): stage ``k`` is
    reached with probability ``t_1 ... t_{k-1}`` and answers ``1 - t_k`` of
    what reaches it, with errors ``a_k (1 - t_k)**3 / 3`` (``complementary``:
    see the module docstring)."""
    t = np.clip(2 * (np.asarray(thresholds, dtype=float) - 0.5), 0, 1)
    if complementary:
        (t1, t2), (a1, a2) = t, scales
        second = min(1 - t2, t1)
        coverage = 1 - t1 + second
        errors = (a1 * (1 - t1) ** 3 + a2 * second**3) / 3
        return coverage, errors / coverage if coverage > 0 else 0.0, t1
    reach = np.concatenate([[1.0], np.cumprod(t)[:-1]])
    coverage = 1 - np.prod(t)
    errors = np.sum(reach * np.asarray(scales) * (1 - t) ** 3 / 3)
    risk = errors / coverage if coverage > 0 else 0.0
    return coverage, risk, reach[-1]


def report_truth(thresholds, scales, costs, names=("cheap", "strong")):
    """The population value of every number of ``SelectiveCascade.report`` at
    MSP ``thresholds``, keyed ``(part, statistic)`` as ``to_frame`` rows."""
    t1, t2 = np.clip(2 * (np.asarray(thresholds, dtype=float) - 0.5), 0, 1)
    coverage, risk, calls = population(thresholds, scales)
    (a1, a2), (c1, c2) = scales, costs
    truth = {
        ("cascade", "coverage"): coverage,
        ("cascade", "risk"): risk,
        ("cascade", "expected_cost"): c1 + c2 * calls,
        ("person", "share"): t1 * t2,
    }
    stage = ((1 - t1, a1, 1 - t1, t1), (t1 * (1 - t2), a2, 1 - t2, t2))
    for name, (share, a, own, t) in zip(names, stage, strict=True):
        truth[name, "share"] = share
        truth[name, "risk"] = a * (1 - t) ** 2 / 3
        truth[name, "coverage"] = own
        truth[name, "alone_coverage"] = 1 - t
        truth[name, "alone_risk"] = a * (1 - t) ** 2 / 3
    return truth


def _violated(coverage, risk, target, cap, certified):
    if not certified:
        return False
    return risk > target or (cap is not None and 1 - coverage > cap)


def _fit(n_stages, X, y, guarantee, tolerance):
    stages = _stages(n_stages)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GuaranteeNotMetWarning)
        warnings.simplefilter("ignore", UserWarning)  # the classifier's, alike
        if tolerance is None:
            return SelectiveClassifier(stages[-1][1], **guarantee).fit(X, y)
        return SelectiveCascade(stages, coverage_tolerance=tolerance, **guarantee).fit(
            X, y
        )


def cell(n, scales, target, level, cap, repeats, seed, tolerances, complementary):
    """Per repetition: violation, population coverage and strong-model calls of
    the cascade (``coverage_tolerance`` 0 and each of ``tolerances``) and of
    the strong model alone (calls 1), and whether each certified nothing."""
    rng = np.random.default_rng(seed)
    guarantee = {
        "target_risk": target,
        "confidence_level": level,
        "max_abstention_rate": cap,
    }
    rows = []
    for _ in range(repeats):
        X, y = draw(rng, n, scales, complementary)
        row = []
        for tol in (0.0, *tolerances, None):
            model = _fit(len(scales), X, y, guarantee, tol)
            thresholds = (
                [np.inf] * (len(scales) - 1) + [model.threshold_]
                if tol is None
                else model.thresholds_
            )
            certified = bool(np.isfinite(thresholds).any())
            coverage, risk, calls = population(thresholds, scales, complementary)
            bad = _violated(coverage, risk, target, cap, certified)
            row += [bad, coverage, calls if certified else 1.0, not certified]
        rows.append(row)
    return np.array(rows, dtype=float).reshape(repeats, len(tolerances) + 2, 4)


def _ratio(value, reference):
    return f"{value / reference:.3f}" if reference > 0 else "(alone: 0)"


def _rate(hits):
    rate = float(np.mean(hits))
    return f"{rate:.3f} ± {np.sqrt(rate * (1 - rate) / len(hits)):.3f}"


# name, scales, target risk, confidence level, cap, complementary confidences
NO, YES = (None, False), (None, True)  # no cap; independent or complementary
SETTINGS = (
    ("a=(0.2, 0.1), risk 0.05, 90%", (0.2, 0.1), 0.05, 0.90, None, False),
    ("a=(0.3, 0.15), risk 0.05, 90%", (0.3, 0.15), 0.05, 0.90, None, False),
    ("a=(0.6, 0.3), risk 0.05, 95%, cap 0.5", (0.6, 0.3), 0.05, 0.95, 0.5, False),
    ("a=(0.3, 0.15), risk 0.02, 90%", (0.3, 0.15), 0.02, 0.90, None, False),
    ("3 stages a=(0.4, 0.2, 0.1), risk 0.05, 90%", (0.4, 0.2, 0.1), 0.05, 0.9, *NO),
    ("complementary a=(0.3, 0.15), risk 0.05, 90%", (0.3, 0.15), 0.05, 0.9, *YES),
)


def certified_probability(n, coverage, risk, target, alpha_risk, cap, alpha_cap):
    """Probability that one binomial test at ``alpha_risk`` (and the cap's at
    ``alpha_cap``) certifies each configuration of population ``coverage``
    and ``risk`` from ``n`` validation samples: the answered count ``m`` is
    ``Bin(n, coverage)``, the errors ``Bin(m, risk)``."""
    m = np.arange(n + 1)
    k = binom.ppf(alpha_risk, m, target)  # the most errors that still reject
    k = np.where(binom.cdf(k, m, target) > alpha_risk, k - 1, k)
    testable = k >= 0
    if cap is not None:
        testable &= binom.sf(m - 1, n, 1 - cap) <= alpha_cap
    answered = binom.pmf(m, n, np.asarray(coverage)[:, None])
    passed = binom.cdf(k, m, np.asarray(risk)[:, None])
    return np.sum(np.where(testable, answered * passed, 0.0), axis=1)


def oracle(n, scales, target, level, cap, complementary, points=41):
    """The population known (see the module docstring), on a grid of
    thresholds: ``(alone, cascade)`` most coverage at ``n = inf`` and the
    most expected certified coverage of one configuration at ``n`` (the
    cascade's with strong calls <= 0.5), and that configuration's calls."""
    points = points if len(scales) == 2 else 17
    axis = np.linspace(0, 1, points)
    grid = np.array(list(itertools.product(axis, repeat=len(scales))))
    values = np.array([population(0.5 + t / 2, scales, complementary) for t in grid])
    coverage, risk, calls = values.T
    alone = np.all(grid[:, :-1] == 1, axis=1)
    cheap = calls <= 0.5 + 1e-9
    feasible = risk <= target + 1e-12
    if cap is not None:
        feasible &= 1 - coverage <= cap + 1e-12
    alpha = 1 - level
    alpha_risk, alpha_cap = (alpha, None) if cap is None else (alpha / 2, alpha / 2)
    expected = coverage * certified_probability(
        n, coverage, risk, target, alpha_risk, cap, alpha_cap
    )
    best = np.flatnonzero(cheap)[np.argmax(expected[cheap])]
    return (
        coverage[alone & feasible].max(initial=0.0),
        coverage[cheap & feasible].max(initial=0.0),
        expected[alone].max(),
        expected[best],
        calls[best],
    )


def bench(repeats, sizes, tolerances):
    print(__doc__.split("\n\n")[1])
    print(
        "\n'cascade tol t': coverage_tolerance=t. Violation rates with their "
        "Monte-Carlo s.e.; coverage and strong calls are population means."
    )
    names = ("cascade", *(f"cascade tol {t:g}" for t in tolerances), "strong alone")
    print(
        f"\n{'setting':>44} {'n':>5} {'model':>16} {'violations':>13} "
        f"{'coverage':>8} {'vs alone':>8} {'strong calls':>12} {'abstain':>13} "
        f"{'goal':>4}"
    )
    met = dict.fromkeys(names[:-1], 0)
    seed = 0
    for name, scales, target, level, cap, complementary in SETTINGS:
        for n in sizes:
            seed += 1
            rows = cell(
                n, scales, target, level, cap, repeats, seed, tolerances, complementary
            )
            alone = rows[:, -1, 1].mean()
            for i, model in enumerate(names):
                bad, coverage, calls, nothing = rows[:, i].T
                ratio = coverage.mean() / alone if alone > 0 else np.inf
                goal = i < len(names) - 1 and ratio >= 0.95 and calls.mean() <= 0.5
                if goal:
                    met[model] += 1
                print(
                    f"{name:>44} {n:>5} {model:>16} {_rate(bad):>13} "
                    f"{coverage.mean():>8.3f} {ratio:>8.3f} "
                    f"{calls.mean():>12.3f} {_rate(nothing):>13} "
                    f"{'yes' if goal else '':>4}"
                )
            pop_alone, pop_cascade, one_alone, one_cascade, calls = oracle(
                n, scales, target, level, cap, complementary
            )
            print(
                f"{name:>44} {n:>5} {'oracle':>16} coverage at n=inf: alone "
                f"{pop_alone:.3f}, cascade (calls <= 0.5) {pop_cascade:.3f}; one "
                f"test at n: alone {one_alone:.3f}, cascade {one_cascade:.3f} "
                f"(calls {calls:.3f}), {_ratio(one_cascade, alone)} of the strong "
                "model alone's"
            )
    n_cells = len(SETTINGS) * len(sizes)
    print(
        "\nGoal (coverage >= 0.95 of the strong model alone's, strong calls <= "
        "0.5) met in: "
        + ", ".join(f"{model} {count}/{n_cells}" for model, count in met.items())
    )


def bench_time(n, repeat):
    """Fit of the thresholds on ``n`` validation samples, from the stages'
    confidences and losses (what remains beyond the models' predictions):
    wall time and CPU time of this thread (which leaves out the waits for a
    core on a shared machine)."""
    rng = np.random.default_rng(0)
    X, y = draw(rng, n, (0.6, 0.3))
    confidence = 0.5 + X[:, [1, 3]] / 2
    losses = (X[:, [0, 2]] != y[:, None]).astype(float)
    weights = np.ones(n)
    policy = GuaranteePolicy(0.05, 0.9, 0.5)

    def fit():
        return policy.select(cascade_paths(confidence, losses, weights, [1.0, 5.0]))[0]

    stages = _stages()
    estimator = SelectiveCascade(stages, target_risk=0.05, confidence_level=0.9)

    def predictions():
        return [model.predict_proba(X) for _, model in stages]

    print(f"\nFit on {n:.0e} validation samples, 2 stages (5 paths), seconds:")
    for name, func in (
        ("thresholds (paths and certification)", fit),
        ("SelectiveCascade.fit", lambda: estimator.fit(X, y)),
        ("of which the models' predictions", predictions),
    ):
        wall, cpu = best_time(func, repeat), best_cpu_time(func, repeat)
        print(f"{name:>38}: wall {wall:.3f}, CPU {cpu:.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=300)
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--tolerances", type=float, nargs="*", default=[0.05, 0.1])
    parser.add_argument("--time-n", type=float, default=1e5)
    parser.add_argument("--time-repeat", type=int, default=3)
    args = parser.parse_args()
    bench(args.repeats, args.sizes, args.tolerances)
    bench_time(int(args.time_n), args.time_repeat)


if __name__ == "__main__":
    main()
