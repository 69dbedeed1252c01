"""The test that a chunk's model outputs moved: its level and its power.

``PerformanceMonitor(method="auto")`` adjusts a chunk whose drift signal stays
quiet when the model's class probabilities moved (``outputs_moved``: a
permutation test of their mean with Hotelling's statistic, at level 0.05).
This script measures the
share of chunks it calls moved, next to two tests of the same question
written with scipy: Pearson's chi-square test of the predicted classes
(which "auto" used first) and a Mann-Whitney test of each class's
probability, Bonferroni over the classes (which it used next).

- ``level``: chunks and references drawn from one population (the model
  fixed, a fresh reference of 2000 and chunk each draw): the share called
  moved at 0.05, per model, population and chunk size. Populations: three
  Gaussian classes (softmax labels of five features, a new population every
  100 draws), the same with one class rare (its bias lowered by 4: a median
  share of 4 %, under 1 % in a tenth of the populations), and the digits
  (ten classes, a reference of 800 and chunks from the rest, a model
  trained on 600 images every 100 draws).
- ``given a reference``: a monitor keeps one reference, so what its user
  sees is the share given that reference. A logistic regression on three
  Gaussian blobs in two dimensions, the third far away (its probability
  small and skewed), chunks of the two near classes: 8 references of 2000,
  a third of ``--repeats`` chunks of 50 each.
- ``power``: the same with a label shift: two classes (``make_classification``)
  with class 1 going from 20 % to 25 % (references of 1000, chunks of 500),
  and the three Gaussian classes with the prior moved a quarter of the way
  towards (0.6, 0.3, 0.1).

Each cell is a share of draws with its Monte-Carlo standard error.

Run: ``python benchmarks/bench_outputs_moved.py [--repeats 1000]``
"""

import argparse
import time
import warnings

import numpy as np
from scipy.stats import chi2_contingency, mannwhitneyu
from sklearn.datasets import load_digits, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier

from sklearn_selective._shift._label_shift import OUTPUTS_MOVED_LEVEL, outputs_moved

MODELS = {
    "logistic regression": lambda: LogisticRegression(max_iter=2000),
    "gaussian naive bayes": GaussianNB,
    "random forest (50)": lambda: RandomForestClassifier(50, random_state=0),
    "5 nearest neighbours": lambda: KNeighborsClassifier(5),
    "decision tree": lambda: DecisionTreeClassifier(random_state=0),
}
TESTS = ("this test", "chi-square", "Mann-Whitney")


def _chi_square_moved(reference, chunk):
    """Pearson's chi-square test of the predicted classes (no continuity
    correction; classes predicted on neither side dropped)."""
    k = reference.shape[1]
    table = np.array(
        [
            np.bincount(reference.argmax(axis=1), minlength=k),
            np.bincount(chunk.argmax(axis=1), minlength=k),
        ]
    )
    table = table[:, table.sum(axis=0) > 0]
    if table.shape[1] < 2:
        return False
    return chi2_contingency(table, correction=False).pvalue < OUTPUTS_MOVED_LEVEL


def _mann_whitney_moved(reference, chunk):
    """Two-sided Mann-Whitney tests of each class's probability (one of a
    binary problem), tie-corrected normal approximation, Bonferroni."""
    columns = [1] if reference.shape[1] == 2 else range(reference.shape[1])
    p_values = []
    for j in columns:
        if np.ptp(np.r_[reference[:, j], chunk[:, j]]) == 0:
            continue
        test = mannwhitneyu(
            chunk[:, j], reference[:, j], method="asymptotic", use_continuity=False
        )
        p_values.append(test.pvalue)
    return bool(p_values) and len(columns) * min(p_values) < OUTPUTS_MOVED_LEVEL


def _moved(reference, chunk, permutations):
    """Whether each test calls the chunk moved (``permutations``: the
    generator of this test's permutations)."""
    return (
        outputs_moved(reference, chunk, permutations),
        _chi_square_moved(reference, chunk),
        _mann_whitney_moved(reference, chunk),
    )


def _gaussian(rng, truth, n, prior_ratio=None):
    """Five Gaussian features, softmax labels; a label shift keeps each
    sample with probability ``prior_ratio[y] / max``."""
    size = n if prior_ratio is None else 12 * n
    X = rng.normal(size=(size, 5))
    logits = X @ truth[0] + truth[1]
    proba = np.exp(logits - logits.max(axis=1, keepdims=True))
    proba /= proba.sum(axis=1, keepdims=True)
    y = (rng.random((size, 1)) > proba.cumsum(axis=1)).sum(axis=1)
    if prior_ratio is not None:
        keep = rng.random(size) < prior_ratio[y] / prior_ratio.max()
        X, y = X[keep][:n], y[keep][:n]
    return X, y


def _gaussian_draws(rng, repeats, sizes, rare=False, shifted=False):
    """Yield ``(model name, chunk size, reference proba, chunk proba)``."""
    for draw in range(repeats):
        if draw % 100 == 0:
            truth = [rng.normal(size=(5, 3)), rng.normal(size=3)]
            truth[1][2] -= 4.0 if rare else 0.0
            X_train, y_train = _gaussian(rng, truth, 2000)
            models = {
                name: make().fit(X_train, y_train) for name, make in MODELS.items()
            }
            prior = np.bincount(y_train, minlength=3) / y_train.shape[0]
            target = 0.75 * prior + 0.25 * np.array([0.6, 0.3, 0.1])
        X_reference, _ = _gaussian(rng, truth, 2000)
        ratio = target / prior if shifted else None
        X_chunk, _ = _gaussian(rng, truth, max(sizes), ratio)
        for name, model in models.items():
            reference, chunk = (
                model.predict_proba(X_reference),
                model.predict_proba(X_chunk),
            )
            for n in sizes:
                yield name, n, reference, chunk[:n]


