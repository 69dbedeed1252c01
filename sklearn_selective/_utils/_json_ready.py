"""Results as plain Python values, for ``to_dict`` and ``to_json``."""

import datetime
import math
from numbers import Integral, Real

import numpy as np


def json_ready(value):
    """``value`` as JSON-ready Python objects: lists, dicts, floats, None for nan,
    ISO 8601 text for timestamps."""
    if isinstance(value, dict):
        return {str(key): json_ready(item) for key, item in value.items()}
    if isinstance(value, list | tuple | np.ndarray):
        return [json_ready(item) for item in value]
    if isinstance(value, np.datetime64):
        return None if np.isnat(value) else str(np.datetime_as_string(value))
    if isinstance(value, datetime.date):  # datetime and pandas.Timestamp too
        return value.isoformat()
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Real):
        value = float(value)
        return value if math.isfinite(value) else None
    return value
