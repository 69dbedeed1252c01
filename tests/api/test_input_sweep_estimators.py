"""The bad-input sweep over every public estimator's methods.

Estimators are discovered from ``sklearn_selective.__all__`` (every
``BaseEstimator`` subclass), their methods from the class: every public method
whose first argument is ``X``. Each is called unfitted, and fitted with bad ``X``,
``y`` and ``sample_weight``; it must raise ``NotFittedError`` or a
``ValueError``/``TypeError`` whose message names the argument, accept the containers
users pass (lists, pandas with a non-default index, read-only arrays) with the
NumPy result, and never mutate its inputs. ``parametrize_with_checks`` covers the
rest of scikit-learn's contract in each estimator's own test module.
"""

import inspect
import re
import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.datasets import make_classification
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

import sklearn_selective


def _monitor(X, y):
    from sklearn_selective import PerformanceMonitor, SelectiveClassifier

    model = SelectiveClassifier(LogisticRegression(), target_coverage=0.8, cv=3)
    return PerformanceMonitor(model.fit(X, y), n_resamples=5, random_state=0)


def _cascade(X, y):
    from sklearn.naive_bayes import GaussianNB

    from sklearn_selective import SelectiveCascade

    return SelectiveCascade([("nb", GaussianNB()), ("lr", LogisticRegression())])


# How to build an estimator that needs more than an unfitted model, from the
# sweep's data; anything else is built with ``Estimator(LogisticRegression())``.
FACTORIES = {"PerformanceMonitor": _monitor, "SelectiveCascade": _cascade}


def _estimators():
    found = {}
    for name in sklearn_selective.__all__:
        obj = getattr(sklearn_selective, name)
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            found[name] = obj
    return dict(sorted(found.items()))


ESTIMATORS = _estimators()


def _build(name, X=None, y=None):
    if name in FACTORIES:
        if X is None:
            X, y = make_classification(n_samples=90, n_classes=3, n_informative=3)
        return FACTORIES[name](X, y)
    return ESTIMATORS[name](LogisticRegression())


def _methods(estimator):
    """Public methods taking ``X`` first, ``fit`` excluded."""
    out = []
    for attr in dir(type(estimator)):
        if attr.startswith("_") or attr == "fit":
            continue
        try:
            member = getattr(estimator, attr)
        except AttributeError:  # available_if hides it
            continue
        if not callable(member) or attr.startswith(("set_", "get_")):
            continue
        params = list(inspect.signature(member).parameters)
        if params[:1] == ["X"]:
            out.append(attr)
    return out


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        n_samples=240, n_features=5, n_informative=3, n_classes=3, random_state=0
    )
    return X, y


def _call(method, X, y=None):
    params = inspect.signature(method).parameters
    # A method that draws (SelectiveCascade.report) is seeded: same call, same result.
    seed = {"random_state": 0} if "random_state" in params else {}
    if "y" in params:
        return method(X, y, **seed)
    return method(X, **seed)


def _message_names(error, names):
    message = str(error)
    return any(re.search(rf"\b{re.escape(n)}\b", message) for n in names)


def test_estimators_are_found():
    assert {"SelectiveClassifier", "ATCEstimator"} <= set(ESTIMATORS)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_unfitted_methods_raise_not_fitted(name, data):
    X, y = data
    estimator = _build(name, X, y)
    for method_name in _methods(estimator):
        with pytest.raises(NotFittedError):
            _call(getattr(estimator, method_name), X, y)


def _fit(estimator, X, y, **kwargs):
    """``fit`` with data passed by position, whatever its parameters are called."""
    return estimator.fit(X, y, **kwargs)


def _fit_names(estimator, names):
    """The names of ``fit``'s data parameters for the generic ``X`` and ``y``."""
    data_names = list(inspect.signature(estimator.fit).parameters)[:2]
    aliases = dict(zip(["X", "y"], data_names, strict=True))
    return [aliases.get(n, n) for n in names] + list(names)


def _bad_fit_inputs(X, y):
    nan_X = X.copy()
    nan_X[0, 0] = np.nan
    nan_y = y.astype(float)
    nan_y[0] = np.nan
    negative = np.ones(len(y))
    negative[0] = -1
    return [
        ("X has NaN", {"X": nan_X, "y": y}, ["X"]),
        ("y has NaN", {"X": X, "y": nan_y}, ["y"]),
        ("lengths differ", {"X": X[:-1], "y": y}, ["X", "y", "samples"]),
        ("empty", {"X": X[:0], "y": y[:0]}, ["X", "y", "sample", "empty"]),
        ("one class", {"X": X, "y": np.zeros_like(y)}, ["y", "class", "classes"]),
        ("y is 2-D", {"X": X, "y": np.c_[y, y]}, ["y"]),
        (
            "negative weight",
            {"X": X, "y": y, "sample_weight": negative},
            ["sample_weight"],
        ),
        (
            "weights too short",
            {"X": X, "y": y, "sample_weight": negative[1:]},
            ["sample_weight"],
        ),
    ]


