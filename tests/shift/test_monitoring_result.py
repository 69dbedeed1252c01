"""MonitoringResult: the common result base, its constructor, alerted_by and
plot (issue 34, item 5)."""

import dataclasses
import inspect
import json
import sys

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_selective import MonitoringResult, PerformanceMonitor, SelectiveClassifier
from sklearn_selective._utils._results import ResultMixin


@pytest.fixture(scope="module")
def result():
    X, y = load_breast_cancer(return_X_y=True)
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X[:200], y[:200])
    clf = SelectiveClassifier(FrozenEstimator(model), target_coverage=0.9)
    clf = clf.fit(X[200:350], y[200:350])
    monitor = PerformanceMonitor(clf, n_resamples=20, random_state=0)
    monitor = monitor.fit(X[200:350], y[200:350])
    X_prod = np.r_[X[350:], X[350:] * 1.5]  # the second half moved
    y_prod = np.r_[y[350:], y[350:]]
    return monitor.estimate(X_prod, chunk_size=73).with_labels(y_prod)


def test_result_is_on_the_common_base_and_keeps_samples_out_of_its_constructor():
    assert issubclass(MonitoringResult, ResultMixin)
    parameters = inspect.signature(MonitoringResult).parameters
    assert not [name for name in parameters if name.startswith("_")]
    assert not [
        f.name for f in dataclasses.fields(MonitoringResult) if f.name[0] == "_"
    ]


def test_to_json_allow_nan_true(result):
    # The base sets allow_nan=False only as a default: no "multiple values for
    # keyword argument" TypeError when the user passes it.
    strict = result.to_json()
    assert json.loads(result.to_json(allow_nan=True)) == json.loads(strict)
    assert json.loads(result.to_json(allow_nan=True, indent=2)) == result.to_dict()
    with pytest.raises(TypeError):
        result.to_json(include_distribution=True)  # no bootstrap distribution


def test_alerted_by_is_a_tuple_of_signal_names_per_chunk(result):
    names = {"accuracy", "selective_accuracy", "novel_share", "drift_score"}
    assert result.alerted_by.shape == (result.n_chunks,)
    for alerted_by, alert in zip(result.alerted_by, result.alert, strict=True):
        assert isinstance(alerted_by, tuple)
        assert set(alerted_by) <= names
        assert bool(alerted_by) == alert
    assert result.alert.any() and not result.alert.all()
    chunks = result.to_dict()["chunks"]
    assert [c["alerted_by"] for c in chunks] == [list(a) for a in result.alerted_by]


def test_a_result_made_by_hand_has_no_samples_to_label(result):
    fields = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
    by_hand = MonitoringResult(**fields)
    np.testing.assert_array_equal(by_hand.accuracy, result.accuracy)
    assert np.isnan(by_hand.selective_precision).all()
    assert np.isnan(by_hand.cost).all()
    with pytest.raises(ValueError, match="not returned by PerformanceMonitor"):
        by_hand.with_labels(np.zeros(10))


def test_with_labels_keeps_the_samples(result):
    again = result.with_labels(np.r_[np.zeros(219, int), np.ones(219, int)])
    assert again._samples is result._samples
    np.testing.assert_array_equal(again.selective_recall, result.selective_recall)


def test_plot_checks_matplotlib_as_the_displays_do(result, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(
        ImportError, match=r"MonitoringResult\.plot requires matplotlib"
    ):
        result.plot()
