"""The bad-input sweep, generated from the public API.

Every public function of ``sklearn_selective``, ``.metrics``, ``.confidence`` and
``.datasets`` whose parameters include per-sample arrays is called with valid inputs
and then with each array argument perturbed: NaN, inf, empty, n = 1 and 2, a
mismatched length, a wrong number of dimensions, other dtypes and other containers,
and other label types. Each call must give the correct value (the one the plain
float64 NumPy call gives), or a ``ValueError``/``TypeError`` whose message names the
argument. It never returns NaN without a warning, and never mutates its inputs.

Functions are discovered from ``__all__``; their array arguments are recognised by
name through ``ARRAY_KINDS`` below (one vocabulary, the package's). A new public
function is swept without editing this file; a new *argument name* for per-sample
data must be added to ``ARRAY_KINDS`` (``test_every_array_argument_is_known`` fails
until it is).
"""

import inspect
import math
import re
import warnings
from importlib import import_module

import numpy as np
import pytest
from sklearn.utils._param_validation import generate_valid_param, make_constraint

PUBLIC_MODULES = [
    "sklearn_selective",
    "sklearn_selective.metrics",
    "sklearn_selective.confidence",
    "sklearn_selective.datasets",
]

N, N_TARGET, K, M = 12, 9, 3, 4
# Values for parameters whose defaults make the sweep slow or random; the rest keep
# their default or, when required, a value generated from their constraints.
FAST_DEFAULTS = {"n_resamples": 9, "random_state": 0, "metric": "augrc"}

# Per-sample argument name -> (kind, which sample axis it lives on).
# Kinds: labels (n,), score (n,), weight (n,), loss (n,), proba (n, k),
# logits (n, k), ensemble (m, n, k), scores_mapping {name: (n,)},
# systems {name: (y_pred (n,), confidence (n,))}.
ARRAY_KINDS = {
    "y_true": ("labels", "source"),
    "y_pred": ("labels", "source"),
    "y_source": ("labels", "source"),
    "groups": ("labels", "source"),
    "confidence": ("score", "source"),
    "loss": ("loss", "source"),
    "sample_weight": ("weight", "source"),
    "y_proba": ("proba", "source"),
    "proba_source": ("proba", "source"),
    "proba_target": ("proba", "target"),
    "target_sample_weight": ("weight", "target"),
    "logits": ("logits", "source"),
    "confidences": ("scores_mapping", "source"),
    "systems": ("systems", "source"),
    "posterior": ("proba", "source"),
    "y_ood": ("indicator", "source"),
}
# Arguments that take a model, data matrices or a callable: functions with any of
# these are covered by the estimator tests, not by this sweep.
NOT_SWEPT = {"estimator", "X", "y", "X_source", "X_target"}
FLOAT_KINDS = {"score", "weight", "loss", "proba", "logits", "ensemble"}


def _public_functions():
    found = {}
    for module_name in PUBLIC_MODULES:
        try:
            module = import_module(module_name)
        except ImportError:
            continue
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                found[name] = obj
    return found


def _kind(func, name):
    kind, axis = ARRAY_KINDS[name]
    if name == "proba" or (
        name in ("y_proba",) and getattr(func, "model_output", "") == "ensemble_proba"
    ):
        kind = "ensemble"
    return kind, axis


def _array_params(func):
    params = inspect.signature(func).parameters
    out = {}
    for name in params:
        if name in ARRAY_KINDS:
            out[name] = ARRAY_KINDS[name]
        elif name == "proba":
            ensemble = getattr(func, "model_output", "") == "ensemble_proba"
            out[name] = ("ensemble" if ensemble else "proba", "source")
    return out


def _swept_functions():
    swept = {}
    for name, func in _public_functions().items():
        params = inspect.signature(func).parameters
        required = {n for n, p in params.items() if p.default is p.empty}
        if NOT_SWEPT & required:
            continue
        if _array_params(func):
            swept[name] = func
    return dict(sorted(swept.items()))


