"""Cross-check of satcp's QUIC flows against QUIC on a real path.

    python -m satcp.crosscheck_quic [--cells geo-1MB,geo-10MB,...] [--repeat N] [--out DIR]

(``make crosscheck-quic`` builds the peers and runs it; root only.) The
path is the one the TCP cross-check uses (``crosscheck_linux``): two
network namespaces joined by ``satcp-linkemu``, here 10 Mb/s both ways,
250 ms one way, a 400-packet drop-tail queue, PER 0 or 1e-2 on the
downlink. Over it:

* **quinn on real sockets** (``satcp-quicpeer``, ``crates/satcp-quicpeer``):
  the same quinn-proto 0.11.19 that satcp drives on simulated time, under
  quinn's tokio runtime and the real clock, with real TLS 1.3 (rustls on
  ring), quinn's CUBIC and otherwise quinn's defaults. The server pushes
  the file on a unidirectional stream once it has accepted the
  connection; the client times the handshake (connect() to established)
  and the completion (connect() to the last byte read). What this checks
  is satcp's handling of time around quinn (timers, pacing, its event
  loop), not the protocol: the issue's bound is 5% on 10 MB loss-free.
* **aioquic** (an independent implementation, a Python package: its
  CUBIC, its defaults), the same transfer: the bound is 20%, or the
  mechanism named.
* **satcp**: the same path as a scenario, a QUIC flow with ``quic.cc =
  "quinn-cubic"`` (and null crypto, which keeps the handshake's flights and
  packet sizes: what the handshake time compares).

Output: a table (handshake and completion, real and simulated, the
differences, quinn's lost packets), CSV in ``--out`` (default
``bench-results/crosscheck-quic``).
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Optional

import satcp

from .crosscheck_linux import (chosen_cells, IP_A, NS_A, NS_B, REPO, LinuxUnavailable, Path_, _peer_realtime, available,
                               emulated_path)
from .tables import format_table, num, write_csv

PEER = REPO / "target" / "release" / "satcp-quicpeer"
PORT = 4433

GEO = Path_(rate_down_bps=10_000_000, rate_up_bps=10_000_000, delay_ms=250.0, queue=400)

# The issue's bounds on completion: quinn real against quinn simulated, and
# the independent implementation against satcp (loss-free cells).
QUINN_TOLERANCE = 0.05
INDEPENDENT_TOLERANCE = 0.20
# At PER 1e-2 a transfer's time depends on where the first losses fall
# (1 MB: 4.6 to 14.7 s over three real runs), so satcp's side is the median
# over SATCP_SEEDS seeds, held to the real runs' median within
# LOSSY_TOLERANCE (the median of three real runs is itself that uncertain).
SATCP_SEEDS = 15
LOSSY_TOLERANCE = 0.25


@dataclass(frozen=True)
class Cell:
    name: str
    path: Path_

    @property
    def size(self) -> int:
        return self.path.size


CELLS = [
    Cell("geo-1MB", replace(GEO, size=1_000_000)),
    Cell("geo-10MB", replace(GEO, size=10_000_000)),
    Cell("geo-1MB-per1e-2", replace(GEO, size=1_000_000, per=0.01)),
    Cell("geo-10MB-per1e-2", replace(GEO, size=10_000_000, per=0.01)),
]
CELL_NAMES = {c.name: c for c in CELLS}


@dataclass
class Transfer:
    handshake_s: Optional[float]
    completion_s: Optional[float]
    lost_packets: Optional[int] = None
    integrity_errors: int = 0


def quinn_available() -> None:
    available()
    if not PEER.exists():
        raise LinuxUnavailable(f"{PEER} not built (cargo build --release -p satcp-quicpeer)")


def aioquic_available() -> None:
    try:
        import aioquic  # noqa: F401
    except ImportError as e:
        raise LinuxUnavailable(f"aioquic is not installed (pip install aioquic): {e}") from e


def run_quinn(path: Path_, seed: int = 1) -> Transfer:
    """quinn on real sockets through the emulator: server (the sender) in
    the first namespace, client in the second."""
    quinn_available()
    with tempfile.TemporaryDirectory() as tmp, emulated_path(path, seed) as em:
        cert = Path(tmp) / "cert.der"
        common = [f"cert={cert}", "cc=cubic"]
        server = subprocess.Popen(["ip", "netns", "exec", NS_A, str(PEER), "server", f"listen={IP_A}:{PORT}",
                                   f"size={path.size}", *common], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, preexec_fn=_peer_realtime)
        try:
            if server.stdout.readline().strip() != "ready":
                raise RuntimeError(f"satcp-quicpeer server did not start: {server.stderr.read()}")
            client = subprocess.run(["ip", "netns", "exec", NS_B, str(PEER), "client", f"connect={IP_A}:{PORT}",
                                     *common], capture_output=True, text=True, timeout=600,
                                    preexec_fn=_peer_realtime)
            if client.returncode != 0:
                raise RuntimeError(f"satcp-quicpeer client failed: {client.stderr[-1000:]}")
            c = json.loads(client.stdout.strip().splitlines()[-1])
            out, _ = server.communicate(timeout=30)
            s = json.loads(out.strip().splitlines()[-1])
        finally:
            if server.poll() is None:
                server.kill()
        em.stop()
    done = c["bytes"] >= path.size
    return Transfer(c["handshake_s"], c["completion_s"] if done else None, s["lost_packets"], c["integrity_errors"])


AIOQUIC_SERVER = r"""
import asyncio, datetime, sys
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from aioquic.asyncio import serve
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import HandshakeCompleted, ConnectionTerminated

