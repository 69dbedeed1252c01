"""Paired bootstrap comparisons: compare_confidence_functions, compare_systems and
the conversions of every result object (to_dict, to_json, to_frame)."""

import itertools
import json
import math
import sys
import warnings
from functools import partial

import numpy as np
import pytest
from api.test_public_functions import (
    test_function_param_validation as check_param_validation,
)
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.stats import t as student_t
from scipy.stats import wilcoxon
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_selective.metrics import (
    augrc,
    aurc,
    bootstrap_metric,
    compare_confidence_functions,
    compare_systems,
    e_aurc,
    uq_auc,
    uq_c_index,
)
from sklearn_selective.metrics._resampling._paired import _holm


def _data(n=60, seed=0, n_classes=3, ties=True):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, n_classes, n)
    correct = rng.random(n) < 0.75
    y_pred = np.where(correct, y_true, (y_true + 1) % n_classes)
    confidence = rng.random(n) + 0.4 * correct
    if ties:
        confidence = np.round(confidence, 1)
    proba = rng.random((n, n_classes))
    proba /= proba.sum(axis=1, keepdims=True)
    return y_true, y_pred, confidence, proba


def _generic(metric):
    def wrapped(*args, **kwargs):
        return metric(*args, **kwargs)

    return wrapped


# --------------------------------------------------------------------------------------
# compare_confidence_functions
# --------------------------------------------------------------------------------------
def _csfs(n=300, seed=0):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 2, n)
    correct = rng.random(n) < 0.8
    y_pred = np.where(correct, y_true, 1 - y_true)
    confidences = {
        "random": rng.random(n),
        "oracle": correct + rng.random(n) * 0.1,
        "good": rng.random(n) + 0.6 * correct,
    }
    return y_true, y_pred, confidences


@pytest.mark.parametrize("metric", ["augrc", "aurc", "e_aurc", "uq_auc"])
def test_comparison_ranks_the_oracle_first(metric):
    y_true, y_pred, confidences = _csfs()
    result = compare_confidence_functions(
        y_true, y_pred, confidences, metric=metric, n_resamples=200, random_state=0
    )
    assert result.ranking == ["oracle", "good", "random"]
    assert result.names == ["random", "oracle", "good"]
    assert result.greater_is_better == (metric == "uq_auc")
    assert result.p_values.shape == result.significant.shape == (3, 3)
    assert result.significant.dtype == bool
    assert np.isnan(np.diag(result.p_values)).all()
    assert not np.diag(result.significant).any()
    # oracle > good > random, all significantly; never the other way round.
    expected = np.array([[0, 0, 0], [1, 0, 1], [1, 0, 0]], dtype=bool)
    assert_array_equal(result.significant, expected)
    assert result.mean_rank["oracle"] < result.mean_rank["good"]
    assert result.mean_rank["good"] < result.mean_rank["random"]
    assert sum(result.mean_rank.values()) == pytest.approx(6.0)
    public = {"augrc": augrc, "aurc": aurc, "e_aurc": e_aurc, "uq_auc": uq_auc}[metric]
    for name, scores in confidences.items():
        assert result.statistic[name] == public(y_true, y_pred, scores)
        low, high = result.confidence_interval[name]
        assert low <= high
    assert "ranking=['oracle', 'good', 'random']" in repr(result)
    text = str(result)
    positions = [text.index(f"  {name} ") for name in result.ranking]
    assert positions == sorted(positions)


def test_comparison_uses_paired_resamples():
    """Every CSF sees the same resamples: column j is bootstrap_metric of CSF j."""
    y_true, y_pred, confidences = _csfs(n=120, seed=1)
    sample_weight = np.random.default_rng(0).random(120)
    result = compare_confidence_functions(
        y_true,
        y_pred,
        confidences,
        metric="aurc",
        n_resamples=60,
        random_state=3,
        sample_weight=sample_weight,
        aurc_estimator="log",
    )
    assert result.bootstrap_distribution.shape == (60, 3)
    for column, scores in enumerate(confidences.values()):
        single = bootstrap_metric(
            "aurc",
            y_true,
            y_pred,
            scores,
            n_resamples=60,
            random_state=3,
            sample_weight=sample_weight,
            aurc_estimator="log",
            confidence_level=0.95,
        )
        assert_array_equal(
            result.bootstrap_distribution[:, column], single.bootstrap_distribution
        )


