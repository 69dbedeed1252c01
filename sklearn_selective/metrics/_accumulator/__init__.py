"""Metrics of data seen in batches: a mergeable state of tie groups."""

from ._accumulator import RiskCoverageAccumulator

__all__ = ["RiskCoverageAccumulator"]
