"""The timeline of a monitoring result: drawn (:meth:`MonitoringResult.plot`;
matplotlib is imported only here, when a timeline is drawn) or as lines of
text (its ``repr``)."""

import numpy as np

from ._chunk_inputs import top_drifted


def _alerted(result, signal):
    """Whether ``signal`` raised each chunk's alert."""
    return np.array([signal in names for names in result.alerted_by], dtype=bool)


def plot_timeline(result, ax=None):
    """Draw ``result``'s timeline on ``ax`` (a new figure when None); return
    ``(ax, coverage_ax)``."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(9, 4))
    x = np.arange(result.n_chunks)
    for name, color in (("accuracy", "C0"), ("selective_accuracy", "C1")):
        estimate = getattr(result, name)
        label = name.replace("_", " ")
        ax.plot(x, estimate, color=color, marker="o", ms=3, label=f"estimated {label}")
        ax.fill_between(
            x,
            getattr(result, f"{name}_lower"),
            getattr(result, f"{name}_upper"),
            color=color,
            alpha=0.2,
            linewidth=0,
        )
        band = getattr(result, f"{name}_band")
        ax.plot(x, band, color=color, linestyle=":", linewidth=1)
        realised = getattr(result, f"realised_{name}")
        if realised is not None:
            ax.plot(
                x,
                realised,
                color=color,
                marker="s",
                linestyle="none",
                mfc="none",
                label=f"realised {label}",
            )
        alerts = _alerted(result, name) & ~np.isnan(estimate)
        ax.plot(x[alerts], estimate[alerts], "x", color="red", ms=8)
    inputs = _alerted(result, "novel_share") | _alerted(result, "drift_score")
    ax.plot(
        x[inputs],
        np.ones(inputs.sum()),
        "v",
        color="red",
        ms=7,
        transform=ax.get_xaxis_transform(),
        clip_on=False,
        label="input signal alert",
    )
    ax.plot([], [], "x", color="red", label="estimate alert")
    _mark_inputs(result, ax)
    ax.set_xlabel("chunk")
    ax.set_ylabel("accuracy")
    coverage_ax = ax.twinx()
    coverage_ax.plot(x, result.coverage, color="grey", linewidth=1, alpha=0.7)
    coverage_ax.set_ylabel("coverage (grey line)")
    coverage_ax.set_ylim(0, 1.05)
    ax.set_zorder(coverage_ax.get_zorder() + 1)  # accuracies in front
    ax.patch.set_visible(False)
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.15),
        ncol=3,
        fontsize="small",
        frameon=False,
    )
    return ax, coverage_ax


def _mark_inputs(result, ax):
    """Grey hatched spans over the chunks whose estimates are not reliable,
    and the names of each chunk's most drifted features along the bottom."""
    reliable = result.estimate_reliable
    if reliable is not None:
        for rank, c in enumerate(np.flatnonzero(~reliable.astype(bool))):
            ax.axvspan(
                c - 0.5,
                c + 0.5,
                facecolor="grey",
                edgecolor="grey",
                alpha=0.2,
                hatch="//",
                linewidth=0,
                label="estimate not reliable" if rank == 0 else None,
            )
    drifts = result.drifted_features
    for c in range(result.n_chunks if drifts is not None else 0):
        names = top_drifted(drifts[c])
        if names:
            ax.annotate(
                ", ".join(names),
                (c, 0.02),
                xycoords=("data", "axes fraction"),
                rotation=90,
                ha="center",
                va="bottom",
                fontsize="x-small",
                color="dimgrey",
            )


def timeline_rows(result, limit):
    """The first ``limit`` chunks of ``result`` as lines of text (its
    ``repr``), after a header."""
    header = (
        f"{'chunk':>5} {'n':>6} {'coverage':>8} {'accuracy':>22} "
        f"{'selective accuracy':>22} {'novel':>6} {'drift':>6} {'alert':>5}"
    )
    lines = [header]
    for c in range(min(limit, result.n_chunks)):
        accuracy = _cell(
            result.accuracy, result.accuracy_lower, result.accuracy_upper, c
        )
        selective = _cell(
            result.selective_accuracy,
            result.selective_accuracy_lower,
            result.selective_accuracy_upper,
            c,
        )
        flags = ("!" if result.alert[c] else "") + ("*" if result.partial[c] else "")
        if result.estimate_reliable is not None and not result.estimate_reliable[c]:
            flags += "?"
        lines.append(
            f"{c:>5} {result.n_samples[c]:>6} {result.coverage[c]:>8.3f} "
            f"{accuracy:>22} {selective:>22} {result.novel_share[c]:>6.3f} "
            f"{result.drift_score[c]:>6.3f} {flags:>5}"
        )
    if result.n_chunks > limit:
        lines.append(f"... {result.n_chunks - limit} more chunks")
    return lines


def _cell(estimate, lower, upper, c):
    if np.isnan(estimate[c]):
        return "nan"
    return f"{estimate[c]:.3f} [{lower[c]:.3f}, {upper[c]:.3f}]"
