"""Behavioural cross-check of satcp against ns-3 3.44 on a GEO scenario.

    python -m satcp.crosscheck [--variants newreno,sack,...] [--per 0,1e-3,1e-2]
                               [--delack on,off] [--seeds 5] [--jobs 2] [--out DIR]

(``make crosscheck`` runs it with the defaults.) Each case is one file
transfer over the same network in both simulators:

    server --100 Mb/s, 5 ms-- gateway --10 Mb/s down / 2 Mb/s up, 250 ms-- client

with a 250-packet drop-tail queue at the gateway toward the client, a
packet error rate (PER) on the downlink, one 10 MB (10^7 bytes) flow with a
4 MiB receive window (window scaling on), and every other TCP setting at
satcp's defaults. The ns-3 side is ``bench/ns3/tcp_peer.cc``; ``bench/ns3/
build.sh`` installs the ``ns3==3.44.post0`` wheel into ``.venv-ns3`` and
compiles it. Loss-free cases run once (the seed changes nothing); lossy
cases run ``--seeds`` seeds in each simulator (satcp ``run.seed`` = ns-3 run
number = 1..N; the two simulators draw different random numbers, so only
means over seeds are comparable).

Variants (label: satcp settings / ns-3 settings):

* ``newreno``: ``variant = "newreno"`` (SACK off) with ``full_ack_cwnd =
  "ssthresh"`` (ns-3 sets cwnd = ssthresh when recovery ends and has no
  other choice) / TcpNewReno, Sack = false
* ``sack``: ``variant = "sack"`` / TcpNewReno, Sack = true
* ``vegas``, ``westwood``, ``hybla``, ``cubic``, ``bbr``: the satcp preset of
  that name with ``recovery = "sack"`` / TcpVegas, TcpWestwoodPlus, TcpHybla,
  TcpCubic, TcpBbr with Sack = true (Hybla with ``rack``, ``prr`` and
  ``rearm_rto_on_retransmit`` off: ns-3's classic recovery has none).

ns-3 uses TcpClassicRecovery (see ``bench/ns3/README.md`` for why it, not
ns-3's default PRR, is the closer match to satcp), limited transmit off, no
timestamps, and satcp's RTO, delayed-ACK and initial-window defaults. Every
satcp variant sets ``ssthresh_basis = "pipe"``: ns-3 halves its
``BytesInFlight`` (the flight less what SACK blocks or, without SACK,
duplicate ACKs reported) at a fast retransmit and at a timeout, where RFC
5681's FlightSize, satcp's default, counts everything sent and not
cumulatively acknowledged. Both
links carry ns-3's 2-byte PPP header, so the satcp scenario sets
``overhead = 2`` on every link direction.

A variant the satcp build does not know (its scenario is rejected) is marked
"not in satcp" in the table; its ns-3 runs still run, as a reference.

Output: a table (mean completion time and goodput per case, satcp and ns-3
side by side, relative difference satcp/ns-3 - 1, and the spread over seeds)
on stdout; ``runs.csv`` (every run) and ``summary.csv`` (the table) in the
output directory (default ``bench-results/crosscheck``, git-ignored).
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import satcp

from . import tables
from .peers import run_peers
from .tables import num

REPO = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO / "bench" / "ns3" / "build.sh"

# label -> (satcp tcp settings, ns-3 --variant, ns-3 --sack)
VARIANTS: dict[str, tuple[dict[str, Any], str, str]] = {
    "newreno": ({"variant": "newreno", "full_ack_cwnd": "ssthresh"}, "NewReno", "0"),
    "sack": ({"variant": "sack"}, "NewReno", "1"),
    "vegas": ({"variant": "vegas", "recovery": "sack"}, "Vegas", "1"),
    "westwood": ({"variant": "westwood", "recovery": "sack"}, "WestwoodPlus", "1"),
    # ns-3 (TcpClassicRecovery here) has no RACK or PRR and restarts no RTO
    # on a retransmission: the preset's Linux SACK recovery (on under rfc)
    # is turned off
    "hybla": ({"variant": "hybla", "recovery": "sack", "rack": False, "prr": False, "rearm_rto_on_retransmit": False},
              "Hybla", "1"),
    "cubic": ({"variant": "cubic", "recovery": "sack", "cubic_hystart": False, "abc_limit": 2},
              "Cubic", "1"),
    "bbr": ({"variant": "bbr", "recovery": "sack"}, "Bbr", "1"),
}


# label -> further tcp_peer arguments, so that ns-3 runs the same algorithm
# configuration as satcp (tcp_peer's other defaults already are satcp's:
# Vegas 1/3/1, Hybla RTT0 25 ms, CUBIC fast convergence on). CUBIC: slow
# start without HyStart on both sides, since ns-3's TcpCubic has the original
# HyStart (ACK trains and delay increase, from 16 segments) and satcp has
# HyStart++ (RFC 9406); different algorithms. ns-3's TcpCubic also grows
# cwnd in slow start by every segment an ACK covers (byte counting, to stand
# in for Linux's quick ACKs), so satcp's CUBIC gets abc_limit = 2: the same
# growth for the ACKs of a delayed-ACK receiver (the initial slow starts are
# then identical, cwnd trace in docs/validation.md); a larger limit lets
# the stretch ACKs after an RTO blow satcp's window up to the receive
# window, which ns-3 does not do.
NS3_EXTRA: dict[str, list[str]] = {"cubic": ["--cubicHyStart=0"]}


class Ns3Unavailable(RuntimeError):
    """The ns3 wheel could not be installed (build.sh exit status 3)."""


@dataclass(frozen=True)
class Network:
    """The GEO scenario both simulators build (defaults as in the module doc)."""

    access_rate: str = "100Mbps"
    access_delay_s: float = 0.005
    down_rate: str = "10Mbps"
    up_rate: str = "2Mbps"
    sat_delay_s: float = 0.250
    queue_packets: int = 250
    size_bytes: int = 10_000_000
    rwnd_bytes: int = 4 * 1024 * 1024
    stop_s: float = 3600.0
    min_rto_s: float = 1.0


@dataclass(frozen=True)
class Case:
    variant: str
    delayed_ack: bool
    per: float
    seed: int


@dataclass
class RunResult:
    completion_s: Optional[float]
    goodput_bps: float
    retransmissions: int
    timeouts: int  # satcp: RTO expiries; ns-3: entries into CA_LOSS (an RTO)


@dataclass
class CaseRow:
    """Means over seeds of one (variant, delayed ACK, PER) cell."""

    variant: str
    delayed_ack: bool
    per: float
    seeds: int
    satcp: list[RunResult] = field(default_factory=list)
    ns3: list[RunResult] = field(default_factory=list)
    satcp_error: Optional[str] = None


def satcp_scenario(net: Network, case: Case) -> dict[str, Any]:
    """The satcp scenario of one case, as a dict (what ``satcp.run`` takes)."""
    # ns-3's loss response unless the variant says otherwise
    tcp: dict[str, Any] = {"ssthresh_basis": "pipe", **VARIANTS[case.variant][0]}
    tcp.update({"rwnd": net.rwnd_bytes, "window_scaling": True, "delayed_ack": case.delayed_ack,
                "min_rto": net.min_rto_s})
    sat: dict[str, Any] = {
        "a": "gateway",
        "b": "client",
        "rate_ab": net.down_rate,
        "rate_ba": net.up_rate,
        "delay": net.sat_delay_s,
        "queue_ab": {"kind": "droptail", "packets": net.queue_packets},
        "overhead": 2,
    }
    if case.per > 0:
        sat["errors_ab"] = {"per": case.per}
    return {
        "run": {"seed": case.seed, "stop": net.stop_s},
        "nodes": {"server": {}, "gateway": {}, "client": {}},
        "links": [
            {"a": "server", "b": "gateway", "rate": net.access_rate,
             "delay": net.access_delay_s, "overhead": 2},
            sat,
        ],
        "flows": [{"name": "f0", "src": "server", "dst": "client", "tcp": tcp,
                   "app": {"kind": "ftp", "size": net.size_bytes}}],
    }


def ns3_args(net: Network, case: Case) -> list[str]:
    """tcp_peer's command-line arguments for one case."""
    _, ns3_variant, sack = VARIANTS[case.variant]
    return [
        f"--variant={ns3_variant}", f"--sack={sack}", "--recovery=classic",
        f"--delAckCount={2 if case.delayed_ack else 1}", f"--per={case.per!r}",
        f"--seed={case.seed}", f"--size={net.size_bytes}", f"--stop={net.stop_s!r}",
        f"--accessRate={net.access_rate}", f"--accessDelay={net.access_delay_s!r}",
        f"--downRate={net.down_rate}", f"--upRate={net.up_rate}",
        f"--satDelay={net.sat_delay_s!r}", f"--queue={net.queue_packets}",
        f"--rwnd={net.rwnd_bytes}", f"--minRto={net.min_rto_s!r}",
        *NS3_EXTRA.get(case.variant, []),
    ]


