"""Warnings point at the user's call, whatever the route through the library."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression

from sklearn_selective import SelectiveClassifier
from sklearn_selective._utils._warnings import warn
from sklearn_selective.exceptions import GuaranteeNotMetWarning, TooFewFailuresWarning
from sklearn_selective.metrics import bootstrap_metric


def test_warn_points_at_the_caller_outside_the_package():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn("from a test", UserWarning)
    assert caught[0].filename == __file__


def test_a_warning_raised_inside_fit_points_at_the_users_line():
    """Through scikit-learn's fit-context wrapper too."""
    X, y = make_classification(n_samples=300, flip_y=0.3, random_state=0)
    clf = SelectiveClassifier(
        LogisticRegression(), target_risk=0.02, cv=0.5, refit=False,
        confidence_level=0.9,
    )  # fmt: skip
    with pytest.warns(GuaranteeNotMetWarning) as record:
        clf.fit(X, y)
    assert {w.filename for w in record} == {__file__}


def test_a_metric_warning_points_at_the_users_line():
    """Through the bootstrap's resampling machinery too."""
    rng = np.random.default_rng(0)
    confidence, loss = rng.random(40), np.zeros(40)
    loss[:2] = 1.0  # two failures: too few for an interval that holds
    with pytest.warns(TooFewFailuresWarning) as record:
        bootstrap_metric("aurc", None, None, confidence, loss=loss, n_resamples=20)
    assert {w.filename for w in record} == {__file__}
