"""The XFWA study's figures: Fig. 5 and 17 (overall performance), the
alpha and RTT-error sweeps (Figs. 11, 14), segment numbers over time
(Figs. 6-8, 12, 16), the bottleneck's queue and throughput (Figs. 9, 10),
the ON-OFF sweep (Fig. 15) and each flow's packets (Fig. 13)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...plotting import pyplot
from ..kit.figures import axis_label, legend
from .experiments import BOTTLENECK, LINK_TYPES

COLORS = {"tcp": "tab:red", "xfwa": "tab:blue"}
#: The paper's three measures of a run: column, title, axis label.
MEASURES = (("utilization", "link utilisation", axis_label("utilisation", "fraction of the bottleneck's capacity")),
            ("loss_rate", "loss rate", axis_label("loss rate", "fraction of packets offered")),
            ("fairness", "fairness index", "Jain's index of goodput / fair share (1: fair)"))


def _scheme(arm: str) -> str:
    return "NewReno" if arm == "tcp" else "XFWA"


def _panel(ax, title: str, xlabel: str, ylabel: str) -> None:
    """A measure's panel: its title, both axes' labels, a grid."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.grid(True, axis="y" if xlabel.startswith("link type") else "both", alpha=0.3)


def fig5(cells: pd.DataFrame, experiment: str, schedules: tuple[str, ...], profile: str):
    """Utilisation, loss rate and fairness per link type x scenario, TCP
    beside XFWA (Fig. 5; Fig. 17 for different RTTs)."""
    c = cells[(cells["experiment"] == experiment) & cells["scheme"].isin(["tcp", "xfwa"])]
    if c.empty:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    links = [lk for lk in LINK_TYPES if lk in set(c["link"])]
    labels = [f"{lk}/{s}" for lk in links for s in schedules if ((c["link"] == lk) & (c["schedule"] == s)).any()]
    x = np.arange(len(labels))
    for ax, (m, title, ylabel) in zip(axes, MEASURES):
        for k, scheme in enumerate(("tcp", "xfwa")):
            v = [c[(c["scheme"] == scheme) & (c["link"] + "/" + c["schedule"] == lab)][m].mean() for lab in labels]
            ax.bar(x + (k - 0.5) * 0.4, v, 0.4, color=COLORS[scheme], label=_scheme(scheme))
        ax.set_xticks(x)
        ax.set_xticklabels(labels, rotation=90, fontsize=7)
        _panel(ax, title, "link type / flow-count scenario", ylabel)
    legend(axes[0], profile, fontsize=8)
    if experiment == "equal":
        axes[0].set_ylim(0.85, 1.0)
        axes[2].set_ylim(0.5, 1.02)
    fig.tight_layout()
    return fig


def sweep_figure(cells: pd.DataFrame, experiment: str, xlabel: str, profile: str):
    """Utilisation, loss and fairness against the swept value (Figs. 11, 14)."""
    c = cells[cells["experiment"] == experiment]
    x = c[c["scheme"] == "xfwa"].sort_values("value")
    t = c[c["scheme"] == "tcp"]
    if x.empty:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.3))
    for ax, (m, title, ylabel) in zip(axes, MEASURES):
        ax.plot(x["value"], x[m], "o-", color=COLORS["xfwa"], label="XFWA")
        if not t.empty:
            ax.axhline(t[m].mean(), color=COLORS["tcp"], ls="--", label="NewReno")
        _panel(ax, title, xlabel, ylabel)
    legend(axes[0], profile, fontsize=8)
    fig.tight_layout()
    return fig


