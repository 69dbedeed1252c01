"""Metrics of Dask collections equal the in-memory functions, on a LocalCluster."""

import numpy as np
import pytest
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_selective import metrics

pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from sklearn_selective.metrics._dask import (  # noqa: E402
    accumulate_dask,
    is_dask_input,
)
from sklearn_selective.metrics._dask_dispatch import dask_metric  # noqa: E402

METRICS = [
    ("aurc", {}),
    ("aurc", {"aurc_estimator": "log"}),
    ("augrc", {}),
    ("sele", {}),
    ("e_aurc", {}),
    ("naurc", {}),
    ("uq_auc", {}),
    ("selective_risk_at_coverage", {"coverage": 0.37}),
    ("coverage_at_risk", {"risk": 0.4321}),
]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    n = 20_000
    y_true = rng.integers(0, 3, n)
    y_pred = np.where(rng.random(n) < 0.7, y_true, rng.integers(0, 3, n))
    confidence = np.round(rng.random(n), 2)  # 101 values: every tie spans chunks
    weight = rng.integers(0, 4, n).astype(float)
    return y_true, y_pred, confidence, weight


@pytest.mark.parametrize(("metric", "kwargs"), METRICS)
@pytest.mark.parametrize("weighted", [False, True])
def test_dask_arrays_equal_numpy(client, data, metric, kwargs, weighted):
    y_true, y_pred, confidence, weight = data
    weight = weight if weighted else None
    # Different chunks for every input: aligned to the confidence's.
    value = dask_metric(
        metric,
        da.from_array(y_true, chunks=3_000),
        da.from_array(y_pred, chunks=7_000),
        da.from_array(confidence, chunks=2_500),
        sample_weight=None if weight is None else da.from_array(weight, chunks=5_000),
        **kwargs,
    )
    expected = getattr(metrics, metric)(
        y_true, y_pred, confidence, sample_weight=weight, **kwargs
    )
    assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_ties_spanning_partitions(client):
    # Sorted confidences: each partition boundary cuts a tie group.
    rng = np.random.default_rng(1)
    confidence = np.sort(rng.integers(0, 7, 5_000)).astype(float)
    losses = rng.random(5_000) * 2
    for metric in ("aurc", "augrc", "e_aurc", "naurc", "sele"):
        value = dask_metric(
            metric, None, None, da.from_array(confidence, chunks=333), loss=losses
        )
        expected = getattr(metrics, metric)(None, None, confidence, loss=losses)
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_curves_and_ood(client, data):
    y_true, y_pred, confidence, _ = data
    curve = dask_metric(
        "risk_coverage_curve", y_true, y_pred, da.from_array(confidence, chunks=4_000)
    )
    expected = metrics.risk_coverage_curve(y_true, y_pred, confidence)
    for actual, wanted in zip(curve, expected, strict=True):
        np.testing.assert_allclose(actual, wanted, rtol=1e-12, atol=1e-14)
    y_ood = (y_true == 0).astype(float)
    value = dask_metric(
        "ood_auroc", None, None, da.from_array(confidence, chunks=4_000), loss=y_ood
    )
    assert value == pytest.approx(metrics.ood_auroc(y_ood, confidence), rel=1e-12)


def test_dask_dataframe_columns(client, data):
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    y_true, y_pred, confidence, weight = data
    frame = dd.from_pandas(
        pd.DataFrame({"y": y_true, "p": y_pred, "c": confidence, "w": weight}),
        npartitions=7,
    )
    for metric, kwargs in METRICS[2:7]:
        value = dask_metric(
            metric,
            frame["y"],
            frame["p"],
            frame["c"],
            sample_weight=frame["w"],
            **kwargs,
        )
        expected = getattr(metrics, metric)(
            y_true, y_pred, confidence, sample_weight=weight, **kwargs
        )
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)
    # A column with a Dask array of other chunks: aligned through its lengths.
    value = dask_metric(
        "aurc", frame["y"], da.from_array(y_pred, chunks=6_000), frame["c"]
    )
    assert value == pytest.approx(metrics.aurc(y_true, y_pred, confidence), rel=1e-12)


