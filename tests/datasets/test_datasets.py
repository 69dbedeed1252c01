"""The UQ paper's Gaussian-mixture benchmark and its ground truths."""

import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal
from sklearn.tree import DecisionTreeClassifier

from sklearn_selective.datasets import make_gaussian_mixture_uq, uq_ground_truth
from sklearn_selective.metrics import uq_auc, uq_c_index

SETTINGS = [
    {},  # the paper's: two classes, equal priors, tau = sigma = 1, d = 2
    {"n_classes": 3, "priors": [0.2, 0.5, 0.3], "tau": 4.0, "sigma": 0.7},
    {"n_features": 5, "priors": [0.9, 0.1], "tau": 0.5, "sigma": 1.5},
]


def _ref_posterior(x, means, priors, sigma):
    """Eq. 122 for one sample, with scipy's Gaussian density."""
    cov = sigma**2 * np.eye(len(x))
    joint = [
        w * multivariate_normal(mu, cov).pdf(x)
        for mu, w in zip(means, priors, strict=True)
    ]
    return [p / math.fsum(joint) for p in joint]


@pytest.mark.parametrize("params", SETTINGS)
def test_posterior_matches_a_transcription_of_eq_122(params):
    X, y, posterior, means = make_gaussian_mixture_uq(
        n_samples=200, random_state=0, return_means=True, **params
    )
    n_classes = params.get("n_classes", 2)
    priors = params.get("priors", [1 / n_classes] * n_classes)
    assert X.shape == (200, params.get("n_features", 2))
    assert means.shape == (n_classes, X.shape[1])
    assert set(np.unique(y)) <= set(range(n_classes)) and y.dtype.kind == "i"
    expected = [_ref_posterior(x, means, priors, params.get("sigma", 1.0)) for x in X]
    np.testing.assert_allclose(posterior, expected, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("params", SETTINGS)
def test_samples_follow_the_model(params):
    # Labels with the priors, noise with sd sigma, and the posterior calibrated:
    # E[1{y = j} - pi_j(x)] = 0 within bins of pi_j (4 standard errors).
    n = 20_000
    X, y, posterior, means = make_gaussian_mixture_uq(
        n_samples=n, random_state=1, return_means=True, **params
    )
    n_classes = posterior.shape[1]
    priors = np.asarray(params.get("priors", [1 / n_classes] * n_classes))
    frequency = np.bincount(y, minlength=n_classes) / n
    assert np.all(np.abs(frequency - priors) < 4 * np.sqrt(priors * (1 - priors) / n))
    noise = X - means[y]
    assert noise.std() == pytest.approx(params.get("sigma", 1.0), rel=0.02)
    for j in range(n_classes):
        bins = np.minimum((posterior[:, j] * 10).astype(int), 9)
        for b in np.unique(bins):
            members = bins == b
            if members.sum() < 100:
                continue
            gap = np.mean((y == j)[members] - posterior[members, j])
            p = posterior[members, j].mean()
            assert abs(gap) < 4 * np.sqrt(p * (1 - p) / members.sum()) + 1e-3


def test_defaults_are_the_papers_and_random_state_reproduces():
    X, y, posterior = make_gaussian_mixture_uq(random_state=3)
    assert X.shape == (1000, 2) and posterior.shape == (1000, 2)
    again = make_gaussian_mixture_uq(random_state=np.random.RandomState(3))
    for a, b in zip((X, y, posterior), again, strict=True):
        np.testing.assert_array_equal(a, b)
    other = make_gaussian_mixture_uq(random_state=4)
    assert not np.array_equal(X, other[0])
    np.testing.assert_allclose(posterior.sum(axis=1), 1)


def test_ground_truths_are_maximisers_of_the_metrics():
    # [UQ] Theorems 3.1 and 3.3 on a large sample: ranking by the ground truth
    # beats a weak model's own MSP under the metric that tracks it.
    X, y, posterior = make_gaussian_mixture_uq(n_samples=20_000, random_state=5)
    model = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X[:2000], y[:2000])
    X, y, posterior = X[2000:], y[2000:], posterior[2000:]
    y_pred, y_proba = model.predict(X), model.predict_proba(X)
    phi, varphi = uq_ground_truth(posterior, y_pred, y_proba)
    msp = y_proba.max(axis=1)
    assert uq_auc(y, y_pred, -phi) > uq_auc(y, y_pred, msp) + 0.02
    assert uq_c_index(y, y_proba, -varphi) >= uq_c_index(y, y_proba, msp)


def test_ground_truths_transcription_and_errors():
    rng = np.random.default_rng(0)
    posterior = rng.dirichlet(np.ones(3), 30)
    y_proba = rng.dirichlet(np.ones(3), 30)
    y_pred = rng.integers(0, 3, 30)
    phi, varphi = uq_ground_truth(posterior, y_pred, y_proba)
    for i in range(30):
        bayes = max(range(3), key=lambda j: posterior[i][j])
        assert phi[i] == 1 - posterior[i][y_pred[i]]
        assert varphi[i] == 1 - y_proba[i][bayes]
    # Labels read back as floats are class indices too.
    np.testing.assert_array_equal(
        uq_ground_truth(posterior, y_pred.astype(float), y_proba)[0], phi
    )
    with pytest.raises(ValueError, match="y_proba has 2 columns and posterior 3"):
        uq_ground_truth(posterior, y_pred, np.full((30, 2), 0.5))
    with pytest.raises(ValueError, match=r"integers in 0 \.\. 2"):
        uq_ground_truth(posterior, y_pred + 1, y_proba)
    with pytest.raises(ValueError, match="y_pred must be a 1-d array"):
        uq_ground_truth(posterior, y_pred.astype(str), y_proba)
    with pytest.raises(ValueError, match="must describe the same samples"):
        uq_ground_truth(posterior, y_pred[:-1], y_proba)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"priors": [0.5, 0.3, 0.2]}, r"one prior per class, shape \(2,\)"),
        ({"priors": [0.7, 0.7]}, "non-negative and sum to 1"),
        ({"priors": [1.2, -0.2]}, "non-negative and sum to 1"),
        ({"n_samples": 0}, "n_samples"),
        ({"tau": 0}, "tau"),
        ({"sigma": -1}, "sigma"),
        ({"n_classes": 1}, "n_classes"),
    ],
)
def test_invalid_parameters_name_the_argument(params, message):
    with pytest.raises(ValueError, match=message):
        make_gaussian_mixture_uq(**params)


@pytest.mark.parametrize("func", [make_gaussian_mixture_uq, uq_ground_truth])
def test_param_validation_like_every_public_function(func):
    # The sweep of tests/api/test_public_functions.py, applied to this subpackage.
    from api.test_public_functions import test_function_param_validation

    test_function_param_validation(f"sklearn_selective.datasets.{func.__name__}", func)


def test_ground_truth_inputs_are_probability_rows():
    posterior = np.array([[0.9, 0.1], [0.4, 0.6]])
    with pytest.raises(ValueError, match="Each row of posterior must sum to 1"):
        uq_ground_truth(posterior / 2, [0, 1], posterior)
    with pytest.raises(ValueError, match=r"y_proba must have shape \(n_samples, n_c"):
        uq_ground_truth(posterior, [0, 1], [0.9, 0.4])
    with pytest.raises(ValueError, match="posterior"):
        uq_ground_truth([[np.nan, 1.0], [0.4, 0.6]], [0, 1], posterior)
