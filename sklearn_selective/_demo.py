"""The main demo: a scikit-learn classifier judged as a selective classifier."""

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from . import metrics


def run_demo(random_state=0, print_fn=print):
    """Fit a pipeline on the digits dataset bundled with scikit-learn and print the
    risk-coverage metrics of its maximum-softmax-probability confidence.

    Returns 0 (the process exit status).
    """
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=random_state
    )
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=2000))
    model.fit(X_train, y_train)
    proba = model.predict_proba(X_test)
    y_pred = model.classes_[proba.argmax(axis=1)]
    confidence = proba.max(axis=1)

    accuracy = float(np.mean(y_pred == y_test))
    rows = [
        ("accuracy", accuracy),
        ("AURC (harmonic)", metrics.aurc(y_test, y_pred, confidence)),
        ("AURC (log)", metrics.aurc(y_test, y_pred, confidence, estimator="log")),
        ("E-AURC", metrics.e_aurc(y_test, y_pred, confidence)),
        ("NAURC", metrics.naurc(y_test, y_pred, confidence)),
        ("AUGRC", metrics.augrc(y_test, y_pred, confidence)),
        ("UQ-AUC (failure AUROC)", metrics.uq_auc(y_test, y_pred, confidence)),
        (
            "UQ-C-index",
            metrics.uq_c_index(y_test, proba, confidence, labels=model.classes_),
        ),
        (
            "selective risk @ 80% coverage",
            metrics.selective_risk_at_coverage(
                y_test, y_pred, confidence, coverage=0.8
            ),
        ),
        (
            "coverage @ 1% selective risk",
            metrics.coverage_at_risk(y_test, y_pred, confidence, risk=0.01),
        ),
    ]
    print_fn(
        f"Digits (bundled with scikit-learn): {len(y_train)} training and "
        f"{len(y_test)} test samples, {len(model.classes_)} classes."
    )
    print_fn("Model: StandardScaler + LogisticRegression; confidence: max probability.")
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print_fn(f"  {name:<{width}}  {value:.4f}")
    return 0
