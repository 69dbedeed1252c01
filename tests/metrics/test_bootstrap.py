"""bootstrap_metric: intervals, reproducibility, undefined values, validation."""

import inspect
import warnings
from functools import partial

import numpy as np
import pytest
from api.test_public_functions import (
    test_function_param_validation as check_param_validation,
)
from numpy.testing import assert_allclose, assert_array_equal
from scipy.special import ndtr
from scipy.stats import binom, bootstrap
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_selective._utils import _draws
from sklearn_selective.metrics import (
    augrc,
    aurc,
    bootstrap_metric,
    coverage_at_risk,
    e_aurc,
    naurc,
    sele,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)
from sklearn_selective.metrics._core import _integer_counts
from sklearn_selective.metrics._resampling import (
    _concordance_resampler,
    _risk_resampler,
)
from sklearn_selective.metrics._resampling import _resamples as _resampling

METRICS = {
    "aurc": aurc,
    "aurc_log": partial(aurc, aurc_estimator="log"),
    "sele": sele,
    "e_aurc": e_aurc,
    "naurc": naurc,
    "augrc": augrc,
    "uq_auc": uq_auc,
    "uq_c_index": uq_c_index,
    "selective_risk_at_coverage": partial(selective_risk_at_coverage, coverage=0.6),
    "coverage_at_risk": partial(coverage_at_risk, risk=0.15),
}


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


def _drawn_counts(seed, n, n_resamples):
    """The count vectors that ``random_state=seed`` stands for."""
    rng = np.random.default_rng(seed)
    return np.concatenate(list(_draws._bootstrap_counts(rng, n, n_resamples)))


def _generic(metric):
    """A different function object: ``bootstrap_metric`` takes the generic path."""

    def wrapped(*args, **kwargs):
        return metric(*args, **kwargs)

    return wrapped


# --------------------------------------------------------------------------------------
# Intervals: the formulas of scipy.stats.bootstrap, reproducibility, undefined values.
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
@pytest.mark.parametrize("metric", [aurc, augrc, uq_auc])
def test_same_resamples_and_interval_as_scipy(metric, method):
    """Up to 2**16 samples the resamples are scipy.stats.bootstrap's index draws:
    the same bootstrap distribution, intervals and standard error."""
    y_true, y_pred, confidence, _ = _data(n=50, seed=3, ties=False)

    if "rng" not in inspect.signature(bootstrap).parameters:  # scipy < 1.15
        bootstrap_ = partial(bootstrap, random_state=np.random.default_rng(7))
    else:
        bootstrap_ = partial(bootstrap, rng=np.random.default_rng(7))

    def statistic(y_true, y_pred, confidence):
        return metric(y_true, y_pred, confidence)

    reference = bootstrap_(
        (y_true, y_pred, confidence),
        statistic,
        n_resamples=300,
        paired=True,
        vectorized=False,
        method=method,
        confidence_level=0.9,
    )
    result = bootstrap_metric(
        metric,
        y_true,
        y_pred,
        confidence,
        n_resamples=300,
        method=method,
        confidence_level=0.9,
        random_state=np.random.default_rng(7),
    )
    assert_allclose(
        result.bootstrap_distribution, reference.bootstrap_distribution, atol=1e-12
    )
    assert_allclose(result.confidence_interval, reference.confidence_interval)
    assert_allclose(result.standard_error, reference.standard_error)


def test_interval_definitions():
    y_true, y_pred, confidence, _ = _data(seed=9)
    common = {"n_resamples": 200, "random_state": 0, "confidence_level": 0.8}
    percentile = bootstrap_metric(
        "augrc", y_true, y_pred, confidence, method="percentile", **common
    )
    basic = bootstrap_metric(
        "augrc", y_true, y_pred, confidence, method="basic", **common
    )
    distribution = percentile.bootstrap_distribution
    low, high = np.quantile(distribution, [0.1, 0.9])
    assert_allclose(percentile.confidence_interval, (low, high), rtol=1e-14)
    assert percentile.confidence_interval.low == percentile.confidence_interval[0]
    statistic = percentile.statistic
    assert_allclose(
        basic.confidence_interval, (2 * statistic - high, 2 * statistic - low)
    )
    assert percentile.standard_error == pytest.approx(np.std(distribution, ddof=1))
    assert statistic == augrc(y_true, y_pred, confidence)


