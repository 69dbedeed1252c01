"""Overhead of the selective scorers over the model's own ``predict_proba``.

Run: ``python benchmarks/bench_scorers.py [--n 1e5]``

For each model, the time of ``predict_proba(X)`` and of each scorer call on
the same ``X`` (which includes one ``predict_proba``); the overhead is their
difference relative to ``predict_proba`` (goal: at most 10 %). The overhead is
the CSF plus one sort of the confidences, so its relative size depends on how
expensive the model's inference is. Times are the best of ``--repeat`` runs.
"""

import argparse

from _measure import best_time
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier

from sklearn_selective.metrics import get_scorer


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e5)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = int(args.n)
    X, y = make_classification(
        n_samples=n + 20_000,
        n_features=20,
        n_informative=10,
        n_classes=5,
        random_state=0,
    )
    X_fit, y_fit, X_test, y_test = X[:20_000], y[:20_000], X[20_000:], y[20_000:]
    models = {
        "LogisticRegression": LogisticRegression(max_iter=500),
        "MLPClassifier(100)": MLPClassifier((100,), max_iter=50, random_state=0),
        "HistGradientBoosting": HistGradientBoostingClassifier(max_iter=100),
        "RandomForest(100)": RandomForestClassifier(100, n_jobs=1, random_state=0),
    }
    scorers = ["neg_augrc", "neg_aurc", "uq_auc", "uq_c_index"]
    print(f"n = {n}: predict_proba time and each scorer's overhead over it")
    print(
        f"{'model':<22} {'predict_proba':>14} " + " ".join(f"{s:>11}" for s in scorers)
    )
    for name, model in models.items():
        model.fit(X_fit, y_fit)
        base = best_time(lambda m=model: m.predict_proba(X_test), args.repeat)
        cells = []
        for scorer_name in scorers:
            scorer = get_scorer(scorer_name)
            seconds = best_time(
                lambda s=scorer, m=model: s(m, X_test, y_test), args.repeat
            )
            cells.append(f"{(seconds - base) / base:>+10.1%}")
        print(
            f"{name:<22} {base * 1e3:>11.1f} ms " + " ".join(f"{c:>11}" for c in cells)
        )


if __name__ == "__main__":
    main()
