"""The Modified Peach study's results: one observation per run and flow
from the store, per run and per cell (mean goodput with its 95% Student-t
interval over replications, Jain's index over the ten flows, what the
runs did), ns-2's beside the baselines, and the paper's claims judged.

The paper's metric: the highest segment number reached over time,
averaged over the ten flows (the sender's cumulative ACK, sampled every
5 s in figure runs, ``figures``); goodput per flow over the 550 s (the
segments acknowledged x 1000 bytes).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ...paths import ROOT
from ...stats import jain_index, t_interval
from ...store import Store
from ..kit import data
from ..kit.catalogue import Experiment, PlannedRun
from ..kit.claims import Claim, Verdict
from ..kit.study import Context
from . import figures
from .experiments import BASELINE_READINGS, NAMES, NS2_AGENTS, PAPER_EIGHT, READINGS, STOP_S, VARIANTS
from .ns2 import NS2_COLUMNS, ns2_curves, ns2_per_run, ns2_runs

CLAIMS_CSV = ROOT / "data" / "published" / "peach_claims.csv"

RUN_COLUMNS = ["experiment", "arm", "per", "replication", "seed", "key", "status", "flow", "goodput_bps",
               "retransmissions", "timeouts", "fast_recoveries", "dummy_segments_sent", "dummy_acks_received",
               "access_dummies_dropped", "access_data_drops", "sat_queue_drops", "sat_max_queue"]


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """One row per run x flow (``RUN_COLUMNS``); the link columns are the
    run's: dummies and data segments the senders' access queues dropped,
    and the satellite queue's drops and largest backlog."""
    if not runs:
        return pd.DataFrame(columns=RUN_COLUMNS)
    got = data.stored(store, runs, ("flows", "links"))
    link_t = got["links"]
    per_link: dict[str, dict[str, float]] = {}
    if not link_t.empty:
        for key, g in link_t.groupby("key"):
            up = g[g["link"].str.match(r"s\d+->n1")]
            sat = g[g["link"] == "n1->n2"]
            per_link[key] = dict(
                access_dummies_dropped=float(up["low_priority_dropped"].sum()),
                # a priority queue pushes out only dummies: the rest of its
                # drops are data segments it refused
                access_data_drops=float((up["drops_queue"] + up.get("drops_pushed_out", 0)
                                         - up["low_priority_dropped"]).sum()),
                sat_queue_drops=float(sat["drops_queue"].sum()), sat_max_queue=float(sat["max_queue_packets"].max()))
    rows = []
    for p, status, flows in got.each(runs):
        ident = dict(experiment=p.experiment, arm=p.arm, per=p.levels["per"], replication=p.run.replication,
                     seed=p.run.seed, key=p.run.key, status=status)
        if flows is None:
            rows.append(dict(ident, flow=None))
            continue
        for _, f in flows.iterrows():
            rows.append(dict(ident, flow=f["flow"], goodput_bps=float(f["bytes_delivered"]) * 8 / STOP_S,
                             retransmissions=int(f["retransmissions"]), timeouts=int(f["timeouts"]),
                             fast_recoveries=int(f["fast_recoveries"]),
                             dummy_segments_sent=int(f["dummy_segments_sent"]),
                             dummy_acks_received=int(f["dummy_acks_received"]), **per_link.get(p.run.key, {})))
    return pd.DataFrame(rows, columns=RUN_COLUMNS)


def per_run(obs: pd.DataFrame) -> pd.DataFrame:
    """One row per run: mean goodput of its flows, Jain's index over them,
    and the sums of the per-flow counters."""
    ok = obs[(obs["status"] == "ok") & obs["flow"].notna()]
    rows = []
    for (exp, arm, per, rep), g in ok.groupby(["experiment", "arm", "per", "replication"]):
        rows.append(dict(experiment=exp, arm=arm, per=per, replication=rep, goodput_bps=g["goodput_bps"].mean(),
                         jain=jain_index(g["goodput_bps"]), retransmissions=g["retransmissions"].sum(),
                         timeouts=g["timeouts"].sum(), fast_recoveries=g["fast_recoveries"].sum(),
                         dummies=g["dummy_segments_sent"].sum(), dummy_acks=g["dummy_acks_received"].sum(),
                         access_dummies_dropped=g["access_dummies_dropped"].iloc[0],
                         access_data_drops=g["access_data_drops"].iloc[0],
                         sat_queue_drops=g["sat_queue_drops"].iloc[0], sat_max_queue=g["sat_max_queue"].iloc[0]))
    return pd.DataFrame(rows)


