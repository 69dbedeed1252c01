"""Result values as JSON-ready Python objects (_utils/_json_ready)."""

import datetime
import json

import numpy as np

from sklearn_selective._utils._json_ready import json_ready


def test_json_ready_gives_strict_json_values():
    value = {
        1: np.array([1.5, np.nan]),
        "flag": np.bool_(True),
        "count": np.int64(3),
        "when": np.datetime64("2026-01-02"),
        "never": np.datetime64("NaT"),
        "date": datetime.date(2026, 1, 2),
        "inf": np.float32(np.inf),
        "text": "a",
    }
    ready = json_ready(value)
    assert ready == {
        "1": [1.5, None],
        "flag": True,
        "count": 3,
        "when": "2026-01-02",
        "never": None,
        "date": "2026-01-02",
        "inf": None,
        "text": "a",
    }
    assert type(ready["count"]) is int and type(ready["flag"]) is bool
    json.dumps(ready, allow_nan=False)  # strict JSON