def _holm_transcription(p_values, alpha):
    """Holm (1979), literally: step down through the sorted p-values."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p_values[i]))
        adjusted[i] = running
    rejected = [False] * m
    for step, i in enumerate(order):
        if p_values[i] > alpha / (m - step):
            break
        rejected[i] = True
    return np.array(adjusted), np.array(rejected)


@given(
    st.lists(
        st.one_of(st.sampled_from([0.001, 0.01, 0.02, 0.5]), st.floats(0, 1)),
        min_size=1,
        max_size=30,
    )
)
def test_holm_matches_transcription(p_values):
    adjusted, rejected = _holm_transcription(p_values, 0.05)
    assert_allclose(_holm(p_values), adjusted, rtol=1e-15)
    assert_array_equal(_holm(p_values) <= 0.05, rejected)


@pytest.mark.parametrize("metric", ["augrc", "uq_auc"])
def test_comparison_tests_match_scipy_and_holm(metric):
    rng = np.random.default_rng(5)
    n = 200
    y_true = rng.integers(0, 2, n)
    correct = rng.random(n) < 0.7
    y_pred = np.where(correct, y_true, 1 - y_true)
    # Close competitors, so that some comparisons are not significant.
    confidences = {
        f"csf{k}": rng.random(n) + (0.3 + 0.05 * k) * correct for k in range(4)
    }
    confidences["copy"] = confidences["csf0"] * 2.0  # same ranking as csf0
    alpha = 0.05
    result = compare_confidence_functions(
        y_true,
        y_pred,
        confidences,
        metric=metric,
        n_resamples=80,
        alpha=alpha,
        random_state=0,
    )
    values = result.bootstrap_distribution
    sign = -1.0 if metric == "uq_auc" else 1.0
    pairs = list(itertools.permutations(range(5), 2))
    raw = []
    for i, j in pairs:
        if np.all(values[:, i] == values[:, j]):
            raw.append(1.0)
        else:
            raw.append(
                wilcoxon(
                    sign * values[:, i], sign * values[:, j], alternative="less"
                ).pvalue
            )
    adjusted, rejected = _holm_transcription(raw, alpha)
    stable = result.ranking_stability <= alpha
    for (i, j), p, reject in zip(pairs, adjusted, rejected, strict=True):
        assert result.ranking_stability[i, j] == pytest.approx(p, rel=1e-10)
        assert stable[i, j] == reject
    assert stable.any() and not stable.all()
    copy, original = result.names.index("copy"), result.names.index("csf0")
    assert result.p_values[copy, original] == result.p_values[original, copy] == 1.0
    assert result.ranking_stability[copy, original] == 1.0
    assert result.mean_rank["copy"] == result.mean_rank["csf0"]


def test_comparison_with_probabilities_and_c_index():
    y_true, _, confidence, proba = _data(n=150, seed=15, ties=False)
    y_pred = proba.argmax(axis=1)
    gap = 1.0 - proba[np.arange(150), y_true]
    result = compare_confidence_functions(
        y_true,
        proba,
        {"msp": proba.max(axis=1), "oracle": -gap, "noise": confidence},
        metric=uq_c_index,
        n_resamples=40,
        random_state=0,
    )
    assert result.ranking[0] == "oracle"
    assert result.statistic["oracle"] == 1.0
    assert result.metric == "uq_c_index"
    assert result.greater_is_better
    del y_pred


def test_comparison_leaves_out_undefined_resamples():
    n = 25
    losses = np.zeros(n)
    losses[3] = 1.0
    rng = np.random.default_rng(0)
    confidences = {"a": rng.random(n), "b": rng.random(n)}
    with pytest.warns(UndefinedMetricWarning, match="resamples"):
        result = compare_confidence_functions(
            None,
            None,
            confidences,
            metric="uq_auc",
            loss=losses,
            n_resamples=50,
            random_state=0,
        )
    undefined = np.isnan(result.bootstrap_distribution)
    assert undefined.any()
    assert_array_equal(undefined[:, 0], undefined[:, 1])
    assert np.isfinite(list(result.mean_rank.values())).all()


def test_comparison_with_every_resample_undefined():
    confidences = {"a": np.linspace(0, 1, 8), "b": np.linspace(1, 0, 8)}
    with pytest.warns(UndefinedMetricWarning):
        result = compare_confidence_functions(
            None, None, confidences, metric="uq_auc", loss=np.zeros(8), n_resamples=5
        )
    assert np.isnan(list(result.mean_rank.values())).all()
    assert_array_equal(result.p_values[[0, 1], [1, 0]], [1.0, 1.0])
    assert not result.significant.any()


def test_compare_errors():
    y_true, y_pred, confidences = _csfs(n=50)
    with pytest.raises(ValueError, match="at least two"):
        compare_confidence_functions(y_true, y_pred, {"a": confidences["good"]})
    with pytest.raises(ValueError, match="one score per sample"):
        compare_confidence_functions(
            y_true, y_pred, {"a": confidences["good"], "b": confidences["good"][:-1]}
        )
    for metric in (_generic(augrc), partial(augrc, loss="zero_one")):
        with pytest.raises(ValueError, match="scalar metrics"):
            compare_confidence_functions(y_true, y_pred, confidences, metric=metric)
    with pytest.raises(InvalidParameterError, match="metric"):
        compare_confidence_functions(y_true, y_pred, confidences, metric="accuracy")
    with pytest.raises(InvalidParameterError, match="confidences"):
        compare_confidence_functions(y_true, y_pred, [confidences["good"]] * 2)
    with pytest.raises(InvalidParameterError, match="alpha"):
        compare_confidence_functions(y_true, y_pred, confidences, alpha=0.0)
    proba = np.column_stack([1 - confidences["good"] / 2, confidences["good"] / 2])
    with pytest.raises(ValueError, match="uq_c_index has no loss"):
        compare_confidence_functions(
            y_true, proba, confidences, metric="uq_c_index", loss="brier"
        )
    with pytest.raises(ValueError, match="confidence"):
        compare_confidence_functions(
            y_true, y_pred, {**confidences, "bad": np.full(50, np.nan)}
        )


# --------------------------------------------------------------------------------------
# The shared core: ranks and identical entries
# --------------------------------------------------------------------------------------
def _mean_rank_transcription(values, greater_is_better):
    """Rank the entries on each resample (1 = best, ties share the mean rank)."""
    n_resamples, n_entries = values.shape
    ranks = np.zeros(n_entries)
    for row in values:
        for i in range(n_entries):
            better = sum(
                (row[j] > row[i]) if greater_is_better else (row[j] < row[i])
                for j in range(n_entries)
            )
            tied = sum(row[j] == row[i] for j in range(n_entries))
            ranks[i] += better + (tied + 1) / 2.0
    return ranks / n_resamples


@pytest.mark.parametrize("metric", ["augrc", "uq_auc"])
def test_mean_rank_matches_transcription(metric):
    y_true, y_pred, confidences = _csfs(n=80, seed=3)
    confidences["rounded"] = np.round(confidences["good"], 1)
    result = compare_confidence_functions(
        y_true, y_pred, confidences, metric=metric, n_resamples=30, random_state=1
    )
    expected = _mean_rank_transcription(
        result.bootstrap_distribution, result.greater_is_better
    )
    assert_allclose(list(result.mean_rank.values()), expected, rtol=1e-14)


@pytest.mark.parametrize("function", ["csfs", "systems"])
def test_identical_entries_are_robust(function):
    """Identical rankings on every resample: p = 1 both ways, equal mean ranks,
    never significant, and no error from the Wilcoxon test (older scipy versions
    raise on all-zero differences)."""
    y_true, y_pred, confidences = _csfs(n=100, seed=4)
    good = confidences["good"]
    if function == "csfs":
        entries = {"a": good, "b": good * 3.0 + 1.0, "c": confidences["random"]}
        result = compare_confidence_functions(
            y_true, y_pred, entries, n_resamples=60, random_state=0
        )
    else:
        entries = {
            "a": (y_pred, good),
            "b": (y_pred.copy(), good.copy()),
            "c": (y_pred, confidences["random"]),
        }
        result = compare_systems(y_true, entries, n_resamples=60, random_state=0)
    assert result.p_values[0, 1] == result.p_values[1, 0] == 1.0
    assert result.ranking_stability[0, 1] == result.ranking_stability[1, 0] == 1.0
    assert not result.significant[:2, :2].any()
    assert result.mean_rank["a"] == result.mean_rank["b"]
    assert result.ranking[:2] == ["a", "b"]  # ties keep the input order
    assert result.significant[0, 2] and result.significant[1, 2]


def test_all_entries_identical():
    y_true, y_pred, confidences = _csfs(n=50, seed=5)
    good = confidences["good"]
    systems = dict.fromkeys(["x", "y", "z"], (y_pred, good))
    result = compare_systems(y_true, systems, n_resamples=20, random_state=0)
    assert list(result.mean_rank.values()) == [2.0, 2.0, 2.0]
    off_diagonal = ~np.eye(3, dtype=bool)
    assert_array_equal(result.p_values[off_diagonal], 1.0)
    assert not result.significant.any()
    assert result.ranking == ["x", "y", "z"]


# --------------------------------------------------------------------------------------
# compare_systems
# --------------------------------------------------------------------------------------
def _systems(n=150, seed=0, n_runs=(3, 2, 1)):
    """Three systems with their own predictions, of decreasing quality."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, n)
    systems = {}
    for name, accuracy, separation, runs in zip(
        ["strong", "middle", "weak"],
        [0.9, 0.8, 0.7],
        [0.6, 0.3, 0.0],
        n_runs,
        strict=True,
    ):
        correct = rng.random((runs, n)) < accuracy
        y_pred = np.where(correct, y_true, (y_true + 1) % 3)
        confidence = rng.random((runs, n)) + separation * correct
        systems[name] = (y_pred, confidence)
    return y_true, systems


