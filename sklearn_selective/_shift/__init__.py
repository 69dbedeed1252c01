"""Estimate without labels: accuracy after a shift, and the performance monitor.

``_atc`` holds :class:`ATCEstimator`, ``_baselines`` the average-confidence and
DoC estimators, ``_accuracy_estimates`` the array-level machinery they share
with the monitor and the functional forms, ``_difference_of_confidences`` the
DoC's functional and regression forms. The monitor is
:class:`PerformanceMonitor` (``_monitor``): what it reads from the model
(``_monitored_outputs``), its chunking (``_chunks``), its estimation methods
(``_methods``), the estimates it records per chunk (``_chunk_estimates``), its
input signals (``_signals``), its per-class values (``_class_estimates``) and
its result (``_monitoring_result``, drawn by ``_timeline``). The calibrators
they fit are in ``confidence/_calibrators.py``, the draws in
``_utils/_draws.py``.
"""