def test_budget_on_the_cluster_gives_certified_bounds(client):
    rng = np.random.default_rng(2)
    confidence = rng.random(30_000)
    losses = (rng.random(30_000) > confidence).astype(float)
    state = accumulate_dask(
        metrics.RiskCoverageAccumulator(max_groups=64),
        None,
        None,
        da.from_array(confidence, chunks=3_000),
        loss=losses,
    ).compute()
    assert state.n_groups_ <= 64 and not state.exact_
    for metric in ("aurc", "augrc", "uq_auc"):
        lower, upper = state.bounds(metric)
        exact = getattr(metrics, metric)(None, None, confidence, loss=losses)
        assert lower <= exact <= upper


def test_undefined_metric_warns_on_the_client(client):
    confidence = da.from_array(np.linspace(0, 1, 100), chunks=30)
    with pytest.warns(UndefinedMetricWarning, match="uq_auc is undefined"):
        value = dask_metric("uq_auc", None, None, confidence, loss=np.zeros(100))
    assert np.isnan(value)


def test_errors(client):
    confidence = da.from_array(np.linspace(0, 1, 100), chunks=30)
    with pytest.raises(ValueError, match="metric must be one of"):
        dask_metric("accuracy", None, None, confidence, loss=np.zeros(100))
    with pytest.raises(TypeError, match="unexpected keyword"):
        dask_metric("aurc", None, None, confidence, loss=np.zeros(100), tpr=0.9)
    with pytest.raises(ValueError, match="loss has 99 entries"):
        dask_metric("aurc", None, None, confidence, loss=np.zeros(99))
    with pytest.raises(ValueError, match="loss must be non-negative"):
        dask_metric("aurc", None, None, confidence, loss=-np.ones(100))


def test_is_dask_input():
    assert is_dask_input(None, da.zeros(3))
    assert not is_dask_input(None, np.zeros(3), [1, 2])


def test_probabilities_and_named_loss(client):
    rng = np.random.default_rng(3)
    proba = rng.dirichlet(np.ones(3), 3_000)
    y_true = rng.integers(0, 3, 3_000)
    confidence = np.round(proba.max(axis=1), 2)
    value = dask_metric(
        "aurc",
        y_true,
        da.from_array(proba, chunks=(700, 3)),
        da.from_array(confidence, chunks=1_000),
        loss="log_loss",
    )
    expected = metrics.aurc(y_true, proba, confidence, loss="log_loss")
    assert value == pytest.approx(expected, rel=1e-12)


def test_dispatch_of_the_public_functions(client, data):
    from sklearn_selective.metrics._dask_dispatch import dispatch_dask

    y_true, y_pred, confidence, weight = data
    dask_confidence = da.from_array(confidence, chunks=6_000)
    aurc = dispatch_dask("aurc")(metrics.aurc)
    value = aurc(y_true, y_pred, dask_confidence, sample_weight=weight)
    expected = metrics.aurc(y_true, y_pred, confidence, sample_weight=weight)
    assert value == pytest.approx(expected, rel=1e-12)
    assert aurc(y_true, y_pred, confidence) == metrics.aurc(y_true, y_pred, confidence)
    fpr_at_tpr = dispatch_dask("fpr_at_tpr")(metrics.fpr_at_tpr)
    y_ood = (y_true == 0).astype(float)
    value = fpr_at_tpr(da.from_array(y_ood, chunks=4_000), confidence, tpr=0.8123)
    assert value == pytest.approx(
        metrics.fpr_at_tpr(y_ood, confidence, tpr=0.8123), rel=1e-12
    )


def test_an_accumulator_with_a_budget_reads_dask_collections(client):
    """The public route to a budget on Dask: update() with Dask collections
    builds the partitions' states on the cluster with the accumulator's budget;
    the bounds contain the exact value."""
    from sklearn_selective.metrics import RiskCoverageAccumulator, aurc

    rng = np.random.default_rng(36)
    confidence = rng.random(20_000)
    losses = (rng.random(20_000) < 0.4 * (1 - confidence)).astype(float)
    on_dask = RiskCoverageAccumulator(max_groups=2**8).update(
        None,
        None,
        da.from_array(confidence, chunks=2_000),
        loss=da.from_array(losses, chunks=2_000),
    )
    assert not on_dask.exact_ and on_dask.n_samples_seen_ == 20_000
    lower, upper = on_dask.bounds("aurc")
    assert lower <= aurc(None, None, confidence, loss=losses) <= upper
    assert upper - lower < 0.01
