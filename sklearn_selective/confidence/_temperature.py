"""Temperature scaling as a pre-step of a confidence score function."""

from sklearn.calibration import CalibratedClassifierCV
from sklearn.frozen import FrozenEstimator

from .._utils._sklearn import HasMethods, validate_params


@validate_params(
    {
        "estimator": [
            HasMethods(["fit", "predict_proba"]),
            HasMethods(["fit", "decision_function"]),
        ],
        "X": ["array-like", "sparse matrix"],
        "y": ["array-like"],
        "sample_weight": ["array-like", None],
    },
    prefer_skip_nested_validation=True,
)
def fit_temperature_scaling(estimator, X, y, *, sample_weight=None):
    """Temperature-scale a fitted classifier on held-out data.

    A thin, documented composition of scikit-learn's own tools:
    ``CalibratedClassifierCV(FrozenEstimator(estimator), method="temperature")``
    fitted on ``(X, y)``. The fitted model is left untouched; the returned
    calibrator's ``predict_proba`` gives the scaled probabilities that any
    probability-based CSF (``"msp"``, ``"negative_entropy"``...) then reads.
    Scaling changes how the CSFs rank samples in multiclass problems (for the
    MSP too), so fit it on data not used to train the model.

    To calibrate inside cross-validation instead, wrap the unfitted model:
    ``SelectiveClassifier(CalibratedClassifierCV(model, method="temperature"))``.

    Parameters
    ----------
    estimator : fitted classifier
        Must have ``predict_proba`` or ``decision_function``.

    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Held-out calibration samples.

    y : array-like of shape (n_samples,)
        Their labels.

    sample_weight : array-like of shape (n_samples,), default=None
        Sample weights of the calibration fit.

    Returns
    -------
    calibrated : CalibratedClassifierCV
        The fitted calibrator (a classifier with ``predict_proba``).

    See Also
    --------
    sklearn.calibration.CalibratedClassifierCV : The calibrator used.

    References
    ----------
    .. [1] C. Guo, G. Pleiss, Y. Sun, K. Q. Weinberger. *On Calibration of
       Modern Neural Networks.* ICML 2017.
    .. [2] S. Garg et al. *Leveraging Unlabeled Data to Predict
       Out-of-Distribution Performance.* ICLR 2022 (temperature scaling
       before ATC).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn_selective.confidence import fit_temperature_scaling, msp
    >>> X, y = load_digits(return_X_y=True)
    >>> model = LogisticRegression(max_iter=2000).fit(X[:1000], y[:1000])
    >>> scaled = fit_temperature_scaling(model, X[1000:1400], y[1000:1400])
    >>> msp(scaled.predict_proba(X[1400:])).shape
    (397,)
    """
    calibrator = CalibratedClassifierCV(
        FrozenEstimator(estimator), method="temperature"
    )
    return calibrator.fit(X, y, sample_weight=sample_weight)
