"""
======================================================================
Ranking whole systems: models x CSFs x training runs, paired bootstrap
======================================================================

The AUGRC paper (Traub et al., NeurIPS 2024, Sec. 4) ranks selective
classification *systems* -- a model together with its confidence score function
(CSF) -- on a test set with a protocol that separates real differences from the
noise of one test set:

1. draw bootstrap resamples of the test set, the same ones for every system
   and every training run (the paper draws 500);
2. on each resample, average each system's metric over its training runs;
3. rank the systems on each resample and average the ranks ("rank-then-aggregate");
4. test every ordered pair, with Holm's correction at 5 %. The paper applies a
   one-sided Wilcoxon signed-rank test to the paired resample values; that test
   says how stable the order is under resampling (with more resamples any
   observed difference passes it) and is kept as ``result.ranking_stability``.
   ``result.significant`` comes from a test of each difference against its
   paired-bootstrap standard error, whose family-wise error is held at 5 %: a
   claim about the systems, not about this test set.

:func:`~sklearn_selective.metrics.compare_systems` implements it. This example is
a CPU analogue of the paper's Fig. 3: three scikit-learn models, each with three
CSFs, three training runs each (different seeds and training subsamples), on the
handwritten digits bundled with scikit-learn, ranked by AUGRC and by AURC.
"""

# %%
# Nine systems, three runs each
# -----------------------------
# Each run trains the model on a different random 70 % of the training half (and,
# for the stochastic models, with a different seed); all runs are tested on the
# same test half. A system's predictions and confidences are stacked into arrays
# of shape ``(n_runs, n_test)``.
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_selective.confidence import get_confidence_function
from sklearn_selective.metrics import compare_systems

start = time.perf_counter()
X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(
    X, y, test_size=0.5, stratify=y, random_state=0
)
models = {
    "LR": lambda seed: make_pipeline(
        StandardScaler(), LogisticRegression(C=0.05, max_iter=2000)
    ),
    "RF": lambda seed: RandomForestClassifier(
        n_estimators=40, min_samples_leaf=2, random_state=seed
    ),
    "MLP": lambda seed: make_pipeline(
        StandardScaler(),
        MLPClassifier(
            hidden_layer_sizes=(32,), solver="lbfgs", max_iter=300, random_state=seed
        ),
    ),
}
csfs = ["msp", "margin", "negative_entropy"]
n_runs = 3
predictions = {model: [] for model in models}
scores = {(model, csf): [] for model in models for csf in csfs}
accuracy = {model: [] for model in models}
for model_name, make_model in models.items():
    for seed in range(n_runs):
        rng = np.random.default_rng(seed)
        subset = rng.random(len(y_train)) < 0.7
        model = make_model(seed).fit(X_train[subset], y_train[subset])
        proba = model.predict_proba(X_test)
        y_pred = model.classes_[proba.argmax(axis=1)]
        predictions[model_name].append(y_pred)
        accuracy[model_name].append(np.mean(y_pred == y_test))
        for csf in csfs:
            scores[model_name, csf].append(get_confidence_function(csf)(proba))

systems = {
    f"{model} + {csf}": (np.array(predictions[model]), np.array(scores[model, csf]))
    for model, csf in scores
}
print(f"{len(systems)} systems x {n_runs} runs, {len(y_test)} test samples")
print(f"training took {time.perf_counter() - start:.1f} s")
for model_name, values in accuracy.items():
    print(
        f"{model_name:>4} test accuracy per run: "
        + ", ".join(f"{value:.3f}" for value in values)
        + f" (mean {np.mean(values):.3f})"
    )

# %%
# The ranking tables
# ------------------
# ``print(result)`` shows the systems by mean rank with the run-averaged metric,
# its 95 % percentile interval and the systems each one is significantly better
# than; ``result.to_frame()`` returns the same table as a DataFrame (and
# ``result.to_json()`` as JSON) for further analysis.
results = {}
for metric in ("augrc", "aurc"):
    results[metric] = compare_systems(
        y_test, systems, metric=metric, n_resamples=500, random_state=0
    )
    print(f"\n{metric.upper()}")
    print(results[metric])

augrc_order, aurc_order = results["augrc"].ranking, results["aurc"].ranking
moved = [name for a, name in zip(aurc_order, augrc_order, strict=True) if a != name]
print(f"\nsystems whose position differs between AURC and AUGRC: {len(moved)}")
print(f"top 3 by AUGRC: {augrc_order[:3]}")
print(f"top 3 by AURC:  {aurc_order[:3]}")

# %%
# Reading the tables: the two metrics agree on the best system (``RF + margin``)
# and on the worst ones, but the top 3 differ and 5 of the 9 systems change
# position. AUGRC rates a system as a whole -- its accuracy and its ranking of
# failures -- so the most accurate model, the MLP (mean accuracy about 0.957 over
# its runs against 0.944 and 0.940, printed above), moves up; AURC's
# over-weighting of high-confidence failures moves ``LR + margin`` to third place.
# Mean rank and mean value need not agree: ``RF + msp`` has a lower mean AUGRC
# than the two MLP systems ranked above it but a worse mean rank: ranks count
# how often a system wins on a resample, not by how much (the paper notes such
# cases and recommends a closer look at them before choosing one system).
#
# Significance maps
# -----------------
# As in the paper's Fig. 3: systems sorted best first; a filled cell in row
# ``a``, column ``b`` means that system ``a`` is significantly better than
# system ``b`` (Holm-adjusted, 5 %). A fully resolved ranking fills everything
# above the diagonal; a filled cell below it is a system that is ranked lower
# on average yet consistently better than one ranked above it.
fig, axes = plt.subplots(1, 2, figsize=(12, 5.5))
for ax, (metric, result) in zip(axes, results.items(), strict=True):
    order = [result.names.index(name) for name in result.ranking]
    better = result.significant[np.ix_(order, order)]  # [a, b]: a beats b
    ax.imshow(better, cmap="Greens", vmin=0, vmax=1.5)
    ax.set_xticks(range(len(order)), result.ranking, rotation=90)
    ax.set_yticks(range(len(order)), result.ranking)
    ax.set_title(f"{metric.upper()}: row significantly better than column")
    above = np.count_nonzero(np.triu(better, 1))
    below = np.count_nonzero(np.tril(better, -1))
    possible = len(order) * (len(order) - 1) // 2
    stable = np.count_nonzero(result.ranking_stability <= 0.05)
    print(
        f"{metric.upper()}: {above} of {possible} pairs significant in the ranked "
        f"direction, {below} against it; {stable} 'stable' by the paper's Wilcoxon "
        "test"
    )
fig.tight_layout()
plt.show()

# %%
# With 899 test samples and three runs per system, 3 of the 36 pairs are
# significant for AUGRC and 2 for AURC, all in the direction of the ranking
# (printed above the plot): the negative-entropy systems of RF and LR are worse
# than their own margin or MSP siblings. The other systems differ by a few
# percent of a metric whose 95 % intervals overlap widely; the data cannot tell
# them apart with a family-wise error of 5 %. The paper's Wilcoxon procedure
# (``result.ranking_stability``) marks far more pairs (printed), because it
# measures how stably this one test set orders them, not whether they differ.
#
# The table as data
# -----------------
frame = results["augrc"].to_frame()
print(frame[["rank", "mean_rank", "statistic", "ci_low", "ci_high", "n_runs"]])
print(f"\ntotal time {time.perf_counter() - start:.1f} s")
