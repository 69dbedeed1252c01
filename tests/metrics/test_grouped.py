"""metric_by_group (SPEC section 10)."""

import json
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_selective.metrics import (
    augrc,
    aurc,
    bootstrap_metric,
    metric_by_group,
    sele,
    uq_auc,
)

TOL = {"rel": 1e-12, "abs": 1e-12}


# --------------------------------------------------------------------------------------
# metric_by_group
# --------------------------------------------------------------------------------------
def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, n)
    y_pred = np.where(rng.random(n) < 0.7, y_true, rng.integers(0, 3, n))
    confidence = rng.random(n).round(1)  # ties
    groups = rng.choice(["site-a", "site-b", "site-c"], n)
    weights = rng.integers(0, 4, n).astype(float)
    return y_true, y_pred, confidence, groups, weights


@pytest.mark.parametrize("metric", ["aurc", "augrc", "uq_auc", aurc])
@pytest.mark.parametrize("weighted", [False, True])
def test_metric_by_group_equals_the_metric_on_each_subset(metric, weighted):
    y_true, y_pred, confidence, groups, weights = _data()
    w = weights if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        result = metric_by_group(
            metric, y_true, y_pred, confidence, groups=groups, sample_weight=w
        )
    function = {"aurc": aurc, "augrc": augrc, "uq_auc": uq_auc}.get(metric, metric)
    np.testing.assert_array_equal(result.groups, ["site-a", "site-b", "site-c"])
    for index, group in enumerate(result.groups):
        mask = groups == group
        extra = {} if w is None else {"sample_weight": w[mask]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            expected = function(y_true[mask], y_pred[mask], confidence[mask], **extra)
        assert result.values[index] == pytest.approx(expected, nan_ok=True, **TOL)
        assert result.n_samples[index] == mask.sum()
    if result.greater_is_better:
        assert result.worst_value == np.nanmin(result.values)
    else:
        assert result.worst_value == np.nanmax(result.values)
    assert result.worst_group == result.groups[result.values == result.worst_value][0]


def test_metric_by_group_by_class_with_a_loss_array_and_options():
    y_true, _, confidence, _, _ = _data()
    losses = np.abs(np.random.default_rng(3).normal(size=y_true.shape[0]))
    result = metric_by_group(
        "aurc",
        y_true,
        None,
        confidence,
        groups="class",
        loss=losses,
        coverage_range=(0.0, 0.5),
    )
    for index, label in enumerate(result.groups):
        mask = y_true == label
        expected = aurc(
            None, None, confidence[mask], loss=losses[mask], coverage_range=(0.0, 0.5)
        )
        assert result.values[index] == pytest.approx(expected, **TOL)


def test_metric_by_group_direction_and_undefined_groups():
    confidence = np.array([0.9, 0.8, 0.1, 0.7, 0.6, 0.2, 0.5])
    failures = np.array([0, 0, 1, 0, 1, 0, 0])
    groups = np.array([0, 0, 0, 1, 1, 1, 2])  # group 2 has no failure
    with pytest.warns(UndefinedMetricWarning):
        result = metric_by_group(
            "uq_auc", None, None, confidence, groups=groups, loss=failures
        )
    np.testing.assert_allclose(result.values[:2], [1.0, 0.5])
    assert np.isnan(result.values[2])
    assert result.worst_group == 1 and result.worst_value == 0.5
    with pytest.raises(ValueError, match="greater_is_better"):
        metric_by_group(
            lambda *a, **k: 0.0, None, None, confidence, groups=groups, loss=failures
        )
    custom = metric_by_group(
        lambda yt, yp, c, loss: float(np.mean(loss)),
        None,
        None,
        confidence,
        groups=groups,
        loss=failures,
        greater_is_better=False,
    )
    assert custom.worst_group == 0


def test_metric_by_group_bootstrap_intervals_match_bootstrap_metric():
    y_true, y_pred, confidence, groups, _ = _data(n=80)
    result = metric_by_group(
        "augrc",
        y_true,
        y_pred,
        confidence,
        groups=groups,
        n_resamples=200,
        confidence_level=0.9,
        random_state=0,
    )
    rng = np.random.default_rng(0)
    for index, group in enumerate(result.groups):
        mask = groups == group
        expected = bootstrap_metric(
            "augrc",
            y_true[mask],
            y_pred[mask],
            confidence[mask],
            n_resamples=200,
            confidence_level=0.9,
            random_state=rng,
        ).confidence_interval
        np.testing.assert_allclose(result.confidence_interval[index], expected)
        low, high = result.confidence_interval[index]
        assert low <= result.values[index] <= high
    # Options the vectorised bootstrap path may not know go through a callable.
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        trapezoid = metric_by_group(
            "aurc",
            y_true,
            y_pred,
            confidence,
            groups=groups,
            aurc_estimator="trapezoid",
            n_resamples=20,
            random_state=0,
        )
    assert np.all(np.isfinite(trapezoid.confidence_interval))


def test_metric_by_group_result_table():
    pd = pytest.importorskip("pandas")
    y_true, y_pred, confidence, groups, _ = _data()
    result = metric_by_group(
        "augrc",
        y_true,
        y_pred,
        confidence,
        groups=groups,
        n_resamples=50,
        random_state=0,
    )
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == [
        "value",
        "n_samples",
        "ci_low",
        "ci_high",
        "simultaneous_low",
        "simultaneous_high",
        "worst",
    ]
    assert frame["worst"].sum() == 1
    text = str(result)
    assert "<- worst" in text and "90%" not in text and "95% CI" in text
    assert "MetricByGroupResult(metric='augrc'" in repr(result)


def test_metric_by_group_simultaneous_intervals_and_json():
    y_true, y_pred, confidence, groups, _ = _data()
    result = metric_by_group(
        "augrc",
        y_true,
        y_pred,
        confidence,
        groups=groups,
        n_resamples=200,
        random_state=0,
    )
    n_groups = result.groups.shape[0]
    assert n_groups >= 2
    # Bonferroni: each simultaneous interval is the percentile interval at level
    # 1 - 0.05 / n_groups, so it contains the group's own 95 % interval.
    assert np.all(
        result.simultaneous_interval[:, 0] <= result.confidence_interval[:, 0]
    )
    assert np.all(
        result.simultaneous_interval[:, 1] >= result.confidence_interval[:, 1]
    )
    data = json.loads(result.to_json())
    assert data["worst_group"] == result.worst_group
    assert [row["group"] for row in data["table"]] == result.groups.tolist()
    first = data["table"][0]
    assert first["simultaneous_low"] == result.simultaneous_interval[0, 0]
    assert first["ci_high"] == result.confidence_interval[0, 1]
    plain = metric_by_group("augrc", y_true, y_pred, confidence, groups=groups)
    assert "ci_low" not in plain.to_dict()["table"][0]


def test_metric_by_group_input_errors():
    confidence = [0.1, 0.2, 0.3]
    with pytest.raises(ValueError, match="groups has 2 entries"):
        metric_by_group("aurc", None, None, confidence, groups=[0, 1], loss=[0, 1, 0])
    with pytest.raises(ValueError, match="y_true"):
        metric_by_group("aurc", None, None, confidence, groups="class", loss=[0, 1, 0])


@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, 0.5, 1.0, 2.0]),  # confidence (ties)
            st.sampled_from([0.0, 1.0, 2.5]),  # loss
            st.integers(0, 3),  # weight
            st.sampled_from(["x", "y", "z"]),  # group
        ),
        min_size=1,
        max_size=12,
    ),
    st.sampled_from(["augrc", "aurc", "sele"]),
)
def test_metric_by_group_equals_loops_over_groups(rows, metric):
    confidence, losses, weights, groups = (np.array(v) for v in zip(*rows, strict=True))
    weights = weights.astype(float)
    function = {"augrc": augrc, "aurc": aurc, "sele": sele}[metric]
    present = [g for g in sorted(set(groups)) if weights[groups == g].sum() > 0]
    if len(present) < len(set(groups)):  # a group of zero total weight is invalid
        with pytest.raises(ValueError, match=r"sample_weight sums to zero|zero total"):
            metric_by_group(
                metric,
                None,
                None,
                confidence,
                groups=groups,
                loss=losses,
                sample_weight=weights,
            )
        return
    kwargs = {"groups": groups, "loss": losses, "sample_weight": weights}
    result = metric_by_group(metric, None, None, confidence, **kwargs)
    expected = {}
    for g in present:
        rows_g = [i for i in range(len(groups)) if groups[i] == g]
        expected[g] = function(
            None,
            None,
            confidence[rows_g],
            loss=losses[rows_g],
            sample_weight=weights[rows_g],
        )
    assert list(result.groups) == present
    np.testing.assert_allclose(result.values, [expected[g] for g in present])
    assert result.worst_value == max(expected.values())