def _digits_draws(rng, repeats, sizes):
    X, y = load_digits(return_X_y=True)
    for draw in range(repeats):
        if draw % 100 == 0:
            order = rng.permutation(y.shape[0])
            train, rest = order[:600], order[600:]
            probas = {
                name: MODELS[name]().fit(X[train], y[train]).predict_proba(X[rest])
                for name in list(MODELS)[:3]
            }
        rows = rng.permutation(rest.shape[0])
        for name, proba in probas.items():
            for n in sizes:
                yield name, n, proba[rows[:800]], proba[rows[800 : 800 + n]]


def _two_class_draws(rng, repeats):
    X, y = make_classification(
        60000, n_informative=4, weights=[0.8], flip_y=0.05, random_state=0
    )
    pool = [np.flatnonzero(y[3000:] == 0), np.flatnonzero(y[3000:] == 1)]
    probas = {
        name: make().fit(X[:3000], y[:3000]).predict_proba(X[3000:])
        for name, make in MODELS.items()
    }

    def rows(n, share):
        ones = rng.binomial(n, share)
        chosen = [
            rng.choice(pool[0], n - ones, False),
            rng.choice(pool[1], ones, False),
        ]
        return np.concatenate(chosen)

    for _ in range(repeats):
        reference, chunk = rows(1000, 0.2), rows(500, 0.25)
        for name, proba in probas.items():
            yield name, 500, proba[reference], proba[chunk]


def _given_reference(rng, permutations, chunks, references=8, n_chunk=50):
    """Per reference, the share of ``chunks`` unshifted chunks called moved."""
    centres = np.array([[0.0, 0.0], [1.5, 0.0], [8.0, 8.0]])
    X = np.repeat(centres, 300, axis=0) + rng.normal(size=(900, 2))
    model = LogisticRegression().fit(X, np.repeat([0, 1, 2], 300))

    def outputs(n):
        near = centres[rng.integers(0, 2, n)]
        return model.predict_proba(near + rng.normal(size=(n, 2)))

    print(
        f"\nCalled moved without shift given one reference (a far third class; "
        f"{chunks} chunks of {n_chunk} per reference)"
    )
    print(f"{'reference':>10}{'largest p(2)':>14}" + "".join(f"{t:>18}" for t in TESTS))
    for k in range(references):
        reference = outputs(2000)
        moved = [
            _moved(reference, outputs(n_chunk), permutations) for _ in range(chunks)
        ]
        shares = np.mean(moved, axis=0)
        errors = np.sqrt(shares * (1 - shares) / chunks)
        cells = "".join(
            f"{s:>10.3f} ± {e:.3f}" for s, e in zip(shares, errors, strict=True)
        )
        print(f"{k:>10}{reference[:, 2].max():>14.1e}{cells}")


def _table(title, draws, permutations):
    moved = {}
    for name, n, reference, chunk in draws:
        moved.setdefault((name, n), []).append(_moved(reference, chunk, permutations))
    print(f"\n{title}")
    print(f"{'model':24}{'n':>6}" + "".join(f"{test:>18}" for test in TESTS))
    for (name, n), rows in moved.items():
        shares = np.mean(rows, axis=0)
        errors = np.sqrt(shares * (1 - shares) / len(rows))
        cells = "".join(
            f"{s:>10.3f} ± {e:.3f}" for s, e in zip(shares, errors, strict=True)
        )
        print(f"{name:24}{n:>6}{cells}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1000)
    parser.add_argument(
        "--only", choices=["level", "given_reference", "power"], default=None
    )
    options = parser.parse_args()
    warnings.simplefilter("ignore", RuntimeWarning)  # naive Bayes's log(0)
    start = time.perf_counter()
    # The permutations draw from a stream of their own (as the monitor's
    # named stream), so the populations drawn do not depend on them.
    rng, permutations = np.random.default_rng(0), np.random.default_rng([0, 9])
    repeats = options.repeats
    if options.only in (None, "level"):
        print(f"Called moved without shift, at level {OUTPUTS_MOVED_LEVEL}")
        gaussian = _gaussian_draws(rng, repeats, (50, 200))
        _table("three Gaussian classes", gaussian, permutations)
        rare = _gaussian_draws(rng, repeats, (50, 200), rare=True)
        _table("three Gaussian classes, one rare", rare, permutations)
        digits = _digits_draws(rng, repeats, (50, 200))
        _table("digits, ten classes", digits, permutations)
    if options.only in (None, "given_reference"):
        _given_reference(rng, permutations, max(options.repeats // 3, 1))
    if options.only in (None, "power"):
        print("\nCalled moved under a label shift")
        two = _two_class_draws(rng, repeats)
        _table("two classes, class 1 from 20 % to 25 %", two, permutations)
        shifted = _gaussian_draws(rng, repeats, (200, 500), shifted=True)
        title = "three Gaussian classes, the prior a quarter towards (.6, .3, .1)"
        _table(title, shifted, permutations)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
