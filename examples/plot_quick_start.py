"""
============================================================
Quick start: a Pipeline that abstains, and its risk–coverage
============================================================

A selective classifier predicts when its confidence reaches a threshold and
abstains otherwise. This example wraps a scikit-learn ``Pipeline`` (standard
scaling + logistic regression) in :class:`~sklearn_selective.SelectiveClassifier`
on the handwritten digits bundled with scikit-learn (1797 images, 10 classes; half
for training, half for testing), lets it abstain on about 10 % of the inputs, and
plots the risk–coverage curves that judge it over every threshold.
"""

# %%
# Fit a classifier that may abstain
# ---------------------------------
# The threshold is fitted on 5-fold out-of-fold confidences (maximum softmax
# probability) so that 90 % of the validation samples are accepted; the pipeline
# is then refitted on all the training data.
import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_selective import RiskCoverageDisplay, SelectiveClassifier
from sklearn_selective.metrics import augrc, aurc, bootstrap_metric

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.5, stratify=y, random_state=0
)
model = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=2000))
clf = SelectiveClassifier(model, target_coverage=0.9, reject_label=-1)
clf.fit(X_train, y_train)
print(
    f"threshold {clf.threshold_:.3f}: validation coverage {clf.coverage_:.3f}, "
    f"validation selective risk {clf.risk_:.4f}"
)

# %%
# Abstain on new data
# -------------------
# ``predict`` returns ``-1`` where the classifier abstains. The accepted
# predictions are much more accurate than the full set.
y_pred = clf.predict(X_test)
accepted = y_pred != -1
full = clf.estimator_.predict(X_test)
print(f"test coverage: {accepted.mean():.3f}")
correct = full == y_test
print(f"accuracy on all test samples:      {correct.mean():.4f}")
print(f"accuracy on the accepted samples:  {correct[accepted].mean():.4f}")
print(f"accuracy on the rejected samples:  {correct[~accepted].mean():.4f}")

# %%
# Judge the classifier and its confidence over all thresholds
# -----------------------------------------------------------
# AURC averages the selective risk over coverage; AUGRC averages the
# generalized risk (the share of accepted *and* wrong samples). Bootstrap
# intervals (1000 resamples) say how precisely this test set measures them.
confidence = clf.confidence_score(X_test)
for name, metric in (("AURC", aurc), ("AUGRC", augrc)):
    result = bootstrap_metric(
        metric, y_test, full, confidence, n_resamples=1000, random_state=0
    )
    low, high = result.confidence_interval
    print(f"{name}: {result.statistic:.4f}  (95% interval {low:.4f} to {high:.4f})")

# %%
# Plot the curves
# ---------------
# The oracle ranks every error last; a random ranking (the chance level) has
# constant selective risk. The vertical line marks the deployed threshold's
# coverage.
fig, axes = plt.subplots(1, 2, figsize=(10, 4))
for ax, kind in zip(axes, ("selective", "generalized"), strict=True):
    RiskCoverageDisplay.from_estimator(
        clf,
        X_test,
        y_test,
        kind=kind,
        ax=ax,
        name="MSP",
        plot_oracle=True,
        plot_chance_level=True,
    )
    ax.axvline(accepted.mean(), color="grey", linestyle=":", label="deployed")
    ax.legend()
fig.tight_layout()
plt.show()
