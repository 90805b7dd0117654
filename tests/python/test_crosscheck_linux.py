"""Reduced cross-check against the Linux kernel's TCP (the full one is
`make crosscheck-linux`, docs/validation-linux.md).

One short transfer (CUBIC with SACK, 1 MB over 10 Mb/s with 25 ms one way
and a 100-packet queue) through `satcp-linkemu` between two network
namespaces, in real time (about a second). Needs root, /dev/net/tun and
`ip`; skipped, with the reason, without them. What is asserted:

* The emulator keeps time: the 99th percentile of how late it wrote a
  packet against its model's time is under 5% of the round trip (2.5 ms;
  a packet that late stretches its round trip by a third of the
  comparison's 15% tolerance; measured 70-360 us here). It runs in user
  space in real time, so a busy machine can delay it: the run is repeated
  up to three times and one must keep time; the rest is asserted on that
  one. It must keep time on a kernel whose timers run off the tick too
  (a CI machine's were 3.3 ms late at the 99th percentile before the
  emulator learned to end its sleeps early): the same run with sleeps
  ending only on multiples of 3.33 ms (HZ=300).
* The kernel's transfer obeys the path: it takes at least the 1 MB's
  serialisation plus a round trip and one more for the handshake.
* satcp (profile linux) is within 15% of the kernel on this case, the
  issue's bound (measured -0.8%: kernel 0.976 s, satcp 0.968 s).

Without the kernel: the sender's socket watch (`ss -tin` polled during a
run) counts ssthresh reductions and the largest send window, and a
receive window given to the cross-check reaches satcp as its `rwnd`.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import replace

import pytest

from satcp import crosscheck_linux as x

try:
    x.available()
    REASON = None
except x.LinuxUnavailable as e:
    REASON = str(e)

needs_linux = pytest.mark.skipif(REASON is not None, reason=f"Linux cross-check unavailable: {REASON}")

PATH = x.Path_(delay_ms=25.0, queue=100, size=1_000_000)


LATE_P99_US = 0.05 * (4 * PATH.delay_ms * 1e3 / 2)  # 5% of the round trip


def _keeps_time(timer_quantum_ns: int = 0):
    """The kernel's run, up to three times until the emulator keeps time;
    the last run and every try's emulator statistics."""
    tries = []
    for _ in range(3):
        k = x.run_kernel("cubic-sack", PATH, timer_quantum_ns=timer_quantum_ns)
        assert k.completion_s is not None
        tries.append(k.emulator["ab"])
        if k.emulator["ab"]["late_p99_us"] < LATE_P99_US:
            break
    assert tries[-1]["late_p99_us"] < LATE_P99_US, json.dumps(tries)
    return k, tries[-1]


@needs_linux
def test_emulator_keeps_time_and_the_kernel_obeys_the_path():
    k, ab = _keeps_time()
    floor = PATH.size * 8 / PATH.rate_down_bps + 2 * (2 * PATH.delay_ms / 1000)
    assert k.completion_s > floor, (k.completion_s, floor)
    s = x.run_satcp("cubic-sack", PATH)
    print(f"kernel {k.completion_s:.3f} s, satcp {s.completion_s:.3f} s, emulator {ab}")
    assert abs(s.completion_s / k.completion_s - 1) < 0.15


@needs_linux
def test_emulator_keeps_time_when_timers_run_off_the_tick():
    tick = 3_333_333  # HZ=300
    k, ab = _keeps_time(timer_quantum_ns=tick)
    # it learned the tick (so it really slept in ticks) and still kept time
    assert ab["wake_guard_us"] > 0.5 * tick / 1e3, ab
    print(f"kernel {k.completion_s:.3f} s, emulator {ab}")


@needs_linux
def test_bad_case_is_refused(capsys):
    assert x.main(["--cases", "vegas-sack"]) == 2
    assert "--cases vegas-sack" in capsys.readouterr().err


