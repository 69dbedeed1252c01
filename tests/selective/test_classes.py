"""Labels to class indices (``_selective/_classes.py``)."""

import numpy as np
import pytest

from sklearn_selective._selective._classes import class_index


@pytest.mark.parametrize(
    "classes",
    [np.array([2, 0, 5]), np.array(["b", "a", "c"]), np.array([0.5, -1.0, 3.0])],
)
def test_class_index_of_unsorted_classes(classes):
    labels = classes[[2, 0, 0, 1]]
    np.testing.assert_array_equal(class_index(classes, labels), [2, 0, 0, 1])


def test_unknown_labels_give_none():
    assert class_index(np.array([0, 1]), np.array([0, 2])) is None
    assert class_index(np.array(["a", "b"]), np.array(["c"])) is None
