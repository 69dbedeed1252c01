"""Novelty-aware abstention (``_selective/_novelty.py``): what the detector sees,
its threshold, and the classifier's decisions and reasons."""

import numpy as np
import pytest
from sklearn.covariance import EllipticEnvelope
from sklearn.datasets import load_digits, make_classification
from sklearn.decomposition import PCA
from sklearn.ensemble import IsolationForest
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import LocalOutlierFactor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import OneClassSVM

from sklearn_selective import SelectiveClassifier
from sklearn_selective.confidence._model_output import classifier_inputs


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=800, n_features=6, n_informative=4, n_redundant=0, random_state=0
    )
    return X[:500], y[:500], X[500:], y[500:]


@pytest.mark.parametrize(
    "detector",
    [
        IsolationForest(random_state=0),
        LocalOutlierFactor(novelty=True),
        OneClassSVM(gamma="scale"),
        EllipticEnvelope(random_state=0),
    ],
    ids=lambda d: type(d).__name__,
)
def test_about_novelty_rate_of_in_distribution_samples_are_flagged(data, detector):
    X, y, X_new, _ = data
    clf = SelectiveClassifier(
        LogisticRegression(),
        target_coverage=0.9,
        novelty_detector=detector,
        novelty_rate=0.1,
        random_state=0,
    ).fit(X, y)
    flagged = clf.predict_novel(X_new).mean()
    assert 0.03 <= flagged <= 0.2  # 0.1 nominal, 300 new in-distribution samples
    accepted = clf.predict_accept(X_new)
    confident = clf.confidence_score(X_new) >= clf.threshold_
    np.testing.assert_array_equal(accepted, confident & ~clf.predict_novel(X_new))


def test_far_inputs_are_rejected_as_novel_even_when_confident(data):
    X, y, X_new, _ = data
    clf = SelectiveClassifier(
        LogisticRegression(),
        target_coverage=0.9,
        novelty_detector=IsolationForest(random_state=0),
        random_state=0,
    ).fit(X, y)
    far = X_new[:50] * 25  # far from the training data, and very confident
    assert (clf.confidence_score(far) >= clf.threshold_).mean() > 0.9
    assert clf.predict_novel(far).all()
    assert not clf.predict_accept(far).any()
    reasons = clf.rejection_reason(far)
    assert set(reasons) <= {"novel", "novel_and_low_confidence"}
    with_reject = clf.set_params(reject_label=-1)
    assert (with_reject.predict(far) == -1).all()


def test_reasons_cover_every_case(data):
    X, y, X_new, _ = data
    clf = SelectiveClassifier(
        LogisticRegression(),
        target_coverage=0.8,
        novelty_detector=IsolationForest(random_state=0),
        novelty_rate=0.2,
        random_state=0,
    ).fit(X, y)
    reasons = clf.rejection_reason(X_new)
    confident = clf.confidence_score(X_new) >= clf.threshold_
    novel = clf.predict_novel(X_new)
    expected = np.where(
        novel,
        np.where(confident, "novel", "novel_and_low_confidence"),
        np.where(confident, "accepted", "low_confidence"),
    )
    np.testing.assert_array_equal(reasons, expected)
    assert set(reasons) == {
        "accepted",
        "low_confidence",
        "novel",
        "novel_and_low_confidence",
    }


def test_without_a_detector_nothing_is_novel(data):
    X, y, X_new, _ = data
    clf = SelectiveClassifier(LogisticRegression(), random_state=0).fit(X, y)
    assert clf.novelty_detector_ is None and clf.novelty_threshold_ is None
    assert not clf.predict_novel(X_new).any()
    assert set(clf.rejection_reason(X_new)) <= {"accepted", "low_confidence"}
    zero = SelectiveClassifier(
        LogisticRegression(), novelty_detector=IsolationForest(), novelty_rate=0.0
    ).fit(X, y)
    assert not zero.predict_novel(X_new).any()


