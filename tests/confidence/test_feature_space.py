"""Feature-space CSFs against direct transcriptions, and inside the estimators."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import make_classification
from sklearn.decomposition import PCA
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedShuffleSplit
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_selective import ATCEstimator, PerformanceMonitor, SelectiveClassifier
from sklearn_selective.confidence import (
    FeatureConfidence,
    fit_feature_confidence,
    knn_distance,
    mahalanobis,
    predict_with_confidence,
)
from sklearn_selective.confidence._feature_space import pseudo_inverse_cutoff
from sklearn_selective.metrics import get_scorer


# ----------------------------------------------------------------------------
# Direct transcriptions: one sample, one class at a time
# ----------------------------------------------------------------------------
def _ref_mahalanobis(x, train, labels):
    train, labels = np.asarray(train, float), np.asarray(labels)
    classes = sorted(set(labels.tolist()))
    means = {c: train[labels == c].mean(axis=0) for c in classes}
    sigma = np.zeros((train.shape[1], train.shape[1]))
    for row, label in zip(train, labels, strict=True):
        d = row - means[label]
        sigma += np.outer(d, d)
    sigma /= len(train)
    eigenvalues = np.linalg.eigvalsh(sigma)
    rcond = pseudo_inverse_cutoff(eigenvalues) / max(eigenvalues.max(), 1e-300)
    precision = np.linalg.pinv(sigma, rcond=rcond, hermitian=True)
    return -min(float((x - means[c]) @ precision @ (x - means[c])) for c in classes)


def _ref_knn(x, train, k, normalize):
    def unit(v):
        norm = math.sqrt(sum(t * t for t in v))
        return [t / norm for t in v] if normalize and norm > 0 else list(v)

    z = unit(x)
    distances = sorted(
        math.sqrt(sum((a - b) ** 2 for a, b in zip(z, unit(t), strict=True)))
        for t in train
    )
    return -distances[k - 1]


@st.composite
def feature_sets(draw, min_train=1):
    d = draw(st.integers(1, 4))
    n_train = draw(st.integers(min_train, 12))
    n = draw(st.integers(1, 6))
    # Small integers: ties between distances and repeated training rows.
    values = st.integers(-3, 3).map(float)
    train = np.array(draw(st.lists(values, min_size=n_train * d, max_size=n_train * d)))
    x = np.array(draw(st.lists(values, min_size=n * d, max_size=n * d)))
    labels = np.array(
        draw(st.lists(st.integers(0, 2), min_size=n_train, max_size=n_train))
    )
    return x.reshape(n, d), train.reshape(n_train, d), labels


@given(data=feature_sets())
def test_mahalanobis_matches_transcription(data):
    x, train, labels = data
    result = mahalanobis(x, training_features=train, training_labels=labels)
    expected = [_ref_mahalanobis(row, train, labels) for row in x]
    assert result.dtype == np.float64 and result.shape == (len(x),)
    scale = 1 + np.abs(expected).max()
    np.testing.assert_allclose(result, expected, rtol=1e-9, atol=1e-9 * scale)


@given(data=feature_sets(), k=st.integers(1, 12), normalize=st.booleans())
def test_knn_distance_matches_transcription(data, k, normalize):
    x, train, _ = data
    k = min(k, len(train))
    result = knn_distance(
        x, training_features=train, n_neighbors=k, normalize=normalize
    )
    expected = [_ref_knn(row, train, k, normalize) for row in x]
    np.testing.assert_allclose(result, expected, rtol=1e-12, atol=1e-12)


def test_mahalanobis_ignores_a_direction_that_rounding_leaves_nonzero():
    # The case the oldest supported scipy got wrong: a rank-1 covariance whose
    # zero eigenvalue rounds to 9e-16, which pinvh kept (precision 1e15).
    train, labels = [[0.0, 0.0, 0.0], [0.0, 2.0, 1.0]], [0, 0]
    confidence = mahalanobis([[0.0, 0.0, 0.0]], training_features=train,
                             training_labels=labels)  # fmt: skip
    assert confidence == pytest.approx([-1.0], rel=1e-12)


def test_mahalanobis_singular_covariance_ignores_constant_directions():
    # Feature 2 is constant in training: no variance, so it does not count.
    train = np.array([[0.0, 5.0], [2.0, 5.0], [4.0, 5.0], [6.0, 5.0]])
    labels = [0, 0, 1, 1]
    a, b = mahalanobis(
        [[1.0, 5.0], [1.0, 500.0]], training_features=train, training_labels=labels
    )
    assert a == pytest.approx(b) and a == pytest.approx(-0.0)


def test_fitted_and_function_agree_and_pipeline_features_are_used():
    X, y = make_classification(n_samples=300, n_features=8, random_state=0)
    model = make_pipeline(StandardScaler(), PCA(4), LogisticRegression()).fit(X, y)
    features = model[:-1].transform(X)
    for name, params, reference in (
        (
            "mahalanobis",
            {},
            lambda f: mahalanobis(f, training_features=features, training_labels=y),
        ),
        (
            "knn_distance",
            {"n_neighbors": 7, "normalize": False},
            lambda f: knn_distance(
                f, training_features=features, n_neighbors=7, normalize=False
            ),
        ),
    ):
        fitted = fit_feature_confidence(name, model, X, y, csf_params=params)
        assert isinstance(fitted, FeatureConfidence)
        assert fitted.n_training_samples == 300 and fitted.model_output == "features"
        y_pred, confidence = predict_with_confidence(model, X[:50], csf=fitted)
        np.testing.assert_array_equal(y_pred, model.predict(X[:50]))
        np.testing.assert_allclose(confidence, reference(features[:50]), rtol=1e-12)


def test_knn_distance_never_builds_an_n_by_n_matrix(monkeypatch):
    import sklearn.neighbors

    calls = []
    real = sklearn.neighbors.NearestNeighbors.kneighbors

    def spy(self, X=None, n_neighbors=None, return_distance=True):
        calls.append(np.shape(X))
        return real(self, X, n_neighbors, return_distance)

    monkeypatch.setattr(sklearn.neighbors.NearestNeighbors, "kneighbors", spy)
    rng = np.random.default_rng(0)
    knn_distance(
        rng.normal(size=(40, 3)),
        training_features=rng.normal(size=(60, 3)),
        n_neighbors=5,
    )
    assert calls == [(40, 3)]


# ----------------------------------------------------------------------------
# Inside the estimators
# ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def data():
    return make_classification(
        n_samples=400, n_features=6, n_informative=4, n_classes=3, random_state=1
    )


def _pipeline():
    return make_pipeline(StandardScaler(), LogisticRegression())


@pytest.mark.parametrize(
    "csf, params", [("mahalanobis", None), ("knn_distance", {"n_neighbors": 5})]
)
def test_selective_classifier_fits_the_csf_on_the_deployed_training_inputs(
    data, csf, params
):
    X, y = data
    clf = SelectiveClassifier(
        _pipeline(), csf=csf, csf_params=params, target_coverage=0.8, cv=3,
        random_state=0,
    ).fit(X, y)  # fmt: skip
    assert isinstance(clf.csf_, FeatureConfidence)
    # The deployed reference has a training fold's size (two thirds of the
    # data with cv=3): the size the threshold was set on.
    fold_size = round(len(X) * 2 / 3)
    assert clf.csf_.n_training_samples == fold_size
    rng = np.random.RandomState(0)  # the classifier's random_state
    keep = np.sort(rng.choice(len(X), fold_size, replace=False))
    expected = fit_feature_confidence(
        csf, clf.estimator_, X[keep], y[keep], csf_params=params
    )
    new = X[:40] + 3.0
    _, confidence = predict_with_confidence(clf.estimator_, new, expected)
    np.testing.assert_allclose(clf.confidence_score(new), confidence)
    np.testing.assert_array_equal(clf.predict_accept(new), confidence >= clf.threshold_)
    assert 0.7 < clf.coverage_ <= 0.85


def test_held_out_scores_come_from_the_training_fold(data):
    # One split, no refit: the deployed model and its CSF are the split's
    # training part's, and the threshold is set on the CSF of the other part
    # (fitted on all the data, the k-NN distance of a validation sample would
    # count the sample itself).
    X, y = data
    clf = SelectiveClassifier(
        _pipeline(),
        csf="knn_distance",
        csf_params={"n_neighbors": 3},
        target_coverage=0.8,
        cv=0.5,
        refit=False,
        random_state=0,
    ).fit(X, y)
    split = StratifiedShuffleSplit(n_splits=1, test_size=0.5, random_state=0)
    train, test = next(split.split(X, y))
    assert clf.csf_.n_training_samples == len(train)
    confidence = clf.confidence_score(X[test])
    assert clf.threshold_ in confidence
    assert np.mean(confidence >= clf.threshold_) == pytest.approx(clf.coverage_)
    in_sample = fit_feature_confidence(
        "knn_distance", clf.estimator_, X, y, csf_params={"n_neighbors": 3}
    )
    _, leaky = predict_with_confidence(clf.estimator_, X[test], in_sample)
    assert clf.threshold_ not in leaky


def test_atc_estimator_with_feature_space_csf(data):
    X, y = data
    atc = ATCEstimator(_pipeline(), csf="mahalanobis").fit(X, y)
    in_distribution = atc.estimate_accuracy(X[:100])
    far = atc.estimate_accuracy(X[:100] * 4.0)
    assert far < in_distribution


def test_grid_search_over_feature_space_csfs(data):
    X, y = data
    search = GridSearchCV(
        SelectiveClassifier(_pipeline(), target_coverage=0.8, cv=3),
        {"csf": ["msp", "mahalanobis", "knn_distance"], "csf_params": [{}]},
        scoring=get_scorer("neg_augrc"),
        cv=2,
    ).fit(X, y)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_prefit_models_need_the_fitted_csf(data):
    X, y = data
    model = _pipeline().fit(X[:200], y[:200])
    with pytest.raises(ValueError, match=r"fit_feature_confidence\('mahalanobis'"):
        SelectiveClassifier(
            FrozenEstimator(model), csf="mahalanobis", target_coverage=0.8
        ).fit(X[200:], y[200:])
    with pytest.raises(ValueError, match=r"fit_feature_confidence\('knn_distance'"):
        ATCEstimator(FrozenEstimator(model), csf="knn_distance").fit(X[200:], y[200:])
    with pytest.raises(ValueError, match="a fitted model does not keep"):
        PerformanceMonitor(model, csf="mahalanobis").fit(X[200:], y[200:])
    fitted = fit_feature_confidence("mahalanobis", model, X[:200], y[:200])
    clf = SelectiveClassifier(
        FrozenEstimator(model), csf=fitted, target_coverage=0.8
    ).fit(X[200:], y[200:])
    assert clf.csf_ is fitted
    monitor = PerformanceMonitor(model, csf=fitted, method="atc").fit(X[200:], y[200:])
    result = monitor.estimate(X[:200], n_chunks=2)
    assert np.isfinite(result.accuracy).all()


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: knn_distance([[0.0]], training_features=[[1.0]], n_neighbors=2),
            "n_neighbors=2 exceeds the 1 training inputs",
        ),
        (
            lambda: knn_distance(
                [[0.0, 1.0]], training_features=[[1.0]], n_neighbors=1
            ),
            "features has 2 features, but the training inputs had 1",
        ),
        (
            lambda: mahalanobis(
                [[np.nan]], training_features=[[1.0]], training_labels=[0]
            ),
            "features contains NaN",
        ),
        (
            lambda: mahalanobis(
                [[0.0]], training_features=[[1.0], [2.0]], training_labels=[0]
            ),
            "one label per training sample",
        ),
    ],
)
def test_bad_input_names_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_bad_csf_params_name_the_parameter(data):
    X, y = data
    model = _pipeline().fit(X, y)
    with pytest.raises(
        ValueError, match=r"\['k'\] are not parameters of 'knn_distance'"
    ):
        fit_feature_confidence("knn_distance", model, X, csf_params={"k": 3})
    with pytest.raises(ValueError, match="'mahalanobis'; it takes no parameters"):
        fit_feature_confidence("mahalanobis", model, X, y, csf_params={"k": 3})
    with pytest.raises(ValueError, match="n_neighbors must be an int >= 1"):
        fit_feature_confidence("knn_distance", model, X, csf_params={"n_neighbors": 0})
    with pytest.raises(ValueError, match="needs y"):
        fit_feature_confidence("mahalanobis", model, X)
    with pytest.raises(ValueError, match="not a feature-space CSF"):
        fit_feature_confidence("msp", model, X, y)
    with pytest.raises(ValueError, match="n_neighbors=50 exceeds the 40"):
        SelectiveClassifier(
            _pipeline(), csf="knn_distance", target_coverage=0.8, cv=2
        ).fit(X[:80], y[:80])


def test_the_users_containers():
    pd = pytest.importorskip("pandas")
    X, y = make_classification(n_samples=200, n_features=4, random_state=3)
    labels = np.array(["cat", "dog"])[y]
    frame = pd.DataFrame(X, columns=list("abcd"))
    model = make_pipeline(StandardScaler(), LogisticRegression()).fit(frame, labels)
    on_arrays = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
    reference = fit_feature_confidence("mahalanobis", on_arrays, X, y)
    for name, params in (("mahalanobis", None), ("knn_distance", {"n_neighbors": 5})):
        from_frame = fit_feature_confidence(name, model, frame, labels, params)
        from_arrays = fit_feature_confidence(name, on_arrays, X, y, params)
        y_pred, confidence = predict_with_confidence(model, frame[:20], from_frame)
        assert set(y_pred) <= {"cat", "dog"}
        _, expected = predict_with_confidence(on_arrays, X[:20], from_arrays)
        np.testing.assert_allclose(confidence, expected, rtol=1e-12)
    # float16 inputs are read as float64 (rounded as given), never overflow.
    half = X.astype(np.float16)
    _, low = predict_with_confidence(on_arrays, half[:20], reference)
    assert low.dtype == np.float64 and np.isfinite(low).all()
    clf = SelectiveClassifier(
        make_pipeline(StandardScaler(), LogisticRegression()),
        csf="knn_distance", csf_params={"n_neighbors": 5}, target_coverage=0.8, cv=3,
    ).fit(frame, labels)  # fmt: skip
    assert clf.predict(frame[:5]).dtype.kind in "UO"


# Issue 35: the edges of the feature-space CSFs, with the user's own inputs.
def _edge_data():
    X = np.random.default_rng(0).normal(size=(60, 3))
    y = np.r_[np.zeros(30), np.ones(30)]
    return X, y, LogisticRegression().fit(X, y)


def test_nan_training_labels_are_refused_not_a_class():
    X, y, model = _edge_data()
    y[3] = np.nan
    with pytest.raises(ValueError, match="training_labels contains 1 NaN"):
        mahalanobis(X, training_features=X, training_labels=y)
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        fit_feature_confidence("mahalanobis", model, X, y)
    labels = np.array(["a", "b"] * 30, dtype=object)
    labels[5] = np.nan  # pandas' missing value in a text column
    with pytest.raises(ValueError, match="1 missing value"):
        mahalanobis(X, training_features=X, training_labels=labels)


@pytest.mark.parametrize("normalize", ["no", None, 1])
def test_knn_normalize_must_be_a_bool_on_both_paths(normalize):
    X, _, model = _edge_data()
    with pytest.raises(ValueError, match="csf_params normalize must be True or"):
        fit_feature_confidence(
            "knn_distance", model, X, csf_params={"normalize": normalize}
        )
    with pytest.raises(ValueError, match="normalize"):
        knn_distance(X, training_features=X, normalize=normalize)


def test_feature_space_messages_name_the_argument():
    X, y, model = _edge_data()
    with pytest.raises(ValueError, match="n_neighbors must be an int >= 1; got True"):
        knn_distance(X, training_features=X, n_neighbors=True)
    with pytest.raises(ValueError, match="csf_params n_neighbors"):
        fit_feature_confidence("knn_distance", model, X, csf_params={"n_neighbors": 0})
    with pytest.raises(ValueError, match="training_features has complex values"):
        mahalanobis(X, training_features=X + 1j, training_labels=y)
    with pytest.raises(ValueError, match="features has complex values"):
        knn_distance(X + 1j, training_features=X, n_neighbors=2)
    mixed = np.array([1, "a"] * 30, dtype=object)
    with pytest.raises(ValueError, match=r"training_labels mix types \['int', 'str'\]"):
        mahalanobis(X, training_features=X, training_labels=mixed)
    text = np.array([["a", "b", "c"]] * 60)
    with pytest.raises(ValueError, match="training_features must be numeric"):
        knn_distance(X, training_features=text, n_neighbors=2)