def test_metric_by_group_splits_only_per_sample_losses():
    # issue 28: coverage_range (two entries) was split like the data when n = 2.
    result = metric_by_group(
        "aurc", [0, 1], [0, 0], [0.9, 0.2], groups=[0, 1], coverage_range=(0.0, 0.5)
    )
    expected = [
        aurc([0], [0], [0.9], coverage_range=(0.0, 0.5)),
        aurc([1], [0], [0.2], coverage_range=(0.0, 0.5)),
    ]
    np.testing.assert_array_equal(result.values, expected)


@pytest.mark.slow
def test_uq_auc_group_intervals_hold_their_level_at_50_per_group():
    """Issue 35: per-group 95 % intervals of uq_auc covered 0.907 for groups of
    50 (bootstrap_metric's own default covered 0.96 there). Failures are a
    Bernoulli(0.18), the confidence N(1, 1) when right and N(0, 1) when wrong:
    the failure AUROC is Phi(1 / sqrt(2)) exactly. 400 intervals (100 draws of
    4 groups of 50) cover it at 95 % +- 2 Monte-Carlo s.e."""
    from scipy.stats import norm

    truth = norm.cdf(1 / np.sqrt(2))
    repeats, n, k = 100, 50, 4
    rng = np.random.default_rng(35)
    covered = []
    for repeat in range(repeats):
        correct = rng.random(n * k) < 0.82
        confidence = rng.normal(size=n * k) + correct
        # A resample of a group of 50 without a failure has no AUROC: the
        # warning says so; the interval leaves those resamples out.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            result = metric_by_group(
                "uq_auc",
                None,
                None,
                confidence,
                loss=(~correct).astype(float),
                groups=np.repeat(np.arange(k), n),
                n_resamples=1000,
                random_state=repeat,
            )
        low, high = result.confidence_interval.T
        covered.extend((low <= truth) & (truth <= high))
    se = np.sqrt(0.95 * 0.05 / len(covered))
    assert abs(np.mean(covered) - 0.95) <= 2 * se, np.mean(covered)
