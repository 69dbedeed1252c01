"""scikit-learn's ``validate_params`` with a fast path for the common arguments.

:func:`sklearn.utils._param_validation.validate_params` binds the signature and
enters a ``config_context`` on every call: about 50 µs, more than a metric needs
for a thousand samples. This decorator checks the same constraints, but first
with cheap tests that accept the usual values (an ndarray or a list where an
array-like is expected, a listed string, a number in its interval, None). Any
argument that the cheap tests do not accept goes through scikit-learn's
decorator unchanged, which then accepts it or raises its usual
``InvalidParameterError``: the accepted inputs and the messages are the same.
"""

import functools
import math
import operator
from inspect import Parameter, signature
from numbers import Integral, Real

import numpy as np

from ._sklearn import Interval, Options, make_constraint
from ._sklearn import validate_params as _sklearn_validate

_POSITIONAL = (Parameter.POSITIONAL_ONLY, Parameter.POSITIONAL_OR_KEYWORD)

# ``n_resamples`` of an estimator whose intervals read the resamples' spread:
# none (0: point estimates) or at least two (one has no spread: the monitor's
# intervals were NaN, ATC's of zero width beside its estimate).
N_RESAMPLES = (Options(Integral, {0}), Interval(Integral, 2, None, closed="left"))


def _is_common_array(value):
    return type(value) is np.ndarray or type(value) is list


def _is_common_array_or_none(value):
    return value is None or type(value) is np.ndarray or type(value) is list


def _accepts_anything(value):
    return True


def _quick_interval(interval):
    """A cheap test of ``Interval(Real or Integral, ...)`` for Python numbers; any
    other value (numpy scalars, bool, NaN) goes to scikit-learn's test."""
    types = (int,) if interval.type is Integral else (int, float)
    low = -math.inf if interval.left is None else interval.left
    high = math.inf if interval.right is None else interval.right
    above = operator.le if interval.closed in ("left", "both") else operator.lt
    below = operator.le if interval.closed in ("right", "both") else operator.lt

    def check(value):
        return type(value) in types and above(low, value) and below(value, high)

    return check


def _quick_check(constraints):
    """One cheap sufficient test for one parameter's list of constraints."""
    if constraints == ["array-like"]:
        return _is_common_array
    if constraints == ["array-like", None]:
        return _is_common_array_or_none
    checks = []
    for constraint in constraints:
        if constraint == "array-like":
            checks.insert(0, _is_common_array)  # the cheapest, and the most common
        elif constraint is None:
            checks.append(lambda value: value is None)
        elif isinstance(constraint, Interval) and constraint.type in (Real, Integral):
            checks.append(_quick_interval(constraint))
        else:
            checks.append(make_constraint(constraint).is_satisfied_by)
    if len(checks) == 1:
        return checks[0]

    def check(value):
        # A loop, not any() over a generator: 0.16 against 0.64 us per call.
        for one_check in checks:  # noqa: SIM110
            if one_check(value):
                return True
        return False

    return check


def validate_params(parameter_constraints, *, prefer_skip_nested_validation):
    """Drop-in for scikit-learn's ``validate_params`` (same arguments)."""
    validate = _sklearn_validate(
        parameter_constraints,
        prefer_skip_nested_validation=prefer_skip_nested_validation,
    )

    def decorator(func):
        checked = validate(func)
        parameters = signature(func).parameters
        positional = [n for n, p in parameters.items() if p.kind in _POSITIONAL]
        checks = {
            name: _quick_check(parameter_constraints[name])
            if name in parameter_constraints
            else _accepts_anything
            for name in parameters
        }
        positional_checks = tuple(checks[name] for name in positional)
        position = {name: index for index, name in enumerate(positional)}
        # Parameters that must be passed for the quick path: those without a
        # default, or whose default the quick test does not accept (a default
        # that passes once is not checked again on every call).
        needed = tuple(
            (name, position.get(name, len(positional)))
            for name, p in parameters.items()
            if p.default is Parameter.empty or not checks[name](p.default)
        )

        def accepted(args, kwargs):
            n_args = len(args)
            if n_args > len(positional):
                return False
            for check, value in zip(positional_checks, args, strict=False):
                if not check(value):
                    return False
            for name, value in kwargs.items():
                check = checks.get(name)
                if check is None or position.get(name, n_args) < n_args:
                    return False  # unknown, or given twice: scikit-learn says so
                if not check(value):
                    return False
            for name, index in needed:
                if index >= n_args and name not in kwargs:
                    return False
            return True

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if accepted(args, kwargs):
                return func(*args, **kwargs)
            return checked(*args, **kwargs)

        return wrapper

    return decorator
