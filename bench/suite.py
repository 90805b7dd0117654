"""The reference benchmark suite: satcp on each reference scenario, and side
by side with ns-2 2.35 and ns-3 3.44 on every one both can express.

    python bench/suite.py [--only NAME,...] [--rounds 2] [--no-ns2] [--no-ns3]
                          [--no-scaling] [--quick] [--out bench-results/suite]

(`make bench-suite`; `make bench` runs it.) Every simulator runs as a whole
process, single-threaded, one at a time; its wall time is measured from
outside (process start to exit, start-up and scenario reading included) and
its peak resident memory is the process's own (`wait4`'s ru_maxrss).

1. **satcp alone**: each reference scenario as a satcp user writes it
   (the `rfc` profile, 1460-byte segments), run by `satcp-run`: wall time,
   simulated events per second (the engine's count over the whole-process
   wall time), delivered data packets per second (bytes delivered in order
   to the applications / MSS, over the wall time) and peak RSS. The XFWA
   OC3 and Starlink scenarios come from `satcp-bench --print-scenario`
   (no ns-2 or ns-3 model of XFWA or of a constellation exists to compare).
2. **Side by side**: the same three-node network (server -access- gateway
   =satellite= client; every flow from the server to the client) in satcp
   and in a peer, paired: in each of `--rounds` rounds the two run back to
   back, the order alternating, and the best wall time of each is kept, so
   that machine noise hits both. Against ns-2 the peer is
   `crosscheck/ns2/peer.tcl` (`shared=1`: one source node, sinks on the
   gateway's far end) with Agent/TCP/Sack1 or Newreno, 1000-byte packets
   and the TCPSink (a finite transfer's end polled every 100 ms, so that the
   Tcl polling does not weigh on ns-2's time), and satcp runs the same network under its `ns2` profile
   (`satcp.crosscheck_ns2.satcp_scenario`, the cross-check's mapping);
   against ns-3 the peer is `bench/ns3/geo_bench dumbbell` (its README says
   how every setting maps) and satcp runs the scenario as in 1 under the
   ns-3 cross-check's mapping (`satcp_ns3_tree`: ns-3's loss response and
   framing; with satcp's defaults its SACK flows are 11% and 30% faster
   than ns-3's at PER 1e-3 and 1e-2, docs/performance.md). A peer may
   run a shorter simulated time than 1 (ns-3 is about a hundred times
   slower); satcp then runs that same time for the pair. Printed: both wall
   times, their ratio, and the relative difference of goodput (bytes
   delivered in order, all flows, over the simulated time), or of the
   completion time for a finite transfer.
3. **Scaling**: the 50-flow scenario with its flows doubled and its
   simulated time doubled (wall-time ratios of the best of three
   interleaved pairs, the target being at most 2),
   and the 10-flow scenario run ten times longer (peak RSS ratio, target at
   most 1.1).

Tables go to stdout and, as CSV and Markdown, to `--out`.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "python"))

from satcp import crosscheck_ns2 as ns2x  # noqa: E402
from satcp.sweep import toml_value  # noqa: E402
from satcp.tables import format_table  # noqa: E402

SATCP_RUN = REPO / "target" / "release" / "satcp-run"
SATCP_BENCH = REPO / "target" / "release" / "satcp-bench"
NS3_BENCH = REPO / "target" / "ns3" / "geo_bench"


@dataclass(frozen=True)
class Ref:
    """A reference scenario: the three-node network, or (`bench`) one of
    satcp-bench's scenarios that only satcp can run."""

    name: str
    what: str
    flows: int = 1
    access_rate: str = "100Mb"
    access_delay_ms: float = 5
    sat_rate: str = "10Mb"
    sat_rate_up: str = "10Mb"
    sat_delay_ms: float = 250
    qlim: int = 100  # packets waiting at the gateway toward the client
    per: float = 0.0
    variant: str = "sack"  # or "newreno"
    rwnd: int = 1 << 20
    bytes: int = 0  # per flow; 0: unlimited
    stagger_ms: float = 0
    stop_s: float = 300
    ns2_stop_s: Optional[float] = None  # None: stop_s
    ns3_stop_s: Optional[float] = None
    bench: str = ""  # satcp-bench --print-scenario NAME

    def at(self, stop_s: float) -> "Ref":
        return replace(self, stop_s=stop_s)


