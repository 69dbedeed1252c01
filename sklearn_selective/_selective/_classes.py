"""Labels to class indices: the one mapping of the abstain room."""

import numpy as np


def class_index(classes, labels):
    """Index in ``classes`` of each label; ``None`` for unknown labels.

    ``classes`` need not be sorted (a ``FrozenEstimator``'s classes are kept in
    the model's order).
    """
    order = np.argsort(classes, kind="stable")
    sorted_classes = classes[order]
    position = np.searchsorted(sorted_classes, labels)
    position = np.minimum(position, len(classes) - 1)
    if not np.array_equal(sorted_classes[position], labels):
        return None
    return order[position]
