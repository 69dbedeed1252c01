"""Risk guarantees of SelectiveClassifier: validity and power, in simulation.

A population with a known selective risk: the confidence score ``s`` is uniform
on [0, 1] and the prediction is wrong with probability ``scale * (1 - s)**2``, so
that accepting ``s >= 1 - c`` gives coverage ``c`` and selective risk
``scale * c**2 / 3``. Each cell draws ``--repeats`` validation sets, fits the
guarantee on each, and reports

- ``violations``: the rate at which a certified constraint fails on the
  population (nominal: at most ``1 - confidence_level``, + 2 Monte-Carlo s.e.);
  abstaining on everything, with its warning, certifies no abstention rate;
- ``coverage``: the mean population coverage of the fitted threshold (power:
  more is better at the same guarantee), and ``oracle``, the largest coverage
  that meets the constraints on the population;
- ``abstain all``: the rate of fits that certify nothing.

Per class: two classes with error scales 0.3 and 0.15 (each class's risk
certified). Several constraints: the risk and ``max_abstention_rate``. Then the
construction (where the walks start) and the time to calibrate on 1e5 samples
beyond the model's predictions.

Run: ``python benchmarks/bench_guarantees.py [--repeats 1000]``
"""

import argparse
import time
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.frozen import FrozenEstimator

from sklearn_selective import SelectiveClassifier
from sklearn_selective._selective._curve import _ValidationCurve
from sklearn_selective._selective._guarantees import (
    SGR,
    FixedSequence,
    risk_p_values,
    walk,
)


class _ScoreModel(ClassifierMixin, BaseEstimator):
    """Predicts the class of the first column of X with probability
    ``0.5 + s / 2``, ``s`` the second column (so the MSP is monotone in s)."""

    def fit(self, X, y):
        self.classes_ = np.array([0, 1, 2, 3])
        return self

    def predict(self, X):
        return X[:, 0].astype(int)

    def predict_proba(self, X):
        predicted, s = X[:, 0].astype(int), X[:, 1]
        proba = np.zeros((X.shape[0], 4))
        proba[np.arange(X.shape[0]), predicted] = 0.5 + s / 2
        proba[np.arange(X.shape[0]), (predicted + 1) % 4] = 0.5 - s / 2
        return proba


_MODEL = FrozenEstimator(_ScoreModel().fit(None, None))


def _draw(rng, n, scales):
    """Samples of ``len(scales)`` predicted classes in equal shares."""
    predicted = rng.integers(0, len(scales), n)
    s = rng.random(n)
    wrong = rng.random(n) < np.asarray(scales)[predicted] * (1 - s) ** 2
    y = np.where(wrong, (predicted + 1) % 4, predicted)
    return np.column_stack([predicted, s]), y


