"""An experiment beyond the papers: TCP between two cities over a LEO
constellation against the same transfer over a GEO bent pipe
(``satcp reproduce leo-geo``).

Networks (every choice in their headers): ``scenarios/leo/study-leo.toml``
(Paris to New York over one Starlink shell with +Grid ISLs, 100 Mb/s
ground links, satellites reassigned at 12, 27, 42 and 57 s past each
minute, a new satellite at every epoch, what is on a ground link lost at a
handover) and ``scenarios/leo/study-geo.toml`` (the same cities through one
geostationary bent pipe at 100 Mb/s, RTT 500 ms). Both queues hold about
one bandwidth-delay product.

Experiments: ``leo`` and ``geo``, each NewReno, SACK, CUBIC, BBR and Hybla
(arms) x transfers of 1, 10 and 100 MB (1 and 10 MB with ``--quick``).
Replications are start times spread over one 15-second reassignment cycle
(2 s, 3.5 s, ... 15.5 s: 10), so each transfer meets the constellation and
the reassignment at 12 s at a different phase; ``--quick`` takes 9.5, 10.5
and 11.5 s, which the reassignment at 12 s catches in most transfers. The
GEO runs take the same start times. Means with 95% Student-t intervals over them.

Metrics per run: completion time (first SYN to the last byte delivered),
goodput (size over completion time), retransmissions, retransmission
timeouts, spurious timeouts (undone by the timestamps or F-RTO check), and
for LEO the station handovers during the transfer and the packets lost on
ground links taken away (``drops.down``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.stats as sps

from ..paths import ROOT
from ..store import Store
from .catalogue import Arm, Experiment, Factor, PlannedRun
from .runner import stored_summaries

REPO_ROOT = ROOT  # the repository, or the wheel's copy (satcp/paths.py)
LEO = "scenarios/leo/study-leo.toml"
GEO = "scenarios/leo/study-geo.toml"
VARIANTS = ("newreno", "sack", "cubic", "bbr", "hybla")
NAMES = {"newreno": "NewReno", "sack": "SACK", "cubic": "CUBIC", "bbr": "BBR", "hybla": "Hybla"}
SIZES_MB = (1, 10, 100)
QUICK_SIZES_MB = (1, 10)
STARTS_S = tuple(2 + 1.5 * k for k in range(10))
QUICK_STARTS_S = (9.5, 10.5, 11.5)
LEVEL = 0.95


def experiments() -> list[Experiment]:
    factors = (Factor("size_mb", "flows.transfer.app.size", SIZES_MB, QUICK_SIZES_MB, encode=lambda v: f"{v}MB"),
               Factor("start_s", "flows.transfer.app.start", STARTS_S, QUICK_STARTS_S, encode=lambda v: f"{v:g}s"))
    arms = tuple(Arm(v, {"flows.transfer.tcp.variant": v}, {"transfer": v}) for v in VARIANTS)
    return [Experiment(path, f"Paris to New York over {path.upper()}", base, "ftp", arms, factors)
            for path, base in (("leo", LEO), ("geo", GEO))]


def catalogue(quick: bool) -> list[Experiment]:
    return experiments()


# ----- the store's runs ----------------------------------------------------------

COLUMNS = ["experiment", "variant", "size_mb", "start_s", "key", "status", "completed", "completion_s",
           "goodput_bps", "retransmissions", "timeouts", "spurious_rtos", "handovers", "down_drops",
           "min_rtt_s"]


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """One row per run (``COLUMNS``), from each run's stored summary."""
    if not runs:
        return pd.DataFrame(columns=COLUMNS)
    t = stored_summaries(store, runs)
    by_key = {r["key"]: r for _, r in t.iterrows()}
    rows = []
    for p in runs:
        r = by_key.get(p.run.key)
        if r is None:
            continue
        row: dict[str, Any] = dict(experiment=p.experiment, variant=p.arm, size_mb=p.levels["size_mb"],
                                   start_s=p.levels["start_s"], key=p.run.key, status=r["status"])
        if r["status"] == "ok" and isinstance(r["summary_json"], str):
            s = json.loads(r["summary_json"])
            f = next(x for x in s["flows"] if x["name"] == "transfer")
            done = f["completion_s"]
            end = f["start_s"] + (done if done is not None else s["sim_time_s"] - f["start_s"])
            ho = sum(1 for g in s.get("ground_stations", []) for h in g["handover_times_s"] if f["start_s"] <= h <= end)
            row.update(completed=bool(f["completed"]), completion_s=done if done is not None else math.nan,
                       goodput_bps=(p.levels["size_mb"] * 8e6 / done) if done else math.nan,
                       retransmissions=int(f["retransmissions"]), timeouts=int(f["timeouts"]),
                       spurious_rtos=int(f["spurious_rtos"]), handovers=ho,
                       down_drops=sum(int(l["drops"].get("down", 0)) for l in s["links"]),
                       min_rtt_s=min((x["min_rtt_s"] for x in s.get("paths", []) if x["min_rtt_s"] is not None),
                                     default=math.nan))
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


def findings(rows: pd.DataFrame) -> list[dict[str, Any]]:
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
        out.append(dict(id="leo_faster", wording="Every variant completes every size sooner over LEO than over GEO",
                        holds=all(r > 1 for _, _, r in ratios),
                        evidence="GEO / LEO completion time: " + "; ".join(f"{NAMES[v]} {s} MB x{r:.2f}" for v, s, r in ratios)))
        small = [r for v, s, r in ratios if s == min(rows["size_mb"])]
        large = [r for v, s, r in ratios if s == max(rows["size_mb"])]
        if min(rows["size_mb"]) != max(rows["size_mb"]):
            out.append(dict(id="gap_largest_for_short_transfers",
                            wording="GEO's penalty is largest for short transfers (round trips dominate them)",
                            holds=float(np.mean(small)) > float(np.mean(large)),
                            evidence=f"mean GEO / LEO ratio {np.mean(small):.2f} at {min(rows['size_mb'])} MB, "
                                     f"{np.mean(large):.2f} at {max(rows['size_mb'])} MB"))
    leo = rows[rows["path"] == "leo"]
    if not leo.empty:
        out.append(dict(id="handovers_cost_segments",
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
        out.append(dict(id="hybla_helps_geo", wording="Hybla, designed for long RTTs, completes GEO transfers sooner "
                                                       "than NewReno",
                        holds=all(g > 1 for _, g in gains),
                        evidence="NewReno / Hybla completion time over GEO: "
                                 + "; ".join(f"{s} MB x{g:.2f}" for s, g in gains)))
    return out
