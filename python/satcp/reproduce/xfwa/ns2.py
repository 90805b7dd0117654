"""ns-2 2.35 beside the XFWA study: plain NewReno on scenario A at each
link type of ``equal`` (``crosscheck/ns2/xfwa_chain.tcl``), the
replications' seeds (ns-2's own random stream: the start times); each
run's output kept in ``DIR/ns2/`` so an interrupted study resumes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd

from ...paths import ROOT
from ...peers import run_peers
from .experiments import LINK_TYPES, MAX_FLOWS, QUICK_REPLICATIONS, RATE_BPS, REPLICATIONS, STOP_S

TCL = ROOT / "crosscheck" / "ns2" / "xfwa_chain.tcl"

def ns2_qlim(link: str) -> int:
    """ns-2's qlim_ for [multihop]'s "bdp" buffer (one BDP at 160 ms in
    1040-byte packets): one more, as ns-2's DropTail holds qlim_ - 1
    waiting packets (docs/models/network.md)."""
    return max(1, round(RATE_BPS[link] * 0.160 / (8 * 1040))) + 1


def ns2_args(link: str, seed: int) -> list[str]:
    return [f"flows={MAX_FLOWS[link]}", f"rate={RATE_BPS[link] / 1e6:g}Mb", f"qlim={ns2_qlim(link)}",
            f"stop={STOP_S:g}", f"seed={seed}"]


def run_ns2(link: str, seed: int, cache: Path) -> str:
    from ...crosscheck_ns2 import ns_binary
    f = cache / f"{link}_q{ns2_qlim(link)}_seed{seed}.txt"
    if f.is_file():
        return f.read_text()
    p = subprocess.run([ns_binary(), str(TCL), *ns2_args(link, seed)], capture_output=True, text=True, timeout=3600)
    if p.returncode != 0 or "bottleneck" not in p.stdout:
        raise RuntimeError(f"ns-2 failed on {link} seed {seed}: {p.stderr[-1500:]}")
    cache.mkdir(parents=True, exist_ok=True)
    tmp = f.with_suffix(".tmp")
    tmp.write_text(p.stdout)
    tmp.replace(f)
    return p.stdout


def parse_ns2(text: str) -> dict[str, float]:
    line = next(x for x in text.splitlines() if x.startswith("bottleneck"))
    w = line.split()
    v = {w[i]: float(w[i + 1]) for i in range(1, len(w) - 1, 2)}
    return dict(utilization=v["util"], loss_rate=v["drops"] / max(v["arrivals"], 1), mean_queue=v["qavg"],
                drops=v["drops"])


def ns2_runs(quick: bool, cache: Path, workers: int) -> pd.DataFrame:
    """Plain NewReno on scenario A at each link type, the replications'
    seeds (ns-2's own random stream: the start times)."""
    links = ("T1", "T2") if quick else LINK_TYPES
    reps = QUICK_REPLICATIONS if quick else REPLICATIONS
    tasks = [(lk, s) for lk in links for s in range(1, reps + 1)]
    outs = run_peers(lambda t: run_ns2(*t, cache), tasks, workers)
    return pd.DataFrame([dict(link=lk, seed=s, **parse_ns2(o)) for (lk, s), o in zip(tasks, outs)])