def build_peer() -> Path:
    """Installs the ns3 wheel if needed and compiles tcp_peer; its path."""
    p = subprocess.run(["bash", str(BUILD_SCRIPT), "tcp_peer"], capture_output=True, text=True)
    if p.returncode == 3:
        raise Ns3Unavailable(p.stderr.strip())
    if p.returncode != 0:
        raise RuntimeError(f"{BUILD_SCRIPT} tcp_peer failed:\n{p.stderr}")
    return Path(p.stdout.strip().splitlines()[-1])


def satcp_rejects(variant: str) -> Optional[str]:
    """satcp's error message if this build refuses the variant, else None."""
    try:
        satcp.validate(satcp_scenario(Network(), Case(variant, True, 0.0, 1)))
    except satcp.ScenarioError as e:
        return str(e)
    return None


def run_satcp(net: Network, case: Case) -> RunResult:
    f = satcp.run(satcp_scenario(net, case)).summary["flows"][0]
    return RunResult(f["completion_s"], f["goodput_bps"], f["retransmissions"], f["timeouts"])


def run_ns3(peer: Path, net: Network, case: Case) -> RunResult:
    p = subprocess.run([str(peer), *ns3_args(net, case)], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{peer} {' '.join(ns3_args(net, case))} failed:\n{p.stderr}")
    f = json.loads(p.stdout.strip().splitlines()[-1])["flows"][0]
    return RunResult(f["completion_s"], f["goodput_bps"], f["retransmissions"], f["loss_states"])


def crosscheck(variants: list[str], pers: list[float], delacks: list[bool], seeds: int,
               jobs: int = 2, net: Network = Network(), peer: Optional[Path] = None,
               out: Optional[Path] = None, progress: bool = False) -> list[CaseRow]:
    """Runs every case in both simulators, ``jobs`` runs at a time."""
    peer = peer or build_peer()
    rows: list[CaseRow] = []
    tasks = []
    for v in variants:
        rejected = satcp_rejects(v)
        for d in delacks:
            for per in pers:
                n = seeds if per > 0 else 1
                row = CaseRow(v, d, per, n, satcp_error=rejected)
                rows.append(row)
                for s in range(1, n + 1):
                    c = Case(v, d, per, s)
                    if not rejected:
                        tasks.append((row.satcp, "satcp", c, lambda c=c: run_satcp(net, c)))
                    tasks.append((row.ns3, "ns-3", c, lambda c=c: run_ns3(peer, net, c)))
    def said(k: int, n: int) -> None:
        if progress and (k % 50 == 0 or k == n):
            print(f"crosscheck: {k}/{n} runs", file=sys.stderr, flush=True)

    runs: list[dict[str, Any]] = []
    for (dest, side, c, _), r in zip(tasks, run_peers(lambda t: t[3](), tasks, jobs, done=said)):
        dest.append(r)
        runs.append({"simulator": side, "variant": c.variant, "delayed_ack": c.delayed_ack,
                     "per": c.per, "seed": c.seed, "completion_s": r.completion_s,
                     "goodput_bps": r.goodput_bps, "retransmissions": r.retransmissions,
                     "timeouts": r.timeouts})
    if out is not None:
        write_csv(out, runs, rows)
    return rows


def mean_completion(rs: list[RunResult]) -> Optional[float]:
    """Mean completion time; None if any run did not complete."""
    if not rs or any(r.completion_s is None for r in rs):
        return None
    return statistics.fmean(r.completion_s for r in rs)


def mean_goodput(rs: list[RunResult]) -> Optional[float]:
    return statistics.fmean(r.goodput_bps for r in rs) if rs else None


def spread(rs: list[RunResult]) -> Optional[float]:
    """Relative standard error of the mean completion time over seeds."""
    m = mean_completion(rs)
    if m is None or len(rs) < 2:
        return None
    return statistics.stdev(r.completion_s for r in rs) / m / len(rs) ** 0.5


def rel(a: Optional[float], b: Optional[float]) -> Optional[float]:
    return None if a is None or b is None or b == 0 else a / b - 1


def summary(row: CaseRow) -> dict[str, Any]:
    return {
        "variant": row.variant,
        "delayed_ack": row.delayed_ack,
        "per": row.per,
        "seeds": row.seeds,
        "satcp_completion_s": mean_completion(row.satcp),
        "ns3_completion_s": mean_completion(row.ns3),
        "completion_diff": rel(mean_completion(row.satcp), mean_completion(row.ns3)),
        "satcp_goodput_mbps": _mbps(mean_goodput(row.satcp)),
        "ns3_goodput_mbps": _mbps(mean_goodput(row.ns3)),
        "goodput_diff": rel(mean_goodput(row.satcp), mean_goodput(row.ns3)),
        "satcp_rse": spread(row.satcp),
        "ns3_rse": spread(row.ns3),
        "satcp_retransmissions": _mean(r.retransmissions for r in row.satcp),
        "ns3_retransmissions": _mean(r.retransmissions for r in row.ns3),
        "satcp_timeouts": _mean(r.timeouts for r in row.satcp),
        "ns3_timeouts": _mean(r.timeouts for r in row.ns3),
        "note": "not in satcp" if row.satcp_error else "",
    }


def _mbps(bps: Optional[float]) -> Optional[float]:
    return None if bps is None else bps / 1e6


def _mean(xs) -> Optional[float]:
    xs = list(xs)
    return statistics.fmean(xs) if xs else None


def write_csv(out: Path, runs: list[dict[str, Any]], rows: list[CaseRow]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, data in (("runs.csv", runs), ("summary.csv", [summary(r) for r in rows])):
        if not data:
            continue
        with open(out / name, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(data[0]))
            w.writeheader()
            w.writerows(data)


def format_table(rows: list[CaseRow]) -> str:
    def pct(v: Optional[float]) -> str:
        return num(v, "+.1f", 100, "%")

    cells = []
    for row in rows:
        s = summary(row)
        cells.append((
            row.variant, "on" if row.delayed_ack else "off", f"{row.per:g}", row.seeds,
            num(s["satcp_completion_s"], ".2f"), num(s["ns3_completion_s"], ".2f"), pct(s["completion_diff"]),
            num(s["satcp_goodput_mbps"], ".3f"), num(s["ns3_goodput_mbps"], ".3f"), pct(s["goodput_diff"]),
            pct(s["satcp_rse"]), pct(s["ns3_rse"]),
            num(s["satcp_retransmissions"], ".1f"), num(s["ns3_retransmissions"], ".1f"),
            num(s["satcp_timeouts"], ".1f"), num(s["ns3_timeouts"], ".1f"),
            "not in satcp" if row.satcp_error else "",
        ))
    headers = ["variant", "delack", "PER", "n", "satcp s", "ns-3 s", "diff", "satcp Mb/s", "ns-3 Mb/s", "diff",
               "rse satcp", "rse ns-3", "rtx satcp", "rtx ns-3", "rto satcp", "rto ns-3", "note"]
    lines = [tables.format_table(headers, cells, "l" + "r" * 15 + "l")]
    for v, err in dict.fromkeys((r.variant, r.satcp_error) for r in rows if r.satcp_error):
        lines.append(f"not in satcp: {v}: {err}")
    lines.append("(completion time and goodput: means over seeds; diff = satcp/ns-3 - 1; "
                 "rse = standard error of the mean completion time / mean; "
                 "rtx = data retransmissions; rto = RTO expiries (ns-3: entries into "
                 "CA_LOSS, which counts back-to-back expiries once))")
    return "\n".join(lines)


def _list(conv):
    return lambda s: [conv(x) for x in s.split(",") if x]


def _onoff(s: str) -> bool:
    if s not in ("on", "off"):
        raise argparse.ArgumentTypeError(f"{s!r}: on or off")
    return s == "on"


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m satcp.crosscheck",
                                 description="satcp vs ns-3 3.44 on a GEO file transfer")
    ap.add_argument("--variants", type=_list(str), default=list(VARIANTS),
                    help="comma-separated: " + ",".join(VARIANTS))
    ap.add_argument("--per", type=_list(float), default=[0.0, 1e-3, 1e-2],
                    help="downlink packet error rates (default 0,1e-3,1e-2)")
    ap.add_argument("--delack", type=_list(_onoff), default=[True, False],
                    help="delayed ACK settings (default on,off)")
    ap.add_argument("--seeds", type=int, default=10, help="seeds per lossy case (default 10)")
    ap.add_argument("--jobs", type=int, default=2, help="runs at a time (default 2)")
    ap.add_argument("--size", type=int, default=Network.size_bytes, help="bytes per transfer")
    ap.add_argument("--queue", type=int, default=Network.queue_packets,
                    help="gateway drop-tail limit, packets")
    ap.add_argument("--min-rto", type=float, default=Network.min_rto_s,
                    help="minimum RTO in both simulators, seconds (default 1)")
    ap.add_argument("--out", type=Path, default=REPO / "bench-results" / "crosscheck",
                    help="directory for runs.csv and summary.csv")
    a = ap.parse_args(argv)
    bad = [v for v in a.variants if v not in VARIANTS]
    if bad:
        ap.error(f"--variants: unknown {bad}; known: {','.join(VARIANTS)}")
    net = Network(size_bytes=a.size, queue_packets=a.queue, min_rto_s=a.min_rto)
    try:
        rows = crosscheck(a.variants, a.per, a.delack, a.seeds, a.jobs, net, out=a.out,
                          progress=True)
    except Ns3Unavailable as e:
        print(f"crosscheck: ns-3 unavailable: {e}", file=sys.stderr)
        return 3
    print(format_table(rows))
    print(f"wrote {a.out / 'runs.csv'} and {a.out / 'summary.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
