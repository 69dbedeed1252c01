"""The one label-to-class-index helper (_utils/_validation.label_positions)."""

import numpy as np
import pytest

from sklearn_selective._utils._validation import label_positions


@pytest.mark.parametrize(
    "classes",
    [np.array([3, 1, 2]), np.array(["b", "c", "a"]), np.array([0.5, -1.0, 2.0])],
)
def test_label_positions_index_unsorted_classes(classes):
    rng = np.random.default_rng(0)
    labels = classes[rng.integers(0, classes.shape[0], 50)]
    index, known = label_positions(classes, labels)
    assert known.all()
    np.testing.assert_array_equal(classes[index], labels)


def test_label_positions_flag_unseen_labels_at_both_ends_and_between():
    classes = np.array([10, 30, 20])
    index, known = label_positions(classes, np.array([5, 10, 25, 30, 99]))
    assert known.tolist() == [False, True, False, True, False]
    assert classes[index[known]].tolist() == [10, 30]
    assert ((index >= 0) & (index < 3)).all()  # always a valid position


def test_missing_labels_of_every_kind_are_counted():
    # None and pandas' NA (a nullable column) were not missing labels: None
    # became a class of its own, NA raised "boolean value of NA is ambiguous".
    from sklearn_selective._utils._validation import count_missing_labels

    pd = pytest.importorskip("pandas")
    assert count_missing_labels(np.array([1.0, np.nan, 2.0])) == 1
    assert count_missing_labels(np.array(["a", None, np.nan, "b"], dtype=object)) == 2
    nullable = pd.Series(["a", None, "b"], dtype="string").to_numpy()
    assert count_missing_labels(nullable) == 1
    assert count_missing_labels(pd.array([1, None, 3], dtype="Int64").to_numpy()) == 1
    assert count_missing_labels(np.array(["a", "b"])) == 0
    assert count_missing_labels(np.array([0, 1])) == 0
