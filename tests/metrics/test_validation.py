"""Bad input raises a clear error; the loss options behave as documented."""

import inspect

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.utils._param_validation import InvalidParameterError

from sklearn_selective import metrics
from sklearn_selective.metrics import (
    augrc,
    aurc,
    coverage_at_risk,
    expected_calibration_error,
    risk_coverage_curve,
    selective_risk_at_coverage,
    uq_auc,
    uq_c_index,
)


def _is_metric(name):
    """Public functions of the form metric(y_true, y_pred, confidence, ...)."""
    obj = getattr(metrics, name)
    if not inspect.isfunction(obj):
        return False
    return list(inspect.signature(obj).parameters)[:3] == [
        "y_true",
        "y_pred",
        "confidence",
    ]


RISK_METRICS = [
    name
    for name in metrics.__all__
    if _is_metric(name)
    and name not in {"uq_c_index", "selective_risk_at_coverage", "coverage_at_risk"}
] + ["selective_risk_at_coverage", "coverage_at_risk"]
WORKING_POINT_KWARGS = {
    "selective_risk_at_coverage": {"coverage": 0.5},
    "coverage_at_risk": {"risk": 0.1},
}


def _call(name, y_true, y_pred, confidence, **kwargs):
    kwargs = WORKING_POINT_KWARGS.get(name, {}) | kwargs
    return getattr(metrics, name)(y_true, y_pred, confidence, **kwargs)


Y_TRUE = np.array([0, 1, 1, 0])
Y_PRED = np.array([0, 1, 0, 0])
CONFIDENCE = np.array([0.9, 0.8, 0.4, 0.7])


@pytest.mark.parametrize("name", RISK_METRICS)
@pytest.mark.parametrize(
    "confidence, match",
    [
        ([0.9, np.nan, 0.4, 0.7], "confidence contains NaN"),
        ([0.9, np.inf, 0.4, 0.7], "confidence contains infinity"),
        ([0.9, 0.8, 0.4], "pass one"),
        ([[0.9, 0.8, 0.4, 0.7]], "one value per sample"),
    ],
    ids=["nan", "inf", "length", "2d"],
)
def test_bad_confidence(name, confidence, match):
    with pytest.raises(ValueError, match=match):
        _call(name, Y_TRUE, Y_PRED, confidence)


@pytest.mark.parametrize("name", RISK_METRICS)
def test_empty_input(name):
    with pytest.raises(ValueError, match="0 sample"):
        _call(name, [], [], [])


@pytest.mark.parametrize("name", RISK_METRICS)
@pytest.mark.parametrize(
    "sample_weight, match",
    [
        ([1, -1, 1, 1], "sample_weight must be non-negative"),
        ([0, 0, 0, 0], "sums to zero"),
        ([1, 1, 1], "sample_weight has 3 entries"),
        ([1, np.nan, 1, 1], "sample_weight contains NaN"),
    ],
    ids=["negative", "all-zero", "length", "nan"],
)
def test_bad_sample_weight(name, sample_weight, match):
    with pytest.raises(ValueError, match=match):
        _call(name, Y_TRUE, Y_PRED, CONFIDENCE, sample_weight=sample_weight)


@pytest.mark.parametrize("name", RISK_METRICS)
@pytest.mark.parametrize(
    "loss, match",
    [
        ([0.0, -1.0, 0.0, 1.0], "loss must be non-negative"),
        ([0.0, np.nan, 0.0, 1.0], "loss contains NaN"),
        ([0.0, 1.0], "loss has 2 entries"),
        (lambda y_true, y_pred: -np.ones(len(y_true)), "loss must be non-negative"),
    ],
    ids=["negative", "nan", "length", "callable-negative"],
)
def test_bad_loss(name, loss, match):
    with pytest.raises(ValueError, match=match):
        _call(name, Y_TRUE, Y_PRED, CONFIDENCE, loss=loss)


@pytest.mark.parametrize("name", RISK_METRICS)
def test_missing_labels_with_a_named_loss(name):
    with pytest.raises(ValueError, match="needs y_true and y_pred"):
        _call(name, None, None, CONFIDENCE)


@pytest.mark.parametrize("name", RISK_METRICS)
def test_mismatched_label_lengths(name):
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        _call(name, Y_TRUE, Y_PRED[:3], CONFIDENCE)


@pytest.mark.parametrize("coverage", [0, -0.1, 1.1])
def test_coverage_outside_unit_interval(coverage):
    with pytest.raises(InvalidParameterError, match="coverage"):
        selective_risk_at_coverage(Y_TRUE, Y_PRED, CONFIDENCE, coverage=coverage)


