"""Cross-check of satcp's ``linux`` profile against the Linux kernel's TCP.

    python -m satcp.crosscheck_linux [--cases cubic-sack,reno-nosack,...]
                                     [--size 5MB] [--delay-ms 250] [--out DIR]

(``make crosscheck-linux`` builds the emulator and runs it; root only.) The
kernel side: two network namespaces, each with a TUN device, joined by
``satcp-linkemu`` (``crates/satcp-linkemu``), a user-space link emulator
(this kernel has no netem): rate, propagation delay, a drop-tail queue and
packet errors per direction, the same model as a satcp link direction. A
sender in the first namespace (TCP_CONGESTION set on the socket,
``net.ipv4.tcp_sack`` set in its namespace) writes N bytes to a receiver in
the second; completion time runs from connect() to the receiver reading the
last byte (both on CLOCK_MONOTONIC). The satcp side: the same link with
``tcp.profile = "linux"`` and only the congestion control and SACK set.
Everything runs in real time, so cases are few and short.

Output: a table (completion, goodput, retransmissions, satcp beside the
kernel), the emulator's own accounting (drops by cause, how late it wrote
packets against its model's times), CSV in ``--out`` (default
``bench-results/crosscheck-linux``).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import satcp

from .tables import format_table, num

REPO = Path(__file__).resolve().parents[2]
EMU = REPO / "target" / "release" / "satcp-linkemu"
NS_A, NS_B = "satcpxa", "satcpxb"
IP_A, IP_B = "10.77.0.1", "10.77.0.2"
PORT = 5201

# case label -> (kernel congestion control, SACK, satcp variant, satcp recovery)
CASES: dict[str, tuple[str, bool, str, str]] = {
    "cubic-sack": ("cubic", True, "cubic", "sack"),
    "cubic-nosack": ("cubic", False, "cubic", "newreno"),
    "reno-sack": ("reno", True, "sack", "sack"),
    "reno-nosack": ("reno", False, "newreno", "newreno"),
    "bbr-sack": ("bbr", True, "bbr", "sack"),
    "bbr-nosack": ("bbr", False, "bbr", "newreno"),
}


class LinuxUnavailable(RuntimeError):
    """Not root, or no TUN/network namespaces."""


@dataclass(frozen=True)
class Access:
    """A first hop before the bottleneck (sender -> router), each
    direction with its own queue."""

    rate_bps: int = 100_000_000
    delay_ms: float = 1.0
    queue: int = 1000


@dataclass(frozen=True)
class Path_:
    rate_down_bps: int = 10_000_000
    rate_up_bps: int = 10_000_000
    delay_ms: float = 250.0
    queue: int = 400
    per: float = 0.0
    size: int = 5_000_000
    rcvbuf: int = 0  # the kernel receiver's SO_RCVBUF (0: autotuned)
    rwnd: int = 0  # satcp's tcp.rwnd (0: the profile's autotuning)
    access: Optional[Access] = None  # a fast first hop before the bottleneck
    initcwnd: int = 0  # the sender's initial window, segments (0: the kernel's 10)
    # the largest buffers a tuned host's tcp_rmem/tcp_wmem allow, bytes (0:
    # the kernel's defaults); satcp's `rwnd` is then the share for data
    rmem_max: int = 0

    def describe(self) -> str:
        hop = f"behind a {self.access.rate_bps / 1e6:g} Mb/s {self.access.delay_ms:g} ms access link, " if self.access else ""
        iw = f"IW {self.initcwnd}" if self.initcwnd else "IW 10"
        rmem = f"tcp_rmem/wmem up to {self.rmem_max} bytes" if self.rmem_max else "default buffers"
        return (f"{self.rate_down_bps / 1e6:g} Mb/s both ways, {self.delay_ms:g} ms one way, {hop}{self.queue}-packet "
                f"queue, PER {self.per:g}, {self.size} bytes, {iw}, {rmem}")


@dataclass
class Result:
    completion_s: Optional[float]
    retransmissions: int
    emulator: Optional[dict[str, Any]] = None
    # the kernel's send window (largest seen) and its ssthresh reductions,
    # from `ss -tin` in the sender's namespace every 0.25 s; for satcp, its
    # recoveries (fast recoveries and timeouts)
    window: Optional[int] = None
    reductions: Optional[int] = None
    peak_cwnd: Optional[int] = None  # segments: the kernel's largest sampled, satcp's largest
    cwnd_trace: Optional[list] = None  # (s, cwnd segments, ssthresh or None): the kernel's polls
    queue_drops: Optional[int] = None  # at the bottleneck (and the access hop, if any)

    def goodput_bps(self, size: int) -> Optional[float]:
        return None if not self.completion_s else size * 8 / self.completion_s


def _sh(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), capture_output=True, text=True, check=check)


def _realtime() -> None:
    """In the emulator's process before it starts: real-time scheduling
    (SCHED_FIFO) when allowed (root). netem runs in the kernel's softirq,
    ahead of user processes; a user-space emulator at normal priority was
    late by milliseconds whenever the machine was busy (the accuracy test
    failed under a loaded CI run). It blocks in ppoll between packets, so
    it takes a core only while it has work."""
    _realtime_at(10)


def _peer_realtime() -> None:
    """The kernel's sending and receiving programs run real-time too,
    below the emulator: a receiver that is not scheduled does not read,
    and Linux then holds its ACKs until it does (`__tcp_ack_snd_check`
    wants the window's right edge to advance): on a busy machine the
    kernel's receiver ACKed 27 segments at once after 31 ms, which
    breaks HyStart's ACK train and changes the transfer."""
    _realtime_at(5)


def _realtime_at(priority: int) -> None:
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))
    except (PermissionError, OSError, AttributeError):
        pass  # normal priority: accurate on a quiet machine


