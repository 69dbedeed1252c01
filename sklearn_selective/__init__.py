"""sklearn-selective: selective classification for scikit-learn.

Classifiers that may abstain, the metrics that judge them, and label-free
estimates of how they perform after a distribution shift.
"""

from . import confidence, datasets, metrics
from ._accuracy import (
    ATCEstimator,
    AverageConfidenceEstimator,
    DoCEstimator,
    atc_accuracy,
    average_confidence_accuracy,
    doc_accuracy,
)
from ._monitor import PerformanceMonitor
from ._monitor_result import MonitoringResult
from ._selective._classifier import SelectiveClassifier
from .metrics._plot._display import RiskCoverageDisplay

__version__ = "0.1.0.dev0"

__all__ = [
    "ATCEstimator",
    "AverageConfidenceEstimator",
    "DoCEstimator",
    "MonitoringResult",
    "PerformanceMonitor",
    "RiskCoverageDisplay",
    "SelectiveClassifier",
    "__version__",
    "atc_accuracy",
    "average_confidence_accuracy",
    "confidence",
    "datasets",
    "doc_accuracy",
    "metrics",
]