def test_negative_target_risk():
    with pytest.raises(InvalidParameterError, match="risk"):
        coverage_at_risk(Y_TRUE, Y_PRED, CONFIDENCE, risk=-0.1)


def test_unknown_loss_and_estimator_names():
    with pytest.raises(InvalidParameterError, match="loss"):
        aurc(Y_TRUE, Y_PRED, CONFIDENCE, loss="hinge")
    with pytest.raises(InvalidParameterError, match="estimator"):
        aurc(Y_TRUE, Y_PRED, CONFIDENCE, aurc_estimator="midpoint")


def test_uq_auc_needs_a_binary_loss():
    with pytest.raises(ValueError, match="0/1 loss"):
        uq_auc(None, None, CONFIDENCE, loss=[0, 0.5, 1, 0])


# ------------------------------------------------------------------------------------
# Loss options
# ------------------------------------------------------------------------------------
def _probabilistic_problem(n_classes):
    rng = np.random.default_rng(n_classes)
    y_proba = rng.dirichlet(np.ones(n_classes), 30)
    y_true = np.array(list("abcd"[:n_classes]))[rng.integers(0, n_classes, 30)]
    y_true[:n_classes] = list("abcd"[:n_classes])  # every class present
    return y_true, y_proba, y_proba.max(axis=1)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_named_losses_match_scikit_learn(n_classes):
    y_true, y_proba, confidence = _probabilistic_problem(n_classes)
    _, risk, _ = risk_coverage_curve(y_true, y_proba, confidence, loss="log_loss")
    assert risk[-1] == pytest.approx(log_loss(y_true, y_proba))
    _, risk, _ = risk_coverage_curve(y_true, y_proba, confidence, loss="brier")
    assert risk[-1] == pytest.approx(brier_score_loss(y_true, y_proba))
    # With probabilities, the 0/1 loss uses the most probable class.
    predicted = np.unique(y_true)[y_proba.argmax(axis=1)]
    assert aurc(y_true, y_proba, confidence) == aurc(y_true, predicted, confidence)


def test_callable_and_array_losses_agree():
    y_true, y_proba, confidence = _probabilistic_problem(3)

    def true_class_loss(y_true, y_proba):
        return (
            1
            - y_proba[np.arange(len(y_true)), np.searchsorted(["a", "b", "c"], y_true)]
        )

    losses = true_class_loss(y_true, y_proba)
    assert augrc(y_true, y_proba, confidence, loss=true_class_loss) == augrc(
        None, None, confidence, loss=losses
    )


def test_probabilities_need_matching_labels():
    y_true, y_proba, confidence = _probabilistic_problem(3)
    with pytest.raises(ValueError, match="pass labels="):
        aurc(y_true[y_true != "c"], y_proba[y_true != "c"], confidence[y_true != "c"])
    value = aurc(
        y_true[y_true != "c"],
        y_proba[y_true != "c"],
        confidence[y_true != "c"],
        labels=["a", "b", "c"],
    )
    assert 0 <= value <= 1
    with pytest.raises(ValueError, match="not among"):
        aurc(y_true, y_proba, confidence, labels=["a", "b", "z"])
    with pytest.raises(ValueError, match="n_classes"):
        aurc(y_true, y_proba[:, 0], confidence, loss="log_loss")


def test_uq_c_index_validation():
    y_true, y_proba, confidence = _probabilistic_problem(3)
    with pytest.raises(ValueError, match="same number of samples"):
        uq_c_index(y_true, y_proba, confidence[:-1])
    with pytest.raises(ValueError, match="confidence contains NaN"):
        uq_c_index(y_true, y_proba, np.full(len(y_true), np.nan))
    with pytest.raises(ValueError, match=r"lie in \[0, 1\]"):
        uq_c_index(y_true, y_proba * 2, confidence)


@pytest.mark.parametrize("name", RISK_METRICS)
def test_results_are_python_floats_or_arrays(name):
    result = _call(name, Y_TRUE, Y_PRED, CONFIDENCE)
    if name.endswith("curve"):
        assert all(isinstance(a, np.ndarray) for a in result)
    else:
        assert type(result) is float


@pytest.mark.parametrize("n", [1, 2])
def test_tiny_inputs(n):
    confidence = np.arange(n, dtype=float)
    losses = np.arange(n, dtype=float)
    assert aurc(None, None, confidence, loss=losses) >= 0
    assert augrc(None, None, confidence, loss=losses) >= 0
    if n == 1:
        assert aurc(None, None, [0.3], loss=[1.0]) == 1.0
        assert augrc(None, None, [0.3], loss=[1.0]) == 0.5


