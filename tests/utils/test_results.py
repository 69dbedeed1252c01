"""The one base of the result objects: ``to_json`` from ``to_dict``."""

import json

import pytest

from sklearn_selective._utils._results import ResultMixin


class _Result(ResultMixin):
    def to_dict(self, *, include_distribution=False):
        data = {"value": 0.5, "undefined": None}
        if include_distribution:
            data["distribution"] = [0.4, 0.6]
        return data


class _NoOptions(ResultMixin):
    _DICT_OPTIONS = ()

    def to_dict(self):
        return {"value": 1}


def test_to_json_passes_the_options_of_to_dict_and_the_rest_to_json_dumps():
    result = _Result()
    assert json.loads(result.to_json()) == result.to_dict()
    full = json.loads(result.to_json(include_distribution=True, indent=2))
    assert full == result.to_dict(include_distribution=True)
    assert result.to_json(allow_nan=True) == result.to_json()
    assert _NoOptions().to_json(allow_nan=True, sort_keys=True) == '{"value": 1}'
    with pytest.raises(TypeError):
        _NoOptions().to_json(include_distribution=True)
