"""The risk-coverage curves of a prediction file, saved as an image.

Drawn on a :class:`matplotlib.figure.Figure` outside pyplot: the command line
switches no backend, opens no window and leaves nothing to close.
"""

from pathlib import Path

import numpy as np

from .. import RiskCoverageDisplay
from ..metrics._core._threshold_point import coverage_and_risk_at_threshold
from ._files import InputError

_PLOT_FORMATS = frozenset(
    [
        "eps",
        "jpeg",
        "jpg",
        "pdf",
        "pgf",
        "png",
        "ps",
        "raw",
        "rgba",
        "svg",
        "svgz",
        "tif",
        "tiff",
        "webp",
    ]
)


def check_plot_path(path, need_matplotlib=True):
    """Fail before any work when the plot cannot be saved."""
    if not path:
        return
    path = Path(path)
    if path.is_dir():
        raise InputError(
            f"--plot {path} is a folder; give a file name, e.g. {path / 'curves.png'}"
        )
    if not path.parent.is_dir():
        raise InputError(f"--plot {path}: the folder {path.parent} does not exist")
    if path.suffix.lower().lstrip(".") not in _PLOT_FORMATS:
        raise InputError(
            f"--plot {path}: unknown image type {path.suffix!r}; use .png, .pdf or .svg"
        )
    if need_matplotlib and not has_matplotlib():
        raise InputError(
            "saving a plot needs matplotlib: pip install 'sklearn-selective[plot]'"
        )


def has_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def save_risk_coverage_plot(
    y_true, y_pred, confidence, path, name, threshold=None, **kwargs
):
    """Selective and generalized risk-coverage curves side by side, as a file;
    with ``threshold``, the working point it gives on these data is marked."""
    check_plot_path(path)
    # A figure outside pyplot: no backend switched, no window, nothing to close.
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 4))
    axes = figure.subplots(1, 2)
    for ax, kind in zip(axes, ("selective", "generalized"), strict=True):
        RiskCoverageDisplay.from_predictions(
            y_true,
            y_pred,
            confidence,
            kind=kind,
            ax=ax,
            plot_oracle=True,
            plot_chance_level=True,
            name=name,
            **kwargs,
        )
        if threshold is not None:
            _mark_working_point(ax, kind, y_true, y_pred, confidence, threshold)
        # The curves run along the bottom and the right; the chance line along
        # the top (selective: the legend goes to the middle left) or the
        # diagonal (generalized: the top left, above it, is free).
        ax.legend(loc=_LEGEND_PLACES[kind], fontsize="small")
    figure.tight_layout()
    try:
        figure.savefig(path)
    except OSError as error:  # e.g. no permission
        raise InputError(f"--plot {path}: {error.strerror or error}") from None


_LEGEND_PLACES = {"selective": "center left", "generalized": "upper left"}


def _mark_working_point(ax, kind, y_true, y_pred, confidence, threshold):
    """The coverage and risk of accepting ``confidence >= threshold``."""
    errors = np.asarray(y_true) != np.asarray(y_pred)
    coverage, selective, generalized = coverage_and_risk_at_threshold(
        confidence, errors, threshold
    )
    risk = selective if kind == "selective" else generalized
    ax.plot(
        [coverage],
        [risk],
        "o",
        color="black",
        label="fitted threshold",
    )
