"""The difference of confidences: doc_accuracy's regression form against a
transcription, its special cases and its errors ([ATC] Sec. 1.1 and 3.1;
Guillory et al. 2021). DoCEstimator's tests are with the other estimators'
(test_atc.py)."""

import numpy as np
import pytest
from shift.test_atc import _draw

from sklearn_selective import doc_accuracy
from sklearn_selective._shift._difference_of_confidences import _fit_doc_regression


def _reference_regression_doc(source, shifted, target):
    """Transcription: per set mean MSP and accuracy, a fitted line, the estimate.

    Each argument is ``(y, proba)`` (target: proba only); labels are 0..k-1.
    """

    def accuracy_and_confidence(y, proba):
        accuracy = sum(
            int(np.argmax(p) == t) for t, p in zip(y, proba, strict=True)
        ) / len(y)
        return accuracy, sum(max(p) for p in proba) / len(proba)

    source_accuracy, source_confidence = accuracy_and_confidence(*source)
    docs, drops = [], []
    for y, proba in shifted:
        accuracy, confidence = accuracy_and_confidence(y, proba)
        docs.append(source_confidence - confidence)
        drops.append(source_accuracy - accuracy)
    slope, intercept = np.polyfit(docs, drops, deg=1)
    target_doc = source_confidence - sum(max(p) for p in target) / len(target)
    return min(1.0, max(0.0, source_accuracy - (intercept + slope * target_doc)))


def test_regression_doc_matches_transcription():
    rng = np.random.default_rng(11)
    for _ in range(20):
        source = _draw(rng, 200)[::-1]
        shifted = [_draw(rng, 150, tilt=tilt)[::-1] for tilt in rng.uniform(0.5, 3, 4)]
        target = _draw(rng, 100, tilt=2.5)[0]
        expected = _reference_regression_doc(source, shifted, target)
        result = doc_accuracy(
            source[0], source[1], target, shifted_sets=shifted, labels=range(4)
        )
        assert result == pytest.approx(expected, abs=1e-12)


def test_regression_doc_special_cases():
    rng = np.random.default_rng(12)
    proba, y = _draw(rng, 300)
    target = _draw(rng, 200, tilt=2)[0]
    shifted = [_draw(rng, 100, tilt=t)[::-1] for t in (1.0, 2.0, 3.0)]
    # Weights of ones change nothing; integer weights are repetitions.
    plain = doc_accuracy(y, proba, target, shifted_sets=shifted, labels=range(4))
    ones = [(s_y, s_p, np.ones(100)) for s_y, s_p in shifted]
    assert doc_accuracy(
        y, proba, target, shifted_sets=ones, labels=range(4)
    ) == pytest.approx(plain, abs=1e-12)
    counts = rng.integers(0, 3, 100)
    weighted = [(shifted[0][0], shifted[0][1], counts), *shifted[1:]]
    repeated = [
        (np.repeat(shifted[0][0], counts), np.repeat(shifted[0][1], counts, axis=0)),
        *shifted[1:],
    ]
    assert doc_accuracy(
        y, proba, target, shifted_sets=weighted, labels=range(4)
    ) == pytest.approx(
        doc_accuracy(y, proba, target, shifted_sets=repeated, labels=range(4)),
        abs=1e-12,
    )
    # Sets on the line drop = DoC give back the difference form.
    slope, intercept = _fit_doc_regression([0.05, 0.1, 0.3], [0.05, 0.1, 0.3])
    assert (slope, intercept) == pytest.approx((1.0, 0.0), abs=1e-15)


def test_regression_doc_errors():
    y, proba = [0, 1], [[0.9, 0.1], [0.2, 0.8]]
    with pytest.raises(ValueError, match="at least two"):
        doc_accuracy(y, proba, proba, shifted_sets=[(y, proba)])
    with pytest.raises(ValueError, match="same difference of confidences"):
        doc_accuracy(y, proba, proba, shifted_sets=[(y, proba), (y, proba)])
    with pytest.raises(ValueError, match=r"shifted_sets\[1\] must be a tuple"):
        doc_accuracy(y, proba, proba, shifted_sets=[(y, proba), None])
    with pytest.raises(ValueError, match=r"shifted_sets\[0\]\[1\] \(probabilities\)"):
        doc_accuracy(y, proba, proba, shifted_sets=[(y, proba[:1]), (y, proba)])
    with pytest.raises(ValueError, match=r"shifted_sets\[0\]\[0\] \(labels\)"):
        doc_accuracy(y, proba, proba, shifted_sets=[([0, 7], proba), (y, proba)])