def goodput_table(runs: pd.DataFrame, ns2: pd.DataFrame) -> pd.DataFrame:
    """Per experiment, arm and PER: mean flow goodput (kb/s) with its 95%
    interval over replications, Jain's index, counters per run, and ns-2's
    mean goodput with the difference where ns-2 runs the variant."""
    ns2_runs = ns2_per_run(ns2)
    rows = []
    for (exp, arm, per), g in runs.groupby(["experiment", "arm", "per"], sort=False):
        mean, lo, hi = t_interval(g["goodput_bps"] / 1e3)
        row = dict(experiment=exp, arm=arm, per=per, n=len(g), goodput_kbps=mean,
                   ci_half=(hi - lo) / 2 if not math.isnan(lo) else math.nan, jain=g["jain"].mean(),
                   retransmissions=g["retransmissions"].mean(), timeouts=g["timeouts"].mean(),
                   dummies=g["dummies"].mean(), access_dummies_dropped=g["access_dummies_dropped"].mean(),
                   access_data_drops=g["access_data_drops"].mean(),
                   sat_queue_drops=g["sat_queue_drops"].mean(), sat_max_queue=g["sat_max_queue"].max(),
                   ns2_kbps=math.nan, ns2_ci_half=math.nan, ns2_n=0, diff_pct=math.nan, ns2_timeouts=math.nan,
                   ns2_rtx=math.nan)
        ns2_variant = arm if exp == "per" else BASELINE_READINGS.get(arm, (None, None))[1] if exp == "baselines" else None
        if ns2_variant in NS2_AGENTS and not ns2_runs.empty:
            n = ns2_runs[(ns2_runs["variant"] == ns2_variant) & (ns2_runs["per"] == per)]
            if not n.empty:
                m2, lo2, hi2 = t_interval(n["goodput_bps"] / 1e3)
                row.update(ns2_kbps=m2, ns2_ci_half=(hi2 - lo2) / 2 if not math.isnan(lo2) else math.nan,
                           ns2_n=len(n), diff_pct=(mean / m2 - 1) * 100, ns2_timeouts=n["timeouts"].mean(),
                           ns2_rtx=n["retransmissions"].mean())
        rows.append(row)
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    order = {a: i for i, a in enumerate((*VARIANTS, *READINGS, *BASELINE_READINGS))}
    out["_o"] = out["arm"].map(order)
    return out.sort_values(["experiment", "per", "_o"]).drop(columns="_o").reset_index(drop=True)


def load_claims() -> pd.DataFrame:
    return pd.read_csv(CLAIMS_CSV, comment="#")


def _gp(table: pd.DataFrame, arm: str, per: float) -> float:
    r = table[(table["experiment"] == "per") & (table["arm"] == arm) & (table["per"] == per)]
    return float(r["goodput_kbps"].iloc[0]) if not r.empty else math.nan