# ------------------------------------------------------------------------------------
# Issue 12: wrong numbers and unclear messages
# ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", RISK_METRICS)
@pytest.mark.parametrize(
    "y_true, y_pred",
    [
        ([0, 1, 1], ["0", "1", "1"]),
        (["a", "b", "b"], [0, 1, 1]),
        (np.array([0, 1, 1], dtype=object), np.array(["0", "1", "1"], dtype=object)),
    ],
    ids=["int-str", "str-int", "object"],
)
def test_mixed_label_types_raise(name, y_true, y_pred):
    with pytest.raises(ValueError, match=r"Mix of label input types.*y_pred"):
        _call(name, y_true, y_pred, [0.9, 0.5, 0.1])


@pytest.mark.parametrize("name", RISK_METRICS)
def test_labels_mixing_strings_and_numbers_raise(name):
    y_true = np.array([0, "1", 1], dtype=object)
    with pytest.raises(ValueError, match="y_true mixes strings and numbers"):
        _call(name, y_true, y_true, [0.9, 0.5, 0.1])


def test_numerically_equal_labels_of_different_dtypes_match():
    confidence = [0.9, 0.5, 0.1]
    expected = aurc([0, 1, 1], [0, 1, 0], confidence)
    assert aurc([0, 1, 1], [0.0, 1.0, 0.0], confidence) == expected
    assert aurc([False, True, True], [0, 1, 0], confidence) == expected


def test_labels_of_another_type_than_y_true_raise():
    y_proba = np.array([[0.9, 0.1], [0.2, 0.8]])
    with pytest.raises(ValueError, match=r"Mix of label input types.*labels"):
        aurc([0, 1], y_proba, [0.9, 0.8], labels=["0", "1"])


UNNORMALISED = np.array([[0.5, 0.3], [0.2, 0.8], [0.6, 0.4]])


@pytest.mark.parametrize("loss", ["log_loss", "brier", "zero_one"])
def test_probabilities_that_do_not_sum_to_one_raise(loss):
    with pytest.raises(ValueError, match="Each row of y_pred must sum to 1"):
        aurc([0, 1, 0], UNNORMALISED, [0.9, 0.5, 0.1], loss=loss)


def test_uq_c_index_rejects_rows_that_do_not_sum_to_one():
    with pytest.raises(ValueError, match="Each row of y_proba must sum to 1"):
        uq_c_index([0, 1, 0], UNNORMALISED, [0.9, 0.5, 0.1])


def test_metrics_and_confidence_functions_share_one_probability_message():
    from sklearn_selective.confidence import msp

    with pytest.raises(ValueError) as csf_error:
        msp(UNNORMALISED)
    with pytest.raises(ValueError) as metric_error:
        aurc([0, 1, 0], UNNORMALISED, [0.9, 0.5, 0.1], loss="log_loss")
    assert str(metric_error.value) == str(csf_error.value).replace("proba", "y_pred")


def _low_precision_probabilities(n_classes, dtype):
    rng = np.random.default_rng(n_classes)
    proba = rng.dirichlet(np.ones(n_classes), 2000).astype(dtype)
    if dtype == np.float16:  # the suggested fix, done in float16 itself
        proba = proba / proba.sum(axis=1, keepdims=True)
    return proba


@pytest.mark.parametrize("dtype", [np.float16, np.float32, "round4"])
@pytest.mark.parametrize("n_classes", [2, 3, 10, 100])
def test_low_precision_probabilities_are_accepted_everywhere(dtype, n_classes):
    from sklearn_selective.confidence import msp, negative_entropy

    if dtype == "round4":
        proba = np.round(_low_precision_probabilities(n_classes, np.float64), 4)
    else:
        proba = _low_precision_probabilities(n_classes, dtype)
    y_true = np.arange(proba.shape[0]) % n_classes
    confidence = msp(proba)
    assert np.isfinite(negative_entropy(proba)).all()
    for loss in ["zero_one", "log_loss", "brier"]:
        assert np.isfinite(aurc(y_true, proba, confidence, loss=loss))
    assert np.isfinite(uq_c_index(y_true, proba, confidence))


def test_float16_probabilities_give_the_float64_losses():
    proba = np.array([[0.25, 0.75], [0.875, 0.125]], dtype=np.float16)
    y_true, confidence = [1, 0], [0.9, 0.1]
    for loss in ["log_loss", "brier"]:
        assert aurc(y_true, proba, confidence, loss=loss) == aurc(
            y_true, proba.astype(np.float64), confidence, loss=loss
        )


