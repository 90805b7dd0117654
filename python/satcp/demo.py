"""``satcp demo``: NewReno, SACK, Hybla, CUBIC and BBR over a GEO bent pipe
at several bit error rates. Runs the packaged scenario ``scenarios/geo_demo.toml``
with overrides, on the executor sweeps use (:class:`satcp.execute.LocalPool`,
one worker process per CPU by default)."""

from __future__ import annotations

import json
import math
import sys
import time
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from . import _core
from .engine import ScenarioError, apply_overrides, validate
from .execute import LocalPool, Outcome, Task
from .plotting import legend_or_note, pyplot, save_png
from .result import columns_frame
from .tables import format_table, num

VARIANTS = ("newreno", "sack", "hybla", "cubic", "bbr")
LIMITS = ("cwnd", "rwnd", "app", "pacing")
BERS = (0.0, 1e-7, 1e-6, 1e-5)
TRACE_BER = 1e-6  # cwnd traces are drawn for this BER
FLOW = "download"
DOWNLINK = "links.1.errors_ab"  # gateway -> client


def scenario_text() -> str:
    return resources.files("satcp").joinpath("scenarios/geo_demo.toml").read_text(encoding="utf-8")


def overrides(variant: str, ber: float, seed: int, quick: bool) -> list[str]:
    o = [f"flows.{FLOW}.tcp.variant={variant}", f"run.seed={seed}"]
    if ber > 0:
        o.append(f"{DOWNLINK}={{ber={ber:g}}}")
    if quick:
        o.append(f"flows.{FLOW}.app.size=1MB")
    return o


def _ber_label(ber: float) -> str:
    return "0" if ber == 0 else f"{ber:.0e}".replace("e-0", "e-")


def _tasks(quick: bool) -> tuple[list[tuple[str, float, int]], list[Task]]:
    """The grid (variant, BER, seed) and one executor task per point: the
    scenario with its overrides applied. Raises ScenarioError before
    anything runs if a point is invalid."""
    base = tomllib.loads(scenario_text())
    seeds = range(1, (2 if quick else 4) + 1)
    grid = [(v, b, s) for v in VARIANTS for b in BERS for s in seeds]
    tasks = []
    for i, (v, b, s) in enumerate(grid):
        scenario = apply_overrides(base, overrides(v, b, s, quick))
        validate(scenario)
        tasks.append({"key": str(i), "scenario_json": json.dumps(scenario),
                      "flow_series": b == TRACE_BER and s == 1})
    return grid, tasks


def _row(variant: str, ber: float, seed: int, out: Outcome) -> dict[str, Any]:
    summary = json.loads(out["summary_json"])
    f = summary["flows"][0]
    return {
        "variant": variant,
        "ber": ber,
        "seed": seed,
        "completed": bool(f["completed"]),
        "completion_s": f["completion_s"] if f["completion_s"] is not None else math.nan,
        "goodput_bps": f["goodput_bps"],
        "retransmissions": f["retransmissions"],
        "timeouts": f["timeouts"],
        **{f"limited_{k}": (f.get("limited") or {}).get(k, 0.0) for k in LIMITS},
        "events": summary["events"],
        "wall_s": summary["wall_s"],
    }


def run_all(quick: bool, jobs: int | None = None):
    """Every run of the demo, ``jobs`` worker processes (default: CPU
    count): the rows (one per run) and the cwnd trace of each variant.
    Raises RuntimeError naming a run that failed."""
    grid, tasks = _tasks(quick)
    pool = LocalPool(jobs)
    try:
        outs = {o["key"]: o for o in pool.results(tasks)}
    finally:
        pool.close()
    rows, traces = [], {}
    for task, (variant, ber, seed) in zip(tasks, grid):
        out = outs[task["key"]]
        if out["status"] != "ok":
            raise RuntimeError(f"{variant} at BER {_ber_label(ber)}, seed {seed}: {out['error']}")
        rows.append(_row(variant, ber, seed, out))
        if task["flow_series"]:
            s = columns_frame(out["flow_series"])
            traces[variant] = s[s["flow"] == 0][["time_s", "cwnd_bytes"]].reset_index(drop=True)
    return pd.DataFrame(rows), traces


def aggregate(rows):
    g = rows.groupby(["variant", "ber"], sort=False)
    agg = g.agg(
        runs=("seed", "size"),
        completed=("completed", "sum"),
        completion_mean=("completion_s", "mean"),
        completion_min=("completion_s", "min"),
        completion_max=("completion_s", "max"),
        goodput_mean=("goodput_bps", "mean"),
        retransmissions=("retransmissions", "mean"),
        timeouts=("timeouts", "mean"),
        **{f"limited_{k}": (f"limited_{k}", "mean") for k in LIMITS},
    )
    return agg.reset_index()