def test_systems_with_one_run_equal_the_csf_comparison():
    y_true, y_pred, confidences = _csfs(n=120, seed=6)
    weights = np.random.default_rng(1).random(120)
    common = {
        "metric": "aurc",
        "n_resamples": 50,
        "random_state": 2,
        "sample_weight": weights,
    }
    by_csf = compare_confidence_functions(y_true, y_pred, confidences, **common)
    systems = {name: (y_pred, scores) for name, scores in confidences.items()}
    by_system = compare_systems(y_true, systems, **common)
    assert_array_equal(by_system.bootstrap_distribution, by_csf.bootstrap_distribution)
    assert_array_equal(by_system.p_values, by_csf.p_values)
    assert by_system.mean_rank == by_csf.mean_rank
    assert by_system.ranking == by_csf.ranking
    assert by_system.statistic == by_csf.statistic
    assert by_system.n_runs == dict.fromkeys(confidences, 1)


def test_runs_are_averaged_on_the_same_resamples():
    """Column s is the mean over s's runs of bootstrap_metric of each run, all on
    the resamples that one seed draws: the bootstrap is paired within runs."""
    y_true, systems = _systems()
    result = compare_systems(
        y_true, systems, metric="augrc", n_resamples=40, random_state=7
    )
    assert result.bootstrap_distribution.shape == (40, 3)
    assert result.n_runs == {"strong": 3, "middle": 2, "weak": 1}
    for column, (name, (y_pred, confidence)) in enumerate(systems.items()):
        per_run = [
            bootstrap_metric(
                "augrc", y_true, y_run, scores, n_resamples=40, random_state=7
            )
            for y_run, scores in zip(y_pred, confidence, strict=True)
        ]
        expected = np.mean([run.bootstrap_distribution for run in per_run], axis=0)
        assert_allclose(result.bootstrap_distribution[:, column], expected, rtol=1e-15)
        run_values = [
            augrc(y_true, y_run, s) for y_run, s in zip(*systems[name], strict=True)
        ]
        assert result.run_statistic[name] == run_values
        assert result.statistic[name] == pytest.approx(np.mean(run_values), 1e-15)
    assert result.ranking == ["strong", "middle", "weak"]


