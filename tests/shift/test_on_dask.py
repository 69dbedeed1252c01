"""PerformanceMonitor.estimate on Dask collections equals it in memory."""

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.naive_bayes import GaussianNB

from sklearn_selective import (
    PerformanceMonitor,
    SelectiveCascade,
    SelectiveClassifier,
)

pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
pd = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(scope="module")
def monitored():
    X, y = make_classification(
        n_samples=2400, n_features=5, n_informative=3, random_state=0
    )
    X_train, X_ref, X_new = X[:1000], X[1000:1600], X[1600:].copy()
    X_new[400:] += 1.0  # the later rows move
    model = SelectiveClassifier(LogisticRegression(), target_coverage=0.8)
    model.fit(X_train, y[:1000])
    monitor = PerformanceMonitor(model, n_resamples=50, random_state=0)
    return monitor.fit(X_ref, y[1000:1600]), X_new


def _same(on_dask, in_memory):
    # Equal but for the rounding of the model's products on a chunk rather
    # than on all rows (1e-16).
    pd.testing.assert_frame_equal(
        on_dask.to_frame(), in_memory.to_frame(), check_exact=False, rtol=1e-12
    )
    np.testing.assert_array_equal(on_dask.alert, in_memory.alert)


def test_one_chunk_per_partition(client, monitored):
    monitor, X = monitored
    on_dask = monitor.estimate(da.from_array(X, chunks=(200, 5)))
    _same(on_dask, monitor.estimate(X, chunk_size=200))
    assert on_dask.to_frame().shape[0] == 4


@pytest.mark.parametrize("rule", [{"chunk_size": 150}, {"n_chunks": 3}])
def test_chunks_across_partitions(client, monitored, rule):
    monitor, X = monitored
    on_dask = monitor.estimate(da.from_array(X, chunks=(230, 2)), **rule)
    _same(on_dask, monitor.estimate(X, **rule))


def test_a_dask_dataframe_by_time_with_its_column_names(client):
    X, y = make_classification(
        n_samples=2000, n_features=4, n_informative=3, n_redundant=0, random_state=1
    )
    frame = pd.DataFrame(X, columns=["age", "dose", "weight", "score"])
    frame.loc[1500:, "dose"] += 2.0  # one input moves
    model = SelectiveClassifier(LogisticRegression(), target_coverage=0.8)
    model.fit(frame.iloc[:800], y[:800])
    monitor = PerformanceMonitor(model, n_resamples=50, random_state=0)
    monitor.fit(frame.iloc[800:1200], y[800:1200])
    new = frame.iloc[1200:].reset_index(drop=True)
    times = pd.date_range("2026-01-01", periods=len(new), freq="37min")
    on_dask = monitor.estimate(
        dd.from_pandas(new, npartitions=3), timestamps=times, freq="D"
    )
    in_memory = monitor.estimate(new, timestamps=times, freq="D")
    _same(on_dask, in_memory)
    assert "dose" in on_dask.to_frame()["drifted_features"].iloc[-1]


def test_unsorted_times_are_refused(client, monitored):
    monitor, X = monitored
    times = pd.date_range("2026-01-01", periods=X.shape[0], freq="h")
    times = times[np.random.default_rng(0).permutation(X.shape[0])]
    with pytest.raises(ValueError, match="sort X"):
        monitor.estimate(da.from_array(X, chunks=(400, 5)), timestamps=times, freq="D")


def test_a_cascade_has_its_stage_shares_on_dask(client):
    X, y = make_classification(
        n_samples=2000, n_features=5, n_informative=3, random_state=2
    )
    stages = [("nb", GaussianNB()), ("lr", LogisticRegression())]
    cascade = SelectiveCascade(stages, target_coverage=0.8, random_state=0)
    cascade.fit(X[:1000], y[:1000])
    monitor = PerformanceMonitor(cascade, n_resamples=20, random_state=0)
    monitor.fit(X[1000:1400], y[1000:1400])
    on_dask = monitor.estimate(da.from_array(X[1400:], chunks=(200, 5)))
    in_memory = monitor.estimate(X[1400:], chunk_size=200)
    _same(on_dask, in_memory)
    assert "stage_share_nb" in on_dask.to_frame().columns


def test_chunks_above_the_sample_caps_on_dask(client, monitored, monkeypatch):
    # issue 37: a large chunk's samples are drawn from the chunk's streams,
    # so they are the same on the cluster.
    from sklearn_selective._shift import _chunk_estimates, _methods, _signals

    monkeypatch.setattr(_chunk_estimates, "RESAMPLE_CAP", 64)
    monkeypatch.setattr(_signals, "SIGNAL_SAMPLE_CAP", 64)
    monkeypatch.setattr(_methods, "METHOD_SAMPLE_CAP", 64)
    monitor, X = monitored
    on_dask = monitor.estimate(da.from_array(X, chunks=(200, 5)))
    _same(on_dask, monitor.estimate(X, chunk_size=200))


def test_a_chunk_adjusted_on_its_outputs_on_dask(client):
    # "auto" adjusts a chunk whose probabilities moved though its drift
    # signal is quiet (here a domain classifier that sees nothing); its alerts
    # are the unadjusted estimate's, on Dask as in memory.
    from sklearn.dummy import DummyClassifier

    X, y = make_classification(
        n_samples=4000,
        n_features=4,
        n_informative=3,
        n_redundant=0,
        n_classes=3,
        random_state=2,
    )
    model = SelectiveClassifier(GaussianNB(), target_coverage=0.8)
    model.fit(X[:1000], y[:1000])
    monitor = PerformanceMonitor(
        model, drift_estimator=DummyClassifier(), n_resamples=20, random_state=0
    ).fit(X[1000:2000], y[1000:2000])
    X_new = np.vstack([X[2000:2600], X[2600:][y[2600:] == 0][:300]])
    in_memory = monitor.estimate(X_new, chunk_size=150)
    assert "label_shift_em" in set(in_memory.chunk_method)
    on_dask = monitor.estimate(da.from_array(X_new, chunks=(150, 4)))
    _same(on_dask, in_memory)
    assert on_dask.alerted_by.tolist() == in_memory.alerted_by.tolist()
