"""SelectiveCascade: the estimator (fit, the decision, scikit-learn's API)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from sklearn_selective._selective._cascade import SelectiveCascade
from sklearn_selective.exceptions import GuaranteeNotMetWarning, TooFewSamplesError


def _stages():
    return [("nb", GaussianNB()), ("lr", LogisticRegression(max_iter=1000))]


@parametrize_with_checks(
    [
        SelectiveCascade(_stages()),
        SelectiveCascade(_stages(), target_risk=0.2, stage_costs=[1.0, 5.0]),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)
