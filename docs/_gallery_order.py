"""The order of the gallery: from the quick start to advanced topics.

Examples not listed here come after the listed ones, by file name.
"""

ORDER = [
    "plot_quick_start.py",
    "plot_model_selection_augrc.py",
    "plot_augrc_vs_aurc.py",
    "plot_aurc_finite_sample.py",
    "plot_uq_metrics_ground_truth.py",
    "plot_sgr_guarantee.py",
    "plot_triage_requirement.py",
    "plot_cascade_triage.py",
    "plot_per_class_thresholds.py",
    "plot_cost_sensitive_abstention.py",
    "plot_novelty_rejection.py",
    "plot_atc_shift.py",
    "plot_monitoring.py",
    "plot_compare_systems.py",
    "plot_metrics_on_dask.py",
    "plot_aurc_weighted_training.py",
]


class GalleryOrder:
    """A sphinx-gallery ``within_subsection_order`` key."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        if filename in ORDER:
            return (0, ORDER.index(filename), filename)
        return (1, 0, filename)
