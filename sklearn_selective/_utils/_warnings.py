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


def user_stacklevel():
    """The ``stacklevel`` that makes a :func:`warnings.warn` call in this
    function's caller point at the first frame outside sklearn_selective."""
    frame = inspect.currentframe()
    level = 0
    try:
        frame = frame.f_back  # the caller, which calls warnings.warn
        while frame is not None:
            filename = frame.f_code.co_filename
            if not filename.startswith(_PACKAGE_DIR):
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
