"""The Modified Peach study (Sarkar, Shukla, Dasgupta, "Modified TCP Peach
Protocol for Satellite based Networks", section 4; spec
``/work/shared/specs/003-modified-peach.md``) as platform sweeps, its ns-2
baselines, statistics and claims.

The network is ``scenarios/peach/ten_flows.toml`` (every choice in its
header): ten FTP flows, 500 kb/s access links, a 5 Mb/s satellite link with
550 ms between the earth stations, a 25-packet buffer, rwnd 64 segments,
PER 0.001, 0.01 and 0.1 on the satellite link, 550 s, profile ``ns2``.

* Arms: the paper's eight variants (Tahoe, Reno, NewReno, SACK, FACK,
  Vegas, Westwood, Modified Peach) and the unmodified Peach; a second
  experiment (``readings``) runs the spec's other readings of Peach at the
  same PERs: the latch cleared by the first ACK covering the retransmission
  (reading A), the literal "every three duplicate ACKs" halving,
  GTNetS's dummy-drop rule on the access queues, no window inflation in
  Rapid Recovery, Rapid-Recovery dummies on the timer.
* The paper's metric: the highest segment number reached over time,
  averaged over the ten flows (the sender's cumulative ACK, sampled every
  5 s in figure runs of the first ``FIGURE_SEEDS`` seeds); goodput per
  flow over the 550 s (the segments acknowledged x 1000 bytes) with 95%
  Student-t intervals over replications; Jain's index over the ten flows of
  each run.
* ns-2 2.35 runs the six baselines it ships (Agent/TCP, Reno, Newreno,
  Sack1, Fack, Vegas) on the same network (``crosscheck/ns2/peer.tcl`` with
  ``access_qlim=50`` and ``sample=5``): its goodput and curves beside ours.
  Results are kept per run in ``DIR/ns2/`` so an interrupted study resumes.
"""

from __future__ import annotations

import math
import re
import subprocess
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..paths import ROOT
from ..stats import jain_index, t_interval
from ..store import Store
from .catalogue import Arm, Experiment, Factor, PlannedRun
from .runner import stored_runs, stored_tables

REPO_ROOT = ROOT  # the repository, or the wheel's copy (satcp/paths.py)
BASE = "scenarios/peach/ten_flows.toml"
CLAIMS_CSV = REPO_ROOT / "data" / "published" / "peach_claims.csv"

VARIANTS = ("tahoe", "reno", "newreno", "sack", "fack", "vegas", "westwood", "modified-peach", "peach")
#: The paper's eight (it plots no unmodified Peach: "all the eight TCP variants").
PAPER_EIGHT = VARIANTS[:8]
NAMES = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "sack": "SACK", "fack": "FACK", "vegas": "Vegas",
         "westwood": "Westwood", "modified-peach": "Modified Peach", "peach": "Peach"}
#: The baselines ns-2 2.35 ships, by satcp variant.
NS2_AGENTS = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "Newreno", "sack": "Sack1", "fack": "Fack",
              "vegas": "Vegas"}
PERS = (0.001, 0.01, 0.1)
FLOWS = tuple(f"f{i}" for i in range(10))
MSS = 1000
STOP_S = 550.0
SAMPLE_S = 5.0
REPLICATIONS = 10
QUICK_REPLICATIONS = 3
#: Seeds of the figure runs (time series) per variant and PER.
FIGURE_SEEDS = 3
QUICK_FIGURE_SEEDS = 1

#: The other readings of Peach (spec 003 section 10), each on the three PERs.
READINGS = {
    "mp_latch_retx": ("Modified Peach, latch cleared by the ACK of the retransmission (A1 reading A)",
                      "modified-peach", {"peach_latch": "retransmission"}),
    "peach_every3": ("Peach halving on every third duplicate ACK (A4, the literal reading)",
                     "peach", {"peach_rehalve": "every_dupthresh"}),
    "mp_gtnets": ("Modified Peach, GTNetS's dummy-drop rule on the access queues (C15, Q3)",
                  "modified-peach", {}),
    "mp_no_inflation": ("Modified Peach, no window inflation in Rapid Recovery (A5)",
                        "modified-peach", {"peach_inflation": False}),
    "mp_timer_dummies": ("Modified Peach, Rapid-Recovery dummies every RTT/rwnd (B9)",
                         "modified-peach", {"peach_recovery_clock": "timer"}),
}

