"""Measured and simulated on the same axes: goodput per second and RTT per
second of a simulated run beside a measured series (``satcp trace import``'s
``measured.csv``, columns ``t_s,goodput_bps,rtt_ms,loss``;
``satcp.traces.measured``).

``satcp report`` draws it in two places (docs/traces.md, docs/report.md):
``satcp report STORE --out DIR --measured measured.csv`` adds a section
with the chosen runs (the ones the time-series section re-runs) beside the
measurement; ``satcp report RUN_DIR --out DIR --measured measured.csv``
draws one run written by ``satcp run --out RUN_DIR`` beside it
(``satcp.report.write_run_report``).

From the simulated run's flow series (``time_s``, ``flow``,
``delivered_bytes``, ``srtt_s``), per bin of the measured series' width:

* goodput: the bytes delivered to the receiving applications of all flows
  together (a measurement of several iperf3 streams is their sum too),
  each flow's cumulative ``delivered_bytes`` interpolated linearly at the
  bin edges between samples, x 8 / the bin;
* RTT: the mean over the bin's samples and the flows of the sender's
  smoothed RTT (``srtt_s``). It is smoothed (RFC 6298's 1/8 gain), where
  ping's and the dish's RTTs are single probes, and it is what the
  sender's TCP sees (queueing included), where ping on an idle link sees
  none: compare shapes and levels with that in mind.

Bins end at the last sample of the simulated run; the measured series is
drawn over its own length.
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd

from .plotting import pyplot


def simulated_per_bin(series: pd.DataFrame, bin_s: float = 1.0) -> pd.DataFrame:
    """``t_s, goodput_bps, rtt_ms`` per bin of a run's flow series."""
    if series.empty:
        return pd.DataFrame({"t_s": [], "goodput_bps": [], "rtt_ms": []})
    horizon = float(series["time_s"].max())
    n = max(1, int(math.floor(horizon / bin_s + 1e-9)))
    edges = np.arange(n + 1) * bin_s
    delivered = np.zeros(n + 1)
    for _, g in series.groupby("flow", sort=True):
        g = g.sort_values("time_s")
        delivered += np.interp(edges, g["time_s"].to_numpy(), g["delivered_bytes"].fillna(0).to_numpy(), left=0.0)
    srtt = series["srtt_s"].to_numpy() * 1e3
    ok = np.isfinite(srtt) & (srtt > 0)
    k = np.floor(series["time_s"].to_numpy() / bin_s + 1e-9).astype(np.int64)
    ok &= k < n
    s = np.bincount(k[ok], weights=srtt[ok], minlength=n)
    c = np.bincount(k[ok], minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        rtt = np.where(c > 0, s / np.maximum(c, 1), math.nan)
    return pd.DataFrame({"t_s": edges[:-1], "goodput_bps": np.diff(delivered) * 8 / bin_s, "rtt_ms": rtt})


def bin_width(measured: pd.DataFrame) -> float:
    t = measured["t_s"].to_numpy()
    return float(np.median(np.diff(t))) if len(t) > 1 else 1.0


def _mean(v) -> float:
    v = np.asarray(v, dtype=float)
    v = v[np.isfinite(v)]
    return float(v.mean()) if len(v) else math.nan


def summary(sim: pd.DataFrame, measured: pd.DataFrame) -> dict[str, float]:
    """Means over the bins both cover, measured and simulated."""
    n = min(len(sim), len(measured))
    return {"goodput_measured_bps": _mean(measured["goodput_bps"][:n]),
            "goodput_simulated_bps": _mean(sim["goodput_bps"][:n]),
            "rtt_measured_ms": _mean(measured["rtt_ms"][:n]),
            "rtt_simulated_ms": _mean(sim["rtt_ms"][:n])}


def figure(sims: Sequence[pd.DataFrame], labels: Sequence[str], measured: pd.DataFrame, measured_label: str):
    """Goodput (top) and RTT (bottom) per bin, one column per run, the
    measurement drawn in black in every panel."""
    plt = pyplot()
    n = len(sims)
    fig, axes = plt.subplots(2, n, figsize=(4.6 * n + 1, 6.4), sharex="col", sharey="row", squeeze=False)
    t_m = measured["t_s"].to_numpy()
    for col, (sim, lab) in enumerate(zip(sims, labels)):
        top, bottom = axes[0, col], axes[1, col]
        top.set_title(lab, fontsize=9)
        bw = bin_width(measured)
        # each bin drawn over its whole width, the last one too
        top.stairs(measured["goodput_bps"] / 1e6, np.append(t_m, t_m[-1] + bw) if len(t_m) else [0],
                   color="black", lw=1.2, label=f"measured ({measured_label})")
        t_s = sim["t_s"].to_numpy()
        top.stairs(sim["goodput_bps"] / 1e6, np.append(t_s, t_s[-1] + bw) if len(t_s) else [0],
                   color="tab:blue", lw=1.0, label="simulated")
        bottom.plot(t_m, measured["rtt_ms"], color="black", lw=1.2, marker=".", ms=3, label="measured")
        bottom.plot(sim["t_s"], sim["rtt_ms"], color="tab:blue", lw=1.0, marker=".", ms=3, label="simulated (srtt)")
        bottom.set_xlabel("time (s)")
        for a in (top, bottom):
            a.grid(True, alpha=0.3)
        top.legend(fontsize=7, loc="best")
        bottom.legend(fontsize=7, loc="best")
    axes[0, 0].set_ylabel("goodput (Mb/s)")
    axes[1, 0].set_ylabel("RTT (ms)")
    return fig


def section(sims: Sequence[pd.DataFrame], labels: Sequence[str], measured: pd.DataFrame, measured_label: str,
            figure_html, table_html) -> str:
    """The report section: the figure and a table of means (the report's
    own ``_figure`` and ``_table`` render them)."""
    rows = []
    for sim, lab in zip(sims, labels):
        s = summary(sim, measured)
        rows.append({"run": lab, **s,
                     "goodput difference %": 100 * (s["goodput_simulated_bps"] / s["goodput_measured_bps"] - 1)
                     if s["goodput_measured_bps"] else math.nan})
    bw = bin_width(measured)
    cap = (f"Goodput and RTT per {bw:g} s bin: measured ({measured_label}, black) and simulated (blue; goodput of "
           "all flows together, RTT the senders' smoothed RTT)")
    return ("<h2>Measured and simulated</h2>"
            f'<p class="note">Measured series: {html.escape(measured_label)} ({len(measured)} bins of {bw:g} s). '
            "The simulated goodput sums the bytes delivered by every flow; the simulated RTT is the senders' "
            "srtt (smoothed, queueing included), the measured RTT single probes (docs/traces.md). Means over "
            "the bins both cover.</p>"
            + figure_html(figure(sims, labels, measured, measured_label), cap)
            + table_html(pd.DataFrame(rows)))


def read_run_series(run_dir: Path) -> pd.DataFrame:
    """The flow series ``satcp run --out`` wrote (series.csv or .parquet)."""
    for name in ("series.parquet", "series.csv"):
        p = run_dir / name
        if p.is_file():
            df = pd.read_parquet(p) if name.endswith(".parquet") else pd.read_csv(p)
            missing = [c for c in ("time_s", "flow", "delivered_bytes", "srtt_s") if c not in df.columns]
            if missing:
                raise ValueError(f"{p}: no column {', '.join(missing)}; expected the series satcp run --out writes")
            return df
    raise ValueError(f"{run_dir}: no series.csv or series.parquet; expected a directory written by satcp run --out")