def _population(threshold_s, scales):
    """Population coverage and per-class selective risks of accepting ``s >= t``
    (``t`` per class or one for all)."""
    t = np.broadcast_to(np.asarray(threshold_s, dtype=float), (len(scales),))
    c = np.clip(1 - t, 0, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        risk = np.where(c > 0, np.asarray(scales) * c**2 / 3, 0.0)
    return c, risk


def _s_threshold(clf):
    """The fitted thresholds as thresholds on ``s`` (MSP = 0.5 + s / 2)."""
    return 2 * (np.asarray(clf.threshold_, dtype=float) - 0.5)


def _cell(n, level, target, scales, repeats, per_class, cap, guarantee, seed):
    rng = np.random.default_rng(seed)
    violations, coverages, nothing = [], [], []
    for _ in range(repeats):
        X, y = _draw(rng, n, scales)
        clf = SelectiveClassifier(
            _MODEL,
            target_risk=target,
            confidence_level=level,
            threshold_per_class=per_class,
            max_abstention_rate=cap,
            guarantee=guarantee,
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf.fit(X, y)
        t = _s_threshold(clf)
        if not per_class:
            t = np.full(len(scales), float(t))
        c, risk = _population(t[: len(scales)], scales)
        coverage = float(c.mean())
        # Per class: each class's risk; pooled: the pooled risk.
        if per_class:
            bad = bool((risk > target).any())
        else:
            pooled = float((c * risk).sum() / c.sum()) if c.sum() > 0 else 0.0
            bad = pooled > target
        claimed = not np.all(np.isinf(np.asarray(clf.threshold_)))
        if cap is not None and claimed:  # abstaining on all claims nothing
            bad = bad or (1 - coverage > cap)
        violations.append(bad)
        coverages.append(coverage)
        nothing.append(bool(np.all(np.isinf(np.asarray(clf.threshold_)))))
    return np.array(violations), np.array(coverages), np.array(nothing)


def _rate(hits):
    rate = float(np.mean(hits))
    return f"{rate:.3f} ± {np.sqrt(rate * (1 - rate) / len(hits)):.3f}"


def _oracle(target, scales, per_class):
    """Largest population coverage meeting the risk target."""
    scales = np.asarray(scales, dtype=float)
    per = np.minimum(np.sqrt(3 * target / scales), 1.0)
    if per_class:
        return float(per.mean())
    # One threshold for all classes: pooled risk mean(scales) c^2 / 3.
    return float(min(np.sqrt(3 * target / scales.mean()), 1.0))


def bench(repeats, sizes):
    print(
        "Population: error probability scale * (1 - s)^2, s uniform; "
        "selective risk at coverage c is scale * c^2 / 3."
    )
    header = (
        f"{'setting':>34} {'n':>6} {'level':>5} {'guarantee':>15} "
        f"{'violations':>14} {'coverage':>8} {'oracle':>6} {'abstain all':>14}"
    )
    print(header)
    settings = [
        ("global, target 0.02", 0.02, (0.3,), False, None),
        ("global, target 0.05", 0.05, (0.3,), False, None),
        ("per class, target 0.03", 0.03, (0.3, 0.15), True, None),
        ("global 0.05 + abstention <= 0.4", 0.05, (0.3,), False, 0.4),
    ]
    seed = 0
    for name, target, scales, per_class, cap in settings:
        for n in sizes:
            for level in (0.9, 0.95):
                guarantees = ["fixed_sequence"]
                if cap is None:
                    guarantees.append("sgr")
                for guarantee in guarantees:
                    seed += 1
                    bad, cov, nothing = _cell(
                        n, level, target, scales, repeats, per_class, cap,
                        guarantee, seed,
                    )  # fmt: skip
                    print(
                        f"{name:>34} {n:>6} {level:>5} {guarantee:>15} "
                        f"{_rate(bad):>14} {cov.mean():>8.3f} "
                        f"{_oracle(target, scales, per_class):>6.3f} "
                        f"{_rate(nothing):>14}"
                    )


def _covered(threshold_s):
    """Population coverage of accepting ``s >= threshold_s`` (0 for inf)."""
    return float(min(max(1.0 - threshold_s, 0.0), 1.0))


def bench_construction(repeats):
    """Where the risk walks start, at the same level: one walk from the most
    confident sample, and geometric starts m0 * ratio**i (the default ratio 2)."""
    print("\nConstruction: mean population coverage (abstain-all rate), level 0.9")
    ratios = (1.5, 2.0, 3.0, 4.0)
    print(f"{'n':>6} {'target':>6} {'oracle':>6} {'top only':>14} "
          + " ".join(f"{f'ratio {r:g}':>14}" for r in ratios)
          + f" {'sgr':>14}")  # fmt: skip
    for n, target in ((300, 0.05), (1000, 0.02), (1000, 0.05), (5000, 0.005)):
        rng = np.random.default_rng(n)
        found = {key: [] for key in ("top", *ratios, "sgr")}
        for _ in range(repeats):
            s = rng.random(n)
            loss = (rng.random(n) < 0.3 * (1 - s) ** 2).astype(float)
            curve = _ValidationCurve.from_samples(s, loss, None)
            p_values = risk_p_values(curve.accepted_loss, curve.accepted_weight, target)
            last = walk(p_values, 0.1, 0, +1)
            top = np.inf if last is None else curve.thresholds[last]
            found["top"].append(_covered(top))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for ratio in ratios:
                    fit = FixedSequence(start_ratio=ratio).certify(curve, target, 0.9)
                    found[ratio].append(_covered(fit.threshold))
                fit = SGR().certify(curve, target, 0.9)
                found["sgr"].append(_covered(fit.threshold))
        cells = [
            f"{np.mean(v):.3f} ({np.mean(np.asarray(v) == 0):.2f})"
            for v in found.values()
        ]
        oracle = min(np.sqrt(target / 0.1), 1.0)
        print(
            f"{n:>6} {target:>6} {oracle:>6.3f} " + " ".join(f"{c:>14}" for c in cells)
        )


def bench_mapie(repeats):
    """Against MAPIE's BinaryClassificationController, where installed, on the
    same data: accepting ``s >= t`` is "predicting positive", and a right
    prediction is a positive label, so its precision is one minus our selective
    risk (a target precision ``1 - target``)."""
    try:
        from mapie.risk_control import BinaryClassificationController
    except ImportError:
        print("\nMAPIE: not installed (pip install mapie), comparison skipped")
        return

    def predict_proba(X):
        s = np.asarray(X)[:, 0]
        return np.column_stack([1 - s, s])

    print("\nAgainst MAPIE's BinaryClassificationController (precision), level 0.9:")
    print("mean population coverage (violations, abstain-all rate)")
    print(f"{'n':>6} {'target':>6} {'fixed_sequence':>22} "
          f"{'MAPIE holm':>22} {'MAPIE fixed seq.':>22}")  # fmt: skip
    for n, target in ((300, 0.05), (1000, 0.02), (1000, 0.05), (5000, 0.02)):
        rng = np.random.default_rng(n)
        found = {"ours": [], "bonferroni_holm": [], "fixed_sequence": []}
        for _ in range(repeats):
            s = rng.random(n)
            wrong = rng.random(n) < 0.3 * (1 - s) ** 2
            curve = _ValidationCurve.from_samples(s, wrong.astype(float), None)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = FixedSequence().certify(curve, target, 0.9)
                found["ours"].append(_covered(fit.threshold))
                for fwer in ("bonferroni_holm", "fixed_sequence"):
                    controller = BinaryClassificationController(
                        predict_proba, "precision", 1 - target, 0.9, fwer_method=fwer
                    )
                    controller.calibrate(s[:, None], (~wrong).astype(int))
                    t = controller.best_predict_param
                    found[fwer].append(0.0 if t is None else 1 - float(t))
        cells = []
        for values in found.values():
            c = np.asarray(values)
            violations = np.mean(0.1 * c**2 > target)
            cells.append(f"{c.mean():.3f} ({violations:.3f}, {np.mean(c == 0):.2f})")
        print(f"{n:>6} {target:>6} " + " ".join(f"{c:>22}" for c in cells))


def bench_time():
    rng = np.random.default_rng(0)
    X, y = _draw(rng, 100_000, (0.3,))
    proba = _MODEL.predict_proba(X)
    start = time.perf_counter()
    _MODEL.predict_proba(X)
    model_time = time.perf_counter() - start
    start = time.perf_counter()
    SelectiveClassifier(_MODEL, target_risk=0.02, confidence_level=0.9).fit(X, y)
    total = time.perf_counter() - start
    print(
        f"\nCalibrating on 1e5 samples: {1000 * (total - model_time):.0f} ms beyond "
        f"the model's predictions ({1000 * model_time:.0f} ms; {proba.shape})"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1000)
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000, 5000])
    options = parser.parse_args()
    start = time.perf_counter()
    bench(options.repeats, options.sizes)
    bench_construction(min(options.repeats, 500))
    bench_mapie(min(options.repeats, 200))
    bench_time()
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
