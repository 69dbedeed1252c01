"""The double bootstrap, the default interval up to DOUBLE_MAX_SAMPLES samples."""

import warnings
from functools import partial

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from sklearn_selective._utils import _draws
from sklearn_selective.exceptions import TooFewFailuresWarning
from sklearn_selective.metrics import (
    augrc,
    aurc,
    bootstrap_metric,
    coverage_at_risk,
    e_aurc,
    metric_by_group,
    naurc,
    sele,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)
from sklearn_selective.metrics._metric_registry import DOUBLE_MAX_SAMPLES

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


# --------------------------------------------------------------------------------------
# The double bootstrap, the default up to DOUBLE_MAX_SAMPLES samples
# --------------------------------------------------------------------------------------
def _risk_problem(n, accuracy=0.8, seed=0):
    rng = np.random.default_rng(seed)
    correct = rng.random(n) < accuracy
    return rng.normal(size=n) + correct, (~correct).astype(float)


@pytest.mark.parametrize(
    "n, expected",
    [
        (50, "double"),
        (DOUBLE_MAX_SAMPLES, "double"),
        (DOUBLE_MAX_SAMPLES + 1, "percentile"),
    ],
)
def test_auto_is_the_double_bootstrap_up_to_the_switch(n, expected):
    confidence, losses = _risk_problem(n)
    result = bootstrap_metric(
        "augrc", None, None, confidence, loss=losses, n_resamples=20, random_state=0
    )
    assert result.method == expected


def test_double_bootstrap_keeps_the_percentile_intervals_resamples():
    confidence, losses = _risk_problem(60)
    common = {"loss": losses, "n_resamples": 200, "random_state": 4}
    double = bootstrap_metric("aurc", None, None, confidence, method="double", **common)
    percentile = bootstrap_metric(
        "aurc", None, None, confidence, method="percentile", **common
    )
    assert_array_equal(double.bootstrap_distribution, percentile.bootstrap_distribution)
    assert double.standard_error == percentile.standard_error
    # Few failures: the calibrated interval reaches further up than the percentile.
    assert double.confidence_interval.high > percentile.confidence_interval.high


def test_double_bootstrap_equals_a_slow_transcription():
    """Hall and Martin's calibration written out: each outer resample resampled
    ``N_INNER`` times by index, the metric called on the copies, the shares below
    the data's value, and their quantiles as the levels of the percentile
    interval; ties with the data's value count as misses."""
    from sklearn_selective.metrics._resampling._double_bootstrap import N_INNER

    n, n_resamples, level = 25, 40, 0.9
    confidence, losses = _risk_problem(n, seed=3)
    confidence = np.round(confidence, 1)  # ties
    result = bootstrap_metric(
        "selective_risk_at_coverage",
        None,
        None,
        confidence,
        loss=losses,
        coverage=0.5,
        method="double",
        n_resamples=n_resamples,
        confidence_level=level,
        random_state=11,
    )

    def metric(index):
        return selective_risk_at_coverage(
            None, None, confidence[index], loss=losses[index], coverage=0.5
        )

    theta = metric(np.arange(n))
    rng = np.random.default_rng(11)
    outer = np.concatenate(list(_draws._bootstrap_counts(rng, n, n_resamples)))
    outer_values = [metric(np.repeat(np.arange(n), counts)) for counts in outer]
    below, at_most = [], []
    for counts in outer:
        members = np.repeat(np.arange(n), counts)
        positions = rng.integers(0, n, (N_INNER, n))
        inner = np.array([metric(members[row]) for row in positions])
        below.append(np.mean(inner < theta))
        at_most.append(np.mean(inner <= theta))
    alpha = (1 - level) / 2
    levels = np.quantile(below, alpha), np.quantile(at_most, 1 - alpha)
    assert_allclose(result.bootstrap_distribution, outer_values, atol=1e-12)
    assert_allclose(result.confidence_interval, np.quantile(outer_values, levels))


def test_double_bootstrap_of_constant_values_is_the_constant():
    confidence, _ = _risk_problem(40)
    result = bootstrap_metric(
        "aurc",
        None,
        None,
        confidence,
        loss=np.full(40, 0.5),
        method="double",
        n_resamples=50,
        random_state=0,
    )
    assert_allclose(result.confidence_interval, (0.5, 0.5), rtol=1e-15)
    assert result.method == "double"


@pytest.mark.slow
def test_default_interval_holds_its_level_with_nine_failures_in_50_samples():
    """The population AURC of a known population (about 18 % failures, nine in
    50 samples): the default interval, with the default 1000 resamples, covers
    it at 95 % +- 2 Monte-Carlo s.e.; the percentile interval, which the default
    replaced, does not."""
    repeats, n = 150, 50
    rng = np.random.default_rng(2)

    def draw(size):
        correct = rng.random(size) < 0.82
        return rng.normal(size=size) + correct, (~correct).astype(float)

    big_confidence, big_losses = draw(500_000)  # the truth to about 1e-4
    truth = aurc(None, None, big_confidence, loss=big_losses)
    covered = {"auto": 0, "percentile": 0}
    for repeat in range(repeats):
        confidence, losses = draw(n)
        for method in covered:
            low, high = bootstrap_metric(
                "aurc",
                None,
                None,
                confidence,
                loss=losses,
                method=method,
                random_state=repeat,
            ).confidence_interval
            covered[method] += low <= truth <= high
    se = np.sqrt(0.95 * 0.05 / repeats)
    assert abs(covered["auto"] / repeats - 0.95) <= 2 * se
    assert covered["percentile"] / repeats < 0.95 - 2 * se


def test_too_few_failures_warn_and_say_what_to_do():
    confidence, losses = _risk_problem(50)
    losses[:] = 0.0
    losses[:4] = 1.0
    with pytest.warns(
        TooFewFailuresWarning, match=r"Only 4 of the 50 samples are failures"
    ):
        bootstrap_metric("augrc", None, None, confidence, loss=losses, n_resamples=20)
    losses[4] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bootstrap_metric("augrc", None, None, confidence, loss=losses, n_resamples=20)
    groups = np.repeat(["a", "b"], 25)
    with pytest.warns(UserWarning, match=r"Group 'b': only 0 of the 25 samples"):
        metric_by_group(
            "augrc",
            None,
            None,
            confidence,
            loss=losses,
            groups=groups,
            n_resamples=20,
        )
