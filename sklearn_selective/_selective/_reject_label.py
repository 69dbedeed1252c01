"""The reject label of :meth:`SelectiveClassifier.predict
<sklearn_selective.SelectiveClassifier.predict>`: its checks against the
classes, and the predictions with it where the classifier abstains.
"""

from numbers import Integral, Real

import numpy as np

_STRING_KINDS = "US"


def _is_string_array(values):
    if values.dtype.kind in _STRING_KINDS:
        return True
    return values.dtype.kind == "O" and all(isinstance(v, str) for v in values)


def _suggest_reject_label(classes):
    if _is_string_array(classes):
        candidates = ("abstain", "rejected", "__abstain__")
        return next(c for c in candidates if c not in set(classes.tolist()))
    if classes.dtype.kind in "iuf":
        return -1 if -1 not in classes else int(np.floor(classes.min())) - 1
    return None


def check_reject_label(reject_label, classes):
    """Raise unless ``reject_label`` has the classes' type and is not a class."""
    if reject_label is None:
        return
    suggestion = _suggest_reject_label(classes)
    advice = (
        f"e.g. reject_label={suggestion!r}"
        if suggestion is not None
        else "or leave reject_label=None and use predict_accept"
    )
    is_number = isinstance(reject_label, Real) and not isinstance(
        reject_label, (bool, np.bool_)
    )
    if classes.dtype.kind == "b":
        problem = "the classes are booleans, so no other label of their type exists"
    elif _is_string_array(classes) and not isinstance(reject_label, str):
        problem = "the classes are strings, so the reject label must be a string"
    elif classes.dtype.kind in "iu" and not (
        isinstance(reject_label, Integral)
        or (is_number and float(reject_label).is_integer())
    ):
        problem = "the classes are integers, so the reject label must be an integer"
    elif classes.dtype.kind == "f" and not is_number:
        problem = "the classes are numbers, so the reject label must be a number"
    elif reject_label in classes.tolist():
        problem = "it is one of the classes"
    else:
        return
    raise ValueError(
        f"reject_label={reject_label!r} is not usable: {problem} (classes_ = "
        f"{classes.tolist()[:10]}{' ...' if len(classes) > 10 else ''}). Choose a "
        f"label of the classes' type that no class uses, {advice}."
    )


def labels_or_reject(classes, index, accepted, reject_label):
    """The class of each index, ``reject_label`` where not accepted (one gather)."""
    label = np.asarray(reject_label)
    if classes.dtype.kind == "O":
        extended = np.empty(len(classes) + 1, dtype=object)
        extended[:-1] = classes
        extended[-1] = reject_label
    else:
        dtype = np.result_type(classes.dtype, label.dtype)  # strings: the longer
        extended = np.append(classes.astype(dtype), label.astype(dtype))
    return extended[np.where(accepted, index, len(classes))]
