"""Overhead of SelectiveClassifier over the classifier it wraps.

Run: ``python benchmarks/bench_selective.py [--n-predict 1e6] [--n-fit 2e5]``

- predict: ``SelectiveClassifier.predict`` (and ``predict_accept``) against the
  inner ``predict_proba`` on the same rows (goal: at most +20 %). The "before"
  column is the previous path (``predict_with_confidence``: ``argmax`` over
  the rows, then the MSP as a second pass, then the labels), measured in the
  same process;
- fit with ``cv=5, refit=True`` against ``cross_val_predict(method="predict_proba")``
  with the same splits plus one fit on all the data (goal: at most +10 %);
- choosing the CSF by AUGRC: ``GridSearchCV`` over three CSFs with
  ``SelectiveClassifier(model, cv=3)`` (an inner cross-validation per candidate
  for a threshold the AUGRC ignores) against ``target_coverage=1.0`` (accept
  all: the model is fitted once per outer fold), and against a search over the
  bare model's ``C`` alone (the price of fitting the model).

Times are the best of ``--repeat`` runs; the machine may be shared, so compare the
ratios, which are measured in one process.
"""

import argparse
import time

import numpy as np
from _measure import best_time
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_predict

from sklearn_selective import SelectiveClassifier
from sklearn_selective.confidence import predict_with_confidence
from sklearn_selective.metrics import get_scorer


def _previous_predict(clf, X):
    """The path before the fast MSP decision (for the "before" column)."""
    y_pred, confidence = predict_with_confidence(clf.estimator_, X, "msp")
    accepted = confidence >= clf.threshold_
    output = y_pred.astype(np.result_type(y_pred, np.asarray(-1)))
    output[~accepted] = -1
    return output


def _interleaved_cpu_times(funcs, repeat):
    """Best CPU time of each function, the functions run in turn ``repeat`` times.

    On a shared machine wall times swing by 2x between runs; CPU time of the
    process, taken in turn, keeps the ratios of the functions measurable.
    """
    best = [float("inf")] * len(funcs)
    for _ in range(repeat):
        for index, func in enumerate(funcs):
            start = time.process_time()
            func()
            best[index] = min(best[index], time.process_time() - start)
    return best


def _predict_rows(args, X_fit, y_fit, X_new):
    clf = SelectiveClassifier(
        LogisticRegression(max_iter=200), cv=3, reject_label=-1
    ).fit(X_fit[:20000], y_fit[:20000])
    baseline, before, predict, accept = _interleaved_cpu_times(
        [
            lambda: clf.estimator_.predict_proba(X_new),
            lambda: _previous_predict(clf, X_new),
            lambda: clf.predict(X_new),
            lambda: clf.predict_accept(X_new),
        ],
        args.repeat,
    )
    n = len(X_new)
    return [
        (f"predict, n={n} [CPU s]", baseline, before, predict, 0.20),
        (f"predict_accept, n={n} [CPU s]", baseline, before, accept, 0.20),
    ]


def _fit_row(args, X_fit, y_fit):
    cv = StratifiedKFold(5)

    def plain_fit():
        model = LogisticRegression(max_iter=200)
        cross_val_predict(model, X_fit, y_fit, cv=cv, method="predict_proba")
        LogisticRegression(max_iter=200).fit(X_fit, y_fit)

    def selective_fit():
        return SelectiveClassifier(LogisticRegression(max_iter=200), cv=cv).fit(
            X_fit, y_fit
        )

    baseline = best_time(plain_fit, args.repeat)
    after = best_time(selective_fit, args.repeat)
    return [(f"fit, cv=5, refit=True, n={len(X_fit)}", baseline, None, after, 0.10)]


def _search_rows(args, X, y):
    grid = {"csf": ["msp", "margin", "negative_entropy"]}
    scoring = get_scorer("neg_augrc")
    model = LogisticRegression(max_iter=200)

    def search(**params):
        return GridSearchCV(
            SelectiveClassifier(model, **params), grid, cv=3, scoring=scoring
        ).fit(X, y)

    def model_only():
        # The same number of candidates, fitted once per outer fold: the floor.
        return GridSearchCV(model, {"C": [0.5, 1.0, 2.0]}, cv=3, scoring=scoring).fit(
            X, y
        )

    floor = best_time(model_only, args.repeat)
    before = best_time(lambda: search(cv=3), args.repeat)
    after = best_time(lambda: search(target_coverage=1.0), args.repeat)
    name = f"GridSearchCV over 3 CSFs, n={len(X)}"
    return [(name, floor, before, after, 0.10)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-predict", type=float, default=1e6)
    parser.add_argument("--n-fit", type=float, default=2e5)
    parser.add_argument("--n-search", type=float, default=2e4)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n_predict, n_fit = int(args.n_predict), int(args.n_fit)

    X, y = make_classification(
        n_samples=n_fit + n_predict,
        n_features=20,
        n_informative=10,
        n_classes=5,
        random_state=0,
    )
    X_fit, y_fit, X_new = X[:n_fit], y[:n_fit], X[n_fit:]
    header = (
        f"{'operation':<38} {'baseline [s]':>12} {'before [s]':>10} {'after [s]':>9} "
        f"{'before':>8} {'after':>8} {'goal':>6}"
    )
    print(header)
    print("-" * len(header), flush=True)
    n_search = int(args.n_search)
    for make_rows in (
        lambda: _predict_rows(args, X_fit, y_fit, X_new),
        lambda: _search_rows(args, X_fit[:n_search], y_fit[:n_search]),
        lambda: _fit_row(args, X_fit, y_fit),
    ):
        for name, baseline, before, after, goal in make_rows():
            overhead = after / baseline - 1
            flag = " !" if overhead > goal else ""
            before_text = "" if before is None else f"{before:.3f}"
            before_ratio = "" if before is None else f"{before / baseline - 1:+.0%}"
            print(
                f"{name:<38} {baseline:>12.3f} {before_text:>10} {after:>9.3f} "
                f"{before_ratio:>8} {overhead:>+8.0%} {goal:>+6.0%}{flag}",
                flush=True,
            )
    print(
        "\nbaseline: predict rows = the inner predict_proba; search row = the same "
        "grid size over the bare model (one fit per candidate and outer fold); fit "
        "row = cross_val_predict + one refit. before/after: overhead over baseline."
    )


if __name__ == "__main__":
    main()
