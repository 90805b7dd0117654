"""The leo-geo study's results: one observation per run from the store's
tables (the transfer's flow row, the stations' handovers during it, the
packets lost on ground links taken away, the traced path's RTT), means
with 95% Student-t intervals over the start times per path, variant and
size, and the findings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.stats as sps

from ...store import Store
from ..kit import data
from ..kit.catalogue import Experiment, PlannedRun
from ..kit.claims import Claim, judged
from ..kit.study import Context
from .experiments import NAMES, VARIANTS

LEVEL = 0.95

COLUMNS = ["experiment", "variant", "size_mb", "start_s", "key", "status", "completed", "completion_s",
           "goodput_bps", "retransmissions", "timeouts", "spurious_rtos", "handovers", "down_drops",
           "min_rtt_s"]


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """One row per run (``COLUMNS``): the flow ``transfer``, the handovers
    of any station between its start and its end (the end of the run if
    it did not complete), the packets every link lost going down, the
    smallest RTT of the traced paths (NaN without one: GEO)."""
    if not runs:
        return pd.DataFrame(columns=COLUMNS)
    got = data.stored(store, runs, ("flows", "links", "ground_stations", "paths"), run_columns=("status", "sim_time_s"))
    links, stations, paths = got.by_key("links"), got.by_key("ground_stations"), got.by_key("paths")
    rows = []
    for p, status, flows in got.each(runs):
        row = dict(experiment=p.experiment, variant=p.arm, size_mb=p.levels["size_mb"], start_s=p.levels["start_s"],
                   key=p.run.key, status=status)
        if flows is not None:
            f = flows[flows["flow"] == "transfer"].iloc[0]
            done = None if pd.isna(f["completion_s"]) else float(f["completion_s"])
            start = float(f["start_s"])
            end = start + (done if done is not None else float(got.runs.loc[p.run.key, "sim_time_s"]) - start)
            g = stations.get(p.run.key)
            times = [h for text in (g["handover_times_s"] if g is not None else []) for h in data.array(text)]
            lk, pa = links.get(p.run.key), paths.get(p.run.key)
            row.update(completed=bool(f["completed"]), completion_s=done if done is not None else math.nan,
                       goodput_bps=(p.levels["size_mb"] * 8e6 / done) if done else math.nan,
                       retransmissions=int(f["retransmissions"]), timeouts=int(f["timeouts"]),
                       spurious_rtos=int(f["spurious_rtos"]), handovers=sum(1 for h in times if start <= h <= end),
                       down_drops=int(lk["drops_down"].sum()) if lk is not None else 0,
                       min_rtt_s=float(pa["min_rtt_s"].min()) if pa is not None and pa["min_rtt_s"].notna().any()
                       else math.nan)
        rows.append(row)
    return pd.DataFrame(rows, columns=COLUMNS)



def _ci(x: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its Student-t interval (NaN for n < 2)."""
    x = x[~np.isnan(x)]
    if x.size == 0:
        return math.nan, math.nan
    if x.size < 2:
        return float(x.mean()), math.nan
    return float(x.mean()), float(sps.t.ppf(0.5 + LEVEL / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))


METRICS = ("completion_s", "goodput_bps", "retransmissions", "timeouts", "spurious_rtos", "handovers", "down_drops")


def table(obs: pd.DataFrame) -> pd.DataFrame:
    """Per path, variant and size: runs, completed runs, and each metric's
    mean with its interval's half-width."""
    ok = obs[obs["status"] == "ok"]
    rows = []
    for (path, v, size), g in ok.groupby(["experiment", "variant", "size_mb"]):
        row = dict(path=path, variant=v, size_mb=int(size), runs=len(g), completed=int(g["completed"].sum()))
        for m in METRICS:
            row[m], row[m + "_ci"] = _ci(g[m].to_numpy(dtype=float))
        rows.append(row)
    out = pd.DataFrame(rows)
    if not out.empty:
        order = {v: i for i, v in enumerate(VARIANTS)}
        out = out.sort_values(["size_mb", "path", "variant"], key=lambda c: c.map(order) if c.name == "variant" else c)
    return out.reset_index(drop=True)


def findings(rows: pd.DataFrame) -> list[Claim]:
    """What the runs show, each with the numbers it rests on (no paper to
    compare with: these are computed statements, not claims)."""
    out = []
    if rows.empty:
        return out
    by = rows.set_index(["path", "variant", "size_mb"])
    pairs = [(v, s) for v in VARIANTS for s in sorted(rows["size_mb"].unique())
             if ("leo", v, s) in by.index and ("geo", v, s) in by.index]
    if pairs:
        ratios = [(v, s, by.loc[("geo", v, s), "completion_s"] / by.loc[("leo", v, s), "completion_s"]) for v, s in pairs]
        out.append(judged(id="leo_faster", wording="Every variant completes every size sooner over LEO than over GEO",
                        holds=all(r > 1 for _, _, r in ratios),
                        evidence="GEO / LEO completion time: " + "; ".join(f"{NAMES[v]} {s} MB x{r:.2f}" for v, s, r in ratios)))
        small = [r for v, s, r in ratios if s == min(rows["size_mb"])]
        large = [r for v, s, r in ratios if s == max(rows["size_mb"])]
        if min(rows["size_mb"]) != max(rows["size_mb"]):
            out.append(judged(id="gap_largest_for_short_transfers",
                            wording="GEO's penalty is largest for short transfers (round trips dominate them)",
                            holds=float(np.mean(small)) > float(np.mean(large)),
                            evidence=f"mean GEO / LEO ratio {np.mean(small):.2f} at {min(rows['size_mb'])} MB, "
                                     f"{np.mean(large):.2f} at {max(rows['size_mb'])} MB"))
    leo = rows[rows["path"] == "leo"]
    if not leo.empty:
        out.append(judged(id="handovers_cost_segments",
                        wording="Over LEO, handovers take packets with them: retransmissions follow the ground links "
                                "taken away",
                        holds=bool((leo["down_drops"] > 0).any()),
                        evidence="; ".join(f"{NAMES[r['variant']]} {r['size_mb']} MB: {r['handovers']:.1f} handovers, "
                                           f"{r['down_drops']:.0f} packets lost to them, {r['retransmissions']:.0f} "
                                           f"retransmissions, {r['spurious_rtos']:.1f} spurious timeouts"
                                           for _, r in leo.iterrows() if r["size_mb"] == leo["size_mb"].max())))
    hy = rows[(rows["variant"].isin(["hybla", "newreno"])) & (rows["path"] == "geo")].set_index(["variant", "size_mb"])
    sizes = [s for s in sorted(rows["size_mb"].unique()) if ("hybla", s) in hy.index and ("newreno", s) in hy.index]
    if sizes:
        gains = [(s, hy.loc[("newreno", s), "completion_s"] / hy.loc[("hybla", s), "completion_s"]) for s in sizes]
        out.append(judged(id="hybla_helps_geo", wording="Hybla, designed for long RTTs, completes GEO transfers sooner "
                                                       "than NewReno",
                        holds=all(g > 1 for _, g in gains),
                        evidence="NewReno / Hybla completion time over GEO: "
                                 + "; ".join(f"{s} MB x{g:.2f}" for s, g in gains)))
    return out


@dataclass
class Analysis:
    """The leo-geo report's material."""

    observations: pd.DataFrame
    runs: pd.DataFrame
    rows: pd.DataFrame  # ``table``: per path, variant and size


def analyse(ctx: Context) -> Analysis:
    return Analysis(ctx.observations, ctx.runs, table(ctx.observations))


def claims(a: Analysis) -> list[Claim]:
    return findings(a.rows)
