"""Cost matrices and rejection costs, checked once for every product."""

import numpy as np


def _as_costs(values, name):
    """``values`` as float64, or an error naming ``name`` and the entry that is
    not a number."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"{name} must hold numbers (costs); {error}. Pass a numeric array "
            "aligned with classes_."
        ) from None


def check_costs(cost_matrix, rejection_cost, classes):
    """Cost matrix ``(k, k)`` and rejection costs ``(k,)`` as float64 arrays."""
    n_classes = len(classes)
    if callable(cost_matrix):
        cost_matrix = cost_matrix(classes)
    for name, values in (
        ("cost_matrix", cost_matrix),
        ("rejection_cost", rejection_cost),
    ):
        if np.iscomplexobj(values):
            raise ValueError(
                f"{name} holds complex numbers; costs must be real (the imaginary "
                "part would be dropped). Pass real values, e.g. np.real(costs)."
            )
    matrix = _as_costs(cost_matrix, "cost_matrix")
    if matrix.shape != (n_classes, n_classes):
        raise ValueError(
            f"cost_matrix must have shape (n_classes, n_classes) = ({n_classes}, "
            f"{n_classes}), rows and columns aligned with classes_ = "
            f"{classes.tolist()}; got shape {matrix.shape}."
        )
    if rejection_cost is None:
        raise ValueError(
            "cost_matrix needs rejection_cost, the cost of abstaining (a scalar or "
            "one value per true class); e.g. rejection_cost=0.3."
        )
    rejection = _as_costs(rejection_cost, "rejection_cost")
    if rejection.ndim == 0:
        rejection = np.full(n_classes, float(rejection))
    if rejection.shape != (n_classes,):
        raise ValueError(
            "rejection_cost must be a scalar or have one value per class "
            f"({n_classes}, aligned with classes_); got shape {rejection.shape}."
        )
    for name, values in (("cost_matrix", matrix), ("rejection_cost", rejection)):
        if not np.isfinite(values).all() or (values < 0).any():
            raise ValueError(f"{name} must hold finite, non-negative costs.")
    return matrix, rejection