REFS = [
    Ref("geo-1-flow-50mb", "one NewReno flow, 50 MB over a 10/2 Mb/s GEO bent pipe (250 ms), 100-packet buffer",
        variant="newreno", sat_rate_up="2Mb", bytes=50_000_000, stop_s=200),
    *[Ref(f"geo-10-flows-per{tag}", f"10 long SACK flows, 10/2 Mb/s GEO link, 100-packet buffer, PER {per:g}, 300 s",
          flows=10, sat_rate_up="2Mb", per=per, stagger_ms=100, stop_s=300)
      for tag, per in (("0", 0.0), ("1e-3", 1e-3), ("1e-2", 1e-2))],
    Ref("geo-50-flows-100mbps", "50 SACK flows, 100 Mb/s GEO link, 1000-packet buffer, 200 s",
        flows=50, access_rate="1Gb", access_delay_ms=2, sat_rate="100Mb", sat_rate_up="100Mb", qlim=1000,
        rwnd=4 << 20, stagger_ms=20, stop_s=200),
    Ref("geo-500-flows-1gbps", "500 SACK flows, 1 Gb/s GEO link, 10,000-packet buffer, 60 s",
        flows=500, access_rate="10Gb", access_delay_ms=1, sat_rate="1Gb", sat_rate_up="1Gb", qlim=10_000,
        rwnd=4 << 20, stagger_ms=2, stop_s=60, ns3_stop_s=10),
    Ref("one-link-10000-flows", "10,000 NewReno flows on one 1 Gb/s GEO link, 10,000-packet buffer, 64 KiB windows, 30 s",
        flows=10_000, access_rate="10Gb", access_delay_ms=1, sat_rate="1Gb", sat_rate_up="1Gb", qlim=10_000,
        variant="newreno", rwnd=64 << 10, stagger_ms=1, stop_s=30, ns3_stop_s=12),
    Ref("xfwa-oc3-512", "XFWA, 512 NewReno flows over a 3-satellite OC3 chain, 20 s (satcp only)", bench="xfwa-oc3-512"),
    Ref("starlink-1000-flows-10s", "Starlink shell, 100 ground stations, 1000 CUBIC flows, 10 s (satcp only)",
        bench="starlink-1000-flows-10s"),
]


# --------------------------------------------------------------------------
# scenarios

def rate(r: str) -> str:
    """ns-2's "10Mb" as satcp's "10Mbps"."""
    return r + "ps"


def satcp_tree(r: Ref) -> dict[str, Any]:
    """The reference network as a satcp user writes it (defaults: the
    `rfc` profile)."""
    sat: dict[str, Any] = {"a": "gateway", "b": "client", "rate_ab": rate(r.sat_rate), "rate_ba": rate(r.sat_rate_up),
                           "delay": f"{r.sat_delay_ms}ms", "queue_ab": {"kind": "droptail", "packets": r.qlim}}
    if r.per > 0:
        sat["errors_ab"] = {"per": r.per}
    flows = []
    for i in range(r.flows):
        app: dict[str, Any] = {"kind": "ftp", "start": f"{i * r.stagger_ms:g}ms"}
        if r.bytes:
            app["size"] = r.bytes
        flows.append({"src": "server", "dst": "client", "tcp": {"variant": r.variant, "rwnd": r.rwnd}, "app": app})
    return {
        "run": {"seed": 1, "stop": f"{r.stop_s:g}s"},
        "nodes": {"server": {}, "gateway": {}, "client": {}},
        "links": [{"a": "server", "b": "gateway", "rate": rate(r.access_rate), "delay": f"{r.access_delay_ms}ms"}, sat],
        "flows": flows,
    }