def sequence_figure(results: dict[str, object], title: str, profile: str):
    """Per-flow segment numbers over time (top) and each flow's throughput
    over 500 ms windows (bottom), NewReno beside XFWA (Figs. 6-8, 12, 16)."""
    if not results:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(2, len(results), figsize=(5.5 * len(results), 6.2), sharex=True, squeeze=False)
    for k, (arm, res) in enumerate(results.items()):
        s = res.series
        top, bottom = axes[0][k], axes[1][k]
        for name, g in s.groupby("flow_name", sort=False):
            t, b = g["time_s"].to_numpy(), g["delivered_bytes"].to_numpy(dtype=float)
            line, = top.plot(t, b / 1000, lw=1, label=name)
            w = 5  # samples of 100 ms
            if len(t) > w:
                bottom.plot(t[w:], (b[w:] - b[:-w]) * 8 / (t[w:] - t[:-w]) / 1e3, lw=0.8, color=line.get_color())
        top.set_title(f"({'a' if arm == 'tcp' else 'b'}) {_scheme(arm)}: {title}")
        bottom.set_xlabel(axis_label("time", "s"))
        for ax in (top, bottom):
            ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel(axis_label("delivered", "1000-byte segments"))
    axes[1][0].set_ylabel(axis_label("throughput, 500 ms", "kb/s"))
    if len(s["flow_name"].unique()) <= 8:
        legend(axes[0][0], profile, fontsize=7, ncol=2)
    else:
        axes[0][0].text(0.02, 0.95, f"satcp, profile {profile}", transform=axes[0][0].transAxes, fontsize=7,
                        va="top")
    fig.tight_layout()
    return fig


def link_figure(results: dict[str, object], what: str, rate_bps: float, profile: str):
    """The bottleneck's queue (Fig. 9) or throughput per 100 ms (Fig. 10)."""
    if not results:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 3.3))
    for arm, res in results.items():
        ls = res.link_series[res.link_series["link_name"] == BOTTLENECK]
        t = ls["time_s"].to_numpy()
        if what == "queue":
            y = ls["queue_packets"].to_numpy()
            ax.set_ylabel(axis_label("bottleneck queue", "packets"))
        else:
            # bytes accepted less bytes waiting: what left the queue
            sent = (ls["bytes_tx"] - ls["queue_bytes"]).to_numpy(dtype=float)
            y = np.r_[np.nan, np.diff(sent) * 8 / np.diff(t)] / rate_bps
            ax.set_ylabel(axis_label("throughput per 100 ms", "fraction of capacity"))
        ax.plot(t, y, color=COLORS["tcp" if arm == "tcp" else "xfwa"], lw=1, label=_scheme(arm))
    ax.set_xlabel(axis_label("time", "s"))
    ax.grid(True, alpha=0.3)
    legend(ax, profile, fontsize=8)
    fig.tight_layout()
    return fig


def only_flows(res, names: set[str]):
    """The result with its flow series cut to the named flows."""
    res.series = res.series[res.series["flow_name"].isin(names)]
    return res


def onoff_figure(cells: pd.DataFrame, profile: str):
    """Utilisation and loss against the ON-OFF count (Fig. 15)."""
    c = cells[cells["experiment"] == "onoff"]
    if c.empty:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.3))
    for ax, (m, title, ylabel) in zip(axes, MEASURES[:2]):
        for scheme in ("tcp", "xfwa"):
            s = c[c["scheme"] == scheme].sort_values("onoff")
            ax.plot(s["onoff"], s[m], "o-", color=COLORS[scheme], label=_scheme(scheme))
        _panel(ax, title, axis_label("ON-OFF TCP sources", "count"), ylabel)
    legend(axes[0], profile, fontsize=8)
    fig.tight_layout()
    return fig


def per_flow_figure(obs_runs: dict[str, dict[str, object]], profile: str):
    """Each flow's packets delivered, per link type (Fig. 13)."""
    if not obs_runs:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(1, len(obs_runs), figsize=(3.6 * len(obs_runs), 3.2), squeeze=False)
    for ax, (lk, res_by_arm) in zip(axes[0], obs_runs.items()):
        for k, (arm, res) in enumerate(res_by_arm.items()):
            last = res.series.groupby("flow", sort=True)["delivered_bytes"].max() / 1000
            ax.bar(np.arange(len(last)) + (k - 0.5) * 0.4, last.to_numpy(), 0.4, color=COLORS[arm],
                   label=_scheme(arm))
        ax.set_title(lk)
        ax.set_xlabel("flow (RTT rises in groups)")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].set_ylabel(axis_label("packets delivered in 20 s", "1000-byte packets"))
    legend(axes[0][0], profile, fontsize=8)
    fig.tight_layout()
    return fig
