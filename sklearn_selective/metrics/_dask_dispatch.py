"""The metric functions on Dask collections: the call goes to the cluster.

:func:`dispatch_dask` decorates the public metric functions of the tie groups:
when an argument is a Dask collection, :func:`dask_metric` computes the
accumulator state of all the partitions on the cluster (:mod:`._dask`) and the
metric in the last task, and the client shows its warnings.
"""

import functools
import inspect
import sys
import warnings

from sklearn.exceptions import UndefinedMetricWarning

from .._utils._warnings import warn
from ._accumulator import RiskCoverageAccumulator
from ._accumulator._metrics import METRICS
from ._dask import SPLIT_EVERY, accumulate_dask, import_dask, is_dask_input

# The OOD metrics take (y_ood, confidence): the OOD indicator is their loss.
_OOD_METRICS = ("ood_auroc", "fpr_at_tpr")


def _evaluate(state, metric, kwargs):
    """The metric of the final state, and the warnings it gave (shown to the
    user by the client, not left in a worker's log)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UndefinedMetricWarning)
        value = state.compute(metric, **kwargs)
    return value, [(str(w.message), w.category) for w in caught]


def dask_metric(
    metric,
    y_true,
    y_pred,
    confidence,
    *,
    loss="zero_one",
    sample_weight=None,
    labels=None,
    max_groups=None,
    split_every=SPLIT_EVERY,
    **kwargs,
):
    """``metric`` (a name of :meth:`RiskCoverageAccumulator.compute`) of Dask
    collections, computed on the cluster; what the metric function returns on
    the same data in memory. The OOD metrics take ``y_ood`` as ``loss`` (and
    None for the labels), as the public functions dispatch them.

    Returns
    -------
    value : float or tuple of ndarray
    """
    dask = import_dask()
    if metric not in METRICS:
        RiskCoverageAccumulator().compute(metric)  # raises, naming the metrics
    METRICS[metric].options(kwargs)  # bad keywords fail before the cluster runs
    state = accumulate_dask(
        RiskCoverageAccumulator(max_groups=max_groups),
        y_true,
        y_pred,
        confidence,
        loss=loss,
        sample_weight=sample_weight,
        labels=labels,
        split_every=split_every,
    )
    result = dask.delayed(_evaluate, pure=True)(state, metric, kwargs)
    ((value, caught),) = dask.compute(result)
    for message, category in caught:
        warn(message, category)
    return value


def dispatch_dask(metric):
    """Decorator of the public metric function named ``metric``: when an
    argument is a Dask collection, the call goes to :func:`dask_metric`.

    Free when Dask was never imported (one dictionary look-up). Place it
    outside ``@validate_params``. The OOD functions ``(y_ood, confidence)``
    pass ``y_ood`` as the loss.
    """

    def decorate(function):
        parameters = inspect.signature(function)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if "dask" not in sys.modules or not is_dask_input(*args, *kwargs.values()):
                return function(*args, **kwargs)
            arguments = parameters.bind(*args, **kwargs).arguments
            if metric in _OOD_METRICS:
                arguments["loss"] = arguments.pop("y_ood")
                arguments["y_true"] = arguments["y_pred"] = None
            positional = [arguments.pop(name) for name in ("y_true", "y_pred")]
            confidence = arguments.pop("confidence")
            return dask_metric(metric, *positional, confidence, **arguments)

        return wrapper

    return decorate
