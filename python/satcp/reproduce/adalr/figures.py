"""Figures of the ADaLR reproduction, redrawn from the store (matplotlib,
Agg). Each function returns a matplotlib figure or None when it has no data;
the report embeds them. Nothing here types a number: every value comes from
the observation frame, the published CSV or a deterministic re-run.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from ...plotting import pyplot
from ..kit import data
from ..kit.figures import axis_label, bootstrap_interval, legend, means_with_intervals
from .experiments import VARIANT_NAMES
from .results import LABELS

#: Re-runs for time series sample every this many seconds ...
TRACE_SAMPLE_S = 1.0
#: ... and rates are averaged over this window (the thesis' 5 s collection interval).
TRACE_WINDOW_S = 5.0

_ORDER = ("adalr-sack", "adalr-newreno", "sack", "newreno", "mixed")
_STYLE = {"adalr-sack": ("tab:red", "-"), "adalr-newreno": ("tab:orange", "--"),
          "sack": ("tab:blue", "-"), "newreno": ("tab:cyan", "--"), "mixed": ("tab:gray", "-")}


def _variants(df: pd.DataFrame) -> list[str]:
    present = set(df["variant"].dropna())
    return [v for v in _ORDER if v in present] + sorted(present - set(_ORDER))


def _dack_label(d) -> str:
    return "delayed ACK enabled" if bool(d) else "delayed ACK disabled"


def metric_vs_x(obs: pd.DataFrame, metric: str, x_label: str, log_x: bool, profile: str,
                published: pd.DataFrame | None = None, scale: float = 1.0):
    """Per delayed-ACK setting a panel: the metric's mean against x, one
    line per variant, each seed's run a point and the mean's interval
    within them (``kit.figures``); the thesis' points (when published) as
    black crosses."""
    ok = obs[(obs["status"] == "ok") & obs[metric].notna() & obs["x"].notna()]
    if ok.empty:
        return None
    plt = pyplot()
    dacks = sorted(ok["delayed_ack"].unique(), reverse=True)
    fig, axes = plt.subplots(1, len(dacks), figsize=(5.4 * len(dacks), 3.8), squeeze=False)
    for ax, d in zip(axes[0], dacks):
        sub = ok[ok["delayed_ack"] == d]
        for v in _variants(sub):
            g = sub[sub["variant"] == v]
            xs = sorted(g["x"].unique())
            color, ls = _STYLE.get(v, (None, "-"))
            means_with_intervals(ax, [x * scale for x in xs], [g[g["x"] == x][metric] for x in xs], color=color,
                                 ls=ls, label=VARIANT_NAMES.get(v, v))
        if published is not None:
            p = published[(published["metric"] == metric) & (published["delayed_ack"] == d)]
            if not p.empty:
                ax.plot(p["x"] * scale, p["value"], "kx", ms=8, label="thesis")
        if log_x:
            ax.set_xscale("log")
            if metric == "response_s":
                # response times span 30x over the BER range
                ax.set_yscale("log")
        ax.set_xlabel(x_label)
        ax.set_ylabel(LABELS.get(metric, metric))
        ax.set_title(_dack_label(d), fontsize=9)
        ax.grid(True, alpha=0.3)
        legend(ax, profile, fontsize=7)
    return fig


def published_vs_ours_bars(obs: pd.DataFrame, published: pd.DataFrame, title: str, profile: str):
    """Per-connection average throughput, ours beside the thesis', one
    group of bars per connection (an interval within the runs where there
    are several; the fairness runs are deterministic, one each)."""
    if published.empty:
        return None
    plt = pyplot()
    flows = list(published["flow"])
    ours, half = [], []
    for _, row in published.iterrows():
        sel = obs[(obs["status"] == "ok") & (obs["flow"] == row["flow"]) & (obs["variant"] == row["variant"])]
        mean, lo, hi = bootstrap_interval(sel[row["metric"]])
        ours.append(mean)
        half.append((0.0, 0.0) if not np.isfinite(hi) else (mean - lo, hi - mean))
    if not np.isfinite(ours).any():
        return None
    idx = np.arange(len(flows))
    fig, ax = plt.subplots(figsize=(8, 3.6))
    ax.bar(idx - 0.2, published["value"], 0.4, label="thesis", color="#bbbbbb")
    ax.bar(idx + 0.2, ours, 0.4, yerr=np.array(half).T if any(max(h) > 0 for h in half) else None, capsize=3,
           label="satcp", color="#4a7ab5")
    ax.set_xticks(idx)
    short = [VARIANT_NAMES.get(v, v).replace("TCP-", "").replace("TCP ", "") for v in published["variant"]]
    ax.set_xticklabels([f"{f}\n{v}" for f, v in zip(flows, short)], fontsize=7)
    ax.set_ylabel(LABELS["throughput_Bps"])
    ax.set_title(title, fontsize=9)
    legend(ax, profile, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    return fig


def stated_vs_measured(rows: pd.DataFrame, profile: str):
    """Every claim with a stated percentage: the stated value (range as a
    bar) against ours (range of the matched cells)."""
    rows = rows.dropna(subset=["measured_min"])
    if rows.empty:
        return None
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(6.0, 0.25 * len(rows) + 2), 4.2))
    idx = np.arange(len(rows))
    ax.vlines(idx - 0.12, rows["stated_low"], rows["stated_high"], color="k", lw=4, label="thesis (stated)")
    ax.plot(idx - 0.12, rows["stated_low"], "k_", ms=8)
    ax.vlines(idx + 0.12, rows["measured_min"], rows["measured_max"], color="tab:red", lw=4, label="satcp (measured)")
    ax.plot(idx + 0.12, rows["measured_max"], "_", color="tab:red", ms=8)
    ax.axhline(0, color="#888", lw=0.8)
    ax.set_xticks(idx)
    ax.set_xticklabels(rows["id"], rotation=90, fontsize=6)
    ax.set_ylabel(axis_label("change in the stated direction", "%"))
    legend(ax, profile, fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    return fig


# --------------------------------------------------------------------------
# time series of deterministic re-runs


def rerun_series(scenario_json: str, link_name: str):
    """Re-run a stored scenario with sampling on: (flow series, link series
    of the named link's a->b direction, its rate in b/s)."""
    res = data.rerun(scenario_json, TRACE_SAMPLE_S)
    link = next(x for x in json.loads(scenario_json)["links"] if x.get("name") == link_name)
    ab = f"{link['a']}->{link['b']}"
    ls = res.link_series[res.link_series["link_name"] == ab]
    row = res.links[(res.links["a"] == link["a"]) & (res.links["b"] == link["b"]) & (res.links["direction"] == "ab")]
    rate = float(row["rate_bps"].iloc[0])
    return res.series, ls, rate


def _windowed_rate(t: np.ndarray, cum_bytes: np.ndarray) -> np.ndarray:
    k = max(1, int(round(TRACE_WINDOW_S / TRACE_SAMPLE_S)))
    rate = np.full(len(cum_bytes), np.nan)
    if len(cum_bytes) > k:
        rate[k:] = (cum_bytes[k:] - cum_bytes[:-k]) * 8 / (t[k:] - t[:-k])
    return rate


def time_series(traces: list[tuple[str, bool, pd.DataFrame, pd.DataFrame, float]], profile: str):
    """Per delayed-ACK setting a column: TCP goodput (bytes delivered to the
    receiver's application) and satellite downlink throughput (bytes that
    have left the link; without bit errors every one is received) with
    utilisation on the right axis, over time, one line per variant."""
    if not traces:
        return None
    plt = pyplot()
    dacks = sorted({t[1] for t in traces}, reverse=True)
    fig, axes = plt.subplots(2, len(dacks), figsize=(6.6 * len(dacks), 6.4), sharex="col", squeeze=False)
    for col, d in enumerate(dacks):
        ax_g, ax_l = axes[0, col], axes[1, col]
        rate_bps = None
        for variant, dack, series, link_series, rate in traces:
            if dack != d:
                continue
            color, ls = _STYLE.get(variant, (None, "-"))
            name = VARIANT_NAMES.get(variant, variant)
            for _, g in series.groupby("flow_name"):
                t = g["time_s"].to_numpy()
                ax_g.plot(t, _windowed_rate(t, g["delivered_bytes"].to_numpy(dtype=float)), color=color, ls=ls,
                          lw=1, label=name)
            t = link_series["time_s"].to_numpy()
            # bytes_tx counts a packet when the link accepts it; minus the
            # bytes still waiting it is what has left the link (to within the
            # packet in service).
            sent = (link_series["bytes_tx"] - link_series["queue_bytes"]).to_numpy(dtype=float)
            ax_l.plot(t, _windowed_rate(t, sent), color=color, ls=ls, lw=1, label=name)
            rate_bps = rate
        ax_g.set_title(_dack_label(d), fontsize=9)
        ax_g.set_ylabel("TCP goodput (b/s)")
        ax_l.set_ylabel("satellite link throughput (b/s)")
        ax_l.set_xlabel("time (s)")
        if rate_bps:
            right = ax_l.secondary_yaxis("right", functions=(lambda y, r=rate_bps: y / r * 100,
                                                             lambda u, r=rate_bps: u * r / 100))
            right.set_ylabel("utilisation (%)")
        for a in (ax_g, ax_l):
            a.set_ylim(bottom=0)
            a.grid(True, alpha=0.3)
            legend(a, profile, fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig
