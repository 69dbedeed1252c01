"""Overhead of SelectiveClassifier over the classifier it wraps.

Run: ``python benchmarks/bench_selective.py [--n-predict 1e6] [--n-fit 2e5]``

- predict: ``SelectiveClassifier.predict`` (and ``predict_accept``) against the
  inner ``predict_proba`` on the same rows (goal: at most +20 %);
- fit with ``cv=5, refit=True`` against ``cross_val_predict(method="predict_proba")``
  with the same splits plus one fit on all the data (goal: at most +10 %).

Times are the best of ``--repeat`` runs.
"""

import argparse

from _measure import best_time
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from sklearn_selective import SelectiveClassifier


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-predict", type=float, default=1e6)
    parser.add_argument("--n-fit", type=float, default=2e5)
    parser.add_argument("--repeat", type=int, default=3)
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
    cv = StratifiedKFold(5)

    def plain_fit():
        model = LogisticRegression(max_iter=200)
        cross_val_predict(model, X_fit, y_fit, cv=cv, method="predict_proba")
        LogisticRegression(max_iter=200).fit(X_fit, y_fit)

    def selective_fit():
        return SelectiveClassifier(LogisticRegression(max_iter=200), cv=cv).fit(
            X_fit, y_fit
        )

    clf = selective_fit()
    rows = [
        (
            f"fit, cv=5, refit=True, n={n_fit}",
            best_time(plain_fit, args.repeat),
            best_time(selective_fit, args.repeat),
            0.10,
        ),
        (
            f"predict, n={n_predict}",
            best_time(lambda: clf.estimator_.predict_proba(X_new), args.repeat),
            best_time(lambda: clf.predict(X_new), args.repeat),
            0.20,
        ),
        (
            f"predict_accept, n={n_predict}",
            best_time(lambda: clf.estimator_.predict_proba(X_new), args.repeat),
            best_time(lambda: clf.predict_accept(X_new), args.repeat),
            0.20,
        ),
    ]
    header = f"{'operation':<34} {'baseline [s]':>12} {'selective [s]':>13} "
    header += f"{'overhead':>9} {'goal':>6}"
    print(header)
    print("-" * len(header))
    for name, baseline, selective, goal in rows:
        overhead = selective / baseline - 1
        flag = " !" if overhead > goal else ""
        print(
            f"{name:<34} {baseline:>12.3f} {selective:>13.3f} {overhead:>+9.1%} "
            f"{goal:>6.0%}{flag}"
        )


if __name__ == "__main__":
    main()
