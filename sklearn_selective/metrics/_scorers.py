"""Scorers: selective-classification metrics for ``GridSearchCV`` and friends.

A scorer fetches predictions and confidences of a fitted model with one
inference (:func:`~sklearn_selective.confidence.predict_with_confidence`): the
MSP of ``predict_proba`` for a probabilistic classifier, the maximum logit for
a classifier with only ``decision_function``, and a
:class:`~sklearn_selective.SelectiveClassifier`'s own CSF, so that a search
over ``csf`` selects the confidence function itself.
"""

from numbers import Real

from sklearn.metrics import get_scorer as sklearn_get_scorer
from sklearn.metrics import get_scorer_names as sklearn_get_scorer_names

from .._utils._sklearn import BaseScorer, Interval, StrOptions, validate_params
from ..confidence import predict_with_confidence
from ..confidence._model_output import predict_proba_with_confidence
from ._metric_registry import METRICS, PROBABILITIES, find_entry
from ._working_points import coverage_at_risk, selective_risk_at_coverage

# Used by scikit-learn only to decide whether several scorers share a cache;
# the inference itself always goes through predict_with_confidence.
_RESPONSE_METHODS = ("predict_proba", "decision_function", "predict")
_CACHE_KEY = "sklearn_selective.predict_with_confidence"


def _shared_cache(method_caller):
    """The dict scikit-learn's multi-metric scorer shares between scorers.

    ``method_caller`` is ``functools.partial(_cached_call, cache)``; when the
    cache is a dict, every selective scorer of one evaluation reuses a single
    inference through it.
    """
    arguments = getattr(method_caller, "args", ())
    return arguments[0] if arguments and isinstance(arguments[0], dict) else None


class _SelectiveScorer(BaseScorer):
    """Scorer ``sign * metric(y_true, y_pred, confidence, **kwargs)``."""

    def __init__(self, score_func, sign, kwargs, csf=None, name=None):
        super().__init__(score_func, sign, kwargs, response_method=_RESPONSE_METHODS)
        self._csf = csf
        self._name = name

    def __repr__(self):
        if self._name is not None:
            return f"get_scorer({self._name!r})"
        arguments = "".join(f", {key}={value!r}" for key, value in self._kwargs.items())
        sign = "" if self._sign > 0 else ", greater_is_better=False"
        csf = "" if self._csf is None else f", csf={self._csf!r}"
        return (
            f"make_selective_scorer({self._score_func.__name__}{sign}{csf}{arguments})"
        )

    def _score(self, method_caller, estimator, X, y_true, **kwargs):
        self._warn_overlap(
            "There is an overlap between set kwargs of this scorer instance and "
            "passed metadata. Please pass them either as kwargs to "
            "`make_selective_scorer` or metadata, but not both.",
            kwargs,
        )
        entry = find_entry(self._score_func)
        needs_proba = entry is not None and PROBABILITIES in entry.needs
        inference = (
            predict_proba_with_confidence if needs_proba else predict_with_confidence
        )
        cache = _shared_cache(method_caller)
        key = (_CACHE_KEY, needs_proba, self._csf)
        if cache is not None and key in cache:
            y_pred, confidence = cache[key]
        else:
            y_pred, confidence = inference(estimator, X, csf=self._csf)
            if cache is not None:
                cache[key] = y_pred, confidence
        arguments = {**self._kwargs, **kwargs}
        return self._sign * self._score_func(y_true, y_pred, confidence, **arguments)


# The metrics make_selective_scorer accepts by name.
_SCORABLE = {name for name, entry in METRICS.items() if entry.scorable}


@validate_params(
    {
        "metric": [StrOptions(_SCORABLE), callable],
        "greater_is_better": ["boolean", None],
        "csf": [str, callable, None],
    },
    prefer_skip_nested_validation=True,
)
def make_selective_scorer(metric, *, greater_is_better=None, csf=None, **kwargs):
    """Make a scorer from a selective-classification metric.

    The selective counterpart of :func:`sklearn.metrics.make_scorer`: the
    metric receives ``(y_true, y_pred, confidence)`` computed from one
    inference of the fitted model.

    Parameters
    ----------
    metric : str or callable
        A metric of this package by name (``"augrc"``, ``"aurc"``,
        ``"e_aurc"``, ``"naurc"``, ``"uq_auc"``, ``"uq_c_index"``,
        ``"selective_risk_at_coverage"``, ``"coverage_at_risk"``) or any
        callable ``metric(y_true, y_pred, confidence, **kwargs) -> float``.

    greater_is_better : bool, default=None
        Whether a higher metric value is better. If False the scorer returns
        the negated value, as scikit-learn's scorers do for losses. None takes
        the direction of a named metric (False for the risks, True for
        ``uq_auc``, ``uq_c_index`` and ``coverage_at_risk``) and True for a
        callable.

    csf : str or callable, default=None
        Confidence score function. None uses a ``SelectiveClassifier``'s own
        CSF, the MSP for a classifier with ``predict_proba`` and the maximum
        logit otherwise.

    **kwargs : dict
        Keyword arguments of the metric, e.g. ``coverage=0.8``.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_true, **metadata) -> float``, accepted by
        every ``scoring`` parameter of scikit-learn; ``sample_weight`` is
        routed to the metric (``scorer.set_score_request(sample_weight=True)``
        with metadata routing).

    See Also
    --------
    get_scorer : The predefined scorers by name.
    make_risk_at_coverage_scorer : Selective risk at a working point.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.model_selection import cross_val_score
    >>> from sklearn_selective.metrics import make_selective_scorer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> scorer = make_selective_scorer("augrc", csf="margin")
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> scores = cross_val_score(model, X, y, scoring=scorer, cv=3)
    >>> bool((scores <= 0).all())
    True
    """
    function, direction = (
        (METRICS[metric].function, METRICS[metric].greater_is_better)
        if isinstance(metric, str)
        else (metric, True)
    )
    if greater_is_better is None:
        greater_is_better = direction
    return _SelectiveScorer(function, 1 if greater_is_better else -1, kwargs, csf)


