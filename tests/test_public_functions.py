"""Every public function validates its parameters with scikit-learn's machinery.

Modelled on scikit-learn's and imbalanced-learn's ``test_public_functions.py``, but
the list of functions is discovered from the public modules' ``__all__``, so a new
public function is tested without anyone remembering to add it.
"""

import inspect
import math
from importlib import import_module
from numbers import Integral, Real

import numpy as np
import pytest
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    generate_invalid_param_val,
    generate_valid_param,
    make_constraint,
)

from sklearn_selective.metrics._core import unit_weights
from sklearn_selective.metrics._params import _quick_interval

PUBLIC_MODULES = ["sklearn_selective", "sklearn_selective.metrics"]
try:  # the confidence module lands separately
    import_module("sklearn_selective.confidence")
    PUBLIC_MODULES.append("sklearn_selective.confidence")
except ImportError:  # pragma: no cover
    pass


def _public_functions():
    found = {}
    for module_name in PUBLIC_MODULES:
        module = import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                found[f"{obj.__module__.split('._')[0]}.{name}"] = obj
    return sorted(found.items())


PUBLIC_FUNCTIONS = _public_functions()


def test_public_functions_are_found():
    names = [name for name, _ in PUBLIC_FUNCTIONS]
    assert "sklearn_selective.metrics.aurc" in names
    assert "sklearn_selective.metrics.uq_c_index" in names


@pytest.mark.parametrize(
    "name, func", PUBLIC_FUNCTIONS, ids=[n for n, _ in PUBLIC_FUNCTIONS]
)
def test_function_param_validation(name, func):
    assert hasattr(func, "_skl_parameter_constraints"), (
        f"{name} must validate its parameters with "
        "sklearn.utils._param_validation.validate_params"
    )
    constraints = func._skl_parameter_constraints
    parameters = inspect.signature(func).parameters.values()
    names = [
        p.name for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    assert set(constraints) == set(names), (
        f"constraints and signature differ for {name}"
    )

    required = {
        p.name: generate_valid_param(make_constraint(constraints[p.name][0]))
        for p in parameters
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    }
    short_name = name.rsplit(".", 1)[1]
    bad_type = type("BadType", (), {})()
    for param in names:
        if constraints[param] == "no_validation":
            continue
        match = rf"The '{param}' parameter of {short_name} must be .* Got .* instead."
        with pytest.raises(InvalidParameterError, match=match):
            func(**{**required, param: bad_type})
        for constraint in map(make_constraint, constraints[param]):
            try:
                bad_value = generate_invalid_param_val(constraint)
            except NotImplementedError:
                continue
            with pytest.raises(InvalidParameterError, match=match):
                func(**{**required, param: bad_value})


@pytest.mark.parametrize(
    "interval",
    [
        Interval(Real, 0, 1, closed="right"),
        Interval(Real, 0, 1, closed="neither"),
        Interval(Real, 0, 1, closed="both"),
        Interval(Real, 0, None, closed="left"),
        Interval(Integral, 1, None, closed="left"),
    ],
    ids=str,
)
def test_quick_interval_check_accepts_only_what_sklearn_accepts(interval):
    """The metrics' fast parameter check may pass a value to scikit-learn's check
    (which then decides), but must never accept a value that check rejects."""
    quick = _quick_interval(interval)
    values = [0, 1, 2, -1, 10**400, 0.0, -0.0, 0.5, 1.0, 1.0 + 2**-52, 1e-300]
    values += [math.inf, -math.inf, math.nan, True, False, np.float64(0.5)]
    values += [np.int64(1), "0.5", None, [0.5], 1j]
    for value in values:
        if quick(value):
            assert interval.is_satisfied_by(value), value
    inside = 1 if interval.type is Integral else 0.5
    assert quick(inside)  # the quick path is taken for plain Python numbers


def test_unit_weights_are_read_only():
    weights = unit_weights(5)
    assert weights.strides == (0,) and weights.tolist() == [1.0] * 5
    with pytest.raises(ValueError, match="read-only"):
        weights[0] = 2.0