def _bootstrap_p_transcription(statistic, values, i, j, n_samples):
    """One-sided p-value that column i is lower than j: the observed difference
    over the standard deviation of the resample differences, t tail."""
    differences = [values[b, i] - values[b, j] for b in range(values.shape[0])]
    mean = sum(differences) / len(differences)
    variance = sum((x - mean) ** 2 for x in differences) / (len(differences) - 1)
    if variance == 0:
        return 1.0
    z = (statistic[i] - statistic[j]) / math.sqrt(variance)
    return float(student_t.cdf(z, df=n_samples - 1))


@pytest.mark.parametrize("metric", ["augrc", "uq_auc"])
def test_p_values_are_the_paired_bootstrap_test_with_holm(metric):
    rng = np.random.default_rng(5)
    n = 200
    y_true = rng.integers(0, 2, n)
    correct = rng.random(n) < 0.7
    y_pred = np.where(correct, y_true, 1 - y_true)
    confidences = {
        f"csf{k}": rng.random(n) + (0.2 + 0.4 * k) * correct for k in range(4)
    }
    confidences["copy"] = confidences["csf0"] * 2.0  # same ranking as csf0
    result = compare_confidence_functions(
        y_true, y_pred, confidences, metric=metric, n_resamples=1000, random_state=0
    )
    sign = -1.0 if metric == "uq_auc" else 1.0
    values = result.bootstrap_distribution * sign
    statistic = [sign * result.statistic[name] for name in result.names]
    pairs = list(itertools.permutations(range(5), 2))
    raw = [_bootstrap_p_transcription(statistic, values, i, j, n) for i, j in pairs]
    adjusted, rejected = _holm_transcription(raw, 0.05)
    for (i, j), p, reject in zip(pairs, adjusted, rejected, strict=True):
        assert result.p_values[i, j] == pytest.approx(p, rel=1e-9, abs=1e-300)
        assert result.significant[i, j] == reject
    assert result.significant.any() and not result.significant.all()
    # Never both ways round.
    assert not (result.significant & result.significant.T).any()