@validate_params(
    {"coverage": [Interval(Real, 0, 1, closed="right")], "csf": [str, callable, None]},
    prefer_skip_nested_validation=True,
)
def make_risk_at_coverage_scorer(coverage, *, csf=None):
    """Scorer of the negated selective risk at a target coverage.

    Parameters
    ----------
    coverage : float in (0, 1]
        The working point (see
        :func:`~sklearn_selective.metrics.selective_risk_at_coverage`).

    csf : str or callable, default=None
        Confidence score function; see :func:`make_selective_scorer`.

    Returns
    -------
    scorer : callable
        Returns ``-selective_risk_at_coverage(..., coverage=coverage)``
        (greater is better).

    See Also
    --------
    make_coverage_at_risk_scorer : The other working point.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_selective.metrics import make_risk_at_coverage_scorer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> model = model.fit(X[:400], y[:400])
    >>> scorer = make_risk_at_coverage_scorer(0.9)
    >>> round(scorer(model, X[400:], y[400:]), 3)
    -0.0
    """
    return _SelectiveScorer(selective_risk_at_coverage, -1, {"coverage": coverage}, csf)


@validate_params(
    {"risk": [Interval(Real, 0, None, closed="left")], "csf": [str, callable, None]},
    prefer_skip_nested_validation=True,
)
def make_coverage_at_risk_scorer(risk, *, csf=None):
    """Scorer of the largest coverage whose selective risk is at most ``risk``.

    Parameters
    ----------
    risk : float >= 0
        The tolerated selective risk (see
        :func:`~sklearn_selective.metrics.coverage_at_risk`).

    csf : str or callable, default=None
        Confidence score function; see :func:`make_selective_scorer`.

    Returns
    -------
    scorer : callable
        Returns ``coverage_at_risk(..., risk=risk)`` (greater is better).

    See Also
    --------
    make_risk_at_coverage_scorer : The other working point.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn_selective.metrics import make_coverage_at_risk_scorer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> model = model.fit(X[:400], y[:400])
    >>> scorer = make_coverage_at_risk_scorer(0.01)
    >>> 0.5 < scorer(model, X[400:], y[400:]) <= 1
    True
    """
    return _SelectiveScorer(coverage_at_risk, 1, {"risk": risk}, csf)


# The predefined scorers, by name: read off the registry.
_SCORERS = {entry.scorer: entry for entry in METRICS.values() if entry.scorer}


@validate_params({}, prefer_skip_nested_validation=True)
def get_scorer_names():
    """Names of the predefined selective-classification scorers.

    Returns
    -------
    names : list of str
        Sorted names accepted by :func:`get_scorer`.

    See Also
    --------
    get_scorer : The scorer behind a name.

    Examples
    --------
    >>> from sklearn_selective.metrics import get_scorer_names
    >>> get_scorer_names()
    ['neg_augrc', 'neg_aurc', 'neg_e_aurc', 'neg_naurc', 'uq_auc', 'uq_c_index']
    """
    return sorted(_SCORERS)


@validate_params({"scoring": [str]}, prefer_skip_nested_validation=True)
def get_scorer(scoring):
    """Return the selective-classification scorer named ``scoring``, or
    scikit-learn's.

    Greater is better, as for every scikit-learn scorer: the AURC family and
    AUGRC are negated (``"neg_*"``). Pass the scorer (not its name) to a
    ``scoring`` parameter, or a dict of them for multi-metric evaluation. Any
    other name is passed on to :func:`sklearn.metrics.get_scorer`, so that this
    function can stand in for scikit-learn's when both are imported under one
    name (``get_scorer("accuracy")`` still works).

    Parameters
    ----------
    scoring : str
        One of :func:`get_scorer_names`, or a name of
        :func:`sklearn.metrics.get_scorer_names`.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y_true, **metadata) -> float``.

    Raises
    ------
    ValueError
        If the name is unknown; the message lists the valid names.

    See Also
    --------
    make_selective_scorer : A scorer for any metric, CSF or parameters.

    References
    ----------
    .. [1] J. Traub et al. *Overcoming Common Flaws in the Evaluation of
       Selective Classification Systems.* NeurIPS 2024 (selection by AUGRC).

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from sklearn.model_selection import GridSearchCV
    >>> from sklearn_selective.metrics import get_scorer
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), LogisticRegression())
    >>> grid = {"logisticregression__C": [0.1, 1.0]}
    >>> search = GridSearchCV(model, grid, scoring=get_scorer("neg_augrc"), cv=3)
    >>> sorted(search.fit(X, y).best_params_)
    ['logisticregression__C']
    """
    if isinstance(scoring, str) and scoring in _SCORERS:
        entry = _SCORERS[scoring]
        sign = 1 if entry.greater_is_better else -1
        return _SelectiveScorer(entry.function, sign, {}, name=scoring)
    if isinstance(scoring, str) and scoring in sklearn_get_scorer_names():
        return sklearn_get_scorer(scoring)
    raise ValueError(
        f"{scoring!r} is neither a selective-classification scorer "
        f"({get_scorer_names()}) nor one of scikit-learn's "
        "(sklearn.metrics.get_scorer_names())."
    )