def test_bca_levels_follow_efron():
    """z0 from the share of resamples below the estimate, a from the jackknife."""
    y_true, y_pred, confidence, _ = _data(n=30, seed=10, ties=False)
    result = bootstrap_metric(
        "aurc",
        y_true,
        y_pred,
        confidence,
        n_resamples=400,
        method="BCa",
        random_state=0,
    )
    theta = result.bootstrap_distribution
    estimate = result.statistic
    from scipy.special import ndtri

    z0 = ndtri((np.sum(theta < estimate) + np.sum(theta <= estimate)) / (2 * 400))
    jackknife = np.array(
        [
            aurc(np.delete(y_true, i), np.delete(y_pred, i), np.delete(confidence, i))
            for i in range(30)
        ]
    )
    u = jackknife.mean() - jackknife
    acceleration = np.sum(u**3) / (6 * np.sum(u**2) ** 1.5)
    z = ndtri(0.025)
    levels = [
        ndtr(z0 + (z0 + s * z) / (1 - acceleration * (z0 + s * z))) for s in (1, -1)
    ]
    assert_allclose(result.confidence_interval, np.quantile(theta, levels))


def test_reproducible_and_seed_conventions():
    y_true, y_pred, confidence, _ = _data(seed=12)
    run = partial(bootstrap_metric, "aurc", y_true, y_pred, confidence, n_resamples=50)
    first, second = run(random_state=4), run(random_state=4)
    assert_array_equal(first.bootstrap_distribution, second.bootstrap_distribution)
    assert first.confidence_interval == second.confidence_interval
    generator = run(random_state=np.random.default_rng(4))
    assert_array_equal(first.bootstrap_distribution, generator.bootstrap_distribution)
    other = run(random_state=5)
    assert not np.array_equal(
        first.bootstrap_distribution, other.bootstrap_distribution
    )
    legacy = [run(random_state=np.random.RandomState(4)) for _ in range(2)]
    assert_array_equal(
        legacy[0].bootstrap_distribution, legacy[1].bootstrap_distribution
    )
    # A generator is advanced, so two calls in a row differ.
    rng = np.random.default_rng(0)
    assert not np.array_equal(
        run(random_state=rng).bootstrap_distribution,
        run(random_state=rng).bootstrap_distribution,
    )


@pytest.mark.parametrize("draw_chunk", [2**16, 7])
def test_blocks_do_not_change_the_resamples(monkeypatch, draw_chunk):
    """Memory-bounded blocks draw the same stream as one big draw, for one-stage
    draws (n <= chunk) and two-stage draws (chunk totals, then positions)."""
    monkeypatch.setattr(_draws, "_DRAW_CHUNK", draw_chunk)
    y_true, y_pred, confidence, _ = _data(n=40, seed=13)
    run = partial(bootstrap_metric, "augrc", y_true, y_pred, confidence, n_resamples=37)
    whole = run(random_state=0)
    monkeypatch.setattr(_draws, "_BLOCK_COUNTS", 3 * 40 + 5)
    blocked = run(random_state=0)
    assert_array_equal(whole.bootstrap_distribution, blocked.bootstrap_distribution)
    monkeypatch.setattr(_draws, "_BLOCK_COUNTS", 1)
    assert_array_equal(
        whole.bootstrap_distribution, run(random_state=0).bootstrap_distribution
    )


@pytest.mark.parametrize("draw_chunk", [2**16, 3])
def test_counts_are_multinomial(monkeypatch, draw_chunk):
    """Every count vector sums to n; each count is Binomial(n, 1/n) and two
    counts have covariance -1/n, within 4 Monte Carlo standard errors."""
    monkeypatch.setattr(_draws, "_DRAW_CHUNK", draw_chunk)
    n, n_resamples = 8, 40000
    counts = _drawn_counts(0, n, n_resamples).astype(float)
    assert counts.dtype == float and (counts.sum(axis=1) == n).all()
    mean, var = counts.mean(axis=0), counts.var(axis=0)
    assert_allclose(mean, 1.0, atol=4 * np.sqrt((1 - 1 / n) / n_resamples))
    assert_allclose(var, 1 - 1 / n, atol=4 * 0.012)
    covariance = np.cov(counts[:, 0], counts[:, -1])[0, 1]  # different chunks
    assert abs(covariance + 1 / n) < 4 * 0.006
    frequencies = np.bincount(counts[:, 2].astype(int), minlength=n + 1) / n_resamples
    expected = binom.pmf(np.arange(n + 1), n, 1 / n)
    assert_allclose(frequencies, expected, atol=4 * np.sqrt(0.25 / n_resamples))
    assert _drawn_counts(0, 300, 2).dtype == np.uint8


class _PileUp:
    """A stand-in generator that puts every draw on the first sample."""

    def multinomial(self, n, pvals):
        return np.eye(len(pvals), dtype=int)[0] * n

    def integers(self, low, high, size=None, dtype=int):
        return np.zeros(size, dtype=int)


