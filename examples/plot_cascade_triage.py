"""
=====================================================================
Triage with a guarantee: a cheap model, a strong model, then a person
=====================================================================

A clinic runs a cheap screen on every case, a costly model on the doubtful
ones, and sends what neither can decide to a person. ``SelectiveCascade``
fits the thresholds of the whole chain at once and certifies it: with
probability at least ``confidence_level`` over the calibration draw, the
automated answers are wrong at most ``target_risk`` of the time.

Here, on the bundled handwritten digits: a logistic regression on 16 coarse
features (the 8x8 image pooled to 4x4) as the cheap stage, a gradient boosting
on all 64 pixels as the strong stage, and a person last; a selective risk of
at most 5 % certified at 90 %. We compare it with the strong model alone under
the same guarantee: coverage, share of cases the strong model sees, and how
often the target is missed on test data over repeated calibration splits.
"""

# %%
# The two models, trained once and frozen
# ---------------------------------------
# The guarantee holds for the models whose calibration scores it saw, so the
# models are trained on their own data and wrapped in ``FrozenEstimator``.
import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from sklearn_selective import SelectiveCascade, SelectiveClassifier
from sklearn_selective.exceptions import GuaranteeNotMetWarning

X, y = load_digits(return_X_y=True)
X_train, X_rest, y_train, y_rest = train_test_split(
    X, y, train_size=0.4, stratify=y, random_state=0
)


def pool(images):
    """4x4 means of the 8x8 images: 16 coarse features."""
    return images.reshape(-1, 4, 2, 4, 2).mean(axis=(2, 4)).reshape(-1, 16)


cheap = make_pipeline(
    FunctionTransformer(pool), StandardScaler(), LogisticRegression(max_iter=2000)
).fit(X_train, y_train)
strong = HistGradientBoostingClassifier(max_iter=60, random_state=0)
strong = strong.fit(X_train, y_train)
stages = [("cheap", FrozenEstimator(cheap)), ("strong", FrozenEstimator(strong))]
stage_costs = [1.0, 20.0]  # e.g. milliseconds per call
for name, model in stages:
    print(f"{name:>6}: accuracy {model.score(X_rest, y_rest):.3f}")

# %%
# One calibration split
# ---------------------
# Half of the remaining data calibrates, the other half tests.
target, level = 0.05, 0.9
X_cal, X_test, y_cal, y_test = train_test_split(
    X_rest, y_rest, train_size=0.5, stratify=y_rest, random_state=1
)
cascade = SelectiveCascade(
    stages, target_risk=target, confidence_level=level, stage_costs=stage_costs
).fit(X_cal, y_cal)
print("thresholds_:", np.round(cascade.thresholds_, 4))
print("stage_share_ (cheap, strong, person):", np.round(cascade.stage_share_, 3))
print(
    f"coverage_ {cascade.coverage_:.3f}, risk_ {cascade.risk_:.4f}, "
    f"risk_bound_ {cascade.risk_bound_:.4f}, expected_cost_ "
    f"{cascade.expected_cost_:.2f}"
)
decision = cascade.decide(X_test)
answered = decision.accepted
print(
    f"test: {answered.mean():.3f} answered, error of the answers "
    f"{np.mean(decision.y_pred[answered] != y_test[answered]):.4f}, by stage:",
    dict(zip(*np.unique(decision.stage, return_counts=True), strict=True)),
)


# %%
# Repeated calibration splits: the cascade against the strong model alone
# -----------------------------------------------------------------------
# Each split certifies each at the same guarantee; the test half measures the
# risk of the answers (a noisy stand-in for the population risk), the coverage
# and the share of cases the strong model sees. ``coverage_tolerance=0.05``
# lets the cascade give up at most 5 % of its most certified coverage for a
# cheaper configuration (every certified configuration is covered by the
# guarantee).
def evaluate(model, X_test, y_test):
    if isinstance(model, SelectiveCascade):
        decision = model.decide(X_test)
        strong_calls = np.mean(decision.stage != "cheap")
        answered, y_pred = decision.accepted, decision.y_pred
    else:
        answered, strong_calls = model.predict_accept(X_test), 1.0
        y_pred = model.predict(X_test)
    risk = np.mean(y_pred[answered] != y_test[answered]) if answered.any() else 0.0
    return answered.mean(), risk, strong_calls


