"""Cross-check of satcp's ``ns2`` profile against ns-2 2.35 itself.

    python -m satcp.crosscheck_ns2 [--cells geo,geo-delack,geo-lossy,transat,transat-rows,peach]
                                   [--agents Tahoe,Reno,...] [--seeds 5] [--out DIR]

(``make crosscheck-ns2`` installs Debian's ``ns2`` package when ``ns`` is
missing and runs it.) Each cell is one network run in both simulators: the
ns-2 side is ``crosscheck/ns2/peer.tcl`` (one-way agents Agent/TCP =
Tahoe, Reno, Newreno, Sack1, Fack, Vegas with TCPSink, its Sack1 flavour and
the DelAck sinks), the satcp side the same chain with ``tcp.profile =
"ns2"`` and only the keys the Tcl script sets (agent -> ``variant``, sink ->
``sack``/``delayed_ack``, ``window_`` -> ``rwnd``, ``windowInit_`` ->
``initial_window``, ``packetSize_`` -> ``mss``).

Topology: src_i -access- n1 =satellite= n2 -access- dst_i, a drop-tail queue
at n1 toward n2, uniform packet errors (ns-2 ``ErrorModel`` before the
satellite link; satcp ``errors_ab.per``) on that direction.

Cells:
* ``geo``: one 10,000-packet FTP, 100 Mb/s 5 ms access, 10 Mb/s 250 ms
  satellite link, 250-packet buffer, window_ 4000, TCPSink (loss-free:
  deterministic, one run).
* ``geo-delack``: the same with the DelAck sink (100 ms).
* ``geo-lossy``: ``geo`` with PER 1e-3, ``--seeds`` seeds each side (means).
* ``transat``: TRANSAT Table 1 row 1 (spec 001): 1000 packets of 1000
  bytes (packetSize_ 960), 10 Mb/s 20 ms access, 2 Mb/s 255 ms satellite,
  200-packet buffer, windowInit_ 1, DelAck sink 200 ms, Newreno.
* ``transat-rows``: TRANSAT Table 1 rows 1-8 as the paper ran them
  (``scenarios/transat_table1.toml``): 200- or 50-packet buffer, a 0.8 or
  1.7 Mb/s CBR flow of 1000-byte packets beside the TCP flow from t = 0 in
  rows 5-8, window scaling off as a 64-packet window, in the four columns
  stock ns-2 runs (Ref. = Newreno, Iwin=4, SACK = Sack1, each without
  Limited Transmit, ``singledup_ 0``; SACK + LT with it), with the agent
  defaults of the ns-2 of 2003 (no SYN, every partial ACK restarting
  Newreno's timer, 1 s minimum RTO, 6 s initial RTO, 100 ms tick) on the
  ns-2 side and the ``ns2-2003`` profile on satcp's; completion ends when
  the sender has the last ACK (the paper's elapsed time).
* ``transat-bursts``: Tables 3-5's setting (one flow, 50-packet buffer,
  the `transat-rows` configuration) through TRANSAT/DSN error bursts, the
  same timeline in both simulators (``burst_timeline``: satcp's
  ``dsn_burst`` defaults, drawn per seed and written as a trace file), with
  no S-LACP and with its approximation at 25% and 1% PER and +550 ms (ns-2
  raises the link's ``delay_`` during a burst, so later packets may
  overtake; satcp's trace model does the same with ``burst_delay_order =
  "overtake"``); Ref. and SACK; medians over 4 x ``--seeds`` seeds (the
  paper's statistic).
* ``peach``: the Modified Peach topology (spec 003): ten flows, 500 kb/s
  access, 5 Mb/s 275 ms satellite, 25-packet buffer, PER 1e-2, 300 s,
  goodput summed over the flows, ``--seeds`` seeds.

Completion time is when the sink has every byte (satcp: last byte
delivered), from the flow's start: ns-2.35's one-way agents begin with a
40-byte SYN and wait for its ACK (``syn_ true``), satcp's ``ns2`` profile
with its SYN exchange, one round trip on both sides. Output: a table on stdout and ``runs.csv``/``summary.csv``
in ``--out`` (default ``bench-results/crosscheck-ns2``).
"""

from __future__ import annotations

import argparse
import csv
import datetime
import re
import shutil
import statistics
import subprocess
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Optional

import satcp
from satcp.paths import ROOT

from .peers import run_peers
from .tables import format_table, num