def test_the_socket_watch_counts_ssthresh_reductions_and_the_largest_window(monkeypatch):
    # `ss -tin` lines as the kernel prints them: no ssthresh until the
    # first loss lowers it from infinity, then each reduction lower still
    lines = ["cubic wscale:7,7 cwnd:160 snd_wnd:784992 unacked:160",
             "reno wscale:7,7 rtt:501.2/0.3 minrtt:500.194 cwnd:429 ssthresh:259 snd_wnd:784992 unacked:520 retrans:29/29",
             "reno wscale:7,7 cwnd:259 ssthresh:259 snd_wnd:640992 unacked:381 minrtt:500.16",
             "reno wscale:7,7 cwnd:223 ssthresh:129 snd_wnd:786432 unacked:261 minrtt:500.16",
             "reno wscale:7,7 cwnd:130 ssthresh:129 snd_wnd:786432 unacked:130 minrtt:500.144"]
    feed = iter(lines)
    polled = []

    def fake_sh(*cmd, check=True):
        polled.append(cmd)

        class Out:
            stdout = next(feed, "")
        return Out()
    monkeypatch.setattr(x, "_sh", fake_sh)
    w = x._SocketWatch()
    w.every_s = 0.001
    w.start()
    deadline = time.monotonic() + 5
    while len(polled) <= len(lines) and time.monotonic() < deadline:
        time.sleep(0.005)
    w.stop()
    assert polled[0][:4] == ("ip", "netns", "exec", x.NS_A)
    assert (w.reductions, w.window) == (2, 786432)
    # each poll's cwnd, ssthresh and minimum RTT (ms), None where ss shows none
    assert [(c, t, m) for _, c, t, m in w.samples] == [
        (160, None, None), (429, 259, 500.194), (259, 259, 500.16), (223, 129, 500.16), (130, 129, 500.144)]


def test_a_receive_window_goes_to_satcp_as_its_rwnd():
    s = x.satcp_scenario("reno-sack", x.Path_(rwnd=786432))
    assert s["flows"][0]["tcp"]["rwnd"] == 786432
    assert "rwnd" not in x.satcp_scenario("reno-sack", x.Path_())["flows"][0]["tcp"]


def test_a_tuned_host_s_largest_buffer_opens_satcp_s_window_as_far():
    # tcp_rmem[2] = 64 MiB: the kernel's window opens to 158/256 of it,
    # 41,418,752 bytes; satcp's must not stop at its default 32 MiB buffer's
    tcp = x.satcp_scenario("bbr-sack", x.GEO100)["flows"][0]["tcp"]
    assert tcp["rwnd"] == 41_418_752
    # the harness's ratio is the engine's (tcp/receive_buffer.rs)
    rust = (x.REPO / "crates/satcp-core/src/tcp/receive_buffer.rs").read_text()
    m = re.search(r"pub const WINDOW_RATIO: \(u64, u64\) = \((\d+), (\d+)\);", rust)
    assert m and (int(m[1]), int(m[2])) == x.WINDOW_RATIO
    # an rwnd given is satcp's, whatever the kernel's buffers
    assert x.satcp_scenario("bbr-sack", replace(x.GEO100, rwnd=1 << 20))["flows"][0]["tcp"]["rwnd"] == 1 << 20
    # the study's GEO path: the kernel's BBR reaches ~12,000 segments, so
    # satcp's window binds below that without the mapping
    r = x.run_satcp("bbr-sack", x.GEO100)
    assert r.peak_cwnd > 11_600 and r.retransmissions > 6_000


def test_a_rate_of_one_s_own_is_checked_before_anything_runs(capsys):
    assert x.main(["--cases", "bbr-sack", "--rate-mbps", "0"]) == 2
    assert "--rate-mbps 0: expected a rate above 0 Mb/s" in capsys.readouterr().err


RECORD = x.REPO / "data" / "measured" / "linux_crosscheck.csv"