@pytest.mark.parametrize("name", RISK_METRICS)
@pytest.mark.parametrize(
    "argument, value, match",
    [
        ("confidence", ["a", "b", "c", "d"], "confidence must hold numbers"),
        ("confidence", [[0.1, 0.2], [0.3], [0.4], [0.5]], "confidence is ragged"),
        ("confidence", [1j, 2j, 3j, 4j], "confidence must be real-valued"),
        ("sample_weight", ["a", "b", "c", "d"], "sample_weight must hold numbers"),
        ("loss", ["a", "b", "c", "d"], "loss must hold numbers"),
        ("loss", [[0.1, 0.2], [0.3], [0.4], [0.5]], "loss is ragged"),
        ("y_pred", [[0.1, 0.9], [0.3], [0.4, 0.6], [1, 0]], "y_pred is ragged"),
        ("y_true", [[0], [1, 2], [1], [0]], "y_true is ragged"),
    ],
)
def test_messages_name_the_argument(name, argument, value, match):
    arguments = {"y_true": Y_TRUE, "y_pred": Y_PRED, "confidence": CONFIDENCE}
    if argument in arguments:
        arguments[argument] = value
        kwargs = {}
    else:
        kwargs = {argument: value}
    with pytest.raises(ValueError, match=match):
        _call(name, *arguments.values(), **kwargs)


def test_uq_c_index_with_one_dimensional_y_proba_names_y_proba():
    with pytest.raises(ValueError, match=r"^y_proba must hold class probabilities"):
        uq_c_index([0, 1, 1], [0.1, 0.7, 0.6], [0.9, 0.5, 0.1])


def test_sample_weight_messages_name_the_argument_given():
    from sklearn_selective._utils._validation import _check_sample_weight

    with pytest.raises(ValueError, match="target_sample_weight has 2 entries but"):
        _check_sample_weight(
            [1, 1], 3, name="target_sample_weight", reference="proba_target"
        )
    with pytest.raises(ValueError, match="target_sample_weight must be non-neg"):
        _check_sample_weight([1, -1], 2, name="target_sample_weight")


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int64])
@pytest.mark.parametrize("classes", [(-100, 100), (3, 4), (0, 2)])
def test_narrow_integer_labels_index_probability_columns(dtype, classes):
    # Labels are mapped to columns in a wide type: -100 and 100 as int8 once
    # overflowed to a negative count index and crashed.
    if np.iinfo(dtype).min > min(classes):
        pytest.skip("the labels do not fit the type")
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 30)
    y[:2] = [0, 1]
    proba = rng.dirichlet([1.0, 1.0], 30)
    confidence = rng.random(30)
    labels = np.array(classes, dtype=dtype)[y]
    assert metrics.uq_c_index(labels, proba, confidence) == metrics.uq_c_index(
        y, proba, confidence
    )
    assert metrics.aurc(labels, proba, confidence) == metrics.aurc(y, proba, confidence)


@pytest.mark.parametrize("metric", [aurc, augrc, uq_auc, selective_risk_at_coverage])
def test_swapped_prediction_and_confidence_are_refused(metric):
    # issue 28: aurc(y_true, confidence, y_pred) returned 1.0 without complaint.
    y_true = [0, 1, 1, 0, 1]
    y_pred = [0, 1, 0, 0, 1]
    confidence = [0.9, 0.8, 0.3, 0.7, 0.6]
    kwargs = {"coverage": 0.6} if metric is selective_risk_at_coverage else {}
    with pytest.raises(ValueError, match="did you pass the confidence as y_pred"):
        metric(y_true, confidence, y_pred, **kwargs)
    with pytest.raises(ValueError, match="did you pass the confidence as y_true"):
        metric(confidence, y_pred, y_true, **kwargs)
    # Labels read as floats (a pandas CSV with 0.0 / 1.0) are still labels.
    floats = np.asarray(y_true, dtype=float)
    assert metric(floats, np.asarray(y_pred, float), confidence, **kwargs) == metric(
        y_true, y_pred, confidence, **kwargs
    )