REPO = Path(__file__).resolve().parents[2]
PEER = ROOT / "crosscheck" / "ns2" / "peer.tcl"
AGENTS = ("Tahoe", "Reno", "Newreno", "Sack1", "Fack", "Vegas")
# ns-2 agent -> satcp variant
VARIANT = {"Tahoe": "tahoe", "Reno": "reno", "Newreno": "newreno", "Sack1": "sack", "Fack": "fack",
           "Vegas": "vegas"}


class Ns2Unavailable(RuntimeError):
    """ns-2 (`ns`) is not installed and could not be."""


@dataclass(frozen=True)
class Cell:
    name: str
    agent: str
    flows: int = 1
    packets: int = 10_000  # 0 = send until stop
    stop_s: float = 600.0
    access_rate: str = "100Mb"
    access_delay_ms: float = 5
    sat_rate: str = "10Mb"
    sat_rate_up: str = "10Mb"
    sat_delay_ms: float = 250
    qlim: int = 250
    per: float = 0.0
    packet_size: int = 1000
    window: int = 4000
    window_init: int = 2
    delack: bool = False
    delack_interval_s: float = 0.1
    seeds: int = 1
    # a UDP CBR flow beside flow 0 ("0" = none), as ns-2 writes rates
    cbr_rate: str = "0"
    # the agent defaults of the ns-2 the TRANSAT paper ran (2003), and
    # satcp's `ns2-2003` profile
    ns2_2003: bool = False
    column: str = ""
    # Limited Transmit (ns-2 `singledup_`; None: the agent's default, 1)
    singledup: Optional[int] = None
    # completion ends when the sink has every byte ("last") or when the
    # sender has the last packet's ACK ("done", Agent/TCP's done callback;
    # satcp's response_end = "last_ack")
    end: str = "last"
    # TRANSAT bursts (> 0: PER inside a burst): the same burst timeline,
    # drawn per seed by `burst_timeline`, replayed on the satellite link by
    # both simulators, with the link delay raised by burst_delay_s during a
    # burst (ns-2: `delay_` changed; satcp: the trace model's burst_delay,
    # overtakable)
    burst_per: float = 0.0
    burst_delay_s: float = 0.0
    # every agent on one source node and every sink on n2 (the speed
    # benchmark's three-node network, bench/suite.py; peer.tcl `shared=1`)
    shared: bool = False
    # flow i starts at i x start_spacing_s
    start_spacing_s: float = 0.0
    # how often peer.tcl looks whether each sink has every byte (a Tcl call
    # per flow each time: the speed benchmark polls every 100 ms, not 1 ms)
    check_every_s: float = 0.001

    @property
    def sack(self) -> bool:
        return self.agent in ("Sack1", "Fack")

    @property
    def sink(self) -> str:
        return "TCPSink" + ("/Sack1" if self.sack else "") + ("/DelAck" if self.delack else "")

    @property
    def header(self) -> int:
        """Bytes ns-2 adds to packetSize_ on the wire: 40, except Vegas,
        whose output() sends packetSize_ bytes."""
        return 0 if self.agent == "Vegas" else 40


