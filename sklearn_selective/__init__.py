"""sklearn-selective: selective classification for scikit-learn.

Classifiers that may abstain, the metrics that judge them, and label-free
estimates of how they perform after a distribution shift.
"""

from . import confidence, datasets, exceptions, metrics
from ._selective._cascade._cascade_report import CascadeReport
from ._selective._cascade._estimator import SelectiveCascade
from ._selective._classifier import SelectiveClassifier
from ._shift._accuracy_estimates import atc_accuracy, average_confidence_accuracy
from ._shift._atc import ATCEstimator
from ._shift._baselines import AverageConfidenceEstimator, DoCEstimator
from ._shift._difference_of_confidences import doc_accuracy
from ._shift._monitor import PerformanceMonitor
from ._shift._monitoring_result import MonitoringResult
from .metrics._plot._display import RiskCoverageDisplay

__version__ = "0.1.0.dev0"

__all__ = [
    "ATCEstimator",
    "AverageConfidenceEstimator",
    "CascadeReport",
    "DoCEstimator",
    "MonitoringResult",
    "PerformanceMonitor",
    "RiskCoverageDisplay",
    "SelectiveCascade",
    "SelectiveClassifier",
    "__version__",
    "atc_accuracy",
    "average_confidence_accuracy",
    "confidence",
    "datasets",
    "doc_accuracy",
    "exceptions",
    "metrics",
]