# Weights of 1e306 overflow their total; weights of 1e-320 are subnormal, and every
# sum of them ties. Metrics invariant to a common factor of the weights give the
# unit-weight value; the frequency estimators refuse with a message.
_SCALE_FREE = {
    "augrc": lambda y, p, c, w: metrics.augrc(y, p, c, sample_weight=w),
    "augrc, coverage_range": lambda y, p, c, w: metrics.augrc(
        y, p, c, sample_weight=w, coverage_range=(0.2, 0.8)
    ),
    "aurc, trapezoid": lambda y, p, c, w: metrics.aurc(
        y, p, c, sample_weight=w, aurc_estimator="trapezoid"
    ),
    "uq_auc": lambda y, p, c, w: metrics.uq_auc(y, p, c, sample_weight=w),
    "selective_risk_at_coverage": lambda y, p, c, w: metrics.selective_risk_at_coverage(
        y, p, c, coverage=0.5, sample_weight=w
    ),
    "coverage_at_risk": lambda y, p, c, w: metrics.coverage_at_risk(
        y, p, c, risk=0.3, sample_weight=w
    ),
    "risk_coverage_curve": lambda y, p, c, w: metrics.risk_coverage_curve(
        y, p, c, sample_weight=w
    )[1],
}


def _weighted_problem():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, 200)
    y_pred = np.where(rng.random(200) < 0.7, y_true, 1 - y_true)
    confidence = np.round(rng.random(200), 2)
    return y_true, y_pred, confidence, rng.random(200) + 0.5


@pytest.mark.parametrize("scale", [1e306, 1e-320, 1.5e-323])
@pytest.mark.parametrize("name", sorted(_SCALE_FREE))
def test_extreme_weights_give_the_moderate_weights_value(name, scale):
    y_true, y_pred, confidence, w = _weighted_problem()
    extreme = w * scale  # subnormals keep only a few digits of w
    moderate = np.ldexp(extreme, 10 - int(np.frexp(extreme.max())[1]))  # exact
    expected = _SCALE_FREE[name](y_true, y_pred, confidence, moderate)
    got = _SCALE_FREE[name](y_true, y_pred, confidence, extreme)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("ece_strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("scale", [1e306, 1e-320])
def test_extreme_weights_in_the_calibration_error(ece_strategy, scale):
    rng = np.random.default_rng(1)
    y_proba = rng.dirichlet(np.ones(3), 200)
    y_true = rng.integers(0, 3, 200)
    extreme = (rng.random(200) + 0.5) * scale
    kwargs = {"strategy": ece_strategy}
    if ece_strategy == "quantile":  # frequencies: a total beyond float64 or below 1
        with pytest.raises(ValueError, match="read as frequencies"):
            expected_calibration_error(y_true, y_proba, sample_weight=extreme, **kwargs)
        return
    moderate = np.ldexp(extreme, 10 - int(np.frexp(extreme.max())[1]))  # exact
    got = expected_calibration_error(y_true, y_proba, sample_weight=extreme, **kwargs)
    expected = expected_calibration_error(
        y_true, y_proba, sample_weight=moderate, **kwargs
    )
    assert got == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "kwargs", [{}, {"aurc_estimator": "log"}, {"coverage_range": (0.2, 0.8)}]
)
@pytest.mark.parametrize(
    "scale, match",
    [(1e306, "more than the largest float64"), (1e-320, "too small a sample size")],
)
@pytest.mark.parametrize("metric", [metrics.aurc, metrics.naurc, metrics.sele])
def test_frequency_estimators_refuse_totals_that_are_no_sample_size(
    metric, kwargs, scale, match
):
    if metric is metrics.sele and kwargs:
        return
    if metric is metrics.naurc and "coverage_range" in kwargs:
        return
    y_true, y_pred, confidence, w = _weighted_problem()
    with pytest.raises(ValueError, match=match):
        metric(y_true, y_pred, confidence, sample_weight=w * scale, **kwargs)


@pytest.mark.parametrize("name", ["aurc", "augrc", "uq_auc"])
def test_a_column_vector_is_one_value_per_sample_as_on_the_command_line(name):
    # issue 28: (n, 1) confidences were accepted from an .npz file by the
    # command line but refused by the Python API; one rule now.
    y_true, y_pred, confidence, w = _weighted_problem()
    metric = getattr(metrics, name)
    column = confidence[:, None]
    assert metric(y_true, y_pred, column) == metric(y_true, y_pred, confidence)
    assert metric(y_true, y_pred, confidence, sample_weight=w[:, None]) == metric(
        y_true, y_pred, confidence, sample_weight=w
    )
    with pytest.raises(ValueError, match=r"one value per sample.*\(1, 200\)"):
        metric(y_true, y_pred, confidence[None, :])


def test_non_finite_confidence_says_how_many_and_where():
    """Issue 35: 'Input confidence contains NaN.' said neither."""
    confidence = [0.5, 0.2, np.nan, 0.1, np.nan]
    with pytest.raises(ValueError, match=r"2 of 5 values are not finite.*position 2"):
        aurc([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], confidence)
