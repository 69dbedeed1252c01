"""Every public function validates its parameters with scikit-learn's machinery.

Modelled on scikit-learn's and imbalanced-learn's ``test_public_functions.py``, but
the list of functions is discovered from the public modules' ``__all__``, so a new
public function is tested without anyone remembering to add it.
"""

import inspect
from importlib import import_module

import pytest
from sklearn.utils._param_validation import (
    InvalidParameterError,
    generate_invalid_param_val,
    generate_valid_param,
    make_constraint,
)

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