#: Baselines once more on another recovery, where ns-2's agent repairs
#: differently from the preset (compared with ns-2's agent).
BASELINE_READINGS = {
    "vegas_reno": ("Vegas on Reno recovery (ns-2's Agent/TCP/Vegas leaves recovery on the first new ACK)",
                   "vegas", {"recovery": "reno"}),
}


def _tcp(variant: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    keys = {"variant": variant, "sack": variant in ("sack", "fack"), **(extra or {})}
    return {f"flows.{f}.tcp.{k}": v for f in FLOWS for k, v in keys.items()}


def _per_factor() -> Factor:
    return Factor("per", "links.satellite.errors_ab.per", PERS, PERS)


def experiments() -> list[Experiment]:
    arms = tuple(Arm(v, _tcp(v), {f: v for f in FLOWS}) for v in VARIANTS)
    reading_arms = []
    for label, (_, variant, extra) in READINGS.items():
        s = _tcp(variant, extra)
        if label == "mp_gtnets":
            s.update({f"links.up{i}.queue_ab.dummy_drop": "queued" for i in range(len(FLOWS))})
        reading_arms.append(Arm(label, s, {f: variant for f in FLOWS}))
    baseline_arms = tuple(Arm(label, _tcp(v, extra), {f: v for f in FLOWS})
                          for label, (_, v, extra) in BASELINE_READINGS.items())
    return [
        Experiment("per", "Ten flows, PER 0.001 / 0.01 / 0.1 (Figs. 3-5)", BASE, "ftp", arms, (_per_factor(),),
                   replications=REPLICATIONS, quick_replications=QUICK_REPLICATIONS, figures=("3", "4", "5")),
        Experiment("readings", "Peach's other readings (spec 003 section 10)", BASE, "ftp", tuple(reading_arms),
                   (_per_factor(),), replications=REPLICATIONS, quick_replications=QUICK_REPLICATIONS),
        Experiment("baselines", "Baselines on the recovery ns-2's agent uses", BASE, "ftp", baseline_arms,
                   (_per_factor(),), replications=REPLICATIONS, quick_replications=QUICK_REPLICATIONS),
    ]


# ----- the store's runs --------------------------------------------------------

RUN_COLUMNS = ["experiment", "arm", "per", "replication", "seed", "key", "status", "flow", "goodput_bps",
               "retransmissions", "timeouts", "fast_recoveries", "dummy_segments_sent", "dummy_acks_received",
               "access_dummies_dropped", "access_data_drops", "sat_queue_drops", "sat_max_queue"]


def collect(store: Store, runs: list[PlannedRun], experiments: list[Experiment]) -> pd.DataFrame:
    """One row per run x flow (``RUN_COLUMNS``); the link columns are the
    run's: dummies and data segments the senders' access queues dropped,
    and the satellite queue's drops and largest backlog."""
    keys = sorted({p.run.key for p in runs})
    if not keys:
        return pd.DataFrame(columns=RUN_COLUMNS)
    run_t, flow_t, link_t = stored_tables(store, runs)
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
    for p, status, flows in stored_runs(runs, run_t, flow_t):
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


# ----- ns-2 --------------------------------------------------------------------

#: ns-2's rows: one per run x flow.
NS2_COLUMNS = ["variant", "per", "seed", "flow", "goodput_bps", "timeouts", "retransmissions"]

_FLOW = re.compile(r"flow (\d+) last \S+ done \S+ acked (\d+) rexmitpack (\d+) rexmit (\d+) bytes \d+")
_SAMPLE = re.compile(r"sample (\S+) (\d+) (\d+)")


def ns2_args(variant: str, per: float, seed: int) -> list[str]:
    agent = NS2_AGENTS[variant]
    sink = "TCPSink/Sack1" if agent in ("Sack1", "Fack") else "TCPSink"
    args = {"agent": agent, "sink": sink, "flows": len(FLOWS), "packets": 0, "stop": STOP_S, "seed": seed,
            "access_rate": "500kb", "access_delay": "5ms", "sat_rate": "5Mb", "sat_rate_up": "5Mb",
            "sat_delay": "275ms", "qlim": 25, "per": per, "packetSize": MSS, "window": 64, "windowInit": 2,
            "hdr": 0 if agent == "Vegas" else 40, "access_qlim": 50, "sample": SAMPLE_S}
    return [f"{k}={v}" for k, v in args.items()]


def run_ns2(variant: str, per: float, seed: int, cache: Path) -> str:
    """ns-2's output for one run, from the cache or by running the peer."""
    from ..crosscheck_ns2 import PEER, ns_binary

    path = cache / f"{variant}_per{per:g}_seed{seed}.txt"
    if path.is_file():
        return path.read_text()
    p = subprocess.run([ns_binary(), str(PEER), *ns2_args(variant, per, seed)], capture_output=True, text=True,
                       timeout=1800)
    if p.returncode != 0 or "flow 9 " not in p.stdout:
        raise RuntimeError(f"ns-2 failed on {variant} PER {per} seed {seed}: {p.stderr[-1500:]}")
    tmp = path.with_suffix(".tmp")
    tmp.write_text(p.stdout)
    tmp.replace(path)
    return p.stdout


def parse_ns2(text: str) -> tuple[list[dict[str, Any]], list[tuple[float, int, int]]]:
    """(per flow: acked packets, retransmitted packets, timeouts; samples
    (t, flow, highest cumulative ACK))."""
    flows = [dict(flow=int(m[1]), acked=int(m[2]), rexmitpack=int(m[3]), timeouts=int(m[4]))
             for m in _FLOW.finditer(text)]
    samples = [(float(m[1]), int(m[2]), int(m[3])) for m in _SAMPLE.finditer(text)]
    return flows, samples


def ns2_runs(quick: bool, cache: Path, workers: int) -> pd.DataFrame:
    """Every ns-2 run of the study: one row per run x flow (variant, per,
    seed, flow, goodput_bps, timeouts) with the samples in ``.attrs``."""
    cache.mkdir(parents=True, exist_ok=True)
    seeds = range(1, (QUICK_REPLICATIONS if quick else REPLICATIONS) + 1)
    tasks = [(v, per, s) for v in NS2_AGENTS for per in PERS for s in seeds]
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        outs = list(pool.map(lambda t: run_ns2(*t, cache), tasks))
    rows, samples = [], []
    for (v, per, s), text in zip(tasks, outs):
        flows, smp = parse_ns2(text)
        for f in flows:
            # the ACK count at the stop includes the SYN's
            rows.append(dict(variant=v, per=per, seed=s, flow=f["flow"], goodput_bps=(f["acked"] - 1) * MSS * 8 / STOP_S,
                             timeouts=f["timeouts"], retransmissions=f["rexmitpack"]))
        samples += [dict(variant=v, per=per, seed=s, t=t, flow=i, segments=a - 1) for t, i, a in smp]
        samples += [dict(variant=v, per=per, seed=s, t=STOP_S, flow=f["flow"], segments=f["acked"] - 1) for f in flows]
    out = pd.DataFrame(rows, columns=NS2_COLUMNS)
    out.attrs["samples"] = pd.DataFrame(samples, columns=["variant", "per", "seed", "t", "flow", "segments"])
    return out


def ns2_per_run(ns2: pd.DataFrame) -> pd.DataFrame:
    if ns2.empty:
        return pd.DataFrame(columns=["variant", "per", "seed", "goodput_bps", "jain", "timeouts", "retransmissions"])
    return (ns2.groupby(["variant", "per", "seed"])
            .agg(goodput_bps=("goodput_bps", "mean"), jain=("goodput_bps", jain_index), timeouts=("timeouts", "sum"),
                 retransmissions=("retransmissions", "sum"))
            .reset_index())


# ----- the curves (figure runs) ------------------------------------------------

def figure_curves(root: Path, quick: bool) -> pd.DataFrame:
    """The paper's metric from figure runs: per variant, PER and sample
    time, the highest segment cumulatively acknowledged, averaged over the
    ten flows and the figure seeds (seeds 1..FIGURE_SEEDS of the study's
    scenario with 5 s sampling)."""
    import satcp

    base = tomllib.loads((root / BASE).read_text(encoding="utf-8"))
    rows = []
    seeds = range(1, (QUICK_FIGURE_SEEDS if quick else FIGURE_SEEDS) + 1)
    for v in VARIANTS:
        for per in PERS:
            for seed in seeds:
                sets = [f"{k}={_toml(x)}" for k, x in _tcp(v).items()]
                sets += [f"links.satellite.errors_ab.per={per}", f"run.seed={seed}", f'run.sample_interval="{SAMPLE_S}s"']
                res = satcp.run(base, set=sets)
                s = res.series
                una = (s["snd_max_bytes"] - s["flight_bytes"]) / MSS
                g = pd.DataFrame({"t": s["time_s"].round(6), "segments": una}).groupby("t")["segments"].mean()
                rows += [dict(variant=v, per=per, seed=seed, t=t, segments=x) for t, x in g.items()]
    df = pd.DataFrame(rows)
    return df.groupby(["variant", "per", "t"])["segments"].mean().reset_index()


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


def ns2_curves(ns2: pd.DataFrame) -> pd.DataFrame:
    smp = ns2.attrs.get("samples")
    if smp is None or smp.empty:
        return pd.DataFrame(columns=["variant", "per", "t", "segments"])
    return smp.groupby(["variant", "per", "t"])["segments"].mean().reset_index()


# ----- claims ------------------------------------------------------------------

@dataclass
class Claim:
    id: str
    figure: str
    per: float
    wording: str
    verdict: str  # "borne out", "not borne out", "no data"
    evidence: str


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
        verdict, ev = "no data", ""
        if kind == "comparable":
            g = {n: _gp(table, n, per) for n in names}
            if all(not math.isnan(x) for x in g.values()):
                spread = 1 - min(g.values()) / max(g.values())
                verdict = "borne out" if spread <= 0.10 else "not borne out"
                ev = ", ".join(f"{NAMES[n]} {x:.0f}" for n, x in g.items()) + f" kb/s: spread {spread * 100:.0f}%"
        elif kind in ("best", "ahead_by"):
            mine = _gp(table, names[0], per)
            others = {n: _gp(table, n, per) for n in PAPER_EIGHT if n != names[0]}
            if not math.isnan(mine) and all(not math.isnan(x) for x in others.values()):
                best_other = max(others, key=others.get)
                ratio = mine / others[best_other]
                need = 1.0 if kind == "best" else float(c["factor"])
                verdict = "borne out" if ratio > need else "not borne out"
                ev = (f"{NAMES[names[0]]} {mine:.0f} kb/s; best peer {NAMES[best_other]} {others[best_other]:.0f} "
                      f"kb/s (x{ratio:.2f}); median peer x{mine / float(np.median(list(others.values()))):.2f}")
        elif kind == "fair":
            r = table[(table["experiment"] == "per") & (table["arm"] == names[0])]
            if not r.empty:
                lowest = float(r["jain"].min())
                verdict = "borne out" if lowest >= 0.95 else "not borne out"
                ev = "Jain's index " + ", ".join(f"{x:.3f} at PER {p:g}" for p, x in zip(r["per"], r["jain"]))
        elif kind == "beats":
            a, b = _gp(table, names[0], per), _gp(table, names[1], per)
            if not (math.isnan(a) or math.isnan(b)):
                verdict = "borne out" if a > b else "not borne out"
                ev = f"{NAMES[names[0]]} {a:.0f} kb/s, {NAMES[names[1]]} {b:.0f} kb/s (x{a / b:.2f})"
        out.append(Claim(c["id"], str(c["figure"]), per, c["wording"], verdict, ev))
    return out


def ns2_agreement(table: pd.DataFrame) -> tuple[int, int]:
    """(cells of the paper's variants within 10% of ns-2, cells with ns-2
    runs)."""
    r = table[(table["ns2_n"] > 0) & (table["experiment"] == "per")]
    return int((r["diff_pct"].abs() <= 10).sum()), len(r)