SWEPT = _swept_functions()


def _make(kind, n, rng):
    """A valid value of a kind, with ties and both correct and wrong predictions."""
    if kind == "labels":
        return np.arange(n) % K
    if kind == "score":
        return np.round(rng.uniform(size=n), 1)
    if kind == "indicator":  # 1 for out-of-distribution samples, both present
        return (np.arange(n) % 3 == 0).astype(int)
    if kind in ("weight",):
        return rng.uniform(0.5, 2.0, size=n)
    if kind == "loss":
        # 0/1 losses as floats: valid for every metric, UQ-AUC included
        return (np.arange(n) % 3 == 0).astype(float)
    if kind == "proba":
        p = rng.dirichlet(np.ones(K), size=n)
        return p
    if kind == "logits":
        return rng.normal(size=(n, K)) * 3
    if kind == "ensemble":
        return rng.dirichlet(np.ones(K), size=(M, n))
    if kind == "scores_mapping":
        return {"a": np.round(rng.uniform(size=n), 1), "b": rng.uniform(size=n)}
    if kind == "systems":
        y_pred = np.arange(n) % K
        y_pred[::3] = (y_pred[::3] + 1) % K
        return {
            "a": (y_pred, np.round(rng.uniform(size=n), 1)),
            "b": ((y_pred + (np.arange(n) % 4 == 1)) % K, rng.uniform(size=n)),
        }
    raise AssertionError(kind)


def _baseline(func, rng, n=N, n_target=N_TARGET, loss_form=False):
    """Keyword arguments of a valid call: every array argument filled."""
    sig = inspect.signature(func)
    constraints = getattr(func, "_skl_parameter_constraints", {})
    kwargs = {}
    arrays = _array_params(func)
    for name, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if name in arrays:
            kind, axis = arrays[name]
            if kind == "loss" and not loss_form:
                continue
            kwargs[name] = _make(kind, n if axis == "source" else n_target, rng)
        elif name in FAST_DEFAULTS:
            kwargs[name] = FAST_DEFAULTS[name]
        elif param.default is param.empty:
            options = constraints.get(name, [])
            kwargs[name] = generate_valid_param(make_constraint(options[0]))
    if "y_pred" in kwargs and "y_true" in kwargs:
        # a third of the predictions wrong, so risks are neither 0 nor 1
        wrong = np.arange(n) % 3 == 0
        kwargs["y_pred"] = np.where(wrong, (kwargs["y_true"] + 1) % K, kwargs["y_true"])
    if loss_form:
        kwargs["y_true"] = kwargs["y_pred"] = None
    if "y_source" in kwargs and "proba_source" in kwargs:
        kwargs["y_source"] = np.argmax(kwargs["proba_source"], axis=1)
        kwargs["y_source"][::3] = (kwargs["y_source"][::3] + 1) % K
    return kwargs


def _forms(func):
    params = inspect.signature(func).parameters
    forms = [False]
    if "loss" in params and "y_true" in params and "y_pred" in params:
        forms.append(True)
    return forms


CASES = [
    (name, loss_form) for name, func in SWEPT.items() for loss_form in _forms(func)
]
CASE_IDS = [f"{name}{'[loss=array]' if form else ''}" for name, form in CASES]


def _flatten(result):
    """Numbers of a result (float, array, tuple, result object) as one float array."""
    if result is None:
        return np.zeros(0)
    if isinstance(result, (bool, int, float, np.number)):
        return np.array([float(result)])
    if isinstance(result, np.ndarray):
        if result.dtype.kind in "biufc":
            return result.astype(float).ravel()
        return np.zeros(0)
    if isinstance(result, dict):
        return np.concatenate([np.zeros(0)] + [_flatten(v) for v in result.values()])
    if isinstance(result, (tuple, list)):
        return np.concatenate([np.zeros(0)] + [_flatten(v) for v in result])
    if hasattr(result, "__dict__"):
        # NaN p-values (and ranking stabilities) mark the untested diagonal
        numbers = {k: v for k, v in vars(result).items() if k not in NAN_BY_DESIGN}
        return _flatten(numbers)
    return np.zeros(0)