def test_satcp_holds_to_the_kernel_on_every_recorded_cell():
    """Every cell of the matrix, satcp against the kernel's recorded run
    (data/measured/linux_crosscheck.csv, `make crosscheck-linux`): the
    issues' bounds, completion within 15% and retransmissions within a
    factor 1.5 plus 20 either way; on the trace cells (issue 40) goodput
    within 15%. No root needed: the kernel's side is the record."""
    kernel = x.recorded_kernel(RECORD)
    assert set(kernel) == set(x.CELL_NAMES), "every cell of the matrix is recorded"
    rows, bad = [], []
    for name, k in kernel.items():
        cell = x.CELL_NAMES[name]
        assert k["case"] == cell.case, name
        s = x.run_satcp(cell.case, cell.path)
        ks, kr = float(k["completion_s"]), int(k["retransmissions"])
        rows.append(f"{name}: kernel {ks:.2f} s {kr} rtx, satcp {s.completion_s:.2f} s {s.retransmissions} rtx")
        if not x.agrees(cell, ks, s.completion_s, kr, s.retransmissions):
            bad.append(rows[-1])
    print("\n".join(rows))
    assert not bad, bad


def test_the_bounds_are_the_issue_s():
    assert x.time_agrees(100.0, 114.9) and not x.time_agrees(100.0, 115.1) and x.time_agrees(100.0, 85.1)
    assert not x.time_agrees(None, 1.0)
    # 1.5 x 77 + 20 = 135.5 either way
    assert x.rtx_agrees(77, 135) and not x.rtx_agrees(77, 136) and x.rtx_agrees(135, 77)
    assert x.rtx_agrees(0, 20) and not x.rtx_agrees(0, 21)


def test_cells_are_refused_by_name_and_not_mixed_with_a_path_of_one_s_own(capsys):
    assert x.main(["--cells", "short-cubic-sack,nope"]) == 2
    assert "--cells nope" in capsys.readouterr().err
    assert x.main(["--cells", "short-cubic-sack", "--size", "5"]) == 2
    assert "not both" in capsys.readouterr().err
    assert x.main(["--repeat", "0"]) == 2


GOODPUT = x.REPO / "data" / "measured" / "linux_crosscheck_goodput.csv"


def test_trace_cells_replay_the_same_traces_on_both_sides():
    """The trace cells give satcp and the emulator the same files, the
    same intervals and the same start into the traces; the kernel's
    goodput per second is recorded for them (and only them) and adds up
    to the transfer."""
    traced = [c for c in x.CELLS if c.path.trace]
    assert {c.case for c in traced} == {"cubic-sack", "bbr-sack"}
    t = traced[0].path.trace
    args = x._emulator_args(traced[0].path)
    assert f"capacity_ab={x.REPO / t.capacity}" in args and f"loss_trace_ab={x.REPO / t.loss}" in args
    assert f"delay_trace_ab={x.REPO / t.delay}" in args and f"delay_trace_ba={x.REPO / t.delay}" in args
    assert "delay_interval_ab_ns=100000000" in args and "loss_interval_ab_ns=1000000000" in args
    link = x.satcp_scenario("cubic-sack", traced[0].path)["links"][0]
    assert "rate_ab" not in link and "delay" not in link
    assert link["capacity_trace_ab"] == str(x.REPO / t.capacity)
    assert link["delay_trace"] == {"file": str(x.REPO / t.delay), "interval": 0.1}
    assert x.satcp_scenario("cubic-sack", traced[0].path)["flows"][0]["app"]["start"] == t.start_s
    # 8,950 opportunities of 1,504 bytes in 4 s
    assert abs(t.mean_capacity_bps() - 8950 * 1504 * 8 / 4) < 1
    per_s = x.recorded_goodput(GOODPUT)
    assert set(per_s) == {c.name for c in traced}
    for c in traced:
        assert sum(per_s[c.name]) == c.path.size, c.name


def test_goodput_per_second_bins_reads_from_the_start():
    assert x.per_second([(0.2, 10), (0.9, 5), (2.5, 7)]) == [15, 0, 7]
    assert x.per_second([]) == []


def test_a_trace_cell_agrees_on_goodput_alone():
    cell = x.CELL_NAMES["trace-bbr"]
    # 10 s against 11.7 s: goodput 14.5% lower, within; 11.8 s is not
    assert x.agrees(cell, 10.0, 11.7, 4000, 100) and not x.agrees(cell, 10.0, 11.8, 0, 0)
    assert not x.agrees(x.CELL_NAMES["short-bbr-sack"], 10.0, 10.0, 4000, 100)