def cells(names: list[str], agents: list[str], seeds: int) -> list[Cell]:
    out = []
    for a in agents:
        # loss-free cells still vary with the seed: ns-2 draws each agent's
        # clock phase (boot_time_), which decides RTO-against-ACK races
        if "geo" in names:
            out.append(Cell("geo", a, seeds=seeds))
        if "geo-delack" in names:
            out.append(Cell("geo-delack", a, delack=True, seeds=seeds))
        if "geo-lossy" in names:
            # whether the first error comes before the slow-start overshoot
            # makes completion bimodal: 4 x the seeds for a stable mean
            out.append(Cell("geo-lossy", a, per=1e-3, seeds=4 * seeds))
        if "peach" in names:
            out.append(Cell("peach", a, flows=10, packets=0, stop_s=300, access_rate="500kb",
                            access_delay_ms=1, sat_rate="5Mb", sat_rate_up="5Mb", sat_delay_ms=275, qlim=25,
                            per=1e-2, window=100, seeds=seeds))
    transat = Cell("transat", "Newreno", packets=1000, access_rate="10Mb", access_delay_ms=20,
                   sat_rate="2Mb", sat_rate_up="2Mb", sat_delay_ms=255, qlim=200, packet_size=960,
                   window=20_000, window_init=1, delack=True, delack_interval_s=0.2)
    if "transat" in names and "Newreno" in agents:
        out.append(transat)
    if "transat-rows" in names:
        # TRANSAT Table 1 rows 3 and 5-8 (50-packet buffer; CBR 0.8 or 1.7
        # Mb/s; window scaling off = a 64 KB window, 68 packets of 960
        # bytes) in the columns stock ns-2 can run (Ref., Iwin=4, SACK),
        # with the agent defaults of 2003 on both sides
        rows = {"1": (200, "0", 20_000), "2": (200, "0", 64), "3": (50, "0", 20_000), "4": (50, "0", 64),
                "5": (50, "0.8Mb", 20_000), "6": (50, "0.8Mb", 64), "7": (50, "1.7Mb", 20_000),
                "8": (50, "1.7Mb", 64)}
        columns = (("ref_tcp", "Newreno", 1, 0), ("ref_iw4", "Newreno", 4, 0), ("sack", "Sack1", 1, 0),
                   ("sack_limtran", "Sack1", 1, 1))
        for row, (qlim, cbr, window) in rows.items():
            for col, agent, iw, lt in columns:
                if agent in agents:
                    out.append(replace(transat, name=f"transat-{row}", agent=agent, window_init=iw, qlim=qlim,
                                       window=window, cbr_rate=cbr, ns2_2003=True, column=col, singledup=lt,
                                       end="done"))
    if "transat-bursts" in names:
        # TRANSAT Tables 3-5's setting (one flow, 50-packet buffer) through
        # the same burst timelines in both simulators: no S-LACP, and S-LACP
        # at 25% and 1% with +550 ms; Ref. and SACK
        for case, per, delay in (("burst100", 1.0, 0.0), ("slacp25", 0.25, 0.55), ("slacp1", 0.01, 0.55)):
            for col, agent in (("ref_tcp", "Newreno"), ("sack", "Sack1")):
                if agent in agents:
                    out.append(replace(transat, name=f"transat-{case}", agent=agent, qlim=50, ns2_2003=True,
                                       column=col, singledup=0, end="done", burst_per=per, burst_delay_s=delay,
                                       seeds=4 * seeds, stop_s=600.0))
    return out


@dataclass
class Run:
    completion_s: list[Optional[float]]  # per flow
    delivered_bytes: list[int]
    retransmissions: int
    timeouts: int

    @property
    def mean_completion(self) -> Optional[float]:
        done = [c for c in self.completion_s if c is not None]
        return statistics.mean(done) if len(done) == len(self.completion_s) else None


def burst_timeline(seed: int, per: float, stop_s: float) -> Path:
    """A TRANSAT/DSN burst timeline for `seed`, the TRANSAT study's reading
    (bursts a truncated exponential of mean 300 ms on [100, 500] ms, gaps
    uniform on [1, 10] s start to start, the first burst one gap after 0),
    written once as a trace file both simulators replay."""
    import math
    import random

    d = REPO / "bench-results" / "crosscheck-ns2" / "bursts"
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"seed{seed}_per{per:g}_unigap.csv"
    if path.exists():
        return path
    rng = random.Random(seed)

    def trunc_exp(lo: float, hi: float, mean: float) -> float:
        span = -math.expm1(-(hi - lo) / mean)
        return lo - mean * math.log1p(-rng.random() * span)

    def gap() -> float:
        return 1.0 + 9.0 * rng.random()

    lines, t = ["start,end,per"], gap()
    while t < stop_s:
        lines.append(f"{t:.6f},{t + trunc_exp(0.1, 0.5, 0.3):.6f},{per:g}")
        t += gap()
    path.write_text("\n".join(lines) + "\n")
    return path


def ns_binary() -> str:
    ns = shutil.which("ns")
    if ns is None:
        raise Ns2Unavailable("ns-2 is not installed (`apt-get install ns2`, or `make crosscheck-ns2`)")
    return ns


