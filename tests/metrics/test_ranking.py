"""Failure AUROC and concordance (``metrics/_ranking.py``): properties and direct
transcriptions."""

import math
import warnings

import numpy as np
import pytest
from _reference import (
    uq_auc_pairs,
    uq_c_index_pairs,
)
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import roc_auc_score
from test_properties import samples
from test_reference import TOL, problems

from sklearn_selective.metrics import (
    uq_auc,
    uq_c_index,
)


@given(samples(min_n=2, binary=True))
def test_uq_auc_equals_roc_auc_score(problem):
    confidence, failures = problem
    w = np.linspace(0.5, 2, confidence.shape[0])
    if np.unique(failures).shape[0] < 2:
        return
    expected = roc_auc_score(failures == 0, confidence, sample_weight=w)
    got = uq_auc(None, None, confidence, loss=failures, sample_weight=w)
    assert got == pytest.approx(expected, rel=1e-12)


def test_uq_auc_warns_when_undefined():
    with pytest.warns(UndefinedMetricWarning, match="uq_auc is undefined"):
        assert math.isnan(uq_auc([1, 2], [1, 2], [0.3, 0.4]))


def test_uq_c_index_of_the_oracle_is_one_and_reversed_is_zero():
    rng = np.random.default_rng(0)
    y_proba = rng.dirichlet(np.ones(4), 50)
    y_true = rng.integers(0, 4, 50)
    gap = 1 - y_proba[np.arange(50), y_true]
    assert uq_c_index(y_true, y_proba, -gap, labels=range(4)) == pytest.approx(1.0)
    assert uq_c_index(y_true, y_proba, gap, labels=range(4)) == pytest.approx(0.0)
    with pytest.warns(UndefinedMetricWarning, match="uq_c_index is undefined"):
        uq_c_index([0, 0], [[0.5, 0.5], [0.5, 0.5]], [0.1, 0.2], labels=[0, 1])


@given(problems(max_n=10, binary=True, max_orderings=10**9), st.booleans())
def test_uq_auc_equals_pair_count(problem, real_weights):
    confidence, failures, w = problem
    if w is not None and real_weights:
        w = w * 1.7
    expected = uq_auc_pairs(confidence, failures, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = uq_auc(None, None, confidence, loss=failures, sample_weight=w)
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, **TOL)


@given(
    problems(max_n=10, max_orderings=10**9),
    st.lists(st.sampled_from([0.1, 0.3, 0.5, 0.9]), min_size=10, max_size=10),
    st.booleans(),
)
def test_uq_c_index_equals_pair_count(problem, true_class_proba, real_weights):
    confidence, _, w = problem
    n = confidence.shape[0]
    p_true = np.array(true_class_proba[:n])
    y_true = np.zeros(n, dtype=int)
    y_proba = np.column_stack([p_true, 1 - p_true])
    if w is not None and real_weights:
        w = w * 0.3
    expected = uq_c_index_pairs(1 - p_true, confidence, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        got = uq_c_index(y_true, y_proba, confidence, labels=[0, 1], sample_weight=w)
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, **TOL)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    "n_confidence_values, probability_decimals",
    [(30, 1), (3, 6)],
    ids=["fewer-gap-values", "fewer-confidence-values"],
)
def test_uq_c_index_larger_inputs_against_pairwise_matrix(
    weighted, n_confidence_values, probability_decimals
):
    rng = np.random.default_rng(1)
    n = 1500
    y_true = rng.integers(0, 3, n)
    y_proba = rng.dirichlet(np.ones(3), n).round(probability_decimals)
    y_proba /= y_proba.sum(axis=1, keepdims=True)
    confidence = rng.integers(0, n_confidence_values, n).astype(float)
    w = rng.random(n) * (rng.random(n) < 0.9) if weighted else None
    gap = 1 - y_proba[np.arange(n), y_true]
    pair = np.ones((n, n)) if w is None else w[:, None] * w[None, :]
    comparable = gap[:, None] < gap[None, :]
    greater = confidence[:, None] > confidence[None, :]
    equal = confidence[:, None] == confidence[None, :]
    expected = (pair * comparable * (greater + equal / 2)).sum() / (
        pair * comparable
    ).sum()
    got = uq_c_index(y_true, y_proba, confidence, labels=[0, 1, 2], sample_weight=w)
    assert got == pytest.approx(expected, rel=1e-12)