@pytest.mark.parametrize("name", ESTIMATORS)
def test_fit_refuses_bad_input(name, data):
    X, y = data
    for case, kwargs, names in _bad_fit_inputs(X, y):
        estimator = _build(name, X, y)
        if "sample_weight" in kwargs and (
            "sample_weight" not in inspect.signature(estimator.fit).parameters
        ):
            continue
        if case == "one class" and name in FACTORIES:
            continue  # the model is fitted already: one class of labels is valid
        names = _fit_names(estimator, names)
        data = kwargs.pop("X"), kwargs.pop("y")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises((ValueError, TypeError)) as info:
                _fit(estimator, *data, **kwargs)
        assert _message_names(info.value, names), (
            f"{name}.fit with {case}: the message does not name {names}: {info.value}"
        )


@pytest.fixture(scope="module")
def fitted(data):
    X, y = data
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in ESTIMATORS:
            out[name] = _fit(_build(name, X, y), X, y)
    return out


@pytest.mark.parametrize("name", ESTIMATORS)
def test_fitted_methods_refuse_bad_X(name, data, fitted):
    X, y = data
    estimator = fitted[name]
    nan_X = X[:20].copy()
    nan_X[0, 0] = np.nan
    cases = [
        ("NaN", nan_X, ["X", "NaN"]),
        ("wrong number of features", X[:20, :-1], ["X", "features"]),
        ("empty", X[:0], ["X", "sample", "empty"]),
        ("1-D", X[0], ["X", "2D", "2-D", "reshape"]),
    ]
    for method_name in _methods(estimator):
        method = getattr(estimator, method_name)
        for case, bad, names in cases:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises((ValueError, TypeError)) as info:
                    _call(method, bad, y[: len(bad)] if bad.ndim == 2 else y[:1])
            assert _message_names(info.value, names), (
                f"{name}.{method_name} with {case}: the message does not name "
                f"{names}: {info.value}"
            )


def _containers(X):
    read_only = X.copy()
    read_only.flags.writeable = False
    out = {"list": X.tolist(), "read_only": read_only, "fortran": np.asfortranarray(X)}
    pd = pytest.importorskip("pandas")
    columns = [f"f{i}" for i in range(X.shape[1])]
    out["pandas"] = pd.DataFrame(X, index=np.arange(len(X)) + 100, columns=columns)
    return out


def _codes(values):
    """Numbers as floats; labels or stage names as the codes of their values."""
    values = np.asarray(values)
    if values.dtype.kind in "biuf":
        return values.astype(float)
    return np.unique(values.astype(str), return_inverse=True)[1].astype(float)


def _as_array(result):
    if hasattr(result, "to_frame"):  # a result object: the numbers of its table
        return result.to_frame().select_dtypes("number").to_numpy(dtype=float).ravel()
    if isinstance(result, tuple):
        return np.concatenate(
            [np.atleast_1d(np.asarray(r, dtype=float)) for r in result]
        )
    if isinstance(result, dict):  # decide's Bunch: labels and names as codes
        return np.concatenate([_codes(value) for value in result.values()])
    return np.asarray(result)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_fitted_methods_accept_containers_and_do_not_mutate(name, data, fitted):
    X, y = data
    estimator = fitted[name]
    X_new, y_new = X[:30], y[:30]
    for method_name in _methods(estimator):
        method = getattr(estimator, method_name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = _as_array(_call(method, X_new, y_new))
            for container, value in _containers(X_new).items():
                if container == "pandas":
                    continue  # fitted on arrays: feature names would warn, not fail
                before = np.array(value, copy=True)
                result = _as_array(_call(method, value, list(y_new)))
                np.testing.assert_array_equal(
                    result, expected, err_msg=f"{name}.{method_name} on {container}"
                )
                np.testing.assert_array_equal(np.asarray(value), before)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_fit_accepts_pandas_and_string_labels(name, data):
    pd = pytest.importorskip("pandas")
    X, y = data
    names = np.array(["cat", "dog", "emu"], dtype=object)
    frame = pd.DataFrame(X, index=np.arange(len(X)) + 100)
    frame.columns = [f"f{i}" for i in range(X.shape[1])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on_arrays = _fit(_build(name, X, y), X, y)
        on_frames = _fit(
            _build(name, frame, pd.Series(names[y], index=frame.index)),
            frame,
            pd.Series(names[y], index=frame.index),
        )
    for method_name in _methods(on_arrays):
        if method_name in ("score",):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = _as_array(_call(getattr(on_arrays, method_name), X[:30], y[:30]))
            b = _as_array(
                _call(
                    getattr(on_frames, method_name),
                    frame.iloc[:30],
                    pd.Series(names[y[:30]], index=frame.index[:30]),
                )
            )
        if a.dtype.kind in "iu" and b.dtype.kind == "O":  # labels: compare by name
            a = names[a]
        np.testing.assert_array_equal(a, b, err_msg=f"{name}.{method_name}")
