"""The starlink-trace study's figures: per controller and queue, goodput
and RTT inflation over the replications (each run a point, the mean with an
interval that stays within the runs: ``kit.figures``); the per-second
goodput's distribution; one run per controller over time with the trace's
capacity and the reconfiguration instants; the timeouts' rates after
reconfigurations and elsewhere.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...plotting import pyplot
from ..kit.figures import axis_label, legend, runs_and_mean
from .experiments import NAMES, QUEUES, VARIANTS
from .results import capacity_bps, one_way_s, reconfigurations

QUEUE_COLORS = {"droptail": "tab:blue", "dropfront": "tab:orange", "fq_codel_ecn": "tab:green"}


def _ok(obs: pd.DataFrame) -> pd.DataFrame:
    return obs[(obs["status"] == "ok") & obs["goodput_bps"].notna()] if "goodput_bps" in obs else obs.iloc[0:0]


def per_cell_figure(obs: pd.DataFrame, profile: str):
    """Goodput (left) and the 95th percentile of RTT inflation (right) per
    controller, the three queues side by side; the traces' mean capacity
    over the windows as a line."""
    ok = _ok(obs)
    if ok.empty:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    queues = [q for q in QUEUES if q in set(ok["experiment"])]
    for ax, col, scale, label in ((axes[0], "goodput_bps", 1e-6, axis_label("goodput", "Mb/s")),
                                  (axes[1], "inflation_p95_s", 1e3, axis_label("RTT inflation, 95th percentile",
                                                                               "ms"))):
        for k, q in enumerate(queues):
            for i, v in enumerate(VARIANTS):
                runs = ok[(ok["experiment"] == q) & (ok["variant"] == v)][col] * scale
                runs_and_mean(ax, i + (k - (len(queues) - 1) / 2) * 0.26, runs, color=QUEUE_COLORS[q], spread=0.06,
                              label=QUEUES[q][0] if i == 0 else None)
        ax.set_xticks(range(len(VARIANTS)), [NAMES[v] for v in VARIANTS], rotation=30)
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(True, axis="y", alpha=0.3)
    cap = ok["capacity_bps"].mean() / 1e6
    axes[0].axhline(cap, color="grey", ls="--", lw=1, label="trace capacity (mean)")
    axes[0].set_ylim(0, max(axes[0].get_ylim()[1], cap * 1.1))
    legend(axes[1], profile, fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
    axes[0].legend(fontsize="small", loc="upper right")
    fig.tight_layout()
    return fig


def per_second_figure(obs: pd.DataFrame, profile: str):
    """Box plots of the per-second goodput pooled over each cell's runs."""
    ok = _ok(obs)
    if ok.empty:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(11, 4))
    queues = [q for q in QUEUES if q in set(ok["experiment"])]
    for k, q in enumerate(queues):
        data, pos = [], []
        for i, v in enumerate(VARIANTS):
            g = ok[(ok["experiment"] == q) & (ok["variant"] == v)]
            if g.empty:
                continue
            data.append(np.concatenate([np.asarray(x, dtype=float) for x in g["per_second_bps"]]) / 1e6)
            pos.append(i + (k - (len(queues) - 1) / 2) * 0.26)
        bp = ax.boxplot(data, positions=pos, widths=0.22, whis=(5, 95), showfliers=False, patch_artist=True)
        for b in bp["boxes"]:
            b.set_facecolor(QUEUE_COLORS[q])
            b.set_alpha(0.6)
        ax.plot([], [], color=QUEUE_COLORS[q], lw=6, alpha=0.6, label=QUEUES[q][0])
    ax.set_xticks(range(len(VARIANTS)), [NAMES[v] for v in VARIANTS])
    ax.set_ylabel(axis_label("goodput per second", "Mb/s"))
    ax.set_ylim(bottom=0)
    ax.grid(True, axis="y", alpha=0.3)
    legend(ax, profile, fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.tight_layout()
    return fig


def timeline_figure(examples: dict[str, pd.DataFrame], trace, start_s: float, duration_s: float, profile: str):
    """One run per controller (drop-tail, the first trace, the first
    offset): goodput per second against the trace's capacity per second
    (top), srtt against the path's base RTT (bottom); reconfigurations as
    vertical lines."""
    if not examples:
        return None
    plt = pyplot()
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(11, 6.5), sharex=True)
    secs = np.arange(int(duration_s)) + start_s
    cap = [capacity_bps(trace.capacity, t, t + 1) / 1e6 for t in secs]
    top.stairs(cap, np.append(secs, secs[-1] + 1), color="black", lw=1.2, label="trace capacity")
    t_fine = np.arange(start_s, start_s + duration_s, 0.01)
    bottom.plot(t_fine, (0.01 + 2 * one_way_s(trace, t_fine)) * 1e3, color="black", lw=1.0, label="base RTT")
    for v in VARIANTS:
        s = examples.get(v)
        if s is None:
            continue
        s = s.sort_values("time_s")
        edges = np.append(secs, secs[-1] + 1)
        d = np.interp(edges, s["time_s"], s["delivered_bytes"].fillna(0), left=0.0)
        top.stairs(np.diff(d) * 8 / 1e6, edges, lw=0.9, label=NAMES[v])
        w = (s["time_s"] >= start_s) & (s["time_s"] <= start_s + duration_s)
        bottom.plot(s["time_s"][w], s["srtt_s"][w] * 1e3, lw=0.8, label=NAMES[v])
    for r in reconfigurations(start_s, start_s + duration_s):
        for ax in (top, bottom):
            ax.axvline(r, color="grey", ls=":", lw=0.8)
    top.set_ylabel(axis_label("goodput per second", "Mb/s"))
    bottom.set_ylabel(axis_label("RTT (srtt)", "ms"))
    bottom.set_xlabel(axis_label("trace time", "s"))
    for ax in (top, bottom):
        ax.grid(True, alpha=0.3)
    legend(top, profile, fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.tight_layout()
    return fig


def timeouts_figure(rows: pd.DataFrame, profile: str):
    """Timeouts per minute in the second after a reconfiguration and
    elsewhere, per controller and queue (pooled over the runs)."""
    if rows.empty:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(11, 3.8))
    labels, near, away = [], [], []
    for _, r in rows.iterrows():
        labels.append(f"{NAMES[r['variant']]}\n{QUEUES[r['queue']][0]}")
        near.append(r["timeouts_near_per_min"])
        away.append(r["timeouts_else_per_min"])
    x = np.arange(len(labels))
    ax.bar(x - 0.2, near, 0.4, label="within 1 s after a reconfiguration", color="tab:red")
    ax.bar(x + 0.2, away, 0.4, label="elsewhere", color="tab:gray")
    ax.set_xticks(x, labels, rotation=90, fontsize=7)
    ax.set_ylabel(axis_label("timeouts per minute of exposure", "1/min"))
    ax.grid(True, axis="y", alpha=0.3)
    legend(ax, profile, fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.tight_layout()
    return fig
