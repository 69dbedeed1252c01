"""The bootstrap machinery behind :func:`bootstrap_metric` and the comparisons.

A resample is a vector of counts (drawn in :mod:`sklearn_selective._utils._draws`).
``_resamples`` evaluates a metric on many resamples (a fast path for this
package's metrics, index-resampled copies for any other), ``_risk_resampler`` is
the fast path of the risk metrics on the once-sorted samples, and ``_paired`` the
paired-comparison core of :func:`compare_confidence_functions` and
:func:`compare_systems`.
"""
