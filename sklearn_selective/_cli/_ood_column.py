"""``evaluate --ood-column``: selective classification with OOD samples (SCOD).

An out-of-distribution sample that is accepted is a failure whatever its
prediction (the FD-Shifts convention). The risk-coverage metrics then run on
the per-sample SCOD loss ``(y_pred != y_true) | ood``, with their bootstrap
intervals; the OOD AUROC and FPR@95TPR say how well the confidence separates
the OOD samples. The labels of OOD rows are never read: they may be anything
(``-1``, ``unknown``, empty).
"""

import numpy as np

from ..metrics import fpr_at_tpr, ood_auroc
from ._files import InputError
from ._report import Row

_TRUE = {"1", "1.0", "true", "yes", "ood"}  # "1.0": pandas writes a float column
_FALSE = {"0", "0.0", "false", "no", "id"}


def add_arguments(parser):
    parser.add_argument(
        "--ood-column",
        default=None,
        metavar="NAME",
        help="CSV column or .npz array marking out-of-distribution samples (1 or "
        "true: OOD, 0 or false: in-distribution); the metrics then count an "
        "accepted OOD sample as a failure (SCOD) and OOD AUROC and FPR@95TPR "
        "are added; the labels of OOD rows are not read (default: none)",
    )


def check_options(options, specs):
    """Fail before reading the file when the options cannot go with SCOD."""
    if options.ood_column is None:
        return
    if options.loss != "zero_one":
        raise InputError(
            f"--ood-column counts an accepted OOD sample as a failure, a 0/1 "
            f"loss; drop --loss {options.loss}"
        )
    for spec in specs:
        if spec.needs_proba:
            raise InputError(
                f"--metrics {spec.name}: ranks by the probability of the true "
                "class, which an OOD sample does not have; drop it with "
                "--ood-column"
            )


def read_indicator(table, name, n_samples):
    """The OOD indicator as booleans; InputError naming a bad value's place."""
    if name not in table.columns:
        raise InputError(
            f"{table.path} has no {name!r} for --ood-column (found: "
            f"{', '.join(table.columns)})"
        )
    values = np.asarray(table.columns[name])
    if values.ndim == 2 and values.shape[1] == 1:
        values = values[:, 0]
    if values.shape != (n_samples,):
        raise InputError(
            f"{table.path}: {name!r} (--ood-column) has shape {values.shape}; give "
            f"one value per sample ({n_samples})"
        )
    if values.dtype.kind == "b":
        return values.astype(bool)
    if values.dtype.kind in "iuf":
        bad = np.flatnonzero(~np.isin(values, (0, 1)))
        if bad.size == 0:
            return values == 1
        shown = values[bad[0]]
    else:
        text = np.char.lower(np.char.strip(values.astype(str)))
        empty = np.flatnonzero(np.isin(text, ("", "nan")))
        if empty.size:  # pandas writes a missing value as an empty field
            raise InputError(
                f"{table.where(name, int(empty[0]))}: a missing value "
                f"({empty.size} in all); every sample must be marked 1 "
                "(out-of-distribution) or 0 (in-distribution)"
            )
        bad = np.flatnonzero(~np.isin(text, sorted(_TRUE | _FALSE)))
        if bad.size == 0:
            return np.isin(text, sorted(_TRUE))
        shown = values[bad[0]]
    raise InputError(
        f"{table.where(name, int(bad[0]))}: {str(shown)!r} is not an OOD "
        "indicator; use 1 (or true) for out-of-distribution and 0 (or false) for "
        "in-distribution"
    )


def with_known_labels(y_true, is_ood, path):
    """``y_true`` with every OOD row's label replaced by an in-distribution
    one (never read: an accepted OOD sample fails whatever its label)."""
    if is_ood.all():
        raise InputError(
            f"{path}: every sample is OOD (--ood-column); the risk needs "
            "in-distribution samples too"
        )
    if not is_ood.any():
        return y_true
    y_true = y_true.copy()
    y_true[is_ood] = y_true[np.flatnonzero(~is_ood)[0]]
    return y_true


def scod_loss(y_true, y_pred, is_ood):
    """1 for a wrong prediction or an OOD sample, else 0."""
    return ((np.asarray(y_true) != np.asarray(y_pred)) | is_ood).astype(np.float64)


def ood_rows(is_ood, confidence):
    """OOD AUROC and FPR@95TPR of the confidence (values without intervals)."""
    if not is_ood.any():
        return []
    y_ood = is_ood.astype(int)
    return [
        Row(
            "OOD AUROC",
            float(ood_auroc(y_ood, confidence)),
            better="higher",
            name="ood_auroc",
        ),
        Row(
            "FPR @ 95 % TPR",
            float(fpr_at_tpr(y_ood, confidence)),
            better="lower",
            name="fpr@95tpr",
        ),
    ]