def available() -> None:
    if os.geteuid() != 0:
        raise LinuxUnavailable("needs root (network namespaces and TUN devices)")
    if not Path("/dev/net/tun").exists():
        raise LinuxUnavailable("no /dev/net/tun")
    if shutil.which("ip") is None:
        raise LinuxUnavailable("no `ip` command (iproute2)")
    if not EMU.exists():
        raise LinuxUnavailable(f"{EMU} not built (cargo build --release -p satcp-linkemu)")


def _teardown() -> None:
    for ns in (NS_A, NS_B):
        _sh("ip", "netns", "del", ns, check=False)


RECEIVER = r"""
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
if int(sys.argv[4]):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(sys.argv[4]))
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1)
print("listening", flush=True)
c, _ = s.accept(); n = 0; want = int(sys.argv[3])
while n < want:
    b = c.recv(1 << 20)
    if not b: break
    n += len(b)
print(time.clock_gettime(time.CLOCK_MONOTONIC), n, flush=True)
"""

SENDER = r"""
import socket, struct, sys, time
cc, host, port, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
s = socket.socket(); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
t0 = time.clock_gettime(time.CLOCK_MONOTONIC)
s.connect((host, port))
buf = b"x" * 65536; left = size
while left > 0:
    left -= s.send(buf[:min(left, len(buf))])
s.shutdown(socket.SHUT_WR)
s.recv(1)
info = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
print(t0, struct.unpack_from("I", info, 100)[0], flush=True)
"""


class _SocketWatch(threading.Thread):
    """Polls the sender's socket (`ss -tin` in its namespace) every 50 ms:
    the largest send window the receiver offered, the largest cwnd, and
    how many times ssthresh was lowered (each recovery or timeout lowers it
    once; two within a poll count as one)."""

    every_s = 0.05

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.window: Optional[int] = None
        self.peak_cwnd: Optional[int] = None
        self.reductions = 0
        # (seconds since the watch began, cwnd, ssthresh or None) per poll
        self.samples: list[tuple[float, int, Optional[int]]] = []
        self._ssthresh: Optional[int] = None
        self._done = threading.Event()

    def run(self) -> None:
        t0 = time.monotonic()
        while not self._done.wait(self.every_s):
            out = _sh("ip", "netns", "exec", NS_A, "ss", "-tin", "dst", IP_B, check=False).stdout
            fields = dict(tok.split(":", 1) for tok in out.split() if tok.count(":") == 1 and tok.split(":")[1].isdigit())
            if "snd_wnd" in fields:
                self.window = max(self.window or 0, int(fields["snd_wnd"]))
            if "cwnd" in fields:
                self.peak_cwnd = max(self.peak_cwnd or 0, int(fields["cwnd"]))
                ss = int(fields["ssthresh"]) if "ssthresh" in fields else None
                self.samples.append((time.monotonic() - t0, int(fields["cwnd"]), ss))
            if "ssthresh" in fields:
                ssthresh = int(fields["ssthresh"])
                # (ss shows ssthresh only once it is lowered from infinity)
                if self._ssthresh is None or ssthresh < self._ssthresh:
                    self.reductions += 1
                self._ssthresh = ssthresh

    def stop(self) -> None:
        self._done.set()
        self.join()