def test_system_tests_match_scipy_and_holm():
    y_true, systems = _systems(n=100, seed=8, n_runs=(2, 2, 2))
    systems["twin"] = systems["middle"]
    result = compare_systems(
        y_true, systems, metric="aurc", n_resamples=60, random_state=0
    )
    values = result.bootstrap_distribution
    pairs = list(itertools.permutations(range(4), 2))
    raw = []
    for i, j in pairs:
        if np.all(values[:, i] == values[:, j]):
            raw.append(1.0)
        else:
            raw.append(wilcoxon(values[:, i], values[:, j], alternative="less").pvalue)
    adjusted, _ = _holm_transcription(raw, 0.05)
    for (i, j), p in zip(pairs, adjusted, strict=True):
        assert result.ranking_stability[i, j] == pytest.approx(p, rel=1e-10)
    assert_allclose(
        list(result.mean_rank.values()),
        _mean_rank_transcription(values, greater_is_better=False),
    )


def test_systems_with_probabilities_and_c_index():
    rng = np.random.default_rng(9)
    n = 80
    y_true = rng.integers(0, 3, n)
    sharp = rng.dirichlet(np.ones(3), n)
    sharp[np.arange(n), y_true] += 1.0
    sharp /= sharp.sum(axis=1, keepdims=True)
    noisy = rng.dirichlet(np.ones(3), (2, n))
    systems = {"sharp": (sharp, sharp.max(axis=1)), "noisy": (noisy, noisy.max(-1))}
    for metric in ["uq_c_index", "augrc"]:
        kwargs = {} if metric == "uq_c_index" else {"loss": "brier"}
        result = compare_systems(
            y_true, systems, metric=metric, n_resamples=20, random_state=0, **kwargs
        )
        assert result.n_runs == {"sharp": 1, "noisy": 2}
        function = uq_c_index if metric == "uq_c_index" else partial(augrc, **kwargs)
        expected = [function(y_true, p, p.max(axis=1)) for p in noisy]
        assert result.run_statistic["noisy"] == expected