NAN_BY_DESIGN = {"p_values", "ranking_stability"}


def _copy(value):
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    return value.copy() if hasattr(value, "copy") else value


def _same(a, b):
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    try:
        return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
    except Exception:  # pragma: no cover - containers without numpy conversion
        return True


def _call(func, kwargs):
    """Call, check no input is mutated and that a NaN comes with a warning."""
    before = {k: _copy(v) for k, v in kwargs.items()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = func(**kwargs)
    for name, value in before.items():
        assert _same(value, kwargs[name]), f"{func.__name__} mutated {name}"
    values = _flatten(result)
    if np.isnan(values).any():
        assert caught, f"{func.__name__} returned NaN without a warning"
    return result, values


def _expect_error(func, kwargs, names):
    """A ValueError/TypeError whose message names one of ``names``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError)) as info:
            func(**kwargs)
    message = str(info.value)
    assert any(re.search(rf"\b{re.escape(n)}\b", message) for n in names), (
        f"{func.__name__}: the message does not name {names}: {message!r}"
    )


def _value_or_error(func, kwargs, expected, names, rtol=1e-9):
    """Either the expected value, or an error naming the argument."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, values = _call(func, kwargs)
    except (ValueError, TypeError) as error:
        message = str(error)
        assert any(re.search(rf"\b{re.escape(n)}\b", message) for n in names), (
            f"{func.__name__}: the message does not name {names}: {message!r}"
        )
        return
    np.testing.assert_allclose(values, expected, rtol=rtol, atol=1e-12, equal_nan=True)


def _sample_arrays(func, kwargs):
    arrays = _array_params(func)
    return {
        name: arrays[name]
        for name in kwargs
        if name in arrays and kwargs[name] is not None
    }


def _slice(func, kwargs, n, n_target=None):
    n_target = n if n_target is None else n_target
    out = dict(kwargs)
    for name, (kind, axis) in _sample_arrays(func, kwargs).items():
        stop = n if axis == "source" else n_target
        value = kwargs[name]
        if kind == "scores_mapping":
            out[name] = {k: v[:stop] for k, v in value.items()}
        elif kind == "systems":
            out[name] = {k: (v[0][:stop], v[1][:stop]) for k, v in value.items()}
        elif kind == "ensemble":
            out[name] = value[:, :stop]
        else:
            out[name] = value[:stop]
    return out


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_functions_are_swept():
    for name in [
        "aurc",
        "augrc",
        "uq_c_index",
        "msp",
        "atc_accuracy",
        "bootstrap_metric",
    ]:
        assert name in SWEPT


def test_every_array_argument_is_known():
    """A public function's per-sample argument with an unknown name is not swept."""
    sample_like = re.compile(r"^(y_.*|proba.*|logits?|confidences?|.*_weight|scores?)$")
    for name, func in _public_functions().items():
        for param in inspect.signature(func).parameters:
            if sample_like.match(param) and param not in NOT_SWEPT | {"y_true_"}:
                assert param in ARRAY_KINDS or param == "proba", (
                    f"{name}({param}=...): add {param!r} to ARRAY_KINDS"
                )


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_valid_call(name, loss_form, rng):
    func = SWEPT[name]
    _, values = _call(func, _baseline(func, rng, loss_form=loss_form))
    assert values.size == 0 or np.isfinite(values).any()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_non_finite(name, loss_form, bad, rng):
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    for param, (kind, _) in _sample_arrays(func, kwargs).items():
        if kind not in FLOAT_KINDS and kind != "scores_mapping":
            continue
        bad_kwargs = dict(kwargs)
        if kind == "scores_mapping":
            bad_kwargs[param] = {k: v.copy() for k, v in kwargs[param].items()}
            bad_kwargs[param]["a"][1] = bad
            names = [param, "a"]
        else:
            value = kwargs[param].astype(float)
            value[(1,) * value.ndim] = bad
            bad_kwargs[param] = value
            names = [param]
        _expect_error(func, bad_kwargs, names)


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_nan_labels(name, loss_form, rng):
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    for param, (kind, _) in _sample_arrays(func, kwargs).items():
        if kind != "labels":
            continue
        value = kwargs[param].astype(float)
        value[1] = np.nan
        _expect_error(func, {**kwargs, param: value}, [param])


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_empty(name, loss_form, rng):
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    arrays = _sample_arrays(func, kwargs)
    _expect_error(func, _slice(func, kwargs, 0), [*arrays, "empty", "0 samples"])


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_tiny(name, loss_form, n, rng):
    func = SWEPT[name]
    kwargs = _slice(func, _baseline(func, rng, loss_form=loss_form), n)
    try:
        _call(func, kwargs)
    except ValueError as error:
        # refusing tiny input is allowed, with a message that says why
        assert len(str(error)) > 20


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_mismatched_length(name, loss_form, rng):
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    arrays = _sample_arrays(func, kwargs)
    for param, (kind, axis) in arrays.items():
        partners = [p for p, (_, a) in arrays.items() if a == axis and p != param]
        if not partners:
            continue
        value = kwargs[param]
        if kind == "systems":
            short = {k: (v[0][:-1], v[1][:-1]) for k, v in value.items()}
        elif kind == "scores_mapping":
            short = {k: v[:-1] for k, v in value.items()}
        elif kind == "ensemble":
            short = value[:, :-1]
        else:
            short = value[:-1]
        # every array of a mapping is "a confidence": the message may say so
        names = [param, "confidence"] if kind == "scores_mapping" else [param]
        _expect_error(func, {**kwargs, param: short}, names)


def _wrong_ndim(kind, value):
    if kind == "ensemble":
        return value[..., None]
    if kind in ("proba", "logits"):
        return value[:, :, None]
    return np.column_stack([value, value])


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_wrong_ndim(name, loss_form, rng):
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    for param, (kind, _) in _sample_arrays(func, kwargs).items():
        if kind == "scores_mapping":
            continue
        _expect_error(
            func, {**kwargs, param: _wrong_ndim(kind, kwargs[param])}, [param]
        )


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_bad_weights(name, loss_form, rng):
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    for param, (kind, _) in _sample_arrays(func, kwargs).items():
        if kind != "weight":
            continue
        negative = kwargs[param].copy()
        negative[0] = -1.0
        _expect_error(func, {**kwargs, param: negative}, [param])
        _expect_error(func, {**kwargs, param: np.zeros_like(negative)}, [param])


def _containers(value):
    """The same data in the containers users pass."""
    out = {"list": value.tolist(), "read_only": value.copy()}
    out["read_only"].flags.writeable = False
    doubled = np.repeat(value, 2, axis=0)
    out["non_contiguous"] = doubled[::2]
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        pd = None
    if pd is not None:
        index = np.arange(len(value)) + 100
        out["pandas"] = (
            pd.Series(value, index=index)
            if value.ndim == 1
            else pd.DataFrame(value, index=index)
        )
    try:
        import polars as pl
    except ImportError:  # pragma: no cover
        pl = None
    if pl is not None:
        out["polars"] = pl.Series(value) if value.ndim == 1 else pl.DataFrame(value)
    return out


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_containers(name, loss_form, rng):
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    _, expected = _call(func, kwargs)
    for param, (kind, _) in _sample_arrays(func, kwargs).items():
        if kind in ("scores_mapping", "systems", "ensemble"):
            continue
        for container, value in _containers(kwargs[param]).items():
            try:
                _value_or_error(func, {**kwargs, param: value}, expected, [param])
            except AssertionError as error:
                raise AssertionError(f"{param} as {container}: {error}") from None


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_sparse_is_refused_or_equal(name, loss_form, rng):
    scipy_sparse = pytest.importorskip("scipy.sparse")
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    _, expected = _call(func, kwargs)
    for param, (kind, _) in _sample_arrays(func, kwargs).items():
        if kind not in ("proba", "logits"):
            continue
        value = scipy_sparse.csr_matrix(kwargs[param])
        _value_or_error(func, {**kwargs, param: value}, expected, [param])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int64, np.bool_, object])
