"""The pep study's figures: per path, a metric of every TCP controller and
QUIC under each set-up (end to end, one PEP, the pair with a Hybla or the
flow's own leg), each seed a point and the mean with an interval that
stays within the runs (``kit.figures``)."""

from __future__ import annotations

import pandas as pd

from ...plotting import pyplot
from ..kit.figures import axis_label, legend, runs_and_mean
from .experiments import CC_NAMES, QUIC_CC, SETUP_NAMES, SETUPS, TCP_CCS

SETUP_COLORS = {"e2e": "tab:grey", "pep1": "tab:blue", "pep2": "tab:green", "pep2same": "tab:olive"}


def setup_figure(obs: pd.DataFrame, kind: str, metric: str, quantity: str, profile: str, **eq):
    """A panel per path: per controller and set-up, the runs of ``metric``
    in the ``kind`` experiments' cells matching ``eq``."""
    ok = obs[(obs["status"] == "ok") & (obs["kind"] == kind) & obs[metric].notna()]
    for k, v in eq.items():
        ok = ok[ok[k] == v]
    if ok.empty:
        return None
    plt = pyplot()
    paths = sorted(ok["path"].unique())
    fig, axes = plt.subplots(1, len(paths), figsize=(6 * len(paths), 4.2), squeeze=False)
    ccs = [c for c in (*TCP_CCS, QUIC_CC) if (ok["cc"] == c).any()]
    for ax, path in zip(axes[0], paths):
        d = ok[ok["path"] == path]
        for i, cc in enumerate(ccs):
            for j, st in enumerate(SETUPS):
                runs = d[(d["cc"] == cc) & (d["setup"] == st)][metric]
                if runs.empty:
                    continue
                runs_and_mean(ax, i + (j - 1.5) * 0.2, runs, color=SETUP_COLORS[st], spread=0.04,
                              label=SETUP_NAMES[st] if i == 0 else None)
        ax.set_xticks(range(len(ccs)), [CC_NAMES[c] for c in ccs], rotation=25, ha="right", fontsize=8)
        ax.set_title(f"{path} path")
        ax.set_ylabel(axis_label(quantity, "s"))
        ax.set_ylim(bottom=0)
        ax.grid(True, axis="y", alpha=0.3)
    legend(axes[0][-1], profile, fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.tight_layout()
    return fig