def satcp_ns3_tree(r: Ref) -> dict[str, Any]:
    """The reference network under the ns-3 cross-check's mapping
    (`python/satcp/crosscheck.py`, `bench/ns3/README.md`): ns-3 halves its
    pipe at a loss where RFC 5681 halves FlightSize (`ssthresh_basis =
    "pipe"`), its NewReno leaves recovery with cwnd = ssthresh, and its
    point-to-point devices add a 2-byte PPP header to every packet."""
    tree = satcp_tree(r)
    for f in tree["flows"]:
        f["tcp"]["ssthresh_basis"] = "pipe"
        if r.variant == "newreno":
            f["tcp"]["full_ack_cwnd"] = "ssthresh"
    for link in tree["links"]:
        link["overhead"] = 2
    return tree


def ns2_cell(r: Ref) -> ns2x.Cell:
    """The reference network in ns-2 terms (1000-byte packets, window_ in
    packets, queue-limit counting the packet being sent)."""
    return ns2x.Cell(
        name=r.name, agent="Sack1" if r.variant == "sack" else "Newreno", flows=r.flows,
        packets=-(-r.bytes // 1000) if r.bytes else 0, stop_s=r.ns2_stop_s or r.stop_s,
        access_rate=r.access_rate, access_delay_ms=r.access_delay_ms, sat_rate=r.sat_rate, sat_rate_up=r.sat_rate_up,
        sat_delay_ms=r.sat_delay_ms, qlim=r.qlim + 1, per=r.per, packet_size=1000, window=r.rwnd // 1000,
        shared=True, start_spacing_s=r.stagger_ms / 1000, check_every_s=0.1,
    )


def to_toml(tree: dict[str, Any]) -> str:
    """A scenario tree as TOML: top-level tables, arrays of tables, and
    inline values."""
    out: list[str] = []
    for key, v in tree.items():
        if isinstance(v, list):
            for item in v:
                out.append(f"[[{key}]]")
                out += [f"{k} = {toml_value(x)}" for k, x in item.items()]
        else:
            out.append(f"[{key}]")
            out += [f"{k} = {toml_value(x)}" for k, x in v.items()]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# running

@dataclass
class Measured:
    wall_s: float
    rss_mib: Optional[float]
    events: Optional[int] = None
    sim_s: float = 0.0
    delivered_bytes: int = 0
    completion_s: Optional[float] = None  # finite flows: the last one's, from its start
    engine_wall_s: Optional[float] = None

    @property
    def goodput_bps(self) -> float:
        return self.delivered_bytes * 8 / self.sim_s if self.sim_s else 0.0


TIME = "/usr/bin/time"


def timed(cmd: list[str], cwd: Optional[Path] = None) -> tuple[float, Optional[float], str]:
    """Run `cmd` alone; its wall time, its own peak RSS (MiB) and stdout.

    The peak comes from GNU time (`/usr/bin/time -f %M`, Debian's `time`):
    a process started straight from Python inherits, through exec, the
    resident high-water mark of the Python that forked it (Linux carries
    ru_maxrss across exec), which would hide anything smaller."""
    with tempfile.TemporaryDirectory() as d:
        rss_file = Path(d) / "rss"
        wrap = [TIME, "-f", "%M", "-o", str(rss_file)] if os.access(TIME, os.X_OK) else []
        t0 = time.perf_counter()
        p = subprocess.run(wrap + cmd, capture_output=True, cwd=cwd)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, cmd[:3]))} ... exited {p.returncode}: {p.stderr.decode()[-1500:]}")
        rss = float(rss_file.read_text().split()[-1]) / 1024 if wrap else None
        return wall, rss, p.stdout.decode()