def run_kernel(case: str, path: Path_, seed: int = 1, timer_quantum_ns: int = 0,
               capture: Optional[Path] = None) -> Result:
    """The kernel's transfer through the emulator. `timer_quantum_ns`
    makes the emulator's sleeps end only on multiples of it, as on a
    kernel whose timers run off the tick (to test that it keeps time
    there too). `capture`: a pcap file of the receiver's side (its
    device, headers only), to see its ACKs and windows; the sender's side
    goes beside it (`NAME-sender.pcap`), to see ACKs as the sender's
    HyStart sees them."""
    cc, sack, _, _ = CASES[case]
    available()
    _teardown()
    emu = None
    try:
        for ns in (NS_A, NS_B):
            _sh("ip", "netns", "add", ns)
            _sh("ip", "-n", ns, "link", "set", "lo", "up")
            sysctls = [("net.ipv4.tcp_sack", int(sack)), ("net.ipv4.tcp_no_metrics_save", 1)]
            if path.rmem_max:
                sysctls += [("net.ipv4.tcp_rmem", f"4096 131072 {path.rmem_max}"),
                            ("net.ipv4.tcp_wmem", f"4096 16384 {path.rmem_max}")]
            for k, v in sysctls:
                _sh("ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"{k}={v}")
        emu = subprocess.Popen([str(EMU), "a=sxa", "b=sxb", *_emulator_args(path), f"seed={seed}",
                                f"timer_quantum_ns={timer_quantum_ns}"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_realtime)
        if emu.stdout.readline().strip() != "ready":
            raise LinuxUnavailable(f"satcp-linkemu did not start: {emu.stderr.read()}")
        for dev, ns, ip, peer in (("sxa", NS_A, IP_A, IP_B), ("sxb", NS_B, IP_B, IP_A)):
            _sh("ip", "link", "set", dev, "netns", ns)
            _sh("ip", "-n", ns, "addr", "add", ip, "peer", peer, "dev", dev)
            _sh("ip", "-n", ns, "link", "set", dev, "up")
        if path.initcwnd:
            _sh("ip", "-n", NS_A, "route", "replace", IP_B, "dev", "sxa", "initcwnd", str(path.initcwnd))
        caps = []
        if capture is not None:
            sender_file = capture.with_name(capture.stem + "-sender.pcap")
            for ns, dev, file in ((NS_B, "sxb", capture), (NS_A, "sxa", sender_file)):
                cap = subprocess.Popen(["ip", "netns", "exec", ns, "tshark", "-q", "-i", dev, "-s", "96", "-w",
                                        str(file)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                while "Capturing on" not in (cap.stderr.readline() or "Capturing on"):
                    pass
                caps.append(cap)
        rx = subprocess.Popen(["ip", "netns", "exec", NS_B, sys.executable, "-c", RECEIVER, IP_B, str(PORT),
                               str(path.size), str(path.rcvbuf)], stdout=subprocess.PIPE, text=True,
                              preexec_fn=_peer_realtime)
        assert rx.stdout.readline().strip() == "listening"
        watch = _SocketWatch()
        watch.start()
        try:
            tx = subprocess.run(["ip", "netns", "exec", NS_A, sys.executable, "-c", SENDER, cc, IP_B, str(PORT),
                                 str(path.size)], capture_output=True, text=True, timeout=600,
                                preexec_fn=_peer_realtime)
        finally:
            watch.stop()
        end_line = rx.stdout.readline().split()
        rx.wait(timeout=30)
        if tx.returncode != 0 or len(end_line) != 2:
            raise RuntimeError(f"transfer failed: {tx.stderr[-1000:]}")
        t0, rtx = tx.stdout.split()
        t_end, got = float(end_line[0]), int(end_line[1])
        completion = t_end - float(t0) if got >= path.size else None
        if caps:
            time.sleep(0.5)
        for cap in caps:
            cap.send_signal(15)
            cap.wait(timeout=30)
        emu.send_signal(15)
        out, _ = emu.communicate(timeout=10)
        stats = {json.loads(l)["dir"]: json.loads(l) for l in out.splitlines() if l.startswith("{")}
        return Result(completion, int(rtx), stats, watch.window, watch.reductions, peak_cwnd=watch.peak_cwnd,
                      queue_drops=stats.get("ab", {}).get("drops_queue"), cwnd_trace=watch.samples)
    finally:
        if emu and emu.poll() is None:
            emu.kill()
        _teardown()


def _emulator_args(path: Path_) -> list[str]:
    """satcp-linkemu's keys for the path: the bottleneck, or the access hop
    then the bottleneck toward the receiver (and back the other way); the
    return direction's queues never fill (ACKs)."""
    one_way = int(path.delay_ms * 1e6)
    hops_ab = [(path.rate_down_bps, one_way, path.queue)]
    hops_ba = [(path.rate_up_bps, one_way, 100_000)]
    if path.access:
        a = path.access
        hops_ab.insert(0, (a.rate_bps, int(a.delay_ms * 1e6), a.queue))
        hops_ba.append((a.rate_bps, int(a.delay_ms * 1e6), 100_000))
    join = lambda hops, k: ",".join(str(h[k]) for h in hops)
    return [f"rate_ab={join(hops_ab, 0)}", f"rate_ba={join(hops_ba, 0)}", f"delay_ab_ns={join(hops_ab, 1)}",
            f"delay_ba_ns={join(hops_ba, 1)}", f"limit_ab={join(hops_ab, 2)}", f"limit_ba={join(hops_ba, 2)}",
            f"per_ab={path.per}" if not path.access else f"per_ab=0,{path.per}"]


def satcp_scenario(case: str, path: Path_, seed: int = 1) -> dict[str, Any]:
    _, sack, variant, recovery = CASES[case]
    link: dict[str, Any] = {"a": "a", "b": "b", "rate_ab": path.rate_down_bps, "rate_ba": path.rate_up_bps,
                            "delay": path.delay_ms / 1000, "queue_ab": {"kind": "droptail", "packets": path.queue}}
    if path.per:
        link["errors_ab"] = {"per": path.per}
    tcp: dict[str, Any] = {"profile": "linux", "variant": variant, "recovery": recovery, "sack": sack}
    if path.rwnd:
        tcp["rwnd"] = path.rwnd
    if path.initcwnd:
        tcp["initial_window"] = path.initcwnd
    nodes: dict[str, Any] = {"a": {}, "b": {}}
    links = [link]
    if path.access:
        acc = path.access
        nodes = {"a": {}, "r": {}, "b": {}}
        link["a"] = "r"
        links = [{"a": "a", "b": "r", "rate": acc.rate_bps, "delay": acc.delay_ms / 1000,
                  "queue_ab": {"kind": "droptail", "packets": acc.queue}}, link]
    return {"run": {"seed": seed, "stop": 600}, "nodes": nodes, "links": links,
            "flows": [{"name": "f", "src": "a", "dst": "b", "tcp": tcp, "app": {"kind": "ftp", "size": path.size}}]}


def run_satcp(case: str, path: Path_, seed: int = 1) -> Result:
    scn = satcp_scenario(case, path, seed)
    scn["run"]["sample_interval"] = 0.01
    r = satcp.run(scn)
    f = r.summary["flows"][0]
    drops = sum(l["drops"]["queue"] for l in r.summary["links"] if l["to"] != "a" and l["from"] != "b")
    mss = 1448
    return Result(f["completion_s"] if f["completed"] else None, f["retransmissions"],
                  reductions=f["fast_recoveries"] + f["timeouts"],
                  peak_cwnd=int(r.series["cwnd_bytes"].max() // mss) if len(r.series) else None, queue_drops=drops)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m satcp.crosscheck_linux", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--size", type=int, default=5_000_000, help="bytes per transfer")
    ap.add_argument("--delay-ms", type=float, default=250.0, help="one-way delay")
    ap.add_argument("--queue", type=int, default=400, help="drop-tail limit toward the receiver, packets")
    ap.add_argument("--per", type=float, default=0.0)
    ap.add_argument("--rcvbuf", type=int, default=0,
                    help="the kernel receiver's SO_RCVBUF, bytes (0: autotuned); the window it gives is printed")
    ap.add_argument("--rwnd", type=int, default=0, help="satcp's tcp.rwnd, bytes (0: the linux profile's autotuning)")
    ap.add_argument("--access", action="store_true", help="a 100 Mb/s, 1 ms access link before the bottleneck")
    ap.add_argument("--initcwnd", type=int, default=0, help="the sender's initial window, segments (0: 10)")
    ap.add_argument("--rmem-max", type=int, default=0, help="tcp_rmem/tcp_wmem's largest buffer, bytes (0: default)")
    ap.add_argument("--out", default=str(REPO / "bench-results" / "crosscheck-linux"))
    a = ap.parse_args(argv)
    cases = [c for c in a.cases.split(",") if c]
    bad = [c for c in cases if c not in CASES]
    if bad:
        print(f"error: --cases {bad[0]}: expected one of {', '.join(CASES)}", file=sys.stderr)
        return 2
    try:
        available()
    except LinuxUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 3
    path = Path_(delay_ms=a.delay_ms, queue=a.queue, per=a.per, size=a.size, rcvbuf=a.rcvbuf, rwnd=a.rwnd,
                 access=Access() if a.access else None, initcwnd=a.initcwnd, rmem_max=a.rmem_max)
    rows, table, traces = [], [], {}
    for c in cases:
        k, s = run_kernel(c, path), run_satcp(c, path)
        traces[c] = (k, s)
        diff = None if not (k.completion_s and s.completion_s) else s.completion_s / k.completion_s - 1
        emu = k.emulator or {}
        late = emu.get("ab", {})
        rows.append({"case": c, "kernel_s": k.completion_s, "satcp_s": s.completion_s, "diff": diff,
                     "kernel_rtx": k.retransmissions, "satcp_rtx": s.retransmissions,
                     "emu_drops_queue": late.get("drops_queue"), "emu_late_p99_us": late.get("late_p99_us"),
                     "emu_late_max_us": late.get("late_max_us"), "kernel_window": k.window,
                     "kernel_reductions": k.reductions, "satcp_reductions": s.reductions,
                     "kernel_peak_cwnd": k.peak_cwnd, "satcp_peak_cwnd": s.peak_cwnd,
                     "kernel_queue_drops": k.queue_drops, "satcp_queue_drops": s.queue_drops})
        table.append((c, num(k.completion_s, ".2f"), num(s.completion_s, ".2f"), num(diff, "+.1f", 100, "%"),
                      num(k.goodput_bps(path.size), ".2f", 1e-6), num(s.goodput_bps(path.size), ".2f", 1e-6),
                      k.retransmissions, s.retransmissions, num(k.peak_cwnd), num(s.peak_cwnd),
                      num(k.queue_drops), num(s.queue_drops), late.get("late_p50_us", "-"), late.get("late_p99_us", "-")))
        print(f"{c}: kernel {num(k.completion_s, '.2f')} s ({k.reductions} ssthresh reductions, send window up to "
              f"{k.window} bytes), satcp {num(s.completion_s, '.2f')} s ({s.reductions} recoveries)", file=sys.stderr)
    print(format_table(["case", "kernel s", "satcp s", "diff", "kernel Mb/s", "satcp Mb/s", "rtx kernel",
                        "rtx satcp", "peak cwnd kernel", "peak cwnd satcp", "queue drops kernel",
                        "queue drops satcp", "emu late p50 us", "emu late p99 us"], table, "lrrrrrrrrrrrrr"))
    print(f"(path: {path.describe()}; receive buffer: kernel {path.rcvbuf or 'autotuned'}, satcp "
          f"{path.rwnd or 'autotuned'}; completion from connect() to the last byte read; diff = satcp/kernel - 1; "
          "peak cwnd in segments, the kernel's sampled every 50 ms)")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for c, (k, _) in traces.items():
        with open(out / f"kernel_cwnd_{c}.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["time_s", "cwnd_segments", "ssthresh_segments"])
            w.writerows(k.cwnd_trace or [])
    with open(out / "summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
