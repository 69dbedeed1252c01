"""The timeline of a monitoring result."""

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.linear_model import LogisticRegression

from sklearn_selective import PerformanceMonitor


def test_timeline_marks_the_alerts_of_each_signal():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(max_iter=1000).fit(X[::2], y[::2])
    monitor = PerformanceMonitor(model, n_resamples=10, random_state=0)
    monitor = monitor.fit(X[1::2], y[1::2])
    result = monitor.estimate(np.r_[X, X[:, ::-1] * 3], n_chunks=6)
    ax, coverage_ax = result.with_labels(np.r_[y, y]).plot()
    by_label = {line.get_label(): line for line in ax.get_lines()}
    inputs = [("novel_share" in a) or ("drift_score" in a) for a in result.alerted_by]
    assert 0 < sum(inputs) < result.n_chunks
    assert len(by_label["input signal alert"].get_xdata()) == sum(inputs)
    crosses = [
        line
        for line in ax.get_lines()
        if line.get_marker() == "x" and line.get_xdata().size
    ]
    estimate_alerts = sum(
        ("accuracy" in a) + ("selective_accuracy" in a) for a in result.alerted_by
    )
    assert sum(line.get_xdata().size for line in crosses) == estimate_alerts
    assert coverage_ax.get_ylim() == (0, 1.05)
    plt.close("all")
