"""The guarantee policy (``_selective/_policies/_guaranteed_risk.py``) and the one
rule of a request the data cannot meet: ``fit`` succeeds and abstains on
everything with a ``GuaranteeNotMetWarning`` (an error under
``warnings.simplefilter("error", GuaranteeNotMetWarning)``); validation data too
few to certify the target even with no error raise ``TooFewSamplesError``."""

import math
import warnings

import numpy as np
import pytest
from sklearn.frozen import FrozenEstimator
from test_guarantees import _draw, _Uniform

from sklearn_selective import SelectiveClassifier
from sklearn_selective._selective._curve import _ValidationCurve
from sklearn_selective._selective._policies import resolve_policy
from sklearn_selective.exceptions import GuaranteeNotMetWarning, TooFewSamplesError

MODEL = FrozenEstimator(_Uniform().fit(None, None))

# Each request below cannot be met on its data (``_unmet_data``; the uniform
# population has selective risk 0.1 c^2 at coverage c), and says so.
UNMET = [
    ({"target_risk": 0.02, "confidence_level": 0.9}, "best bound"),
    ({"target_risk": 0.02, "confidence_level": 0.9, "guarantee": "sgr"}, "certifies"),
    (
        {"target_risk": 0.05, "confidence_level": 0.9, "max_abstention_rate": 0.2},
        "at once",
    ),
    ({"target_risk": 0.0}, "validation selective risk <= 0.0"),
]


def _unmet_data(params):
    """Data on which ``params`` cannot be met: with a review capacity, a risk
    certified only below it (3000 draws); otherwise 600 draws whose most
    confident half is all wrong (no threshold of zero risk either)."""
    if "max_abstention_rate" in params:
        return _draw(np.random.default_rng(1), 3000)
    X, y = _draw(np.random.default_rng(0), 600)
    y[X[:, 0] > 0.5] = 1
    return X, y


@pytest.mark.parametrize("params, match", UNMET)
def test_an_unmet_request_abstains_with_the_warning(params, match):
    X, y = _unmet_data(params)
    clf = SelectiveClassifier(MODEL, **params)
    with pytest.warns(GuaranteeNotMetWarning, match=match) as record:
        clf.fit(X, y)
    assert math.isinf(clf.threshold_) and clf.coverage_ == 0.0
    assert not clf.predict_accept(X).any()
    # The warning points out of the library (at scikit-learn's fit wrapper,
    # the first frame outside sklearn_selective, until _utils._warnings skips it).
    assert "sklearn_selective" not in record[0].filename


@pytest.mark.parametrize("params, match", UNMET)
def test_the_warning_turns_into_an_error(params, match):
    X, y = _unmet_data(params)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GuaranteeNotMetWarning)
        with pytest.raises(GuaranteeNotMetWarning, match=match):
            SelectiveClassifier(MODEL, **params).fit(X, y)


@pytest.mark.parametrize("guarantee", ["fixed_sequence", "sgr"])
def test_too_few_samples_raise_too_few_samples_error(guarantee):
    X, y = _draw(np.random.default_rng(0), 30)
    clf = SelectiveClassifier(
        MODEL, target_risk=0.01, confidence_level=0.95, guarantee=guarantee
    )
    with pytest.raises(TooFewSamplesError, match="cannot be certified from 30") as e:
        clf.fit(X, y)
    assert e.value.needed > 30
    # (1 - 0.01) ** needed reaches the level, one sample fewer does not.
    n_tests = 1 if guarantee == "fixed_sequence" else None
    if n_tests:
        assert 0.99**e.value.needed <= 0.05 < 0.99 ** (e.value.needed - 1)


def test_per_class_too_few_abstains_on_the_class_with_a_warning():
    X, y = _draw(np.random.default_rng(0), 400)
    clf = SelectiveClassifier(
        MODEL, target_risk=0.05, confidence_level=0.9, threshold_per_class=True
    )
    with pytest.warns(UserWarning, match=r"abstain on every prediction"):
        clf.fit(X, y)
    assert math.isinf(clf.threshold_[1])  # no prediction of class 1


def test_the_policy_fits_a_curve_without_the_estimator():
    X, y = _draw(np.random.default_rng(2), 2000)
    clf = SelectiveClassifier(MODEL, target_risk=0.05, confidence_level=0.9).fit(X, y)
    confidence = clf.confidence_score(X)
    losses = (clf.predict(X) != y).astype(float)
    policy = resolve_policy(target_risk=0.05, confidence_level=0.9)
    fit = policy.fit_curve(_ValidationCurve.from_samples(confidence, losses, None))
    assert fit.threshold == clf.threshold_
    assert fit.risk_bound == clf.risk_bound_


def test_a_refitted_model_is_refused():
    with pytest.raises(ValueError, match=r"cv=0\.3, refit=False"):
        resolve_policy(target_risk=0.1, confidence_level=0.9).check_deployed(5, True)
    resolve_policy(target_risk=0.1, confidence_level=0.9).check_deployed(1, False)
    resolve_policy(target_risk=0.1).check_deployed(5, True)