@pytest.mark.parametrize("draw_chunk", [2**16, 1])
def test_counts_above_255_widen_the_dtype(monkeypatch, draw_chunk):
    monkeypatch.setattr(_draws, "_DRAW_CHUNK", draw_chunk)
    counts = _draws._draw_counts(_PileUp(), 300, 2)
    assert counts.dtype == np.uint16
    assert_array_equal(counts[:, 0], 300)
    assert not counts[:, 1:].any()


def _c_index_distribution(n, seed, n_resamples, **kwargs):
    """The bootstrap distribution of uq_c_index on ``_data(n, seed)``."""
    y_true, _, confidence, proba = _data(n=n, seed=seed)
    return bootstrap_metric(
        "uq_c_index",
        y_true,
        proba,
        confidence,
        n_resamples=n_resamples,
        random_state=0,
        **kwargs,
    ).bootstrap_distribution


@pytest.mark.parametrize("weighted", [False, True])
def test_uq_c_index_threads_do_not_change_the_result(weighted):
    """uq_c_index evaluates a block's resamples in n_jobs threads."""
    w = np.random.default_rng(1).random(300) if weighted else None
    run = partial(_c_index_distribution, 300, 15, 30, sample_weight=w)
    serial = run(n_jobs=None)
    assert_array_equal(run(n_jobs=3), serial)
    assert_array_equal(run(n_jobs=-1), serial)
    assert np.unique(serial).shape[0] > 10  # the resamples differ


@pytest.mark.parametrize("metric", ["uq_c_index", "generic"])
def test_large_samples_give_every_worker_a_resample(metric, monkeypatch):
    """Where a block would hold one resample (n near _BLOCK_COUNTS), n_jobs
    workers get blocks of n_jobs resamples: the same resamples, grouped."""
    y_true, y_pred, confidence, proba = _data(n=300, seed=16)
    monkeypatch.setattr(_draws, "_BLOCK_COUNTS", 300)
    if metric == "generic":
        metric, second = _generic(augrc), y_pred
    else:
        second = proba
    sizes = []
    draw = _draws._draw_counts

    def spy(rng, n_samples, rows):
        sizes.append(rows)
        return draw(rng, n_samples, rows)

    monkeypatch.setattr(_draws, "_draw_counts", spy)
    run = partial(bootstrap_metric, metric, y_true, second, confidence, n_resamples=7)
    serial = run(random_state=0, n_jobs=None).bootstrap_distribution
    assert sizes == [1] * 7
    sizes.clear()
    parallel = run(random_state=0, n_jobs=3).bootstrap_distribution
    assert sizes == [3, 3, 1]
    assert_array_equal(parallel, serial)


