"""metric_by_group on Dask DataFrames: each group's value equals the in-memory one."""

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_selective.metrics import augrc, metric_by_group, uq_auc

pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
pandas = pytest.importorskip("pandas")
dd = pytest.importorskip("dask.dataframe")

METRICS = [
    ("aurc", {}),
    ("aurc", {"aurc_estimator": "log"}),
    ("augrc", {}),
    ("sele", {}),
    ("e_aurc", {}),
    ("uq_auc", {}),
    ("selective_risk_at_coverage", {"coverage": 0.6}),
    ("coverage_at_risk", {"risk": 0.3}),
]


@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(0)
    n = 6_000
    y_true = rng.integers(0, 3, n)
    frame = pandas.DataFrame(
        {
            "y_true": y_true,
            "y_pred": np.where(rng.random(n) < 0.7, y_true, rng.integers(0, 3, n)),
            "confidence": np.round(rng.random(n), 2),  # ties across partitions
            "site": rng.choice(["north", "south", "east", "west"], n),
            "weight": rng.integers(1, 4, n).astype(float),
        }
    )
    return frame, dd.from_pandas(frame, npartitions=7)


@pytest.mark.parametrize(("metric", "kwargs"), METRICS)
def test_values_equal_in_memory(client, frames, metric, kwargs):
    weighted = metric != "sele"  # one unweighted case
    frame, ddf = frames
    weights = {"sample_weight": frame.weight} if weighted else {}
    dask_weights = {"sample_weight": ddf.weight} if weighted else {}
    expected = metric_by_group(
        metric, frame.y_true, frame.y_pred, frame.confidence, groups=frame.site,
        **weights, **kwargs,
    )  # fmt: skip
    got = metric_by_group(
        metric, ddf.y_true, ddf.y_pred, ddf.confidence, groups=ddf.site,
        **dask_weights, **kwargs,
    )  # fmt: skip
    np.testing.assert_array_equal(got.groups, expected.groups)
    np.testing.assert_allclose(got.values, expected.values, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(got.n_samples, expected.n_samples)
    assert got.worst_group == expected.worst_group
    assert got.confidence_interval is None


def test_groups_by_class_and_dask_arrays(client, frames):
    frame, ddf = frames
    expected = metric_by_group(
        augrc, frame.y_true, frame.y_pred, frame.confidence, groups="class"
    )
    arrays = [ddf[c].to_dask_array(lengths=True) for c in ("y_true", "y_pred")]
    confidence = ddf.confidence.to_dask_array(lengths=True).rechunk(1_000)
    got = metric_by_group(augrc, *arrays, confidence, groups="class")
    np.testing.assert_allclose(got.values, expected.values, rtol=1e-12)
    assert str(got) == str(expected)


def test_undefined_group_warns_on_the_client(client):
    frame = pandas.DataFrame(
        {
            "y_true": [0, 1, 0, 1, 1, 0],
            "y_pred": [0, 1, 0, 0, 1, 1],
            "confidence": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
            "group": ["a", "a", "b", "b", "c", "c"],
        }
    )
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.warns(UndefinedMetricWarning):
        got = metric_by_group(
            uq_auc, ddf.y_true, ddf.y_pred, ddf.confidence, groups=ddf.group
        )
    assert np.isnan(got.values[0]) and got.worst_group in ("b", "c")


def test_intervals_and_other_metrics_are_refused(client, frames):
    _, ddf = frames
    columns = (ddf.y_true, ddf.y_pred, ddf.confidence)
    with pytest.raises(ValueError, match="n_resamples=None"):
        metric_by_group("aurc", *columns, groups=ddf.site, n_resamples=100)
    with pytest.raises(ValueError, match="tie-group metrics"):
        metric_by_group(
            lambda *a, **k: 0.0, *columns, groups=ddf.site, greater_is_better=True
        )
