"""Fixtures shared by the tests of the abstain room."""

import pytest
from sklearn.datasets import make_classification


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=3000,
        n_features=10,
        n_informative=5,
        n_classes=3,
        flip_y=0.1,
        random_state=0,
    )
    return X[:2000], y[:2000], X[2000:], y[2000:]
