"""The leo-geo study's figures."""

from __future__ import annotations

import math

import pandas as pd

from ...plotting import pyplot
from .experiments import NAMES, VARIANTS


def completion_figure(rows: pd.DataFrame):
    if rows.empty:
        return None
    plt = pyplot()
    sizes = sorted(rows["size_mb"].unique())
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 4), squeeze=False)
    for ax, size in zip(axes[0], sizes):
        d = rows[rows["size_mb"] == size]
        for k, path in enumerate(("leo", "geo")):
            p = d[d["path"] == path].set_index("variant")
            xs = [i + (k - 0.5) * 0.38 for i, v in enumerate(VARIANTS)]
            ys = [p.loc[v, "completion_s"] if v in p.index else math.nan for v in VARIANTS]
            es = [p.loc[v, "completion_s_ci"] if v in p.index else math.nan for v in VARIANTS]
            ax.bar(xs, ys, width=0.38, yerr=[0 if e != e else e for e in es], capsize=3, label=path.upper())
        ax.set_xticks(range(len(VARIANTS)), [NAMES[v] for v in VARIANTS], rotation=30)
        ax.set_title(f"{size} MB")
        ax.set_ylabel("completion time (s)")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize="small")
    fig.tight_layout()
    return fig
