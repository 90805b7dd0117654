"""The quic-geo study's figures: completion time of the largest bulk
transfer and page response time per arm and PER, each seed a point and the
mean with an interval that stays within the runs (``kit.figures``)."""

from __future__ import annotations

import pandas as pd

from ...plotting import pyplot
from ..kit.figures import axis_label, legend, runs_and_mean
from .experiments import NAMES, ORDER

PER_COLORS = ("tab:green", "tab:orange", "tab:red")


def per_arm_figure(obs: pd.DataFrame, kind: str, metric: str, quantity: str, profile: str, **eq):
    """A panel per path: per controller (IW 10) and PER, the runs of
    ``metric`` in the ``kind`` experiments' cells matching ``eq``."""
    ok = obs[(obs["status"] == "ok") & (obs["kind"] == kind) & (obs["iw"] == 10) & obs[metric].notna()]
    for k, v in eq.items():
        ok = ok[ok[k] == v]
    if ok.empty:
        return None
    plt = pyplot()
    paths = sorted(ok["path"].unique(), key=lambda p: float(p.rstrip("mbps")))
    pers = sorted(ok["per"].unique())
    fig, axes = plt.subplots(1, len(paths), figsize=(6 * len(paths), 4.2), squeeze=False)
    for ax, path in zip(axes[0], paths):
        d = ok[ok["path"] == path]
        arms = [a for a in ORDER if ((d["transport"] == a[0]) & (d["cc"] == a[1])).any()]
        for j, per in enumerate(pers):
            for i, (t, c) in enumerate(arms):
                runs = d[(d["transport"] == t) & (d["cc"] == c) & (d["per"] == per)][metric]
                off = (j - (len(pers) - 1) / 2) * 0.25
                runs_and_mean(ax, i + off, runs, color=PER_COLORS[j % len(PER_COLORS)], spread=0.05,
                              label=f"PER {per:g}" if i == 0 else None)
        ax.set_xticks(range(len(arms)), [NAMES[a] for a in arms], rotation=35, ha="right", fontsize=8)
        ax.set_title(f"{path} GEO path")
        ax.set_ylabel(axis_label(quantity, "s"))
        ax.set_yscale("log")
        ax.grid(True, axis="y", alpha=0.3)
    legend(axes[0][-1], profile, fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.tight_layout()
    return fig


def window_figure(obs: pd.DataFrame, profile: str):
    """Goodput of QUIC's 50 MB loss-free transfer against the stream
    window, per controller."""
    ok = obs[(obs["status"] == "ok") & (obs["kind"] == "window") & (obs["per"] == 0.0) & obs["goodput_bps"].notna()]
    if ok.empty:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for c, g in ok.groupby("cc"):
        m = g.groupby("stream_window")["goodput_bps"].mean().sort_index()
        ax.plot(m.index / 1e6, m.to_numpy() / 1e6, marker="o", label=NAMES[("quic", c)])
    ax.axhline(20, color="grey", ls=":", lw=1)
    ax.set_xlabel(axis_label("stream flow-control window", "MB"))
    ax.set_ylabel(axis_label("goodput", "Mb/s"))
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    legend(ax, profile, fontsize="small")
    fig.tight_layout()
    return fig