def test_compare_systems_errors():
    y_true, systems = _systems(n=30)
    with pytest.raises(ValueError, match="at least two"):
        compare_systems(y_true, {"strong": systems["strong"]})
    with pytest.raises(ValueError, match=r"systems\['bad'\] must be a pair"):
        compare_systems(y_true, {**systems, "bad": systems["weak"][1]})
    y_pred, confidence = systems["strong"]
    with pytest.raises(ValueError, match=r"systems\['bad'\] has 3 runs"):
        compare_systems(y_true, {**systems, "bad": (y_pred[:2], confidence)})
    with pytest.raises(ValueError, match=r"systems\['bad'\].*one score per test"):
        compare_systems(y_true, {**systems, "bad": (y_pred[0], confidence[0, :-1])})
    with pytest.raises(ValueError, match=r"systems\['bad'\].*y_pred must have one"):
        compare_systems(y_true, {**systems, "bad": (y_pred[0, :-1], confidence[0])})
    with pytest.raises(ValueError, match=r"systems\['bad'\].*confidence"):
        nan = np.full(30, np.nan)
        compare_systems(y_true, {**systems, "bad": (y_pred[0], nan)})
    with pytest.raises(InvalidParameterError, match="loss"):
        compare_systems(y_true, systems, loss=np.zeros(30))
    with pytest.raises(ValueError, match="scalar metrics"):
        compare_systems(y_true, systems, metric=_generic(augrc))
    with pytest.raises(ValueError, match="y_true must be a 1-D"):
        compare_systems(np.zeros((30, 2)), systems)
    with pytest.raises(ValueError, match="sample_weight"):
        compare_systems(y_true, systems, sample_weight=np.ones(3))


@pytest.mark.parametrize(
    "func", [compare_confidence_functions, compare_systems], ids=lambda f: f.__name__
)
def test_param_validation(func):
    check_param_validation(f"sklearn_selective.metrics.{func.__name__}", func)


# --------------------------------------------------------------------------------------
# Results as data
# --------------------------------------------------------------------------------------
def _bootstrap_result():
    y_true, y_pred, confidence, _ = _data(n=80, seed=1)
    return bootstrap_metric(
        "aurc", y_true, y_pred, confidence, n_resamples=50, random_state=0
    )


def test_bootstrap_result_to_dict_and_json():
    result = _bootstrap_result()
    data = result.to_dict()
    assert data == {
        "metric": "aurc",
        "statistic": result.statistic,
        "confidence_interval": list(result.confidence_interval),
        "confidence_level": 0.95,
        "method": "double",  # the default below 500 samples
        "standard_error": result.standard_error,
        "n_resamples": 50,
    }
    assert json.loads(result.to_json()) == data
    full = json.loads(result.to_json(include_distribution=True, indent=2))
    assert full["bootstrap_distribution"] == result.bootstrap_distribution.tolist()
    text = str(result)
    assert text.startswith("aurc = ") and "95% CI" in text and "50 resamples" in text


def test_undefined_values_become_null():
    confidence = np.linspace(0, 1, 10)
    with pytest.warns(UndefinedMetricWarning):
        result = bootstrap_metric(
            "uq_auc", None, None, confidence, loss=np.zeros(10), n_resamples=5
        )
    data = json.loads(result.to_json(include_distribution=True))
    assert data["statistic"] is None
    assert data["confidence_interval"] == [None, None]
    assert data["bootstrap_distribution"] == [None] * 5


def test_comparison_results_to_dict_and_json():
    y_true, systems = _systems(n=60)
    result = compare_systems(y_true, systems, n_resamples=30, random_state=0)
    data = json.loads(result.to_json())
    assert data["ranking"] == result.ranking
    assert data["names"] == result.names
    assert data["n_resamples"] == 30
    first = data["table"][0]
    name = result.ranking[0]
    assert first["rank"] == 1 and first["name"] == name
    assert first["mean_rank"] == result.mean_rank[name]
    assert first["n_runs"] == result.n_runs[name]
    row = result.significant[result.names.index(name)]
    assert first["significantly_better_than"] == [
        other for other, better in zip(result.names, row, strict=True) if better
    ]
    assert first["significantly_better_than"]  # the strong system beats some
    i, j = 0, 2
    a, b = result.names[i], result.names[j]
    assert data["p_values"][a][b] == result.p_values[i, j]
    assert a not in data["p_values"][a]
    assert data["ranking_stability"][a][b] == result.ranking_stability[i, j]
    full = result.to_dict(include_distribution=True)
    assert (
        full["bootstrap_distribution"][b]
        == result.bootstrap_distribution[:, j].tolist()
    )


