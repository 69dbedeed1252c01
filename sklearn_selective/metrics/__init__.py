"""Metrics of selective classification: risk-coverage curves, the AURC family,
AUGRC, failure AUROC, concordance and working points.

Every metric follows the contract of the project's SPEC: accepted iff
``confidence >= threshold``, tied confidences handled as the expectation over a
random order, sample weights as frequency weights.
"""

from ._accumulator import RiskCoverageAccumulator
from ._areas import (
    augrc,
    aurc,
    e_aurc,
    naurc,
    sele,
)
from ._bootstrap import bootstrap_metric
from ._calibration_error import expected_calibration_error
from ._comparison import compare_confidence_functions, compare_systems
from ._grouped import MetricByGroupResult, metric_by_group
from ._metric_results import (
    BootstrapResult,
    ConfidenceComparisonResult,
    SystemComparisonResult,
)
from ._ood import fpr_at_tpr, ood_auroc
from ._ranking import uq_auc, uq_c_index
from ._risk_coverage import (
    generalized_risk_coverage_curve,
    risk_coverage_curve,
)
from ._scorers import (
    get_scorer,
    get_scorer_names,
    make_coverage_at_risk_scorer,
    make_risk_at_coverage_scorer,
    make_selective_scorer,
)
from ._weights import aurc_weights
from ._working_points import (
    coverage_at_risk,
    selective_risk_at_coverage,
)

__all__ = [
    "BootstrapResult",
    "ConfidenceComparisonResult",
    "MetricByGroupResult",
    "RiskCoverageAccumulator",
    "SystemComparisonResult",
    "augrc",
    "aurc",
    "aurc_weights",
    "bootstrap_metric",
    "compare_confidence_functions",
    "compare_systems",
    "coverage_at_risk",
    "e_aurc",
    "expected_calibration_error",
    "fpr_at_tpr",
    "generalized_risk_coverage_curve",
    "get_scorer",
    "get_scorer_names",
    "make_coverage_at_risk_scorer",
    "make_risk_at_coverage_scorer",
    "make_selective_scorer",
    "metric_by_group",
    "naurc",
    "ood_auroc",
    "risk_coverage_curve",
    "sele",
    "selective_risk_at_coverage",
    "uq_auc",
    "uq_c_index",
]