results = {"cascade": [], "cascade, tolerance 0.05": [], "strong alone": []}
for seed in range(20):
    X_cal, X_test, y_cal, y_test = train_test_split(
        X_rest, y_rest, train_size=0.5, stratify=y_rest, random_state=seed
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GuaranteeNotMetWarning)
        warnings.simplefilter("ignore", UserWarning)  # the classifier's, alike
        models = {
            "cascade": SelectiveCascade(
                stages, target_risk=target, confidence_level=level
            ),
            "cascade, tolerance 0.05": SelectiveCascade(
                stages,
                target_risk=target,
                confidence_level=level,
                coverage_tolerance=0.05,
            ),
            "strong alone": SelectiveClassifier(
                stages[1][1], target_risk=target, confidence_level=level
            ),
        }
        for name, model in models.items():
            model.fit(X_cal, y_cal)
            results[name].append(evaluate(model, X_test, y_test))
for name, rows in results.items():
    coverage, risk, calls = np.asarray(rows).T
    print(
        f"{name:>23}: coverage {coverage.mean():.3f}, strong-model calls "
        f"{calls.mean():.3f}, test risk above {target} in "
        f"{np.mean(risk > target):.0%} of the splits"
    )

# %%
# Coverage against expected cost
# ------------------------------
# ``paths_`` lists, for audit, what each label-free path certifies: the cheap
# stage answers a share 0, 0.2, ..., 0.8 of the cases, the strong stage's
# threshold runs down. Every certified configuration is covered by the
# guarantee, so the choice among them may trade coverage for cost:
# ``coverage_tolerance`` ties the coverages within that share of the most and
# the cheapest of them wins. The strong model alone pays 20 per case, the
# cheap model alone 1.
X_cal, X_test, y_cal, y_test = train_test_split(
    X_rest, y_rest, train_size=0.5, stratify=y_rest, random_state=1
)
cascade = SelectiveCascade(
    stages, target_risk=target, confidence_level=level, stage_costs=stage_costs
).fit(X_cal, y_cal)
singles = {}
for (name, model), cost in zip(stages, stage_costs, strict=True):
    alone = SelectiveClassifier(model, target_risk=target, confidence_level=level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        singles[name] = (cost, alone.fit(X_cal, y_cal).coverage_)

fig, ax = plt.subplots(figsize=(6, 4))
paths = cascade.paths_
ax.plot(
    paths.expected_cost,
    paths.coverage,
    "o-",
    label="cascade, one point per path\n(number: share the cheap model answers)",
)
for share, cost, coverage in zip(
    paths.stage_share[:, 0], paths.expected_cost, paths.coverage, strict=True
):
    ax.annotate(
        f"{share:.2f}", (cost, coverage), xytext=(-8, -14),
        textcoords="offset points", fontsize=8,
    )  # fmt: skip
ax.plot(cascade.expected_cost_, cascade.coverage_, "k*", markersize=12,
        label="chosen (most coverage)")  # fmt: skip
for name, (cost, coverage) in singles.items():
    ax.plot(cost, coverage, "s", markersize=9, label=f"{name} alone")
ax.set_xlabel("expected cost per case")
ax.set_ylabel(f"certified coverage (risk <= {target}, {level:.0%})")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()

# %%
# The report: the cascade on the test half, with intervals
# --------------------------------------------------------
# ``report`` measures the fitted cascade on labelled data it was not fitted
# on: coverage, selective risk and expected cost, and per stage the share it
# answers, the error rate of its answers, the share it answers of the cases
# that reach it, and the stage alone at its threshold; each with a 95 %
# bootstrap interval of the population value for this fitted cascade.
report = cascade.report(X_test, y_test, random_state=0)
print(report)

# %%
# ``report.plot`` draws coverage against expected cost for the cascade and for
# each stage alone, with the intervals as error bars.
fig, ax = plt.subplots(figsize=(6, 4))
report.plot(ax=ax, name="cascade (test half)")
fig.tight_layout()
plt.show()

# %%
# At the same guarantee the cascade answers about as many cases as the strong
# model alone while the strong model sees only part of them: the cheap model
# settles the easy digits. The more coverage one gives up, the cheaper the
# chain. The guarantee covers the whole chain, whichever stage answers (the
# user guide, "Cascades", proves it).
