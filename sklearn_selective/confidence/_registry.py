"""The registry of confidence score functions: every CSF by name.

Each public CSF registers itself with :func:`_register`, which also tags it
with the model output it reads, so that a name can go in a ``GridSearchCV``
grid and the estimators know which method of the model to call.
"""

from .._utils._sklearn import validate_params

_CONFIDENCE_FUNCTIONS = {}


def _register(model_output):
    """Record a public CSF under its name and tag the model output it reads."""

    def decorate(func):
        func.model_output = model_output
        _CONFIDENCE_FUNCTIONS[func.__name__] = func
        return func

    return decorate


@validate_params({}, prefer_skip_nested_validation=True)
def get_confidence_function_names():
    """Names of the built-in confidence score functions.

    Returns
    -------
    names : list of str
        Sorted names accepted by :func:`get_confidence_function` and by the
        ``csf`` parameter of the estimators.

    See Also
    --------
    get_confidence_function : The function behind a name.

    Examples
    --------
    >>> from sklearn_selective.confidence import get_confidence_function_names
    >>> "msp" in get_confidence_function_names()
    True
    """
    return sorted(_CONFIDENCE_FUNCTIONS)


@validate_params({"csf": [str, callable]}, prefer_skip_nested_validation=True)
def get_confidence_function(csf):
    """Return the confidence score function named ``csf``.

    Parameters
    ----------
    csf : str or callable
        A name from :func:`get_confidence_function_names`, or a callable,
        which is returned unchanged. A user-defined CSF receives the model
        output named by its ``model_output`` attribute (default
        ``"predict_proba"``; also ``"decision_function"`` or
        ``"ensemble_proba"``) and returns one float per sample, higher meaning
        more confident.

    Returns
    -------
    function : callable
        ``function(model_output, **params) -> ndarray of shape (n_samples,)``,
        with a ``model_output`` attribute for the built-in functions.

    Raises
    ------
    ValueError
        If ``csf`` is not a known name; the message lists the valid names.

    See Also
    --------
    get_confidence_function_names : The valid names.

    Examples
    --------
    >>> from sklearn_selective.confidence import get_confidence_function
    >>> margin = get_confidence_function("margin")
    >>> margin([[0.6, 0.3, 0.1]]).round(4)
    array([0.3])
    >>> margin.model_output
    'predict_proba'
    """
    if callable(csf):
        return csf
    try:
        return _CONFIDENCE_FUNCTIONS[csf]
    except KeyError:
        raise ValueError(
            f"Unknown confidence function {csf!r}. Valid names are "
            f"{get_confidence_function_names()}, or pass a callable."
        ) from None


def model_output_of(csf):
    """The model output a CSF (name or callable) reads."""
    return getattr(get_confidence_function(csf), "model_output", "predict_proba")
