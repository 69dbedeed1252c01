"""The one gateway to scikit-learn's private APIs.

The parameter constraints, the ``fit`` context, the scorer base class, the
Display helpers and a few validation helpers are not public in scikit-learn, yet
every scikit-learn-compatible library builds on them. They are imported here and
nowhere else (``tests/api/test_layout.py`` checks it), under names without the
leading underscore, so that a scikit-learn release that moves one breaks this
module alone. ``pyproject.toml`` admits the scikit-learn releases CI has run:
from the minimum-version suite's 1.8 up to the latest 1.9.
"""

from sklearn.base import _fit_context as fit_context
from sklearn.metrics._scorer import _BaseScorer as BaseScorer
from sklearn.utils import _safe_indexing as safe_indexing
from sklearn.utils._optional_dependencies import check_matplotlib_support
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    Options,
    RealNotInt,
    StrOptions,
    make_constraint,
    validate_params,
)
from sklearn.utils._plotting import _validate_style_kwargs as validate_style_kwargs
from sklearn.utils._repr_html.estimator import _VisualBlock as VisualBlock
from sklearn.utils.metadata_routing import _routing_enabled as routing_enabled
from sklearn.utils.validation import _check_method_params as check_method_params
from sklearn.utils.validation import _estimator_has as estimator_has
from sklearn.utils.validation import _num_samples as num_samples

__all__ = [
    "BaseScorer",
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "Options",
    "RealNotInt",
    "StrOptions",
    "VisualBlock",
    "check_matplotlib_support",
    "check_method_params",
    "estimator_has",
    "fit_context",
    "make_constraint",
    "num_samples",
    "routing_enabled",
    "safe_indexing",
    "validate_params",
    "validate_style_kwargs",
]