host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
key = ec.generate_private_key(ec.SECP256R1())
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "satcp")])
now = datetime.datetime.now(datetime.timezone.utc)
cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(1).not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
cfg = QuicConfiguration(is_client=False, alpn_protocols=["satcp"], congestion_control_algorithm="cubic")
cfg.certificate, cfg.private_key = cert, key
data = bytes(i % 251 for i in range(251)) * (size // 251 + 1)
done = asyncio.Event()

class Push(QuicConnectionProtocol):
    def quic_event_received(self, ev):
        if isinstance(ev, HandshakeCompleted):
            sid = self._quic.get_next_available_stream_id(is_unidirectional=True)
            self._quic.send_stream_data(sid, data[:size], end_stream=True)
            self.transmit()
        elif isinstance(ev, ConnectionTerminated):
            done.set()

async def main():
    server = await serve(host, port, configuration=cfg, create_protocol=Push)
    print("ready", flush=True)
    await done.wait()
    server.close()

asyncio.run(main())
"""

AIOQUIC_CLIENT = r"""
import asyncio, json, ssl, sys, time
from aioquic.asyncio import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import StreamDataReceived

host, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cfg = QuicConfiguration(is_client=True, alpn_protocols=["satcp"], congestion_control_algorithm="cubic",
                        verify_mode=ssl.CERT_NONE)

class Pull(QuicConnectionProtocol):
    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.got, self.bad, self.end = 0, 0, asyncio.Event()
    def quic_event_received(self, ev):
        if isinstance(ev, StreamDataReceived):
            for i, b in enumerate(ev.data):
                self.bad += b != (self.got + i) % 251
            self.got += len(ev.data)
            if ev.end_stream:
                self.end.set()

async def main():
    t0 = time.monotonic()
    async with connect(host, port, configuration=cfg, create_protocol=Pull) as c:
        hs = time.monotonic() - t0
        await c.end.wait()
        done = time.monotonic() - t0
        c.close()
    print(json.dumps({"handshake_s": hs, "completion_s": done, "bytes": c.got, "integrity_errors": c.bad}), flush=True)

asyncio.run(main())
"""


def run_aioquic(path: Path_, seed: int = 1) -> Transfer:
    """aioquic (its CUBIC) through the emulator, server in the first
    namespace as for quinn."""
    available()
    aioquic_available()
    with emulated_path(path, seed) as em:
        server = subprocess.Popen(["ip", "netns", "exec", NS_A, sys.executable, "-c", AIOQUIC_SERVER, IP_A, str(PORT),
                                   str(path.size)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  preexec_fn=_peer_realtime)
        try:
            if server.stdout.readline().strip() != "ready":
                raise RuntimeError(f"the aioquic server did not start: {server.stderr.read()}")
            client = subprocess.run(["ip", "netns", "exec", NS_B, sys.executable, "-c", AIOQUIC_CLIENT, IP_A,
                                     str(PORT), str(path.size)], capture_output=True, text=True, timeout=600,
                                    preexec_fn=_peer_realtime)
            if client.returncode != 0:
                raise RuntimeError(f"the aioquic client failed: {client.stderr[-1000:]}")
            c = json.loads(client.stdout.strip().splitlines()[-1])
            server.wait(timeout=30)
        finally:
            if server.poll() is None:
                server.kill()
        em.stop()
    done = c["bytes"] >= path.size
    return Transfer(c["handshake_s"], c["completion_s"] if done else None, None, c["integrity_errors"])


def satcp_scenario(path: Path_, seed: int = 1) -> dict[str, Any]:
    link: dict[str, Any] = {"a": "a", "b": "b", "rate_ab": path.rate_down_bps, "rate_ba": path.rate_up_bps,
                            "delay": path.delay_ms / 1000, "queue_ab": {"kind": "droptail", "packets": path.queue}}
    if path.per:
        link["errors_ab"] = {"per": path.per}
    return {"run": {"seed": seed, "stop": 600}, "nodes": {"a": {}, "b": {}}, "links": [link],
            "flows": [{"name": "f", "src": "a", "dst": "b", "transport": "quic", "quic": {"cc": "quinn-cubic"},
                       "app": {"kind": "ftp", "size": path.size}}]}


def run_satcp(path: Path_, seed: int = 1) -> Transfer:
    f = satcp.run(satcp_scenario(path, seed)).summary["flows"][0]
    return Transfer(f["quic"]["handshake_s"], f["completion_s"] if f["completed"] else None,
                    f["quic"]["lost_packets"], f["integrity_errors"])


def _median(ts: list[Transfer]) -> Transfer:
    done = sorted((t for t in ts if t.completion_s), key=lambda t: t.completion_s)
    return done[(len(done) - 1) // 2] if done else ts[0]


def diff(real: Optional[float], sim: Optional[float]) -> Optional[float]:
    return None if not (real and sim) else sim / real - 1


def compare_cell(cell: Cell, repeat: int, independent: bool) -> dict[str, Any]:
    q = [run_quinn(cell.path, seed=i + 1) for i in range(repeat)]
    a = [run_aioquic(cell.path, seed=i + 1) for i in range(repeat)] if independent else []
    # satcp over many seeds: the lossy cells' loss draws differ by seed
    s = [run_satcp(cell.path, seed=i + 1) for i in range(SATCP_SEEDS)]
    qm, sm = _median(q), _median(s)
    am = _median(a) if a else Transfer(None, None)
    loss_free = cell.path.per == 0
    row = {"cell": cell.name, "size": cell.size, "per": cell.path.per, "runs": repeat,
           "quinn_handshake_s": qm.handshake_s, "satcp_handshake_s": sm.handshake_s,
           "quinn_s": qm.completion_s, "quinn_s_min": min((t.completion_s for t in q if t.completion_s), default=None),
           "quinn_s_max": max((t.completion_s for t in q if t.completion_s), default=None),
           "aioquic_s": am.completion_s, "aioquic_handshake_s": am.handshake_s,
           "satcp_s": sm.completion_s, "satcp_s_median_of": len(s),
           "diff_quinn": diff(qm.completion_s, sm.completion_s), "diff_aioquic": diff(am.completion_s, sm.completion_s),
           "quinn_lost": qm.lost_packets, "satcp_lost": sm.lost_packets,
           "integrity_errors": sum(t.integrity_errors for t in q + a + s)}
    # the issue's bounds on the loss-free cells; the lossy ones against the
    # real runs' median within LOSSY_TOLERANCE
    bound = QUINN_TOLERANCE if loss_free else LOSSY_TOLERANCE
    row["quinn_agrees"] = row["diff_quinn"] is not None and abs(row["diff_quinn"]) <= bound
    row["aioquic_agrees"] = (not loss_free or not independent) or (
        row["diff_aioquic"] is not None and abs(row["diff_aioquic"]) <= INDEPENDENT_TOLERANCE)
    return row


RECORD_FIELDS = ["cell", "runs", "quinn_handshake_s", "quinn_s", "quinn_s_min", "quinn_s_max", "quinn_lost",
                 "aioquic_handshake_s", "aioquic_s"]


def record(rows: list[dict[str, Any]], file: Path, command: str) -> None:
    """The real implementations' side of each cell (medians, quinn's
    range), headed by the command that measured it."""
    import os
    import time
    file.parent.mkdir(parents=True, exist_ok=True)
    with open(file, "w", newline="") as f:
        f.write(f"# Measured by `{command}` on {time.strftime('%Y-%m-%d')} (kernel {os.uname().release}, root, "
                "satcp-linkemu): quinn 0.11 on real sockets (satcp-quicpeer, quinn-proto 0.11.19, TLS 1.3) and "
                "aioquic through the emulator, medians over the runs. Not a paper's numbers.\n")
        w = csv.DictWriter(f, fieldnames=RECORD_FIELDS)
        w.writeheader()
        w.writerows({k: r[k] for k in RECORD_FIELDS} for r in rows)


def recorded(file: Path) -> dict[str, dict[str, str]]:
    with open(file) as f:
        return {r["cell"]: r for r in csv.DictReader(line for line in f if not line.startswith("#"))}


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m satcp.crosscheck_quic", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cells", default=None, help=f"comma-separated (default all: {', '.join(CELL_NAMES)})")
    ap.add_argument("--repeat", type=int, default=3, help="real runs per cell, and satcp seeds (the median is compared)")
    ap.add_argument("--no-independent", action="store_true", help="skip aioquic")
    ap.add_argument("--out", default=str(REPO / "bench-results" / "crosscheck-quic"))
    ap.add_argument("--record", default=None, metavar="CSV",
                    help="also write the real implementations' side to CSV (data/measured/quic_crosscheck.csv is "
                         "such a file, which the tests hold satcp to)")
    a = ap.parse_args(argv)
    names = chosen_cells(a.cells, CELL_NAMES, a.repeat)
    if names is None:
        return 2
    try:
        quinn_available()
        if not a.no_independent:
            aioquic_available()
    except LinuxUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    rows = []
    for name in names:
        row = compare_cell(CELL_NAMES[name], a.repeat, not a.no_independent)
        rows.append(row)
        print(f"{name}: quinn {num(row['quinn_s'], '.2f')} s, aioquic {num(row['aioquic_s'], '.2f')} s, "
              f"satcp {num(row['satcp_s'], '.2f')} s", file=sys.stderr)
    table = [(r["cell"], num(r["quinn_handshake_s"], ".3f"), num(r["satcp_handshake_s"], ".3f"),
              num(r["quinn_s"], ".2f"), num(r["aioquic_s"], ".2f"), num(r["satcp_s"], ".2f"),
              num(r["diff_quinn"], "+.1f", 100, "%"), num(r["diff_aioquic"], "+.1f", 100, "%"),
              num(r["quinn_lost"]), num(r["satcp_lost"]),
              "yes" if r["quinn_agrees"] and r["aioquic_agrees"] else "NO") for r in rows]
    print(format_table(["cell", "handshake quinn", "handshake satcp", "quinn s", "aioquic s", "satcp s",
                        "satcp vs quinn", "satcp vs aioquic", "lost quinn", "lost satcp", "agrees"], table,
                       "lrrrrrrrrrl"))
    print(f"(10 Mb/s both ways, 250 ms one way, 400-packet queue; medians of {a.repeat} real runs and of "
          f"{SATCP_SEEDS} satcp seeds; completion from connect() to the last byte read; agrees: loss-free cells "
          f"within {QUINN_TOLERANCE:.0%} of real quinn and {INDEPENDENT_TOLERANCE:.0%} of aioquic, lossy cells within "
          f"{LOSSY_TOLERANCE:.0%} of real quinn)")
    write_csv(Path(a.out) / "summary.csv", rows)
    if a.record:
        record(rows, Path(a.record), " ".join(["python -m satcp.crosscheck_quic", *(argv or sys.argv[1:])]))
    return 0 if all(r["quinn_agrees"] and r["aioquic_agrees"] and r["integrity_errors"] == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
