"""
=========================================================
A triage requirement: several guarantees at once, or none
=========================================================

A triage team states its requirement as: *among the cases the model decides,
at most 5 % wrong, for each class as well, and at most 20 % of the cases go to
a human reviewer, with 95 % confidence*. ``SelectiveClassifier`` certifies all
of it at once with Learn-then-Test: ``target_risk`` with
``threshold_per_class=True`` (one selective risk per predicted class),
``max_abstention_rate`` (the review capacity) and ``confidence_level``. With
probability at least 0.95 over the calibration draw, every stated constraint
holds on new data from the same distribution.

The breast cancer data bundled with scikit-learn (569 samples) stand for the
clinic's data: the model is fitted on half, the thresholds are certified on the
other half (``cv=0.5, refit=False``: the certified model is the deployed one).
"""

# %%
# The requirement, certified
# --------------------------
import warnings

import matplotlib.pyplot as plt
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_selective import SelectiveClassifier

X, y = load_breast_cancer(return_X_y=True)
model = make_pipeline(StandardScaler(), LogisticRegression())
requirement = {
    "target_risk": 0.05,
    "threshold_per_class": True,
    "max_abstention_rate": 0.2,
    "confidence_level": 0.95,
}
clf = SelectiveClassifier(model, cv=0.5, refit=False, random_state=0, **requirement)
clf.fit(X, y)
for label, name in enumerate(load_breast_cancer().target_names):
    print(
        f"class {name:<9}: threshold {clf.threshold_[label]:.4f}, validation "
        f"coverage {clf.coverage_[label]:.3f}, risk {clf.risk_[label]:.4f}, "
        f"certified bound {clf.risk_bound_[label]:.4f} <= 0.05"
    )
accepted = clf.predict_accept(X)
print(f"share sent to review on all the data: {1 - accepted.mean():.3f} (<= 0.2)")

# %%
# Each class keeps its own threshold: the certified risk bound of each class is
# at most the target, and the share of cases sent to review stays under the
# capacity. The level 0.95 is split between the two kinds of constraint and
# over the classes (Bonferroni), so that all hold together.
#
# The validation risk-coverage curve of each class, with the certified
# threshold: the walks certified the point of most coverage whose risk the
# exact binomial tests could vouch for, short of the empirical 5 % line.
table = clf.validation_curve_
fig, ax = plt.subplots(figsize=(6, 4))
for label, name in enumerate(load_breast_cancer().target_names):
    rows = table["class"] == label
    ax.step(table["coverage"][rows], table["risk"][rows], where="post", label=name)
    ax.plot(clf.coverage_[label], clf.risk_[label], "o", color="black")
ax.axhline(0.05, color="grey", linestyle="--", label="target risk")
ax.set_xlabel("validation coverage (of the class's predictions)")
ax.set_ylabel("validation selective risk")
ax.legend()
fig.tight_layout()
plt.show()

# %%
# A requirement the data cannot meet
# ----------------------------------
# Two errors in a hundred per class, with 90 % of the cases decided, is more
# than 285 calibration samples can vouch for. The classifier does not pretend:
# it abstains and says why, with the calibration size that would be needed.
strict = {**requirement, "target_risk": 0.02, "max_abstention_rate": 0.1}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    SelectiveClassifier(model, cv=0.5, refit=False, random_state=0, **strict).fit(X, y)
for warning in caught:
    print(warning.message, "\n")

# %%
# On all the classes together (one threshold) the 285 samples count at once,
# and the risk is certified up to a validation coverage near 0.87; but a
# review capacity of 10 % needs thresholds the abstention test certifies, of
# validation coverage 0.94 and more. The two do not meet: the classifier says
# so, with both ends of the gap, rather than break one of them silently.
pooled = {**strict, "threshold_per_class": False}
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    one = SelectiveClassifier(model, cv=0.5, refit=False, random_state=0, **pooled)
    one.fit(X, y)
for warning in caught:
    print(warning.message, "\n")
print(f"one threshold: coverage {one.coverage_:.3f}, bound {one.risk_bound_:.4f}")