def test_uq_c_index_threads_keep_the_error_state(monkeypatch):
    """numpy's error state is per thread (numpy < 2) or per context (numpy 2):
    the worker threads must take the caller's (which silences the resamples' FP
    warnings), else a threaded bootstrap warns where a serial one does not."""
    evaluate = _concordance_resampler._ConcordanceResampler._value

    def dividing_by_zero(self, count):
        np.divide(np.ones(1), np.zeros(1))  # warns unless errstate ignores it
        return evaluate(self, count)

    monkeypatch.setattr(
        _concordance_resampler._ConcordanceResampler, "_value", dividing_by_zero
    )
    y_true, _, confidence, proba = _data(n=40, seed=17)
    for n_jobs in (None, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            bootstrap_metric(
                "uq_c_index",
                y_true,
                proba,
                confidence,
                n_resamples=8,
                random_state=0,
                n_jobs=n_jobs,
            )


def test_uq_c_index_resamples_keep_float32_gaps_apart():
    """1 - p in float32 ties gaps that uq_c_index (float64) tells apart: a
    resample of every sample once must give the metric itself."""
    y_true = np.array([0, 0, 1, 1])
    proba = np.array(
        [[1e-9, 1 - 1e-9], [2e-9, 1 - 2e-9], [0.3, 0.7], [0.6, 0.4]], dtype=np.float32
    )
    confidence = np.array([0.2, 0.9, 0.5, 0.1])
    statistic = uq_c_index(y_true, proba, confidence)
    values = _resampling._resample_evaluator(
        uq_c_index, (y_true, proba, confidence, None), {}
    )([np.ones((1, 4), dtype=np.uint8)])
    assert values[0] == statistic


def test_uq_c_index_bootstrap_is_scale_invariant_in_huge_weights():
    w = np.random.default_rng(3).random(60)
    base = _c_index_distribution(60, 18, 20, sample_weight=w)
    huge = _c_index_distribution(60, 18, 20, sample_weight=w * 2.0**700)
    assert not np.isnan(huge).any()
    assert_allclose(huge, base, rtol=1e-12)


def test_n_jobs_does_not_change_the_result():
    y_true, y_pred, confidence, _ = _data(seed=14)
    metric = _generic(augrc)
    run = partial(
        bootstrap_metric,
        metric,
        y_true,
        y_pred,
        confidence,
        n_resamples=40,
        random_state=0,
    )
    serial, parallel = run(n_jobs=None), run(n_jobs=2)
    assert_array_equal(serial.bootstrap_distribution, parallel.bootstrap_distribution)
    fast = bootstrap_metric(
        "augrc", y_true, y_pred, confidence, n_resamples=40, random_state=0, n_jobs=2
    )
    assert_allclose(
        fast.bootstrap_distribution, serial.bootstrap_distribution, atol=1e-12
    )


def test_undefined_resamples_are_nan_and_left_out():
    """uq_auc with a single failure: resamples without it are undefined."""
    n, n_resamples = 30, 200
    losses = np.zeros(n)
    losses[0] = 1.0
    confidence = np.linspace(0, 1, n)
    with pytest.warns(UndefinedMetricWarning, match="nan"):
        result = bootstrap_metric(
            "uq_auc",
            None,
            None,
            confidence,
            loss=losses,
            n_resamples=n_resamples,
            method="percentile",
            random_state=0,
        )
    undefined = _drawn_counts(0, n, n_resamples)[:, 0] == 0
    assert 0 < undefined.sum() < n_resamples
    assert_array_equal(np.isnan(result.bootstrap_distribution), undefined)
    defined = result.bootstrap_distribution[~undefined]
    assert result.confidence_interval == tuple(np.quantile(defined, [0.025, 0.975]))
    assert result.standard_error == np.std(defined, ddof=1)


def test_metric_undefined_everywhere():
    confidence = np.linspace(0, 1, 10)
    with pytest.warns(UndefinedMetricWarning):
        result = bootstrap_metric(
            "uq_auc", None, None, confidence, loss=np.zeros(10), n_resamples=20
        )
    assert np.isnan(result.statistic)
    assert np.isnan(result.bootstrap_distribution).all()
    assert np.isnan(result.confidence_interval).all()
    assert np.isnan(result.standard_error)


def test_degenerate_bca_falls_back_to_the_percentile_interval_with_a_warning():
    from scipy.stats import DegenerateDataWarning

    confidence = np.linspace(0, 1, 10)
    with pytest.warns(DegenerateDataWarning, match="percentile interval is returned"):
        result = bootstrap_metric(
            "augrc",
            None,
            None,
            confidence,
            loss=np.zeros(10),
            n_resamples=20,
            method="BCa",
        )
    assert result.method == "percentile"
    assert tuple(result.confidence_interval) == (0.0, 0.0)
    assert result.standard_error == 0.0


def test_bca_of_a_working_point_is_never_nan():
    # selective_risk_at_coverage moves with few resamples at n = 50: its BCa
    # levels were undefined (nan interval) in 10-30 % of such data sets.
    rng = np.random.default_rng(0)
    undefined = 0
    for seed in range(30):
        correct = rng.random(50) < 0.82
        confidence = rng.normal(size=50) + correct
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = bootstrap_metric(
                "selective_risk_at_coverage",
                None,
                None,
                confidence,
                loss=(~correct).astype(float),
                coverage=0.5,
                n_resamples=200,
                method="BCa",
                random_state=seed,
            )
        assert np.isfinite(result.confidence_interval).all()
        undefined += result.method == "percentile"
    assert undefined > 0  # the fallback was exercised


def _population_augrc(error_rate, shift):
    """AUGRC of a binormal CSF: [AUGRC] Eq. 7 with UQ-AUC = Phi(shift / sqrt 2)."""
    auc = ndtr(shift / np.sqrt(2.0))
    accuracy = 1.0 - error_rate
    return (1.0 - auc) * accuracy * error_rate + error_rate**2 / 2.0


def test_percentile_interval_covers_the_population_augrc():
    """Coverage of the 95 % percentile interval over 200 simulated test sets."""
    rng = np.random.default_rng(2024)
    error_rate, shift, n, n_datasets = 0.25, 1.0, 400, 200
    truth = _population_augrc(error_rate, shift)
    covered = 0
    for _ in range(n_datasets):
        losses = (rng.random(n) < error_rate).astype(float)
        confidence = rng.normal(shift * (1.0 - losses), 1.0)
        low, high = bootstrap_metric(
            "augrc",
            None,
            None,
            confidence,
            loss=losses,
            n_resamples=500,
            method="percentile",
            random_state=rng,
        ).confidence_interval
        covered += low <= truth <= high
    assert 0.9 <= covered / n_datasets <= 0.99


# --------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------
def test_param_validation():
    check_param_validation(
        "sklearn_selective.metrics.bootstrap_metric", bootstrap_metric
    )


def test_bootstrap_metric_errors():
    y_true, y_pred, confidence, _ = _data(n=20)
    with pytest.raises(InvalidParameterError, match="metric"):
        bootstrap_metric("accuracy", y_true, y_pred, confidence)
    with pytest.raises(InvalidParameterError, match="n_resamples"):
        bootstrap_metric("aurc", y_true, y_pred, confidence, n_resamples=0)
    with pytest.raises(InvalidParameterError, match="confidence_level"):
        bootstrap_metric("aurc", y_true, y_pred, confidence, confidence_level=1.0)
    with pytest.raises(InvalidParameterError, match="method"):
        bootstrap_metric("aurc", y_true, y_pred, confidence, method="studentized")
    with pytest.raises(ValueError, match="at least 2 samples"):
        bootstrap_metric("aurc", [1], [1], [0.5])
    with pytest.raises(ValueError, match="y_pred must have one entry per sample"):
        bootstrap_metric("aurc", y_true, y_pred[:-1], confidence)
    with pytest.raises(ValueError, match="sample_weight"):
        bootstrap_metric("aurc", y_true, y_pred, confidence, sample_weight=[1.0] * 3)
    with pytest.raises(ValueError, match="loss must have one entry per sample"):
        bootstrap_metric(
            lambda y_true, y_pred, confidence, loss: np.mean(loss),
            None,
            None,
            confidence,
            loss=[0.0, 1.0],
        )
    with pytest.raises(ValueError, match="non-negative"):
        bootstrap_metric("aurc", None, None, confidence, loss=-np.ones(20))
    with pytest.raises(TypeError, match="unexpected keyword"):
        bootstrap_metric("augrc", y_true, y_pred, confidence, aurc_estimator="log")
    with pytest.raises(InvalidParameterError, match="estimator"):
        bootstrap_metric("aurc", y_true, y_pred, confidence, aurc_estimator="exact")


@pytest.mark.parametrize(
    "name, params",
    [
        ("aurc", {}),
        ("aurc", {"aurc_estimator": "log"}),
        ("sele", {}),
        ("augrc", {}),
        ("uq_auc", {}),
        ("e_aurc", {}),
        ("naurc", {}),
        ("selective_risk_at_coverage", {"coverage": 0.37}),
        ("coverage_at_risk", {"risk": 0.25}),
    ],
)
@pytest.mark.parametrize("losses", ["zero_one", "continuous"])
@pytest.mark.parametrize("ties", [False, True])
def test_integer_weight_paths_equal_the_group_path(
    name, params, losses, ties, monkeypatch
):
    # Without sample weights the metrics take closed forms in integer group
    # weights (``_integer_counts``); they must equal the weighted tie-group
    # computation on the same counts, also for groups far wider than those of a
    # bootstrap (the rare-wide-group branch), for rows of other totals (the
    # jackknife) and across several chunks.
    monkeypatch.setattr(_risk_resampler, "_EVAL_CHUNK", 16)
    rng = np.random.default_rng(7)
    n = 50
    confidence = rng.permutation(n) / n
    if ties:
        confidence = np.round(confidence * 12) / 12
    loss = (rng.random(n) < 0.5).astype(float)
    if losses == "continuous":
        loss = rng.random(n) * 2
    skewed = rng.dirichlet(np.full(n, 0.2), size=6)
    counts = np.vstack(
        [
            rng.multinomial(n, np.full(n, 1 / n), size=6),
            np.array([rng.multinomial(n, p) for p in skewed]),  # counts up to ~20
            np.ones((2, n), dtype=int) - np.eye(2, n, dtype=int),  # jackknife rows
        ]
    ).astype(np.uint8)
    resampler = _risk_resampler._RiskResampler(confidence, loss, None)
    assert resampler.integer
    assert np.any((counts > _integer_counts._SUM_WIDTH + 2) & (loss > 0))
    # All the metrics at once (sharing the chunks' statistics) and one alone.
    together = resampler.evaluate(counts, [("augrc", {}), (name, params)])[1]
    alone = resampler.evaluate(counts, [(name, params)])[0]
    assert_array_equal(together, alone)
    resampler.integer = False
    weighted = resampler.evaluate(counts, [(name, params)])[0]
    assert_allclose(alone, weighted, rtol=1e-12, atol=1e-15)
