"""OOD AUROC and FPR at a TPR against loops over pairs and thresholds."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

from sklearn_selective.metrics import fpr_at_tpr, ood_auroc


def _auroc_loops(y_ood, confidence, w):
    num = den = 0.0
    for i in range(len(y_ood)):
        for j in range(len(y_ood)):
            if y_ood[i] == 0 and y_ood[j] == 1:
                pair = w[i] * w[j]
                den += pair
                if confidence[i] > confidence[j]:
                    num += pair
                elif confidence[i] == confidence[j]:
                    num += pair / 2
    return num / den


def _fpr_loops(y_ood, confidence, w, tpr):
    inside, outside = w[y_ood == 0].sum(), w[y_ood == 1].sum()
    for threshold in sorted(set(confidence), reverse=True):
        accepted = confidence >= threshold
        if w[accepted & (y_ood == 0)].sum() >= tpr * inside * (1 - 1e-12):
            return w[accepted & (y_ood == 1)].sum() / outside
    raise AssertionError("unreachable: the lowest threshold accepts everything")


@st.composite
def ood_problems(draw):
    n = draw(st.integers(2, 20))
    y_ood = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    confidence = np.array(
        draw(st.lists(st.sampled_from([0.1, 0.3, 0.5, 0.9]), min_size=n, max_size=n))
    )
    weighted = draw(st.booleans())
    w = (
        np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
        if weighted
        else np.ones(n)
    )
    return y_ood, confidence, w, weighted


@given(ood_problems(), st.sampled_from([0.5, 0.8, 0.95, 1.0]))
def test_against_loops_with_ties_and_weights(problem, tpr):
    y_ood, confidence, w, weighted = problem
    if not (w[y_ood == 0].sum() > 0 and w[y_ood == 1].sum() > 0):
        return
    weight = w if weighted else None
    assert ood_auroc(y_ood, confidence, sample_weight=weight) == pytest.approx(
        _auroc_loops(y_ood, confidence, w), abs=1e-12
    )
    assert fpr_at_tpr(y_ood, confidence, tpr=tpr, sample_weight=weight) == (
        pytest.approx(_fpr_loops(y_ood, confidence, w, tpr), abs=1e-12)
    )


def test_integer_weights_equal_repeats():
    rng = np.random.default_rng(0)
    y_ood = rng.integers(0, 2, 40)
    confidence = np.round(rng.random(40), 1)
    w = rng.integers(1, 4, 40)
    for metric in (ood_auroc, fpr_at_tpr):
        weighted = metric(y_ood, confidence, sample_weight=w)
        repeated = metric(np.repeat(y_ood, w), np.repeat(confidence, w))
        assert weighted == pytest.approx(repeated, abs=1e-12)


def test_perfect_and_blind_confidences():
    y_ood = np.r_[np.zeros(50), np.ones(50)]
    separating = np.r_[np.ones(50), np.zeros(50)]
    assert ood_auroc(y_ood, separating) == 1.0
    assert fpr_at_tpr(y_ood, separating) == 0.0
    assert ood_auroc(y_ood, np.ones(100)) == 0.5  # all tied: one half
    assert fpr_at_tpr(y_ood, np.ones(100)) == 1.0


def test_one_kind_only_is_undefined():
    with pytest.warns(UndefinedMetricWarning, match="both in-distribution"):
        assert np.isnan(ood_auroc([0, 0, 0], [0.1, 0.2, 0.3]))
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(fpr_at_tpr([1, 1], [0.1, 0.2]))


@pytest.mark.parametrize(
    "y_ood, match",
    [([0, 2, 1], "must be 1 for out-of-distribution"), ([0, 1], "one 0/1 value")],
)
def test_bad_indicator(y_ood, match):
    with pytest.raises(ValueError, match=match):
        ood_auroc(y_ood, [0.1, 0.2, 0.3])


def test_scod_loss_counts_every_accepted_ood_sample_as_a_failure():
    # The user guide's SCOD recipe: a per-sample loss, 1 for OOD samples.
    from sklearn_selective.metrics import selective_risk_at_coverage

    y_true = np.array([0, 1, 1, 0, -1, -1])  # -1: a placeholder for OOD samples
    y_pred = np.array([0, 1, 0, 0, 1, 0])
    y_ood = np.array([0, 0, 0, 0, 1, 1])
    confidence = np.array([0.9, 0.8, 0.3, 0.2, 0.85, 0.1])
    scod_loss = ((y_pred != y_true) | (y_ood == 1)).astype(float)
    # At coverage 0.5 the three most confident are accepted: one of them is OOD.
    risk = selective_risk_at_coverage(
        None, None, confidence, loss=scod_loss, coverage=0.5
    )
    assert risk == pytest.approx(1 / 3)


def test_the_users_containers():
    pd = pytest.importorskip("pandas")
    y_ood = pd.Series([0.0, 1.0, 0.0, 1.0])  # pandas' floats
    confidence = np.array([0.9, 0.1, 0.5, 0.5], dtype=np.float16)
    assert ood_auroc(y_ood, confidence) == 0.875
    assert fpr_at_tpr([False, True, False, True], confidence) == 0.5
    with pytest.raises(ValueError, match="got values \\['0', '1'\\]"):
        ood_auroc(["0", "1", "0"], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="nan"):
        ood_auroc([0, np.nan, 1], [0.1, 0.2, 0.3])


def test_object_dtype_indicator_of_numbers_is_read_and_text_is_named():
    """Issue 35: an object-dtype 0/1 column (pandas) was refused with a message
    listing the valid values [0, 1]."""
    confidence = [0.9, 0.1, 0.8, 0.3]
    as_objects = np.array([0, 1, 0, 1], dtype=object)
    assert ood_auroc(as_objects, confidence) == ood_auroc([0, 1, 0, 1], confidence)
    assert fpr_at_tpr(as_objects, confidence) == fpr_at_tpr([0, 1, 0, 1], confidence)
    with pytest.raises(ValueError, match=r"type\(s\) \['int', 'str'\]"):
        ood_auroc(np.array(["a", 1, 0, 1], dtype=object), confidence)
