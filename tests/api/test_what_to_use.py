"""The random and oracle values that the "What to use when" page states."""

import math

import numpy as np
import pytest

from sklearn_selective.metrics import (
    augrc,
    aurc,
    coverage_at_risk,
    e_aurc,
    naurc,
    sele,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)

N, N_WRONG = 40, 10
R = N_WRONG / N
LOSS = np.r_[np.ones(N_WRONG), np.zeros(N - N_WRONG)]
ORACLE = -LOSS + np.linspace(0, 0.5, N)  # every failure below every success, no ties


def _mean_over_random_orders(metric, n_orders=600, **kwargs):
    rng = np.random.default_rng(0)
    values = [
        metric(None, None, rng.permutation(N).astype(float), loss=LOSS, **kwargs)
        for _ in range(n_orders)
    ]
    return np.mean(values), np.std(values) / math.sqrt(n_orders)


@pytest.mark.parametrize(
    "metric, kwargs, expected",
    [
        (aurc, {}, R),
        (augrc, {}, R / 2),
        (naurc, {}, 1.0),
        (uq_auc, {}, 0.5),
        (sele, {}, R * (N + 1) / (2 * N)),
        (selective_risk_at_coverage, {"coverage": 0.6}, R),
    ],
)
def test_random_confidence(metric, kwargs, expected):
    mean, standard_error = _mean_over_random_orders(metric, **kwargs)
    assert abs(mean - expected) < 4 * standard_error + 1e-12


def test_random_e_aurc_is_mean_loss_minus_oracle():
    mean, standard_error = _mean_over_random_orders(e_aurc)
    oracle_aurc = aurc(None, None, ORACLE, loss=LOSS)
    assert abs(mean - (R - oracle_aurc)) < 4 * standard_error


def test_oracle_values():
    assert augrc(None, None, ORACLE, loss=LOSS) == pytest.approx(R**2 / 2)
    assert e_aurc(None, None, ORACLE, loss=LOSS) == 0.0
    assert naurc(None, None, ORACLE, loss=LOSS) == 0.0
    assert uq_auc(None, None, ORACLE, loss=LOSS) == 1.0
    assert sele(None, None, ORACLE, loss=LOSS) == pytest.approx(R**2 / 2 + R / (2 * N))
    for c in (0.5, 0.75, 0.9, 1.0):
        risk = selective_risk_at_coverage(None, None, ORACLE, loss=LOSS, coverage=c)
        assert risk == pytest.approx(max(0.0, c - (1 - R)) / c)
    for r in (0.0, 0.1, 0.2):
        coverage = coverage_at_risk(None, None, ORACLE, loss=LOSS, risk=r)
        assert coverage == pytest.approx(min(1.0, (1 - R) / (1 - r)), abs=1 / N)


def test_oracle_aurc_approaches_its_asymptote():
    n = 200_000
    loss = (np.arange(n) < R * n).astype(float)
    value = aurc(None, None, -loss + np.linspace(0, 0.5, n), loss=loss)
    assert value == pytest.approx(R + (1 - R) * math.log(1 - R), abs=1e-4)


def test_uq_c_index_random_and_oracle():
    rng = np.random.default_rng(1)
    proba = rng.dirichlet(np.ones(3), size=300)
    y_true = rng.integers(0, 3, size=300)
    gap = 1 - proba[np.arange(300), y_true]
    assert uq_c_index(y_true, proba, -gap) == 1.0
    values = [uq_c_index(y_true, proba, rng.permutation(300)) for _ in range(200)]
    assert abs(np.mean(values) - 0.5) < 4 * np.std(values) / math.sqrt(200)


def test_uq_paper_g_auc_is_twice_augrc():
    """[UQ] Lemma 3.1 names G-AUC after Geifman's AURC, but its formula, Eq. 20,
    is 2 * AUGRC (the metrics guide says so)."""
    rng = np.random.default_rng(2)
    y_true = rng.integers(0, 3, size=500)
    y_pred = np.where(rng.uniform(size=500) < 0.3, (y_true + 1) % 3, y_true)
    confidence = np.round(rng.uniform(size=500) - 0.3 * (y_pred != y_true), 2)
    acc = np.mean(y_true == y_pred)
    g_auc = (1 - acc) ** 2 + 2 * (1 - uq_auc(y_true, y_pred, confidence)) * (
        1 - acc
    ) * acc
    assert g_auc == pytest.approx(2 * augrc(y_true, y_pred, confidence), rel=1e-12)
    assert abs(g_auc - aurc(y_true, y_pred, confidence)) > 0.01