@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_float_dtypes(name, loss_form, dtype, rng):
    """Another dtype gives the value of the same numbers in float64, or an error."""
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    for param, (kind, _) in _sample_arrays(func, kwargs).items():
        if kind not in FLOAT_KINDS:
            continue
        value = kwargs[param]
        if dtype in (np.int64, np.bool_):
            if kind in ("proba", "ensemble"):
                # one-hot probabilities are valid integer and boolean rows
                value = np.eye(K)[np.argmax(value, axis=-1)]
            elif kind == "weight":
                value = np.round(value) + 1
            else:
                value = np.round(value * (1 if dtype == np.bool_ else 10))
        converted = value.astype(dtype)
        reference = {**kwargs, param: np.asarray(converted, dtype=float)}
        try:
            _, expected = _call(func, reference)
        except ValueError:
            continue  # these numbers are invalid for this argument anyway
        rtol = 1e-3 if dtype == np.float16 else 1e-6
        _value_or_error(func, {**kwargs, param: converted}, expected, [param], rtol)


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_complex_and_strings_are_refused(name, loss_form, rng):
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    for param, (kind, _) in _sample_arrays(func, kwargs).items():
        if kind not in FLOAT_KINDS:
            continue
        value = kwargs[param]
        _expect_error(func, {**kwargs, param: value + 1j}, [param])
        text = value.astype(str)
        text[(0,) * text.ndim] = "high"
        _expect_error(func, {**kwargs, param: text}, [param])


