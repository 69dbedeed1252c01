"""The risk-coverage core: one sort, tie groups and per-group totals.

Every metric of the package is a short ``*_from_stats`` function of the group
statistics (:class:`~._group_stats.GroupStats`), batched over leading axes so
that the bootstrap evaluates many resamples with the same code. The finite-sample
AURC weights (``_alpha``), the exact integer accumulators of the bootstrap
(``_integer_counts``), partial areas (``_partial``), class-balanced risks
(``_balanced``) and the area options of the public functions (``_area_options``)
are functions of the same statistics; ``_threshold_point`` is the coverage and
risk of one threshold.
"""
