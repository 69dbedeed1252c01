"""Estimate without labels: accuracy after a shift, and the performance monitor.

``_atc`` holds :class:`ATCEstimator`, ``_baselines`` the average-confidence and
DoC estimators, ``_functions`` the array-level machinery they share with the
monitor and the functional forms. The monitor is :class:`PerformanceMonitor`
(``_monitor``), its chunking (``_chunks``), its estimation methods
(``_methods``) and its result (``_monitoring_result``).
"""