def _limited_by(r) -> str:
    """The limit the sender spent most of its time under (mean over seeds)."""
    shares = {k: getattr(r, f"limited_{k}") for k in LIMITS}
    k = max(shares, key=shares.get)
    return f"{k} {100 * shares[k]:.0f}%"


def table(agg) -> str:
    rows = [
        (
            r.variant, _ber_label(r.ber), f"{int(r.completed)}/{int(r.runs)}",
            num(r.completion_mean, ".2f"), num(r.goodput_mean / 1e3, ".1f"),
            num(r.retransmissions, ".1f"), num(r.timeouts, ".1f"), _limited_by(r),
        )
        for r in agg.itertuples()
    ]
    return format_table(
        ["variant", "BER", "completed", "mean completion s", "mean goodput kb/s",
         "retransmissions", "timeouts", "limited by"],
        rows, "llrrrrrl",
    )


def plot(agg, traces, out: Path, size_label: str) -> list[Path]:
    plt = pyplot()
    written = []
    # BER 0 cannot sit on a log axis: draw it one decade left of the smallest BER.
    nonzero = [b for b in BERS if b > 0]
    zero_x = min(nonzero) / 10

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for k, variant in enumerate(VARIANTS):
        d = agg[agg["variant"] == variant].sort_values("ber")
        # nudge variants apart a little so overlapping error bars stay readable
        nudge = 1.0 + 0.06 * (k - (len(VARIANTS) - 1) / 2)
        x = [(zero_x if b == 0 else b) * nudge for b in d["ber"]]
        y = d["completion_mean"].to_numpy()
        lo = y - d["completion_min"].to_numpy()
        hi = d["completion_max"].to_numpy() - y
        ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=4, label=variant)
    ax.set_xscale("log")
    ticks = [zero_x] + nonzero
    ax.set_xticks(ticks)
    ax.set_xticklabels(["0"] + [_ber_label(b) for b in nonzero])
    ax.xaxis.set_minor_locator(plt.NullLocator())
    ax.set_xlabel("downlink bit error rate")
    ax.set_ylabel("completion time (s)")
    ax.set_title(f"GEO FTP download of {size_label}: mean over seeds, bars = min/max")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    written.append(save_png(fig, out / "completion_vs_ber.png"))

    # one panel per variant, each on its own scale, so that no variant's
    # window flattens the others onto the axis
    fig, axes = plt.subplots(len(VARIANTS), 1, figsize=(8, 1.9 * len(VARIANTS)), sharex=True)
    for ax, variant in zip(axes, VARIANTS):
        t = traces.get(variant)
        if t is not None and len(t):
            ax.plot(t["time_s"], t["cwnd_bytes"] / 1e3, label=variant, drawstyle="steps-post")
        ax.set_ylabel("cwnd (kB)")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        legend_or_note(ax)
    axes[-1].set_xlabel("time (s)")
    axes[0].set_title(f"congestion window, BER {_ber_label(TRACE_BER)}, seed 1")
    written.append(save_png(fig, out / "cwnd_ber1e-6.png"))
    return written


def main(out: Path, quick: bool = False, jobs: int | None = None) -> int:
    size_label = "1 MB" if quick else "5 MB"
    n_seeds = 2 if quick else 4
    print(
        f"satcp {_core.version()} demo: FTP {size_label} over GEO "
        f"(2048 kb/s down / 256 kb/s up, 250 ms), {len(VARIANTS)} variants x "
        f"{len(BERS)} BERs x {n_seeds} seeds",
        flush=True,
    )
    t0 = time.perf_counter()
    try:
        rows, traces = run_all(quick, jobs)
    except ScenarioError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"error: run failed: {e}", file=sys.stderr)
        return 1
    agg = aggregate(rows)
    print(table(agg))
    out.mkdir(parents=True, exist_ok=True)
    rows.to_csv(out / "demo_runs.csv", index=False)
    agg.to_csv(out / "demo_summary.csv", index=False)
    figs = plot(agg, traces, out, size_label)
    print(f"\n{len(rows)} runs in {time.perf_counter() - t0:.1f} s wall")
    print(f"figures: " + ", ".join(str(p) for p in figs))
    print(f"tables:  {out / 'demo_runs.csv'}, {out / 'demo_summary.csv'}")
    return 0