def ns2_command(c: Cell, seed: int) -> list[str]:
    """The ns-2 command line that runs cell `c` with `seed`."""
    args = {
        "agent": c.agent, "sink": c.sink, "flows": c.flows, "packets": c.packets, "stop": c.stop_s,
        "seed": seed, "access_rate": c.access_rate, "access_delay": f"{c.access_delay_ms}ms",
        "sat_rate": c.sat_rate, "sat_rate_up": c.sat_rate_up, "sat_delay": f"{c.sat_delay_ms}ms",
        "qlim": c.qlim, "per": c.per, "packetSize": c.packet_size, "window": c.window,
        "windowInit": c.window_init, "delack_interval": c.delack_interval_s, "hdr": c.header,
        "cbr_rate": c.cbr_rate, "shared": int(c.shared), "start_spacing": c.start_spacing_s,
        "check_every": c.check_every_s,
    }
    if c.singledup is not None:
        args["singledup"] = c.singledup
    if c.burst_per > 0:
        args.update({"bursts": str(burst_timeline(seed, c.burst_per, c.stop_s)), "burst_delay": c.burst_delay_s})
    if c.ns2_2003:
        args.update({"syn": 0, "delay_growth": 0, "syn_immediate_ack": 0, "newreno_changes1": 0, "partial_window_deflation": 0, "minrto": 1.0,
                     "rtxcur_init": 6.0, "tcpTick": 0.1, "precision_reduce": 0})
    return [ns_binary(), str(PEER), *[f"{k}={v}" for k, v in args.items()]]


