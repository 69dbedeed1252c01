"""
=======================================================
Why AUGRC: AURC's broken monotonicity, and CSF rankings
=======================================================

Traub et al. (NeurIPS 2024) require a selective-classification metric to be
monotonic in both things it evaluates: the classifier's accuracy and the
confidence's ranking of failures (failure AUROC). AURC averages the *selective*
risk over coverage, which puts excessive weight on high-confidence failures, and
breaks that requirement; AUGRC averages the *generalized* risk (the share of
accepted failures among all predictions) and does not.

Part 1 rebuilds the paper's toy example (its Fig. 2b-d) with three confidence
score functions ranking 20 predictions; the failure positions are ours, chosen
to show the same three facts. Part 2 ranks CSFs of a real model (logistic
regression on the digits bundled with scikit-learn) by AURC and by AUGRC with
the paper's bootstrap protocol (500 paired resamples, one-sided Wilcoxon tests,
Holm correction).
"""

# %%
# Part 1: three CSFs ranking 20 predictions
# -----------------------------------------
# Positions are ranks by descending confidence (1 = most confident). CSF-1 has
# one failure at the very top; CSF-2 moves it down and another failure up by the
# same number of places (same accuracy, same failure AUROC); CSF-3 has one more
# failure and a worse ranking than CSF-1 but no failure at the top.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_selective.confidence import get_confidence_function
from sklearn_selective.metrics import (
    augrc,
    aurc,
    compare_confidence_functions,
    generalized_risk_coverage_curve,
    risk_coverage_curve,
    uq_auc,
)

n = 20
confidence = np.arange(n, 0, -1) / n
toy = {
    "CSF-1": [1, 18, 19, 20],
    "CSF-2": [4, 15, 19, 20],
    "CSF-3": [12, 13, 14, 15, 17],
}
losses = {}
print(f"{'':6} {'accuracy':>8} {'AUROC_f':>8} {'AURC x1000':>10} {'AUGRC x1000':>11}")
for name, positions in toy.items():
    loss = np.zeros(n)
    loss[np.array(positions) - 1] = 1
    losses[name] = loss
    print(
        f"{name:6} {1 - loss.mean():>8.2f} "
        f"{uq_auc(None, None, confidence, loss=loss):>8.3f} "
        f"{1000 * aurc(None, None, confidence, loss=loss):>10.1f} "
        f"{1000 * augrc(None, None, confidence, loss=loss):>11.1f}"
    )

# %%
# AURC prefers CSF-2 to CSF-1 although accuracy and failure AUROC are equal,
# and prefers CSF-3 to CSF-1 although CSF-3 is worse on *both* — the broken
# monotonicity. AUGRC rates CSF-1 and CSF-2 equal and CSF-3 worse. The curves
# show why: a single failure at the top makes the selective risk 100 % at low
# coverage, and AURC averages that over coverage; the generalized risk counts
# the same failure as 1/20.
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for name, loss in losses.items():
    coverage, risk, _ = risk_coverage_curve(None, None, confidence, loss=loss)
    axes[0].step(coverage, risk, where="post", label=name)
    coverage, risk, _ = generalized_risk_coverage_curve(
        None, None, confidence, loss=loss
    )
    axes[1].step(coverage, risk, where="post", label=name)
axes[0].set(xlabel="coverage", ylabel="selective risk", title="AURC integrates this")
axes[1].set(xlabel="coverage", ylabel="generalized risk", title="AUGRC integrates this")
for ax in axes:
    ax.legend()
fig.tight_layout()
plt.show()

# %%
# Part 2: ranking the CSFs of a real model
# ----------------------------------------
# A deliberately weakly regularised logistic regression (over-confident) on the
# digits, half for training and half for testing; six CSFs of its outputs.
X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.5, stratify=y, random_state=0
)
model = make_pipeline(StandardScaler(), LogisticRegression(C=10, max_iter=5000))
model.fit(X_train, y_train)
proba = model.predict_proba(X_test)
logits = model.decision_function(X_test)
y_pred = model.classes_[proba.argmax(axis=1)]
confidences = {
    name: get_confidence_function(name)(proba)
    for name in ("msp", "margin", "negative_entropy", "gini")
}
confidences["max_logit"] = get_confidence_function("max_logit")(logits)
confidences["energy"] = get_confidence_function("energy")(logits)
print(f"test accuracy {np.mean(y_pred == y_test):.4f}, {len(y_test)} test samples")

for metric in ("aurc", "augrc"):
    result = compare_confidence_functions(
        y_test, y_pred, confidences, metric=metric, n_resamples=500, random_state=0
    )
    print(f"\n{metric.upper()}: ranking {result.ranking}")
    print(result)
    probability_based = [result.names.index(name) for name in result.ranking[:4]]
    block = np.ix_(probability_based, probability_based)
    off_diagonal = ~np.eye(4, dtype=bool)
    stable = result.ranking_stability[block][off_diagonal] <= 0.05
    print(
        f"pairs of the four probability-based CSFs: "
        f"{np.count_nonzero(result.significant[block])} significant, "
        f"{np.count_nonzero(stable)} of 12 'stable' by the paper's Wilcoxon test"
    )

# %%
# Reading the tables: on this model AURC and AUGRC agree on the whole order. The
# logit-based CSFs (``max_logit``, ``energy``) are clearly worse, about twice
# the AUGRC of the probability-based ones: by AUGRC every probability-based CSF
# is significantly better than both, and ``max_logit`` better than ``energy``.
# By AURC no pair reaches significance on this test set (printed above): the
# same ordering, with less certainty. The four probability-based CSFs differ by
# about 1 % of the metric, far inside each other's 95 % intervals, and no pair
# of them is significant by either metric: the tests hold the family-wise error
# at 5 % over the 30 ordered pairs. The paper's
# Wilcoxon test over the resamples (``result.ranking_stability``) passes all 6
# of their pairs in the ranked direction (printed): it says how consistently
# this test set orders them, not that they differ.
# All CSFs of one model share its accuracy, so the metrics differ only in how
# they weigh the ranking of failures; the toy above shows the case where that
# weighting changes the verdict.
