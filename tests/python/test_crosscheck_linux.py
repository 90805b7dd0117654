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
import time

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
             "reno wscale:7,7 cwnd:429 ssthresh:259 snd_wnd:784992 unacked:520 retrans:29/29",
             "reno wscale:7,7 cwnd:259 ssthresh:259 snd_wnd:640992 unacked:381",
             "reno wscale:7,7 cwnd:223 ssthresh:129 snd_wnd:786432 unacked:261",
             "reno wscale:7,7 cwnd:130 ssthresh:129 snd_wnd:786432 unacked:130"]
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


def test_a_receive_window_goes_to_satcp_as_its_rwnd():
    s = x.satcp_scenario("reno-sack", x.Path_(rwnd=786432))
    assert s["flows"][0]["tcp"]["rwnd"] == 786432
    assert "rwnd" not in x.satcp_scenario("reno-sack", x.Path_())["flows"][0]["tcp"]


RECORD = x.REPO / "data" / "measured" / "linux_crosscheck.csv"


def test_satcp_holds_to_the_kernel_on_every_recorded_cell():
    """Every cell of the matrix, satcp against the kernel's recorded run
    (data/measured/linux_crosscheck.csv, `make crosscheck-linux`): the
    issue's bounds, completion within 15% and retransmissions within a
    factor 1.5 plus 20 either way. No root needed: the kernel's side is
    the record."""
    kernel = x.recorded_kernel(RECORD)
    assert set(kernel) == set(x.CELL_NAMES), "every cell of the matrix is recorded"
    rows, bad = [], []
    for name, k in kernel.items():
        cell = x.CELL_NAMES[name]
        assert k["case"] == cell.case, name
        s = x.run_satcp(cell.case, cell.path)
        ks, kr = float(k["completion_s"]), int(k["retransmissions"])
        rows.append(f"{name}: kernel {ks:.2f} s {kr} rtx, satcp {s.completion_s:.2f} s {s.retransmissions} rtx")
        if not (x.time_agrees(ks, s.completion_s) and x.rtx_agrees(kr, s.retransmissions)):
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
