"""The shared layer under the three products and the metrics.

Input validation, parameter checks (the one place that reads scikit-learn's
private APIs), docstring snippets, resampling draws and interval formulas, and
held-out predictions for meta-estimators. It imports nothing else from the
package, so any room may build on it.
"""