def test_the_detector_sees_what_the_final_classifier_sees():
    X, y = load_digits(return_X_y=True)
    X, y = X[:500], y[:500]
    pipeline = make_pipeline(
        StandardScaler(), PCA(10, random_state=0), LogisticRegression(max_iter=500)
    )
    clf = SelectiveClassifier(
        pipeline,
        target_coverage=0.9,
        novelty_detector=IsolationForest(n_estimators=20, random_state=0),
        random_state=0,
    ).fit(X, y)
    features = classifier_inputs(clf.estimator_, X)
    assert features.shape == (X.shape[0], 10)
    assert clf.novelty_detector_.n_features_in_ == 10
    frozen = SelectiveClassifier(
        FrozenEstimator(clf.estimator_),
        target_coverage=0.9,
        novelty_detector=IsolationForest(n_estimators=20, random_state=0),
        random_state=0,
    ).fit(X, y)
    assert frozen.novelty_detector_.n_features_in_ == 10
    plain = LogisticRegression(max_iter=500).fit(X, y)
    assert classifier_inputs(plain, X) is X


def test_noisy_digits_confidently_wrong_are_rejected_as_novel():
    """Issue 26's first-hour finding: with growing input noise the model
    becomes confidently wrong (MSP alone keeps accepting most inputs at a
    fraction of the accuracy); the novelty detector rejects them."""
    X, y = load_digits(return_X_y=True)
    rng = np.random.default_rng(0)
    order = rng.permutation(len(y))
    train, test = order[:1000], order[1000:]
    model = make_pipeline(
        StandardScaler(), PCA(30, random_state=0), LogisticRegression(max_iter=2000)
    )
    common = {"target_coverage": 0.9, "random_state": 0}
    msp_only = SelectiveClassifier(model, **common).fit(X[train], y[train])
    aware = SelectiveClassifier(
        model, novelty_detector=IsolationForest(random_state=0), novelty_rate=0.02,
        **common,
    ).fit(X[train], y[train])  # fmt: skip
    clean = X[test]
    assert aware.predict_accept(clean).mean() > 0.8  # in distribution: kept
    noisy = clean + rng.normal(scale=4.0, size=clean.shape)
    right = msp_only.predict(noisy) == y[test]
    accepted = msp_only.predict_accept(noisy)
    assert accepted.mean() > 0.7 and right[accepted].mean() < 0.4
    assert aware.predict_accept(noisy).mean() < 0.05


def test_a_pandas_frame_and_string_labels(data):
    pd = pytest.importorskip("pandas")
    X, y, X_new, _ = data
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    new = pd.DataFrame(X_new, columns=frame.columns)
    clf = SelectiveClassifier(
        make_pipeline(StandardScaler(), LogisticRegression()),
        novelty_detector=IsolationForest(random_state=0),
        novelty_rate=0.1,
        reject_label="review",
        random_state=0,
    ).fit(frame, np.where(y == 1, "yes", "no"))
    predicted = clf.predict(new)
    accepted = clf.predict_accept(new)
    assert (predicted[~accepted] == "review").all()
    assert set(predicted[accepted]) <= {"yes", "no"}
    assert clf.predict_novel(new).any() and not clf.predict_novel(new).all()


def test_a_rate_below_what_the_held_out_scores_can_set_warns():
    """Issue 35: 0.01 asked on 100 samples flagged 6.3 % silently."""
    X, y = make_classification(n_samples=100, n_features=4, random_state=0)
    clf = SelectiveClassifier(
        LogisticRegression(), target_coverage=0.9,
        novelty_detector=IsolationForest(n_estimators=10, random_state=0),
        novelty_rate=0.01,
    )  # fmt: skip
    with pytest.warns(UserWarning, match="needs at least 495 samples in fit"):
        clf.fit(X, y)


def test_a_detector_on_one_sample_names_the_parameter():
    X, y = make_classification(n_samples=50, n_features=4, random_state=0)
    model = FrozenEstimator(LogisticRegression().fit(X, y))
    clf = SelectiveClassifier(
        model, target_coverage=1.0, novelty_detector=IsolationForest()
    )
    with pytest.raises(ValueError, match="novelty_detector needs at least 2"):
        clf.fit(X[:1], y[:1])
