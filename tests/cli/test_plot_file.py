"""The risk-coverage plot of a prediction file (_cli/_plot_file)."""

import numpy as np
import pytest

from sklearn_selective._cli._plot_file import save_risk_coverage_plot


def test_saving_a_plot_leaves_matplotlib_as_it_found_it(tmp_path):
    """No backend switched, no pyplot figure left open (a library leaves the
    process as it found it)."""
    matplotlib = pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    backend, figures = matplotlib.get_backend(), plt.get_fignums()
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 2, 50)
    y_pred = np.where(rng.random(50) < 0.8, y_true, 1 - y_true)
    path = tmp_path / "curves.png"
    save_risk_coverage_plot(
        y_true, y_pred, rng.random(50), str(path), "msp", threshold=0.5
    )
    assert path.stat().st_size > 0
    assert matplotlib.get_backend() == backend
    assert plt.get_fignums() == figures