def run_ns2(c: Cell, seed: int) -> Run:
    p = subprocess.run(ns2_command(c, seed), capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        raise RuntimeError(f"ns-2 failed on {c}: {p.stderr[-2000:]}")
    return parse_ns2(c, p.stdout)


def parse_ns2(c: Cell, stdout: str) -> Run:
    """The flows' lines `peer.tcl` printed."""
    comp, delivered, rtx, rto = [], [], 0, 0
    for line in stdout.splitlines():
        m = re.match(r"flow \d+ last (\S+) done (\S+) acked \d+ rexmitpack (\d+) rexmit (\d+) bytes (\d+)", line)
        if m:
            last = float(m.group(1) if c.end == "last" else m.group(2))
            comp.append(last if last >= 0 else None)
            rtx += int(m.group(3))
            rto += int(m.group(4))
            # the sink counts wire bytes (and 40 more for the connection's
            # first packet): payload = whole packets x packetSize_
            delivered.append(int(m.group(5)) // (c.packet_size + c.header) * c.packet_size)
    if len(comp) != c.flows:
        raise RuntimeError(f"ns-2 printed {len(comp)} flows for {c}: {stdout[-500:]}")
    return Run(comp, delivered, rtx, rto)


def satcp_scenario(c: Cell, seed: int) -> dict[str, Any]:
    # the same packets on the wire: ns-2 sends packetSize_ + header bytes,
    # satcp mss + 40
    mss = c.packet_size + c.header - 40
    tcp = {"profile": "ns2-2003" if c.ns2_2003 else "ns2", "variant": VARIANT[c.agent], "sack": c.sack, "mss": mss,
           "rwnd": c.window * mss, "initial_window": c.window_init, "delayed_ack": c.delack,
           "delayed_ack_timeout": c.delack_interval_s}
    if c.singledup is not None:
        tcp["limited_transmit"] = bool(c.singledup)
    nodes = {"n1": {}, "n2": {}}
    bursts = None
    if c.burst_per > 0:
        bursts = {"model": "trace", "file": str(burst_timeline(seed, c.burst_per, c.stop_s))}
        if c.burst_delay_s > 0:
            bursts.update({"burst_delay": f"{c.burst_delay_s}s", "burst_delay_order": "overtake"})
    sat: dict[str, Any] = {"a": "n1", "b": "n2", "rate_ab": c.sat_rate + "ps", "rate_ba": c.sat_rate_up + "ps",
                           "delay": c.sat_delay_ms / 1000, "queue_ab": {"kind": "droptail", "packets": c.qlim - 1}}
    if c.per > 0:
        sat["errors_ab"] = {"per": c.per}
    if bursts:
        sat["errors_ab"] = bursts
    if "errors_ab" in sat:
        # the peer's `$ns lossmodel` puts ns-2's ErrorModel at the link's
        # head, before the queue
        sat["loss_placement_ab"] = "head"
    links, flows = [sat], []
    if c.shared:
        nodes["s0"] = {}
        links.append({"a": "s0", "b": "n1", "rate": c.access_rate + "ps", "delay": c.access_delay_ms / 1000})
    for i in range(c.flows):
        src, dst = ("s0", "n2") if c.shared else (f"s{i}", f"d{i}")
        if not c.shared:
            nodes[src] = {}
            nodes[dst] = {}
            for a, b in ((src, "n1"), ("n2", dst)):
                links.append({"a": a, "b": b, "rate": c.access_rate + "ps", "delay": c.access_delay_ms / 1000})
        app: dict[str, Any] = {"kind": "ftp", "response_end": "last_ack" if c.end == "done" else "last_byte"}
        if c.packets:
            app["size"] = c.packets * mss
        if c.start_spacing_s:
            app["start"] = i * c.start_spacing_s
        flows.append({"name": f"f{i}", "src": src, "dst": dst, "tcp": tcp, "app": app})
    if c.cbr_rate != "0":
        flows.append({"name": "cbr", "src": "s0", "dst": "d0",
                      "app": {"kind": "cbr", "rate": c.cbr_rate + "ps", "packet_size": 1000}})
    return {"run": {"seed": seed, "stop": c.stop_s}, "nodes": nodes, "links": links, "flows": flows}


def run_satcp(c: Cell, seed: int) -> Run:
    fl = [f for f in satcp.run(satcp_scenario(c, seed)).summary["flows"] if f["udp"] is None]
    return Run([f["completion_s"] if f["completed"] else None for f in fl], [f["bytes_delivered"] for f in fl],
               sum(f["retransmissions"] for f in fl), sum(f["timeouts"] for f in fl))


@dataclass
class Row:
    cell: Cell
    satcp: list[Run] = field(default_factory=list)
    ns2: list[Run] = field(default_factory=list)


def _values(c: Cell, runs: list[Run]) -> Optional[list[float]]:
    """Per seed: mean completion time (finite transfers; None if a seed
    did not finish) or total goodput in b/s over the run."""
    if c.packets:
        vals = [r.mean_completion for r in runs]
        return None if any(v is None for v in vals) else vals
    return [sum(r.delivered_bytes) * 8 / c.stop_s for r in runs]


def _metric(c: Cell, runs: list[Run]) -> Optional[float]:
    """The cell's number over seeds: the median for loss-free cells (their
    seeds differ only in the clock phase, and the outcome is one of a few
    discrete values) and for the burst cells (the TRANSAT paper's
    statistic), the mean for lossy ones."""
    vals = _values(c, runs)
    if vals is None:
        return None
    return statistics.median(vals) if c.per == 0 else statistics.mean(vals)


def crosscheck(cell_list: list[Cell], jobs: int = 2) -> list[Row]:
    rows = [Row(c) for c in cell_list]
    tasks = [(row, seed) for row in rows for seed in range(1, row.cell.seeds + 1)]
    ns2 = run_peers(lambda t: run_ns2(t[0].cell, t[1]), tasks, jobs)
    for (row, seed), r in zip(tasks, ns2):
        row.ns2.append(r)
        row.satcp.append(run_satcp(row.cell, seed))
    return rows


def summary(rows: list[Row]) -> list[dict[str, Any]]:
    out = []
    for r in rows:
        c = r.cell
        s, n = _metric(c, r.satcp), _metric(c, r.ns2)
        out.append({
            "cell": c.name + (f" {c.column}" if c.column else ""), "agent": c.agent, "sink": c.sink, "per": c.per, "seeds": c.seeds,
            "metric": "completion_s" if c.packets else "goodput_bps",
            "satcp": s, "ns2": n, "diff": None if s is None or n is None else s / n - 1,
            "satcp_range": _range(c, r.satcp), "ns2_range": _range(c, r.ns2),
            "satcp_rtx": statistics.mean(x.retransmissions for x in r.satcp),
            "ns2_rtx": statistics.mean(x.retransmissions for x in r.ns2),
            "satcp_rto": statistics.mean(x.timeouts for x in r.satcp),
            "ns2_rto": statistics.mean(x.timeouts for x in r.ns2),
        })
    return out


def _range(c: Cell, runs: list[Run]) -> Optional[tuple[float, float]]:
    vals = _values(c, runs)
    return None if vals is None else (min(vals), max(vals))


def table(summ: list[dict[str, Any]]) -> str:
    rows = []
    for s in summ:
        scale = 1e-3 if s["metric"] == "goodput_bps" else 1
        unit = "kb/s" if s["metric"] == "goodput_bps" else "s"
        rng = [("-" if x is None else f"{x[0] * scale:.2f}-{x[1] * scale:.2f}") for x in (s["satcp_range"], s["ns2_range"])]
        rows.append((s["cell"], s["agent"], s["sink"], f"{s['per']:g}", s["seeds"], unit,
                     num(s["satcp"], ".2f", scale), num(s["ns2"], ".2f", scale), num(s["diff"], "+.1f", 100, "%"),
                     rng[0], rng[1],
                     num(s["satcp_rtx"], ".1f"), num(s["ns2_rtx"], ".1f"), num(s["satcp_rto"], ".1f"),
                     num(s["ns2_rto"], ".1f")))
    return format_table(["cell", "agent", "sink", "PER", "n", "unit", "satcp", "ns-2", "diff", "satcp range",
                         "ns-2 range", "rtx satcp", "rtx ns-2", "rto satcp", "rto ns-2"], rows, "lllrrlrrrrrrrrr")


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m satcp.crosscheck_ns2", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", default="geo,geo-delack,geo-lossy,transat,transat-rows,transat-bursts,peach")
    ap.add_argument("--agents", default=",".join(AGENTS))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(REPO / "bench-results" / "crosscheck-ns2"))
    ap.add_argument("--export-transat", metavar="CSV",
                    help="also write the TRANSAT burst cells' medians to CSV (the TRANSAT report reads "
                         f"{TRANSAT_BURSTS_CSV})")
    a = ap.parse_args(argv)
    agents = [x for x in a.agents.split(",") if x]
    bad = [x for x in agents if x not in AGENTS]
    if bad:
        print(f"error: --agents {bad[0]}: expected one of {', '.join(AGENTS)}", file=sys.stderr)
        return 2
    try:
        ns_binary()
    except Ns2Unavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    rows = crosscheck(cells(a.cells.split(","), agents, a.seeds), a.jobs)
    summ = summary(rows)
    print(table(summ))
    print("(completion: seconds until the sink has every byte, a SYN round trip included on both sides; goodput: "
          "payload delivered over the run, all flows; loss-free cells: median over seeds, lossy cells: mean; "
          "range = min-max over seeds; diff = satcp/ns-2 - 1; rtx = data retransmissions; "
          "rto = retransmission timeouts, means over seeds)")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(summ[0]))
        w.writeheader()
        w.writerows(summ)
    with open(out / "runs.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["cell", "agent", "sim", "seed", "completion_s", "delivered_bytes", "retransmissions", "timeouts"])
        for r in rows:
            for sim, runs in (("satcp", r.satcp), ("ns2", r.ns2)):
                for seed, x in enumerate(runs, 1):
                    w.writerow([r.cell.name, r.cell.agent, sim, seed, x.mean_completion, sum(x.delivered_bytes),
                                x.retransmissions, x.timeouts])
    print(f"wrote {out / 'runs.csv'} and {out / 'summary.csv'}")
    if a.export_transat:
        export_transat(summ, Path(a.export_transat))
        print(f"wrote {a.export_transat}")
    return 0


#: Where `--export-transat` keeps the medians the TRANSAT report shows.
TRANSAT_BURSTS_CSV = ROOT / "data" / "measured" / "ns2_transat_bursts.csv"


def export_transat(summ: list[dict[str, Any]], path: Path) -> None:
    """The TRANSAT burst cells (Tables 3-5's setting, the same burst
    timelines in both simulators) as case, column, seeds and the two
    medians, with a header saying how they were measured."""
    rows = [r for r in summ if r["cell"].split()[0] in ("transat-burst100", "transat-slacp25", "transat-slacp1")]
    if not rows:
        raise ValueError("no TRANSAT burst cells in this run (--cells transat-bursts)")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        f.write("# Measured by `python -m satcp.crosscheck_ns2 --cells transat-bursts --agents Newreno,Sack1 "
                f"--export-transat {path.name}` on {datetime.date.today().isoformat()}: ns-2 2.35 with its 2003 agent "
                "defaults and satcp's ns2-2003 profile replay the same DSN burst timeline per seed (the error model "
                "at the link's head; the S-LACP delay raises ns-2's link delay_, so packets may overtake), elapsed "
                "time to the sender's last ACK, median over the seeds. Not the paper's numbers.\n")
        w = csv.writer(f)
        w.writerow(["case", "column", "seeds", "ns2_median_s", "satcp_median_s"])
        for r in rows:
            case, column = r["cell"].split()
            w.writerow([case.removeprefix("transat-"), column, r["seeds"], f"{r['ns2']:.2f}", f"{r['satcp']:.2f}"])


if __name__ == "__main__":
    sys.exit(main())