def run_satcp_text(text: str, work: Path, mss: int) -> tuple[Measured, int]:
    f = work / "scenario.toml"
    f.write_text(text)
    wall, rss, out = timed([str(SATCP_RUN), str(f)])
    s = json.loads(out)
    tcp = [x for x in s["flows"] if x["udp"] is None]
    delivered = sum(x["bytes_delivered"] for x in tcp)
    done = [x["completion_s"] for x in tcp if x["completed"]]
    completion = max(done) if done and len(done) == len(tcp) else None
    m = Measured(wall, rss, s["events"], s["sim_time_s"], delivered, completion, s["wall_s"])
    return m, delivered // mss


def run_satcp(r: Ref, work: Path) -> tuple[Measured, int]:
    """satcp on the reference scenario; also the data packets delivered."""
    if r.bench:
        text = subprocess.run([str(SATCP_BENCH), "--print-scenario", r.bench], check=True, capture_output=True,
                              text=True).stdout
        return run_satcp_text(text, work, 1460)
    return run_satcp_text(to_toml(satcp_tree(r)), work, 1460)


def run_satcp_ns2_mirror(r: Ref, work: Path) -> Measured:
    cell = ns2_cell(r)
    return run_satcp_text(to_toml(ns2x.satcp_scenario(cell, 1)), work, cell.packet_size)[0]


def run_ns2(r: Ref, work: Path) -> Measured:
    cell = ns2_cell(r)
    wall, rss, out = timed(ns2x.ns2_command(cell, 1), cwd=work)
    run = ns2x.parse_ns2(cell, out)
    comp = None
    if cell.packets:
        comp = max(run.completion_s) if all(c is not None for c in run.completion_s) else None
    return Measured(wall, rss, None, cell.stop_s, sum(run.delivered_bytes), comp)


def run_ns3(r: Ref, stop_s: float) -> Measured:
    args = [str(NS3_BENCH), "dumbbell", "--flows", r.flows, "--access-rate", rate(r.access_rate),
            "--access-delay", r.access_delay_ms / 1000, "--sat-rate", rate(r.sat_rate), "--sat-rate-up",
            rate(r.sat_rate_up), "--sat-delay", r.sat_delay_ms / 1000, "--qlim", r.qlim, "--per", r.per,
            "--sack", int(r.variant == "sack"), "--rwnd", r.rwnd, "--bytes", r.bytes, "--stagger",
            r.stagger_ms / 1000, "--mss", 1460, "--stop", stop_s]
    wall, rss, out = timed([str(a) for a in args])
    j = json.loads(out.strip().splitlines()[-1])
    comp = j["completion_s"] if r.bytes and j["completion_s"] >= 0 else None
    return Measured(wall, rss, j["events"], j["sim_s"], j["rx_bytes"], comp, j["wall_s"])


# --------------------------------------------------------------------------
# the three parts

def part_alone(refs: list[Ref], work: Path) -> list[dict[str, Any]]:
    rows = []
    for r in refs:
        m, pkts = run_satcp(r, work)
        rows.append({"scenario": r.name, "sim_s": m.sim_s, "events": m.events, "wall_s": m.wall_s,
                     "engine_wall_s": m.engine_wall_s, "events_per_s": m.events / m.wall_s,
                     "delivered_pkts": pkts, "delivered_pkts_per_s": pkts / m.wall_s, "peak_rss_mib": m.rss_mib,
                     "what": r.what})
        print(f"  satcp {r.name}: {m.wall_s:.2f} s", file=sys.stderr, flush=True)
    return rows


