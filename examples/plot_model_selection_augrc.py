"""
=================================================================
Model selection by AUGRC: choosing the model and the CSF together
=================================================================

Accuracy judges predictions; a selective classifier is also judged by how well
its confidence score function (CSF) ranks its own errors. Traub et al.
(NeurIPS 2024) recommend selecting the model *and* the CSF by the area under the
generalized risk–coverage curve (AUGRC). With the scorers of
:mod:`sklearn_selective.metrics`, that is one ``scoring`` argument of
``GridSearchCV``.

Data: the handwritten digits bundled with scikit-learn (1797 images, 10
classes), 60 % for model selection and 40 % held out. Candidates: four model
families (logistic regression at three strengths of regularisation, a random
forest, a 1-nearest-neighbour classifier, Gaussian naive Bayes) times three CSFs
(maximum softmax probability,
margin, negative entropy); 3-fold cross-validation. One multi-metric search
records both criteria, and we compare the configuration that accuracy picks with
the one AUGRC picks on the held-out data.
"""

# %%
# One search, two criteria
# ------------------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_selective import RiskCoverageDisplay, SelectiveClassifier
from sklearn_selective.confidence import predict_with_confidence
from sklearn_selective.metrics import augrc, get_scorer, selective_risk_at_coverage

X, y = load_digits(return_X_y=True)
X_select, X_test, y_select, y_test = train_test_split(
    X, y, test_size=0.4, stratify=y, random_state=0
)


def logistic(C):
    return make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=3000))


models = {
    "LR C=0.01": logistic(0.01),
    "LR C=0.1": logistic(0.1),
    "LR C=10": logistic(10.0),
    "random forest": RandomForestClassifier(n_estimators=100, random_state=0),
    "1-NN": KNeighborsClassifier(n_neighbors=1),
    "naive Bayes": GaussianNB(),
}
# ``target_coverage=1.0``: accept everything, so there is no threshold to fit
# and each candidate is fitted once per outer fold (the AUGRC ignores the
# threshold anyway; with ``cv=3`` every candidate would also run an inner
# cross-validation, about 4x the work).
search = GridSearchCV(
    SelectiveClassifier(logistic(1.0), target_coverage=1.0),
    {"estimator": list(models.values()), "csf": ["msp", "margin", "negative_entropy"]},
    scoring={"neg_augrc": get_scorer("neg_augrc"), "accuracy": "accuracy"},
    refit=False,
    cv=3,
)
search.fit(X_select, y_select)

names = {id(model): name for name, model in models.items()}
results = search.cv_results_
print(f"{'model':<15} {'csf':<17} {'CV accuracy':>11} {'CV AUGRC':>9}")
for params, accuracy, neg_augrc in zip(
    results["params"],
    results["mean_test_accuracy"],
    results["mean_test_neg_augrc"],
    strict=True,
):
    model = names[id(params["estimator"])]
    print(f"{model:<15} {params['csf']:<17} {accuracy:>11.4f} {-neg_augrc:>9.5f}")

# %%
# Accuracy cannot choose a CSF (every CSF of a model has the same accuracy), so
# the accuracy winner keeps whichever CSF comes first; AUGRC chooses both.
by_accuracy = results["params"][int(np.argmax(results["mean_test_accuracy"]))]
by_augrc = results["params"][int(np.argmax(results["mean_test_neg_augrc"]))]
for label, params in (("accuracy", by_accuracy), ("AUGRC", by_augrc)):
    print(
        f"selected by {label:<8}: {names[id(params['estimator'])]}, csf={params['csf']}"
    )

# %%
# The two choices on held-out data
# --------------------------------
# Refit each selected configuration on all the selection data and compare them
# on the 40 % held out: AUGRC, and the selective risk at 80 % and 95 % coverage.
fig, ax = plt.subplots(figsize=(6, 4))
for label, params in (("accuracy", by_accuracy), ("AUGRC", by_augrc)):
    chosen = SelectiveClassifier(
        params["estimator"], csf=params["csf"], target_coverage=1.0
    )
    chosen.fit(X_select, y_select)
    y_pred, confidence = predict_with_confidence(chosen, X_test)
    print(
        f"selected by {label:<8}: test accuracy {np.mean(y_pred == y_test):.4f}, "
        f"AUGRC {augrc(y_test, y_pred, confidence):.5f}, "
        "selective risk @80% "
        f"{selective_risk_at_coverage(y_test, y_pred, confidence, coverage=0.8):.4f}"
        ", @95% "
        f"{selective_risk_at_coverage(y_test, y_pred, confidence, coverage=0.95):.4f}"
    )
    RiskCoverageDisplay.from_predictions(
        y_test,
        y_pred,
        confidence,
        kind="generalized",
        ax=ax,
        name=f"by {label}: {names[id(params['estimator'])]}, {params['csf']}",
    )
ax.set_title("Held-out generalized risk-coverage curves")
fig.tight_layout()
plt.show()

# %%
# Reading the result
# ------------------
# The 1-nearest-neighbour classifier is the most accurate model here, so
# selection by accuracy deploys it; but its "probabilities" are all 0 or 1, so
# every prediction has the same confidence and its errors cannot be ranked last:
# at any coverage below 100 % it abstains at random. AUGRC sees this and picks a
# model whose confidence separates its errors, which has the lower selective
# risk at every working point printed above, even with a slightly lower
# accuracy. Accuracy also cannot choose a CSF (it is the same for every CSF of a
# model); AUGRC chooses the model and the CSF together.