def test_to_frame():
    pandas = pytest.importorskip("pandas")
    frame = _bootstrap_result().to_frame()
    assert list(frame.index) == ["aurc"]
    assert list(frame.columns) == [
        "statistic",
        "ci_low",
        "ci_high",
        "standard_error",
        "confidence_level",
        "method",
        "n_resamples",
    ]
    y_true, y_pred, confidences = _csfs(n=100)
    result = compare_confidence_functions(
        y_true, y_pred, confidences, n_resamples=30, random_state=0
    )
    ranking = result.to_frame()
    assert list(ranking.index) == result.ranking
    assert ranking.index.name == "name"
    assert list(ranking["rank"]) == [1, 2, 3]
    assert ranking.loc["oracle", "significantly_better_than"] == ["random", "good"]
    assert ranking.loc["good", "statistic"] == result.statistic["good"]
    p_values = result.to_frame("p_values")
    assert p_values.shape == (3, 3)
    assert p_values.loc["good", "random"] == result.p_values[2, 0]
    stability = result.to_frame("ranking_stability")
    assert stability.loc["good", "random"] == result.ranking_stability[2, 0]
    distribution = result.to_frame(table="bootstrap")
    assert distribution.shape == (30, 3)
    assert_array_equal(distribution["good"], result.bootstrap_distribution[:, 2])
    with pytest.raises(ValueError, match="table must be one of"):
        result.to_frame("ranks")
    y_true, systems = _systems(n=60)
    frame = compare_systems(y_true, systems, n_resamples=10).to_frame()
    assert "n_runs" in frame.columns
    assert isinstance(frame, pandas.DataFrame)


def test_to_frame_without_pandas(monkeypatch):
    bootstrap = _bootstrap_result()
    y_true, y_pred, confidences = _csfs(n=60)
    comparison = compare_confidence_functions(
        y_true, y_pred, confidences, n_resamples=5
    )
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas fails
    with pytest.raises(ImportError, match=r"BootstrapResult.to_frame\(\) needs pandas"):
        bootstrap.to_frame()
    with pytest.raises(ImportError, match="to_dict"):
        comparison.to_frame()
    json.loads(comparison.to_json())  # needs no pandas


def _equal_csfs(rng, n, k):
    y_true = rng.integers(0, 2, n)
    correct = rng.random(n) < 0.8
    y_pred = np.where(correct, y_true, 1 - y_true)
    return y_true, y_pred, {f"csf{i}": rng.normal(size=n) + correct for i in range(k)}


@pytest.mark.slow
@pytest.mark.parametrize("metric, n, k", [("augrc", 50, 3), ("uq_auc", 50, 3)])
def test_significant_holds_the_family_wise_error_between_equal_csfs(metric, n, k):
    """CSFs equal on the population: a false ``significant`` anywhere in at most
    alpha of the test sets (nominal + 2 Monte-Carlo s.e.); the paper's Wilcoxon
    procedure flags nearly all of them."""
    rng = np.random.default_rng(7)
    repeats, alpha = 400, 0.05
    false, stable = 0, 0
    for repeat in range(repeats):
        y_true, y_pred, confidences = _equal_csfs(rng, n, k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            result = compare_confidence_functions(
                y_true, y_pred, confidences, metric=metric, random_state=repeat
            )
        false += bool(result.significant.any())
        stable += bool((result.ranking_stability <= alpha).any())
    assert false / repeats <= alpha + 2 * np.sqrt(alpha * (1 - alpha) / repeats)
    assert stable / repeats > 0.9


def test_names_that_read_the_same_are_refused():
    # issue 28: systems named 1 and "1" merged into one entry of the JSON.
    y_true, systems = _systems(n=60)
    first, second = list(systems.values())[:2]
    with pytest.raises(ValueError, match="read the same as text"):
        compare_systems(y_true, {1: first, "1": second}, n_resamples=20)


def test_a_tuple_name_is_the_same_text_everywhere_in_the_json():
    """Issue 35: a system named (1, 2) was "(1, 2)" in names, [1, 2] in the table."""
    import json

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)

    def runs(accuracy):
        correct = rng.random((2, 200)) < accuracy
        return np.where(correct, y, 1 - y), rng.random((2, 200)) + 0.3 * correct

    result = compare_systems(
        y, {(1, 2): runs(0.8), "b": runs(0.7)}, n_resamples=50, random_state=0
    )
    data = json.loads(result.to_json())
    assert data["names"] == ["(1, 2)", "b"]
    assert {row["name"] for row in data["table"]} == {"(1, 2)", "b"}
