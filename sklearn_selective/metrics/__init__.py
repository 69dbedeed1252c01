"""Metrics of selective classification: risk-coverage curves, the AURC family,
AUGRC, failure AUROC, concordance and working points.

Every metric follows the contract of the project's SPEC: accepted iff
``confidence >= threshold``, tied confidences handled as the expectation over a
random order, sample weights as frequency weights.
"""

from ._ranking import uq_auc, uq_c_index
from ._risk_coverage import (
    augrc,
    aurc,
    coverage_at_risk,
    e_aurc,
    generalized_risk_coverage_curve,
    naurc,
    risk_coverage_curve,
    sele,
    selective_risk_at_coverage,
)

__all__ = [
    "augrc",
    "aurc",
    "coverage_at_risk",
    "e_aurc",
    "generalized_risk_coverage_curve",
    "naurc",
    "risk_coverage_curve",
    "sele",
    "selective_risk_at_coverage",
    "uq_auc",
    "uq_c_index",
]
