"""``cv_results_``: the policy fitted on each fold's held-out predictions alone,
with the mean and spread over the folds."""

import warnings

import numpy as np
from sklearn.utils import Bunch

from .._utils._warnings import warn
from ..exceptions import GuaranteeNotMetWarning, UndefinedMetricWarning
from ._policies._per_class import FALLBACK_WARNING


def fold_results(policy, validation, fold_sizes):
    """The prepared ``policy`` fitted on each fold of the pooled ``validation``
    predictions (consecutive blocks of ``fold_sizes``), as ``cv_results_``."""
    ends = np.cumsum(fold_sizes)
    fits = []
    with warnings.catch_warnings():
        # The pooled fit has warned already about what the data cannot meet.
        warnings.simplefilter("ignore", GuaranteeNotMetWarning)
        warnings.filterwarnings("ignore", FALLBACK_WARNING, UserWarning)
        for start, end in zip(ends - fold_sizes, ends, strict=True):
            fold = Bunch(
                **{
                    key: None if value is None else value[start:end]
                    for key, value in validation.items()
                }
            )
            fits.append(policy.fit(fold)[0])
    results = cv_results(fits, fold_sizes)
    _warn_undefined_risks(results["risk"])
    return results


def cv_results(fold_fits, fold_sizes):
    """Per-fold thresholds, coverages and risks (bounds and costs where the
    policy gives them), with their mean and spread."""
    results = {"n_samples": np.asarray(fold_sizes)}
    names = ["threshold", "coverage", "risk", "risk_bound", "cost"]
    columns = {
        name: [getattr(fit, name) for fit in fold_fits]
        for name in names
        if getattr(fold_fits[0], name) is not None
    }
    with np.errstate(invalid="ignore"):
        for name, values in columns.items():
            values = np.asarray(values, dtype=np.float64)
            results[name] = values
            results[f"mean_{name}"] = np.mean(values, axis=0)
            results[f"std_{name}"] = np.std(values, axis=0)
    return results


def _warn_undefined_risks(risk):
    undefined = np.isnan(risk)
    if not undefined.any():
        return
    per_class = " of a class" if undefined.ndim == 2 else ""
    warn(
        f"cv_results_['risk'] is undefined (nan) in {undefined.sum()} of "
        f"{undefined.size} fold fits, where the fold's threshold accepts no "
        f"sample{per_class}; mean_risk and std_risk are nan there, as "
        "scikit-learn's cv_results_ keep a non-finite fold score. Use "
        "fewer folds (larger held-out folds) or read the risk of the "
        "pooled fit (risk_).",
        UndefinedMetricWarning,
    )