def evaluate_claims(table: pd.DataFrame) -> list[Claim]:
    """The paper's claims (data/published/peach_claims.csv) judged on our
    mean goodputs. Criteria (ours; the paper gives no numbers):
    * comparable: the named variants' means within 10% of their largest;
    * best: the named variant's mean above every other of the eight;
    * ahead_by: the named variant's mean at least ``factor`` times every
      other of the eight (the paper's "almost 100%": 1.75);
    * fair: Jain's index of the named variant at least 0.95 at every PER;
    * beats: the named variant's mean above the other's.
    """
    out = []
    for _, c in load_claims().iterrows():
        per = float(c["per"]) if not pd.isna(c["per"]) else math.nan
        names = str(c["variants"]).split(";")
        kind = c["kind"]
        verdict, ev = Verdict.NO_DATA, ""
        if kind == "comparable":
            g = {n: _gp(table, n, per) for n in names}
            if all(not math.isnan(x) for x in g.values()):
                spread = 1 - min(g.values()) / max(g.values())
                verdict = Verdict.of(spread <= 0.10)
                ev = ", ".join(f"{NAMES[n]} {x:.0f}" for n, x in g.items()) + f" kb/s: spread {spread * 100:.0f}%"
        elif kind in ("best", "ahead_by"):
            mine = _gp(table, names[0], per)
            others = {n: _gp(table, n, per) for n in PAPER_EIGHT if n != names[0]}
            if not math.isnan(mine) and all(not math.isnan(x) for x in others.values()):
                best_other = max(others, key=others.get)
                ratio = mine / others[best_other]
                need = 1.0 if kind == "best" else float(c["factor"])
                verdict = Verdict.of(ratio > need)
                ev = (f"{NAMES[names[0]]} {mine:.0f} kb/s; best peer {NAMES[best_other]} {others[best_other]:.0f} "
                      f"kb/s (x{ratio:.2f}); median peer x{mine / float(np.median(list(others.values()))):.2f}")
        elif kind == "fair":
            r = table[(table["experiment"] == "per") & (table["arm"] == names[0])]
            if not r.empty:
                lowest = float(r["jain"].min())
                verdict = Verdict.of(lowest >= 0.95)
                ev = "Jain's index " + ", ".join(f"{x:.3f} at PER {p:g}" for p, x in zip(r["per"], r["jain"]))
        elif kind == "beats":
            a, b = _gp(table, names[0], per), _gp(table, names[1], per)
            if not (math.isnan(a) or math.isnan(b)):
                verdict = Verdict.of(a > b)
                ev = f"{NAMES[names[0]]} {a:.0f} kb/s, {NAMES[names[1]]} {b:.0f} kb/s (x{a / b:.2f})"
        figure = str(c["figure"])
        where = f"Fig. {figure}" if figure[0].isdigit() and "." not in figure else f"sec. {figure}"
        out.append(Claim(c["id"], c["wording"], verdict, ev, where))
    return out


def ns2_agreement(table: pd.DataFrame) -> tuple[int, int]:
    """(cells of the paper's variants within 10% of ns-2, cells with ns-2
    runs)."""
    r = table[(table["ns2_n"] > 0) & (table["experiment"] == "per")]
    return int((r["diff_pct"].abs() <= 10).sum()), len(r)


@dataclass
class Analysis:
    """The Modified Peach report's material."""

    table: pd.DataFrame  # goodput_table: per experiment, arm and PER
    curves: pd.DataFrame  # the paper's metric from our figure runs
    ns2_curves: pd.DataFrame  # and from ns-2's runs
    ns2_note: str  # how ns-2 ran, or why it did not
    per_run: pd.DataFrame  # one row per run: its flows' mean goodput, Jain's index, counters
    runs: pd.DataFrame


def analyse(ctx: Context) -> Analysis:
    """Our cells, ns-2's runs beside the baselines (a missing ns-2 is said
    on stdout and leaves the ns-2 columns empty), the figures' curves."""
    from ...crosscheck_ns2 import Ns2Unavailable

    runs = per_run(ctx.observations)
    try:
        ns2 = ns2_runs(ctx.quick, ctx.out / "ns2", ctx.workers or os.cpu_count() or 1)
        ns2_note = (f"{ns2['seed'].nunique()} seeds per cell, Agent/TCP agents with TCPSink (Sack1 sink for SACK and "
                    "FACK), window_ 64, windowInit_ 2, 50-packet access queues.")
    except Ns2Unavailable as e:
        ns2 = pd.DataFrame(columns=NS2_COLUMNS)
        ns2_note = f"not run here ({e})."
        print(f"ns-2: {e}; the report has no ns-2 columns", file=ctx.stdout)
    return Analysis(goodput_table(runs, ns2), figures.figure_curves(ctx.observations, ctx.runs, ctx.quick),
                    ns2_curves(ns2), ns2_note, runs, ctx.runs)


def claims(analysis: Analysis) -> list[Claim]:
    return evaluate_claims(analysis.table)
