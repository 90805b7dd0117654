"""The leo-geo study's figure: completion time per variant and size, LEO
beside GEO, each start time a point and the mean with an interval that
stays within the runs (``kit.figures``)."""

from __future__ import annotations

import pandas as pd

from ...plotting import pyplot
from ..kit.figures import axis_label, legend, runs_and_mean
from .experiments import NAMES, VARIANTS

PATH_COLORS = {"leo": "tab:blue", "geo": "tab:orange"}


def completion_figure(obs: pd.DataFrame, profile: str):
    """A panel per transfer size: per variant, LEO's and GEO's runs (their
    completion times over the start times) and means."""
    ok = obs[(obs["status"] == "ok") & obs["completion_s"].notna()]
    if ok.empty:
        return None
    plt = pyplot()
    sizes = sorted(ok["size_mb"].unique())
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.4 * len(sizes), 4), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        d = ok[ok["size_mb"] == size]
        for k, path in enumerate(("leo", "geo")):
            for i, v in enumerate(VARIANTS):
                runs = d[(d["experiment"] == path) & (d["variant"] == v)]["completion_s"]
                runs_and_mean(ax, i + (k - 0.5) * 0.36, runs, color=PATH_COLORS[path], spread=0.08,
                              label=path.upper() if i == 0 else None)
        ax.set_xticks(range(len(VARIANTS)), [NAMES[v] for v in VARIANTS], rotation=30)
        ax.set_title(f"{size:g} MB transfer")
        ax.set_ylabel(axis_label("completion time", "s"))
        ax.set_ylim(bottom=0)
        ax.grid(True, axis="y", alpha=0.3)
    legend(axes[0][-1], profile, fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.tight_layout()
    return fig
