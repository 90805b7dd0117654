"""ns-2 2.35 beside the Modified Peach study: the six baselines it ships
(Agent/TCP, Reno, Newreno, Sack1, Fack, Vegas) on the same network
(``crosscheck/ns2/peer.tcl`` with ``access_qlim=50`` and ``sample=5``),
the replications' seeds; their goodput and curves go beside ours. Each
run's output is kept in ``DIR/ns2/`` so an interrupted study resumes.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd

from ...peers import run_peers
from ...stats import jain_index
from .experiments import FLOWS, MSS, NS2_AGENTS, PERS, QUICK_REPLICATIONS, REPLICATIONS, SAMPLE_S, STOP_S

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
    from ...crosscheck_ns2 import PEER, ns_binary

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
    outs = run_peers(lambda t: run_ns2(*t, cache), tasks, workers)
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


def ns2_curves(ns2: pd.DataFrame) -> pd.DataFrame:
    smp = ns2.attrs.get("samples")
    if smp is None or smp.empty:
        return pd.DataFrame(columns=["variant", "per", "t", "segments"])
    return smp.groupby(["variant", "per", "t"])["segments"].mean().reset_index()
