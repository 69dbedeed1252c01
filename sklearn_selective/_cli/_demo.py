"""The main demo: the whole product on the digits dataset bundled with scikit-learn."""

import sys

import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from .. import SelectiveClassifier
from ..confidence import predict_with_confidence
from ._files import InputError
from ._plot_file import check_plot_path, has_matplotlib, save_risk_coverage_plot
from ._report import format_table, metric_rows, parse_metrics

_DEMO_METRICS = "aurc,aurc_log,e_aurc,augrc,uq_auc,uq_c_index,risk@0.8,coverage@0.01"


def run_demo(random_state=0, n_resamples=1000, plot="risk_coverage.png", out=print):
    """Fit a selective classifier on digits, abstain, report and plot.

    Returns the process exit status: 0, or 2 with one ``error:`` line on
    stderr when the plot cannot be saved where asked.
    """
    try:
        check_plot_path(plot, need_matplotlib=False)
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if plot and not has_matplotlib():
        out("(No plot: matplotlib is not installed; pip install matplotlib.)")
        plot = ""
    X, y = load_digits(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=random_state
    )
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=2000))
    clf = SelectiveClassifier(model, target_coverage=0.9, reject_label=-1)
    clf.fit(X_train, y_train)
    out(
        f"Digits (bundled with scikit-learn): {len(y_train)} training and "
        f"{len(y_test)} test samples, {len(clf.classes_)} classes."
    )
    out(
        "SelectiveClassifier(StandardScaler + LogisticRegression, csf='msp', "
        "target_coverage=0.9): threshold fitted on 5-fold out-of-fold confidences."
    )
    out(
        f"  fitted threshold {clf.threshold_:.4f} (accept when the confidence is "
        f">= it): validation coverage {clf.coverage_:.3f}, selective risk "
        f"{clf.risk_:.4f}"
    )

    y_abstain = clf.predict(X_test)
    accepted = y_abstain != -1
    y_pred, confidence = predict_with_confidence(clf, X_test)
    out(
        f"  test: accepts {accepted.mean():.1%} of the samples; accuracy "
        f"{np.mean(y_pred == y_test):.4f} on all, "
        f"{np.mean(y_abstain[accepted] == y_test[accepted]):.4f} on the accepted"
    )
    proba = clf.predict_proba(X_test)
    rows = metric_rows(
        y_test,
        y_pred,
        confidence,
        parse_metrics(_DEMO_METRICS),
        proba=proba,
        labels=clf.classes_,
        n_resamples=n_resamples,
        random_state=random_state,
    )
    resamples = f"{n_resamples} bootstrap resamples" if n_resamples else "no intervals"
    out(f"\nMetrics on the test set ({resamples}):")
    out(format_table(rows))
    if plot:
        save_risk_coverage_plot(
            y_test, y_pred, confidence, plot, clf.csf, threshold=clf.threshold_
        )
        out(f"\nRisk-coverage plot saved to {plot}")
    return 0
