"""Cross-check of satcp's split-TCP PEP against a real split proxy.

    python -m satcp.crosscheck_pep [--cells ...] [--repeat N] [--out DIR]

(``make crosscheck-pep``; root only.) Three network namespaces in a row:
the sender, a middle one running ``socat`` as a TCP-splitting proxy (it
accepts the sender's connection and opens its own to the receiver, Linux
TCP on both legs), and the receiver, joined by two ``satcp-linkemu``
hops: a terrestrial one (100 Mb/s, 5 ms one way) and a GEO one (10 Mb/s,
250 ms one way, a 400-packet queue toward the receiver, PER 0 or 1e-3).
The sender opens and writes the file (CUBIC, the kernel's defaults), as a
satcp FTP flow's source does; the PEP sits on the opener's side of the
satellite, so the leg it opens is the satellite leg. Times run from the
sender's connect(): the first byte the receiver reads, and the last.

The satcp side: the same three nodes and links, the flow with
``tcp.profile = "linux"`` and CUBIC, and ``[[peps]] node = "gw"`` with
its defaults (both legs run the flow's own TCP). The issue's bound:
completion and first-byte times within 15%.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import median
from typing import Any, Iterator, Optional

import satcp

from .crosscheck_linux import (chosen_cells, EMU, REPO, LinuxUnavailable, Path_, RECEIVER, _emulator_args, _peer_realtime,
                               _realtime, _sh, available)
from .tables import format_table, num, write_csv

NS = {"s": "satcpps", "m": "satcppm", "c": "satcppc"}
IP_S, IP_M1, IP_M2, IP_C = "10.78.0.1", "10.78.0.2", "10.78.1.1", "10.78.1.2"
PORT = 5201
TOLERANCE = 0.15

TERRESTRIAL = Path_(rate_down_bps=100_000_000, rate_up_bps=100_000_000, delay_ms=5.0, queue=1000)
GEO = Path_(rate_down_bps=10_000_000, rate_up_bps=10_000_000, delay_ms=250.0, queue=400)


@dataclass(frozen=True)
class Cell:
    name: str
    size: int
    per: float


CELLS = [Cell("1MB", 1_000_000, 0.0), Cell("10MB", 10_000_000, 0.0),
         Cell("1MB-per1e-3", 1_000_000, 1e-3), Cell("10MB-per1e-3", 10_000_000, 1e-3)]
CELL_NAMES = {c.name: c for c in CELLS}


@dataclass
class Transfer:
    first_byte_s: Optional[float]
    completion_s: Optional[float]


SENDER = r"""
import socket, sys, time
host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b"cubic")
t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
s.connect((host, port))
buf = b"x" * 65536; left = size
while left > 0:
    left -= s.send(buf[:min(left, len(buf))])
s.shutdown(socket.SHUT_WR)
s.recv(1)
print(t0, flush=True)
"""


def _teardown() -> None:
    for ns in NS.values():
        _sh("ip", "netns", "del", ns, check=False)


@contextmanager
def _split_path(per: float) -> Iterator[None]:
    """The three namespaces, the two emulators and socat in the middle."""
    available()
    _teardown()
    procs: list[subprocess.Popen] = []
    try:
        for ns in NS.values():
            _sh("ip", "netns", "add", ns)
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
            _sh("ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv4.tcp_no_metrics_save=1")
        for (a, b, path) in (("sps", "spm1", TERRESTRIAL), ("spm2", "spc", replace(GEO, per=per))):
            emu = subprocess.Popen([str(EMU), f"a={a}", f"b={b}", *_emulator_args(path), "seed=1"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_realtime)
            procs.append(emu)
            if emu.stdout.readline().strip() != "ready":
                raise LinuxUnavailable(f"satcp-linkemu did not start: {emu.stderr.read()}")
        for dev, ns, ip, peer in (("sps", NS["s"], IP_S, IP_M1), ("spm1", NS["m"], IP_M1, IP_S),
                                  ("spm2", NS["m"], IP_M2, IP_C), ("spc", NS["c"], IP_C, IP_M2)):
            _sh("ip", "link", "set", dev, "netns", ns)
            _sh("ip", "-n", ns, "addr", "add", ip, "peer", peer, "dev", dev)
            _sh("ip", "-n", ns, "link", "set", dev, "up")
        proxy = subprocess.Popen(["ip", "netns", "exec", NS["m"], "socat", f"TCP-LISTEN:{PORT},bind={IP_M1},reuseaddr",
                                  f"TCP:{IP_C}:{PORT}"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 preexec_fn=_peer_realtime)
        procs.append(proxy)
        time.sleep(0.2)  # socat listening
        yield
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        _teardown()


def run_proxy(cell: Cell) -> Transfer:
    """The kernel's transfer through socat."""
    with _split_path(cell.per):
        rx = subprocess.Popen(["ip", "netns", "exec", NS["c"], sys.executable, "-c", RECEIVER, IP_C, str(PORT),
                               str(cell.size), "0"], stdout=subprocess.PIPE, text=True, preexec_fn=_peer_realtime)
        assert rx.stdout.readline().strip() == "listening"
        tx = subprocess.run(["ip", "netns", "exec", NS["s"], sys.executable, "-c", SENDER, IP_M1, str(PORT),
                             str(cell.size)], capture_output=True, text=True, timeout=900, preexec_fn=_peer_realtime)
        end_line = rx.stdout.readline().split()
        reads = [tuple(map(float, r.split(":"))) for r in rx.stdout.readline().split()]
        rx.wait(timeout=30)
        if tx.returncode != 0 or len(end_line) != 2:
            raise RuntimeError(f"transfer failed: {tx.stderr[-1000:]}")
        t0 = float(tx.stdout.split()[0])
        done = int(end_line[1]) >= cell.size
        return Transfer(reads[0][0] - t0 if reads else None, float(end_line[0]) - t0 if done else None)


