"""Warnings that point at the user's call.

A hard-coded ``stacklevel`` is right for one call path only; the same helper
reached through a meta-estimator, a scorer or the command line points into the
library. :func:`user_stacklevel` counts the frames up to the first one outside
this package (as pandas' ``find_stack_level`` does), so a warning names the
user's own line whatever the route.
"""

import inspect
import warnings
from pathlib import Path

_PACKAGE_DIR = str(Path(__file__).resolve().parent.parent)
# scikit-learn's decorators that wrap our public functions and fit methods
# (``validate_params``, ``_fit_context``): their frames sit between the user's
# call and ours, so they are skipped too.
_WRAPPER_FILES = (
    str(Path("sklearn", "base.py")),
    str(Path("sklearn", "utils", "_param_validation.py")),
)


def _is_library_frame(filename):
    return filename.startswith(_PACKAGE_DIR) or filename.endswith(_WRAPPER_FILES)


def user_stacklevel():
    """The ``stacklevel`` that makes a :func:`warnings.warn` call in this
    function's caller point at the first frame outside sklearn_selective (and
    outside scikit-learn's parameter-validation and fit-context wrappers)."""
    frame = inspect.currentframe()
    level = 0
    try:
        frame = frame.f_back  # the caller, which calls warnings.warn
        while frame is not None:
            if not _is_library_frame(frame.f_code.co_filename):
                break
            frame = frame.f_back
            level += 1
    finally:
        del frame
    return level + 1


def warn(message, category=UserWarning):
    """:func:`warnings.warn` pointed at the user's call (the first frame outside
    this package)."""
    warnings.warn(message, category, stacklevel=user_stacklevel())
