"""Labels to class indices for the abstain room, by the package's one mapping
(:func:`sklearn_selective._utils._validation.label_positions`)."""

from .._utils._validation import label_positions


def class_index(classes, labels):
    """Index in ``classes`` of each label; ``None`` for unknown labels.

    ``classes`` need not be sorted (a ``FrozenEstimator``'s classes are kept in
    the model's order).
    """
    index, known = label_positions(classes, labels)
    return index if known.all() else None