def satcp_scenario(cell: Cell, seed: int = 1, pep: bool = True) -> dict[str, Any]:
    geo: dict[str, Any] = {"a": "gw", "b": "c", "rate": GEO.rate_down_bps, "delay": GEO.delay_ms / 1000,
                           "queue_ab": {"kind": "droptail", "packets": GEO.queue}}
    if cell.per:
        geo["errors_ab"] = {"per": cell.per}
    scn: dict[str, Any] = {
        "run": {"seed": seed, "stop": 900}, "nodes": {"s": {}, "gw": {}, "c": {}},
        "links": [{"a": "s", "b": "gw", "rate": TERRESTRIAL.rate_down_bps, "delay": TERRESTRIAL.delay_ms / 1000,
                   "queue_ab": {"kind": "droptail", "packets": TERRESTRIAL.queue}}, geo],
        "flows": [{"name": "f", "src": "s", "dst": "c", "tcp": {"profile": "linux", "variant": "cubic"},
                   "app": {"kind": "ftp", "size": cell.size}}]}
    if pep:
        scn["peps"] = [{"node": "gw"}]
    return scn


def run_satcp(cell: Cell, seed: int = 1) -> Transfer:
    f = satcp.run(satcp_scenario(cell, seed)).summary["flows"][0]
    return Transfer(f.get("first_byte_s"), f["completion_s"] if f["completed"] else None)


def satcp_median(cell: Cell, runs: int) -> Transfer:
    """satcp's side of a cell: one run loss-free (seeds give the same
    bits), the median over max(runs, 5) seeds at PER > 0."""
    ts = [run_satcp(cell, seed=i + 1) for i in range(max(runs, 5) if cell.per else 1)]
    med = lambda xs: median(x for x in xs if x is not None) if any(x is not None for x in xs) else None
    return Transfer(med([t.first_byte_s for t in ts]), med([t.completion_s for t in ts]))


def recorded(file: Path) -> dict[str, dict[str, str]]:
    with open(file) as f:
        return {r["cell"]: r for r in csv.DictReader(line for line in f if not line.startswith("#"))}


def diff(real: Optional[float], sim: Optional[float]) -> Optional[float]:
    return None if not (real and sim) else sim / real - 1


def compare_cell(cell: Cell, repeat: int) -> dict[str, Any]:
    real = [run_proxy(cell) for _ in range(repeat)]
    sim = satcp_median(cell, repeat)
    med = lambda xs: median(x for x in xs if x is not None) if any(x is not None for x in xs) else None
    row = {"cell": cell.name, "size": cell.size, "per": cell.per, "runs": repeat,
           "proxy_first_byte_s": med([t.first_byte_s for t in real]), "satcp_first_byte_s": sim.first_byte_s,
           "proxy_s": med([t.completion_s for t in real]), "satcp_s": sim.completion_s,
           "proxy_s_min": min((t.completion_s for t in real if t.completion_s), default=None),
           "proxy_s_max": max((t.completion_s for t in real if t.completion_s), default=None)}
    row["diff_first_byte"] = diff(row["proxy_first_byte_s"], row["satcp_first_byte_s"])
    row["diff"] = diff(row["proxy_s"], row["satcp_s"])
    row["agrees"] = all(d is not None and abs(d) <= TOLERANCE for d in (row["diff"], row["diff_first_byte"]))
    return row


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m satcp.crosscheck_pep", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", default=None, help=f"comma-separated (default all: {', '.join(CELL_NAMES)})")
    ap.add_argument("--repeat", type=int, default=3, help="real runs per cell (the median is compared)")
    ap.add_argument("--out", default=str(REPO / "bench-results" / "crosscheck-pep"))
    a = ap.parse_args(argv)
    names = chosen_cells(a.cells, CELL_NAMES, a.repeat)
    if names is None:
        return 2
    try:
        available()
        if subprocess.run(["which", "socat"], capture_output=True).returncode != 0:
            raise LinuxUnavailable("no socat (apt-get install socat)")
    except LinuxUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    rows = []
    for n in names:
        rows.append(compare_cell(CELL_NAMES[n], a.repeat))
        r = rows[-1]
        print(f"{n}: proxy {num(r['proxy_s'], '.2f')} s, satcp {num(r['satcp_s'], '.2f')} s", file=sys.stderr)
    print(format_table(["cell", "first byte proxy", "first byte satcp", "diff", "proxy s", "satcp s", "diff", "agrees"],
                       [(r["cell"], num(r["proxy_first_byte_s"], ".3f"), num(r["satcp_first_byte_s"], ".3f"),
                         num(r["diff_first_byte"], "+.1f", 100, "%"), num(r["proxy_s"], ".2f"), num(r["satcp_s"], ".2f"),
                         num(r["diff"], "+.1f", 100, "%"), "yes" if r["agrees"] else "NO") for r in rows], "lrrrrrrl"))
    print(f"(socat between two satcp-linkemu hops, Linux CUBIC on both legs; satcp's PEP with profile linux; medians "
          f"of {a.repeat} real runs; times from the sender's connect(); agrees: both within {TOLERANCE:.0%})")
    write_csv(Path(a.out) / "summary.csv", rows)
    return 0 if all(r["agrees"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