def pair(r: Ref, peer: str, rounds: int, work: Path) -> dict[str, Any]:
    """satcp and `peer` back to back, `rounds` times, alternating order."""
    stop = (r.ns2_stop_s if peer == "ns-2" else r.ns3_stop_s) or r.stop_s
    ours = {"ns-2": lambda: run_satcp_ns2_mirror(r.at(stop), work),
            "ns-3": lambda: run_satcp_text(to_toml(satcp_ns3_tree(r.at(stop))), work, 1460)[0]}[peer]
    theirs = {"ns-2": lambda: run_ns2(r.at(stop), work), "ns-3": lambda: run_ns3(r, stop)}[peer]
    a: list[Measured] = []
    b: list[Measured] = []
    try:
        for k in range(rounds):
            if k % 2 == 0:
                a.append(ours())
                b.append(theirs())
            else:
                b.append(theirs())
                a.append(ours())
    except RuntimeError as e:  # a peer that fails (out of memory, ...) is reported, not fatal
        print(f"  {r.name} vs {peer}: failed: {e}", file=sys.stderr, flush=True)
        if not (a and b):
            return {"scenario": r.name, "peer": peer, "sim_s": stop, "satcp_wall_s": a[0].wall_s if a else None,
                    "peer_wall_s": None, "ratio": None, "metric": f"failed: {str(e)[:120]}", "satcp": None,
                    "peer_value": None, "rel_diff": None, "satcp_rss_mib": None, "peer_rss_mib": None,
                    "peer_events": None}
    sa, sb = min(a, key=lambda m: m.wall_s), min(b, key=lambda m: m.wall_s)
    if r.bytes:
        metric, va, vb = "completion s", sa.completion_s, sb.completion_s
    else:
        metric, va, vb = "goodput Mb/s", sa.goodput_bps / 1e6, sb.goodput_bps / 1e6
    diff = (va - vb) / vb if va is not None and vb else None
    print(f"  {r.name} vs {peer}: satcp {sa.wall_s:.2f} s, {peer} {sb.wall_s:.2f} s; {metric} {fmt(va, 4)} vs "
          f"{fmt(vb, 4)}", file=sys.stderr, flush=True)
    return {"scenario": r.name, "peer": peer, "sim_s": stop, "satcp_wall_s": sa.wall_s, "peer_wall_s": sb.wall_s,
            "ratio": sb.wall_s / sa.wall_s, "metric": metric, "satcp": va, "peer_value": vb, "rel_diff": diff,
            "satcp_rss_mib": sa.rss_mib, "peer_rss_mib": sb.rss_mib, "peer_events": sb.events}


def part_scaling(work: Path) -> list[dict[str, Any]]:
    base = next(r for r in REFS if r.name == "geo-50-flows-100mbps").at(100)
    ten = next(r for r in REFS if r.name == "geo-10-flows-per1e-3")
    rows = []
    for what, a, b, key in (
        ("flows 50 -> 100 (100 s)", base, replace(base, flows=100), "wall_s"),
        ("simulated time 100 s -> 200 s (50 flows)", base, base.at(200), "wall_s"),
        ("simulated time 100 s -> 1000 s (10 flows, PER 1e-3)", ten.at(100), ten.at(1000), "rss_mib"),
    ):
        # best of three interleaved pairs: a single run of a fraction of a
        # second is at the machine's mercy (instruction counts under
        # callgrind are linear: docs/performance.md)
        pairs = [(run_satcp(a, work)[0], run_satcp(b, work)[0]) for _ in range(3)]
        ma = min((p[0] for p in pairs), key=lambda m: getattr(m, key))
        mb = min((p[1] for p in pairs), key=lambda m: getattr(m, key))
        va, vb = getattr(ma, key), getattr(mb, key)
        rows.append({"change": what, "measure": "wall s" if key == "wall_s" else "peak RSS MiB", "before": va,
                     "after": vb, "ratio": vb / va, "events_ratio": mb.events / ma.events})
    return rows


def fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}g}" if abs(v) < 1e4 else f"{v:.3e}"
    return str(v)


