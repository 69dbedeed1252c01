"""Optional side-by-side with NannyML's CBPE (Confidence-Based Performance Estimation).

NannyML is not a dependency of sklearn-selective; install it in its own
environment (``pip install nannyml statsmodels``: nannyml 0.13.1 imports
statsmodels without declaring it). To keep the project's environment as it
is and still share its numpy, scipy, scikit-learn and pandas (so that both
sides see the same predictions), a venv that reads the project's
site-packages through a ``.pth`` file works (how issue 37's numbers were
made)::

    python -m venv /tmp/nml-venv
    python -c "import site; print(site.getsitepackages()[0])" > project.pth
    mv project.pth /tmp/nml-venv/lib/python3.11/site-packages/
    /tmp/nml-venv/bin/python -m pip install nannyml==0.13.1 statsmodels
    PYTHONPATH=. /tmp/nml-venv/bin/python benchmarks/bench_estimates.py

(pip then installs only what the project's environment lacks; nannyml 0.13.1
accepts numpy 2.4, scipy 1.17, scikit-learn 1.9 and pandas 3.1.)

``available()`` tells whether it imports, and ``cbpe_accuracy`` returns
NannyML's estimated accuracy of a whole target set, fitted on a labelled
reference set, to set beside the method ``"cbpe"`` of ``PerformanceMonitor``
(our re-implementation of its calibration).

NannyML's multiclass CBPE calibrates each class's probability one-vs-rest with
isotonic regression on the reference set (when cross-validation says it helps),
renormalises the rows, and estimates the accuracy as the mean calibrated
probability of the predicted class. Each set is one chunk (``chunk_number=1``,
which NannyML warns is too few for its alert thresholds, unused here). Its
warnings, logging and usage telemetry are off while the function runs.
"""

import logging
import os
import warnings

import numpy as np


def available():
    """Whether ``import nannyml`` works."""
    try:
        import nannyml  # noqa: F401
    except ImportError:
        return False
    return True


def _frame(proba, pred, true=None):
    import pandas as pd

    proba = np.asarray(proba, dtype=float)
    frame = pd.DataFrame({f"proba_{k}": proba[:, k] for k in range(proba.shape[1])})
    frame["y_pred"] = np.asarray(pred, dtype=int)
    if true is not None:
        frame["y_true"] = np.asarray(true, dtype=int)
    return frame


def cbpe_accuracy(
    reference_proba, reference_pred, reference_true, target_proba, target_pred
):
    """NannyML CBPE's estimated accuracy of the whole target set, as one chunk.

    ``*_proba`` are ``(n, k)`` class probabilities, ``*_pred`` and
    ``reference_true`` class indices in ``0..k-1``.
    """
    previous_flag = os.environ.get("NML_DISABLE_USAGE_LOGGING")
    os.environ["NML_DISABLE_USAGE_LOGGING"] = "1"
    logger = logging.getLogger("nannyml")
    previous_level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import nannyml

            n_classes = np.shape(reference_proba)[1]
            estimator = nannyml.CBPE(
                problem_type="classification_multiclass",
                y_pred_proba={k: f"proba_{k}" for k in range(n_classes)},
                y_pred="y_pred",
                y_true="y_true",
                metrics=["accuracy"],
                chunk_number=1,
            )
            estimator.fit(_frame(reference_proba, reference_pred, reference_true))
            result = estimator.estimate(_frame(target_proba, target_pred))
            values = result.filter(period="analysis").to_df()[("accuracy", "value")]
    finally:
        logger.setLevel(previous_level)
        if previous_flag is None:
            del os.environ["NML_DISABLE_USAGE_LOGGING"]
        else:
            os.environ["NML_DISABLE_USAGE_LOGGING"] = previous_flag
    return float(values.iloc[0])