def test_ragged_lists_are_refused(rng):
    for name, func in SWEPT.items():
        kwargs = _baseline(func, rng)
        for param, (kind, _) in _sample_arrays(func, kwargs).items():
            if kind not in ("proba", "logits"):
                continue
            ragged = [list(row) for row in kwargs[param]]
            ragged[0] = ragged[0][:-1]
            try:
                _expect_error(func, {**kwargs, param: ragged}, [param])
            except AssertionError as error:
                raise AssertionError(f"{name}: {error}") from None


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_label_types(name, loss_form, rng):
    """String, float (pandas ``0.0``) and mixed labels."""
    func = SWEPT[name]
    kwargs = _baseline(func, rng, loss_form=loss_form)
    # the class labels; group labels come back in the result, so their type shows
    labels = [
        p
        for p, (kind, _) in _sample_arrays(func, kwargs).items()
        if kind == "labels" and p != "groups"
    ]
    if not labels or (
        "labels" in inspect.signature(func).parameters
        and any(k in kwargs for k in ("y_proba", "proba_source"))
    ):
        # labels that index probability columns are covered by the functions' tests
        return
    _, expected = _call(func, kwargs)
    names = np.array(["cat", "dog", "emu"], dtype=object)
    as_strings = {p: names[kwargs[p]] for p in labels}
    _value_or_error(func, {**kwargs, **as_strings}, expected, labels)
    as_floats = {p: kwargs[p].astype(float) for p in labels}
    _value_or_error(func, {**kwargs, **as_floats}, expected, labels)
    if len(labels) >= 2 and {"y_true", "y_pred"} <= set(labels):
        mixed = {**kwargs, "y_pred": kwargs["y_pred"].astype(str)}
        _expect_error(func, mixed, ["y_true", "y_pred"])


@pytest.mark.parametrize("name, loss_form", CASES, ids=CASE_IDS)
def test_results_are_python_floats(name, loss_form, rng):
    func = SWEPT[name]
    result, _ = _call(func, _baseline(func, rng, loss_form=loss_form))
    if isinstance(result, (float, np.floating)):
        assert type(result) is float, f"{name} returns {type(result)}, not float"
        assert math.isfinite(result)