def write(out: Path, name: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    with open(out / f"{name}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def markdown(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
                     + ["| " + " | ".join(r) + " |" for r in rows]) + "\n"


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated scenario names")
    ap.add_argument("--rounds", type=int, default=2, help="paired runs per peer and scenario")
    ap.add_argument("--no-ns2", action="store_true")
    ap.add_argument("--no-ns3", action="store_true")
    ap.add_argument("--no-scaling", action="store_true")
    ap.add_argument("--quick", action="store_true", help="a tenth of every simulated time (a smoke test)")
    ap.add_argument("--out", type=Path, default=REPO / "bench-results" / "suite")
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n]
    unknown = set(names) - {r.name for r in REFS}
    if unknown:
        ap.error(f"unknown scenario {', '.join(sorted(unknown))}; one of {', '.join(r.name for r in REFS)}")
    refs = [r for r in REFS if not names or r.name in names]
    if args.quick:
        refs = [replace(r, stop_s=r.stop_s / 10, ns2_stop_s=r.ns2_stop_s and r.ns2_stop_s / 10,
                        ns3_stop_s=r.ns3_stop_s and r.ns3_stop_s / 10) for r in refs if not r.bench]
    for b in (SATCP_RUN, SATCP_BENCH):
        if not b.exists():
            ap.error(f"{b} is missing: make build")
    peers = []
    if not args.no_ns2:
        try:
            ns2x.ns_binary()
            peers.append("ns-2")
        except ns2x.Ns2Unavailable as e:
            print(f"suite: {e}; ns-2 column skipped", file=sys.stderr)
    if not args.no_ns3:
        if NS3_BENCH.exists():
            peers.append("ns-3")
        else:
            print(f"suite: {NS3_BENCH} missing (bash bench/ns3/build.sh geo_bench); ns-3 column skipped", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    md = []
    with tempfile.TemporaryDirectory(prefix="satcp-suite-") as d:
        work = Path(d)
        alone = part_alone(refs, work)
        write(args.out, "satcp", alone)
        head = ["scenario", "sim s", "events", "wall s", "events/s", "delivered pkts/s", "peak RSS MiB"]
        rows = [[a["scenario"], fmt(a["sim_s"]), str(a["events"]), f"{a['wall_s']:.3f}", fmt(a["events_per_s"]),
                 fmt(a["delivered_pkts_per_s"]), fmt(a["peak_rss_mib"])] for a in alone]
        print("\nsatcp on the reference scenarios (whole process, satcp-run):")
        print(format_table(head, rows))
        md.append(markdown(head, rows))
        paired = []
        for r in refs:
            for p in peers if not r.bench else []:
                paired.append(pair(r, p, args.rounds, work))
                write(args.out, "peers", paired)  # as they come: a long sweep of peers may be cut short
        if paired:
            head = ["scenario", "peer", "sim s", "satcp wall s", "peer wall s", "peer / satcp", "compared", "satcp",
                    "peer", "difference"]
            rows = [[p["scenario"], p["peer"], fmt(p["sim_s"]), fmt(p["satcp_wall_s"]), fmt(p["peer_wall_s"]),
                     "-" if p["ratio"] is None else f"{p['ratio']:.1f}x", p["metric"], fmt(p["satcp"], 4), fmt(p["peer_value"], 4),
                     "-" if p["rel_diff"] is None else f"{100 * p['rel_diff']:+.1f}%"] for p in paired]
            print(f"\nside by side (best of {args.rounds} paired runs each, whole processes):")
            print(format_table(head, rows))
            md.append(markdown(head, rows))
        if not args.no_scaling and not args.quick:
            sc = part_scaling(work)
            write(args.out, "scaling", sc)
            head = ["change", "measure", "before", "after", "ratio", "events ratio"]
            rows = [[s["change"], s["measure"], f"{s['before']:.3f}", f"{s['after']:.3f}", f"{s['ratio']:.3f}",
                     f"{s['events_ratio']:.3f}"] for s in sc]
            print("\nscaling (satcp):")
            print(format_table(head, rows))
            md.append(markdown(head, rows))
    (args.out / "tables.md").write_text("\n".join(md))
    print(f"\nwritten: {args.out}/{{satcp,peers,scaling}}.csv and tables.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
