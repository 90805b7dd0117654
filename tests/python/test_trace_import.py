"""``satcp trace import``: the importers on real iperf3 and ping output
(tests/python/data/traces, produced over loopback on the development
machine) and on synthetic Starlink and lossy-ping files (labelled in that
directory's README), the conversions worked by hand, the round trip, the
error messages, and the tools run live.
"""

from __future__ import annotations

import json
import math
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import satcp

from satcp.traces import iperf3, measured, ping, starlink_dish
from satcp.traces.command import detect
from satcp.traces.measurement import Probes, TraceInputError, Volume
from satcp.traces.writers import (Written, bin_means, loss_probabilities, one_way_delays, opportunities,
                                  rate_lines, read_capacity, scenario_snippet, write_capacity)
from conftest import run_cli

DATA = Path(__file__).parent / "data" / "traces"


def _read(name: str) -> str:
    return (DATA / name).read_text()


def _vol(*intervals: tuple[float, float, float]) -> Volume:
    a = np.array(intervals, dtype=float)
    return Volume(a[:, 0], a[:, 1], a[:, 2])


# --------------------------------------------------------------------------
# iperf3 (real output)


def test_iperf3_tcp_client_is_the_sender_with_rtt():
    m = iperf3.read(_read("iperf3_tcp_client.json"), "c.json")
    doc = json.loads(_read("iperf3_tcp_client.json"))
    assert m.volume.bytes.tolist() == [iv["sum"]["bytes"] for iv in doc["intervals"]]
    assert m.volume.start_s[0] == 0 and m.volume.end_s[-1] == pytest.approx(3.000112)
    assert np.all(m.volume.start_s[1:] == m.volume.end_s[:-1])
    # rtt is the kernel's srtt in microseconds, per stream
    assert m.probes.rtt_ms.tolist() == [iv["streams"][0]["rtt"] / 1e3 for iv in doc["intervals"]]
    assert m.probes.interval_s == 1.0
    assert m.loss is None
    assert "sender's side" in m.notes[0]


def test_iperf3_server_side_is_the_receiver_without_rtt():
    m = iperf3.read(_read("iperf3_tcp_server.json"), "s.json")
    assert m.probes is None and m.loss is None
    assert "receiver's side" in m.notes[0]
    assert m.volume.total_bytes == 2621440 + 2490368 + 2490368


def test_iperf3_reverse_two_streams_omit_drops_the_omitted_interval_and_sums_streams():
    doc = json.loads(_read("iperf3_tcp_reverse_p2_omit1_client.json"))
    assert doc["intervals"][0]["sum"]["omitted"] is True
    m = iperf3.read(_read("iperf3_tcp_reverse_p2_omit1_client.json"), "r.json")
    kept = doc["intervals"][1:]
    assert len(m.volume.bytes) == 3
    assert m.volume.bytes.tolist() == [sum(s["bytes"] for s in iv["streams"]) for iv in kept]
    assert m.volume.start_s[0] == 0.0
    assert m.volume.end_s[-1] == pytest.approx(kept[-1]["sum"]["end"] - kept[0]["sum"]["start"])
    assert "1 omitted" in m.notes[0] and "receiver's side" in m.notes[0]


def test_iperf3_without_sum_adds_the_streams():
    doc = json.loads(_read("iperf3_tcp_reverse_p2_omit1_client.json"))
    for iv in doc["intervals"]:
        del iv["sum"]
    m = iperf3.read(json.dumps(doc), "nosum.json")
    assert m.volume.bytes.tolist() == [sum(s["bytes"] for s in iv["streams"]) for iv in doc["intervals"][1:]]


def test_iperf3_udp_receiver_gives_loss_sender_does_not():
    srv = iperf3.read(_read("iperf3_udp_server.json"), "u.json")
    doc = json.loads(_read("iperf3_udp_server.json"))
    assert srv.loss.probability.tolist() == [iv["sum"]["lost_packets"] / iv["sum"]["packets"]
                                             for iv in doc["intervals"]]
    cli = iperf3.read(_read("iperf3_udp_client.json"), "uc.json")
    assert cli.loss is None and cli.probes is None


def test_iperf3_json_stream_events_read_as_the_object():
    doc = json.loads(_read("iperf3_tcp_client.json"))
    lines = [json.dumps({"event": "start", "data": doc["start"]})]
    lines += [json.dumps({"event": "interval", "data": iv}) for iv in doc["intervals"]]
    lines.append(json.dumps({"event": "end", "data": doc["end"]}))
    a = iperf3.read("\n".join(lines), "stream")
    b = iperf3.read(_read("iperf3_tcp_client.json"), "whole")
    assert a.volume.bytes.tolist() == b.volume.bytes.tolist()


# --------------------------------------------------------------------------
# ping


def test_ping_D_real_output_interval_from_timestamps_and_delays_half_rtt():
    m = ping.read(_read("ping_D.txt"), "p.txt")
    assert m.probes.rtt_ms.tolist() == [0.246, 0.038, 0.037, 0.037, 0.035]
    # ping -i 0.2 on this machine sent every 204 ms (the timestamps say so)
    assert m.probes.interval_s == pytest.approx(0.204)
    assert m.probes.lost.tolist() == [0] * 5
    d, held = one_way_delays(m.probes)
    assert d.tolist() == pytest.approx([0.123, 0.019, 0.0185, 0.0185, 0.0175])
    assert not held.any()


def test_ping_without_D_uses_the_given_interval_else_one_second():
    assert ping.read(_read("ping_plain.txt"), "p").probes.interval_s == 1.0
    m = ping.read(_read("ping_plain.txt"), "p", interval_s=0.2)
    assert m.probes.interval_s == 0.2
    assert m.probes.t_s.tolist() == pytest.approx([0, 0.2, 0.4, 0.6, 0.8])


def test_ping_O_losses_late_reply_errors_duplicates_and_trailing_losses():
    m = ping.read(_read("ping_O_losses.txt"), "o.txt")
    r = m.probes.rtt_ms
    assert len(r) == 8  # the summary's "8 packets transmitted"
    assert np.isnan(r).tolist() == [False, True, False, False, True, False, True, True]
    assert r[[0, 2, 3, 5]].tolist() == [40.0, 560.0, 50.0, 30.0]  # late seq 3 counts; DUP 31 ms does not
    assert m.probes.interval_s == 0.5
    assert m.probes.lost.tolist() == [0, 1, 0, 0, 1, 0, 1, 1]
    d, held = one_way_delays(m.probes)
    assert d.tolist() == [20, 20, 280, 25, 25, 15, 15, 15]
    assert held.tolist() == [False, True, False, False, True, False, True, True]
    # lost probes per 1 s: probes (0, 0.5), (1, 1.5), (2, 2.5), (3, 3.5)
    assert loss_probabilities(m, 1.0).tolist() == [0.5, 0.0, 0.5, 1.0]


def test_ping_ipv6_and_named_hosts():
    text = ("PING ::1(::1) 56 data bytes\n64 bytes from ::1: icmp_seq=1 ttl=64 time=0.030 ms\n"
            "64 bytes from localhost (::1): icmp_seq=2 ttl=64 time=0.040 ms\n"
            "64 bytes from fe80::1%eth0: icmp_seq=3 ttl=64 time=1.25 ms\n")
    assert detect(text, "v6") == "ping"
    assert ping.read(text, "v6").probes.rtt_ms.tolist() == [0.03, 0.04, 1.25]


def test_ping_sequence_wrap_and_leading_loss_held_from_the_first_reply():
    lines = ["64 bytes from 10.0.0.1: icmp_seq=65535 ttl=64 time=10 ms",
             "no answer yet for icmp_seq=0",
             "64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=12 ms"]
    m = ping.read("\n".join(lines), "wrap")
    # iputils numbers from 1: icmp_seq=65535 is probe 65534, the wrapped 0
    # and 1 are probes 65535 and 65536; probes before the first line count
    # as lost (ping without -O prints nothing for them)
    assert len(m.probes.rtt_ms) == 65537
    assert np.isnan(m.probes.rtt_ms[-3:]).tolist() == [False, True, False]
    assert m.probes.rtt_ms[[-3, -1]].tolist() == [10.0, 12.0]
    assert m.probes.lost[:65534].all()
    p = Probes(1.0, np.array([math.nan, math.nan, 8.0, math.nan]), np.array([1, 1, 0, 1.0]))
    d, held = one_way_delays(p, split=0.25)
    assert d.tolist() == [2.0, 2.0, 2.0, 2.0] and held.tolist() == [True, True, False, True]


# --------------------------------------------------------------------------
# Starlink (synthetic, in the schema)


def test_ring_order_before_and_after_the_wrap():
    assert starlink_dish.ring_order(4, 6) == [0, 1, 2, 3]
    assert starlink_dish.ring_order(6, 6) == [0, 1, 2, 3, 4, 5]
    assert starlink_dish.ring_order(9, 6) == [3, 4, 5, 0, 1, 2]
    assert starlink_dish.ring_order(9, 6, last=2) == [1, 2]
    assert starlink_dish.ring_order(43200 * 3 + 5, 43200)[:2] == [5, 6]


@pytest.mark.parametrize("name", ["starlink_history_wrapped.json", "starlink_bulk_history.csv"])
def test_starlink_history_in_time_order(name):
    m = starlink_dish.read(_read(name), name)
    assert (m.volume.bytes * 8).tolist() == [8e6, 16e6, 24e6, 32e6, 40e6, 48e6]
    assert m.volume.start_s.tolist() == [0, 1, 2, 3, 4, 5]
    r = m.probes.rtt_ms
    assert np.isnan(r).tolist() == [False, False, True, False, False, False]  # drop 1: the repeat is no RTT
    assert r[[0, 1, 3, 4, 5]].tolist() == [30, 32, 45, 28, 50]
    assert m.loss.probability.tolist() == [0, 0.25, 1, 0, 0, 0.5]
    up = starlink_dish.read(_read(name), name, direction="up", last=3)
    assert (up.volume.bytes * 8).tolist() == [3e6, 4e6, 5e6]


def test_starlink_snake_case_without_wrapper():
    doc = json.loads(_read("starlink_history_wrapped.json"))["dishGetHistory"]
    snake = {"current": int(doc["current"])}
    for s, c in starlink_dish.FIELDS.items():
        snake[s] = doc[c]
    m = starlink_dish.read(json.dumps(snake), "snake")
    assert m.loss.probability.tolist() == [0, 0.25, 1, 0, 0, 0.5]


# --------------------------------------------------------------------------
# conversions worked by hand


def test_opportunities_hand_worked_carry_and_final_rounding():
    # 4,512 B over 4 ms = 0.75 opportunity per ms: the running sum 0.75, 1.5,
    # 2.25, 3.0 crosses a whole number in ms 1, 2, 3 (lines 2, 3, 4); then
    # 752 B over 2 ms (0.25 per ms) leaves 0.5 at the end: rounded up, at 6
    v = _vol((0, 0.004, 4512), (0.004, 0.006, 752))
    assert opportunities(v).tolist() == [2, 3, 4, 6]


def test_opportunities_exact_multiple_and_period_set_by_the_measurement():
    # 1,504 B over 10 ms reach one opportunity exactly at the 10th ms; the
    # empty 10 ms that follow move it to 20 so the trace repeats every 20 ms
    assert opportunities(_vol((0, 0.010, 1504), (0.010, 0.020, 0))).tolist() == [20]
    # 3 x 1,504 B in one ms: three lines of the same millisecond
    assert opportunities(_vol((0, 0.001, 4512))).tolist() == [1, 1, 1]
    # 10 Mb/s for 1 s = 1,250,000 B = 831.1 opportunities: 831
    assert len(opportunities(_vol((0, 1, 1_250_000)))) == 831
    with pytest.raises(ValueError, match="less than half an opportunity"):
        opportunities(_vol((0, 1, 700)))


def test_opportunities_payload_per_opportunity():
    # 1448 payload bytes per opportunity: 14,480 B are ten opportunities
    assert len(opportunities(_vol((0, 1, 14_480)), 1448)) == 10


@pytest.mark.parametrize("name", ["iperf3_tcp_client.json", "iperf3_tcp_reverse_p2_omit1_client.json",
                                  "iperf3_udp_server.json", "starlink_history_wrapped.json"])
def test_capacity_round_trip_mean_rate_within_one_opportunity(tmp_path, name):
    m = (starlink_dish if name.startswith("starlink") else iperf3).read(_read(name), name)
    path = tmp_path / "bw.txt"
    write_capacity(path, opportunities(m.volume))
    back = read_capacity(path)
    assert back[-1] == round(m.volume.duration_s * 1e3)  # the period is the measurement's
    assert abs(len(back) * 1504 - m.volume.total_bytes) <= 1504 / 2
    # the mean rate the trace gives, against the measured mean rate
    period_s = back[-1] / 1e3
    assert abs(len(back) * 1504 * 8 / period_s - m.volume.total_bytes * 8 / m.volume.duration_s) \
        <= 1504 * 8 / period_s
    # and each second's opportunities carry that second's bytes within one
    per_s = np.bincount((back - 1) // 1000) * 1504
    for k, b in enumerate(m.volume.bytes[: len(per_s) - 1]):
        assert abs(per_s[k] - b) < 1504 * 1.5


def test_rate_lines_and_bins():
    assert rate_lines(_vol((0, 1, 1_250_000), (1, 3, 1))) == ["0.000000,10000000bps", "1.000000,4bps"]
    # the engine's rate_trace takes rates above 0: an empty interval is refused, named
    with pytest.raises(ValueError, match="interval from 1 s.*carried 0 bytes"):
        rate_lines(_vol((0, 1, 1_250_000), (1, 3, 0)))
    assert bin_means(0.5, np.array([1, 0, math.nan, 1, 0, 0]), 1.0).tolist() == [0.5, 1.0, 0.0]
    with pytest.raises(ValueError, match="shorter than the measurement"):
        bin_means(1.0, np.array([0.0]), 0.5)


def test_measured_series_goodput_shared_by_overlap_rtt_and_loss():
    ivs = iperf3.read(_read("iperf3_tcp_server.json"), "s")
    pg = ping.read(_read("ping_O_losses.txt"), "o")
    df, origin = measured.series([ivs, pg])
    assert origin == {"goodput_bps": "s", "rtt_ms": "o", "loss": "o"}
    assert len(df) == 4  # the ping run's 4 s; iperf3's 3.00008 s opens no 4th bin of its own
    g = df["goodput_bps"].tolist()
    assert g[0] == pytest.approx(2621440 * 8 / 1.000079, rel=1e-4)
    assert math.isnan(g[3])
    # probes at 0 (40 ms) and 0.5 (lost) | 1.0 (560, late) and 1.5 (50) | 2.0 (lost) and 2.5 (30) | both lost
    assert df["rtt_ms"].tolist()[:3] == [40.0, 305.0, 30.0] and math.isnan(df["rtt_ms"][3])
    assert df["loss"].tolist() == [0.5, 0.0, 0.5, 1.0]
    # one interval of 3 s split over 1 s bins
    vol = iperf3.read(json.dumps({"start": {}, "intervals": [{"sum": {"start": 0, "end": 3, "bytes": 3000}}]}), "x")
    df, _ = measured.series([vol], 2.0)
    assert df["goodput_bps"].tolist() == [8000.0, 8000.0]


def test_measured_csv_round_trip_and_errors(tmp_path):
    df, _ = measured.series([ping.read(_read("ping_O_losses.txt"), "o")])
    p = tmp_path / "m.csv"
    measured.write(p, df)
    assert p.read_text().splitlines()[0] == "t_s,goodput_bps,rtt_ms,loss"
    back = measured.read(p)
    assert back["loss"].tolist() == [0.5, 0.0, 0.5, 1.0]
    p.write_text("t_s,goodput_bps,rtt_ms,loss\n0,1,2,0\n1,1,fast,0\n")
    with pytest.raises(TraceInputError, match=r"m\.csv: line 3, rtt_ms: expected a number or nothing, found 'fast'"):
        measured.read(p)
    p.write_text("t_s,goodput_bps,rtt_ms,loss\n1,1,2,0\n1,1,2,0\n")
    with pytest.raises(TraceInputError, match=r"line 3, t_s: expected a time greater"):
        measured.read(p)


def test_scenario_snippet_names_the_keys_and_intervals(tmp_path):
    w = Written(capacity=tmp_path / "bw.txt", rate=tmp_path / "rate.csv", delay=tmp_path / "delay.txt",
                delay_interval_s=0.204, loss=tmp_path / "loss.txt", loss_interval_s=1.0)
    s = scenario_snippet(w, relative_to=tmp_path)
    assert 'capacity_trace = "bw.txt"' in s
    assert 'rate_trace = "rate.csv"' in s
    assert 'delay_trace = { file = "delay.txt", interval = "204ms" }' in s
    assert 'loss_trace = { file = "loss.txt", interval = "1s" }' in s


# --------------------------------------------------------------------------
# errors name the file, the place and what was expected


def test_errors_name_file_field_and_expectation():
    doc = json.loads(_read("iperf3_tcp_client.json"))
    doc["intervals"][1]["sum"]["bytes"] = "many"
    with pytest.raises(TraceInputError, match=r"^bad\.json: intervals\[1\]\.sum\.bytes: expected a finite number, "
                                              r"found 'many'$"):
        iperf3.read(json.dumps(doc), "bad.json")
    doc = json.loads(_read("iperf3_tcp_client.json"))
    doc["intervals"][2]["sum"]["start"] = 2.5
    with pytest.raises(TraceInputError, match=r"intervals\[2\]\.sum\.start: expected the end of the previous"):
        iperf3.read(json.dumps(doc), "gap.json")
    with pytest.raises(TraceInputError, match=r"^e\.json: error: iperf3 reported an error"):
        iperf3.read('{"start": {}, "intervals": [], "error": "unable to connect to server"}', "e.json")
    text = _read("ping_D.txt").replace("icmp_seq=3 ttl=64 time=0.037 ms", "icmp_seq=3 ttl=64 time=fast")
    with pytest.raises(TraceInputError, match=r"^p\.txt: line 4: unrecognised line|^p\.txt: line 4: reply without"):
        ping.read(text, "p.txt")
    with pytest.raises(TraceInputError, match=r"^p\.txt: line 2: unrecognised line 'hello'"):
        ping.read("PING x (1.2.3.4) 56(84) bytes of data.\nhello\n", "p.txt")
    doc = json.loads(_read("starlink_history_wrapped.json"))
    doc["dishGetHistory"]["uplinkThroughputBps"].pop()
    with pytest.raises(TraceInputError, match=r"dishGetHistory\.uplinkThroughputBps: expected 6 samples"):
        starlink_dish.read(json.dumps(doc), "d.json")
    doc = json.loads(_read("starlink_history_wrapped.json"))
    doc["dishGetHistory"]["current"] = "soon"
    with pytest.raises(TraceInputError, match=r"dishGetHistory\.current: expected the sample counter"):
        starlink_dish.read(json.dumps(doc), "d.json")
    csv = _read("starlink_bulk_history.csv").replace("2026-11-28T06:00:04", "2026-11-28T06:00:09")
    with pytest.raises(TraceInputError, match=r"line 5, datetimestamp_utc: expected one sample per second"):
        starlink_dish.read(csv, "b.csv")
    with pytest.raises(TraceInputError, match=r"^x: line 1: format not recognised"):
        detect("hello world\n", "x")


def test_parser_constants_match_the_modules_and_stay_light():
    from satcp.traces import command, writers

    assert command.OPPORTUNITY_BYTES == writers.MAHIMAHI_OPPORTUNITY_BYTES
    assert set(command.DIRECTIONS) == set(starlink_dish.DIRECTIONS)
    r = subprocess.run([sys.executable, "-c", "import sys, satcp.cli; satcp.cli.build_parser(); "
                        "print('numpy' in sys.modules, 'pandas' in sys.modules)"], capture_output=True, text=True)
    assert r.stdout.strip() == "False False", r.stdout + r.stderr


def test_detect_each_fixture():
    for name, fmt in [("iperf3_tcp_client.json", "iperf3"), ("iperf3_udp_server.json", "iperf3"),
                      ("ping_D.txt", "ping"), ("ping_plain.txt", "ping"), ("ping_O_losses.txt", "ping"),
                      ("starlink_history_wrapped.json", "starlink"), ("starlink_bulk_history.csv", "starlink")]:
        assert detect(_read(name), name) == fmt, name


# --------------------------------------------------------------------------
# the command


def test_cli_import_files_and_stdin(tmp_path):
    out = tmp_path / "t"
    r = run_cli("trace", "import", DATA / "iperf3_tcp_server.json", DATA / "ping_O_losses.txt",
                "--out", out, "--rate-csv", "--relative-to", out)
    assert r.returncode == 0, r.stderr
    assert 'capacity_trace = "bw.txt"' in r.stdout
    assert 'delay_trace = { file = "delay.txt", interval = "500ms" }' in r.stdout
    assert 'loss_trace = { file = "loss.txt", interval = "1s" }' in r.stdout
    assert (out / "delay.txt").read_text().split() == ["20.000", "20.000", "280.000", "25.000", "25.000",
                                                       "15.000", "15.000", "15.000"]
    assert (out / "loss.txt").read_text().split() == ["0.500000", "0.000000", "0.500000", "1.000000"]
    assert len((out / "rate.csv").read_text().splitlines()) == 3
    assert "difference" in r.stderr
    df = measured.read(out / "measured.csv")
    assert df["rtt_ms"][0] == 40.0 and df["goodput_bps"][0] > 2e7

    r = subprocess.run(run_cli.__globals__["satcp_cmd"]() + ["trace", "import", "-", "--out", str(tmp_path / "s"),
                                                             "--last", "3", "--delay-split", "0.25"],
                       input=_read("starlink_history_wrapped.json"), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "s" / "delay.txt").read_text().split() == ["11.250", "7.000", "12.500"]
    assert "read <stdin>: Starlink get_history JSON: 3 one-second samples" in r.stderr


def test_cli_errors_exit_2_with_the_message(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"start": {}, "intervals": [{"sum": {"start": 0, "end": 1}}]}')
    r = run_cli("trace", "import", bad, "--out", tmp_path / "o")
    assert r.returncode == 2
    assert f"error: {bad}: intervals[0].sum.bytes: expected a finite number, found None" in r.stderr
    r = run_cli("trace", "import", tmp_path / "none.txt", "--out", tmp_path / "o")
    assert r.returncode == 2 and "none.txt: file not found" in r.stderr
    r = run_cli("trace", "import", DATA / "ping_D.txt", "--out", tmp_path / "o", "--delay-split", "1.5")
    assert r.returncode == 2 and "expected a fraction in (0, 1)" in r.stderr


# --------------------------------------------------------------------------
# the tools, live (loopback)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("iperf3") is None or shutil.which("ping") is None,
                    reason="iperf3 or ping not installed (make test-sysdeps)")
def test_live_iperf3_and_ping_import(tmp_path):
    port = _free_port()
    srv = subprocess.Popen(["iperf3", "-s", "-1", "-p", str(port), "-J"], stdout=subprocess.PIPE, text=True)
    try:
        # a probe connection would be the one-off server's one test: retry
        # the client until the server listens
        for _ in range(50):
            cli = subprocess.run(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-J", "-t", "2", "-b", "8M"],
                                 capture_output=True, text=True, timeout=30)
            if "Connection refused" not in cli.stdout:
                break
            time.sleep(0.1)
        server_json = srv.communicate(timeout=30)[0]
    finally:
        srv.kill()
    assert cli.returncode == 0, cli.stdout
    for text in (cli.stdout, server_json):
        (tmp_path / "i.json").write_text(text)
        r = run_cli("trace", "import", tmp_path / "i.json", "--out", tmp_path / "o")
        assert r.returncode == 0, r.stderr
        total = sum(iv["sum"]["bytes"] for iv in json.loads(text)["intervals"] if not iv["sum"]["omitted"])
        lines = read_capacity(tmp_path / "o" / "bw.txt")
        assert abs(len(lines) * 1504 - total) <= 752
    pg = subprocess.run(["ping", "-c", "3", "-i", "0.2", "-D", "127.0.0.1"], capture_output=True, text=True,
                        timeout=30)
    assert pg.returncode == 0, pg.stdout + pg.stderr
    m = ping.read(pg.stdout, "live")
    assert len(m.probes.rtt_ms) == 3 and np.isfinite(m.probes.rtt_ms).all()
    assert 0.15 <= m.probes.interval_s <= 0.3


# --------------------------------------------------------------------------
# satcp report: measured beside simulated


def test_simulated_per_bin_hand_worked():
    import pandas as pd

    from satcp.report_measured import simulated_per_bin, summary

    t = [0, 0.5, 1, 1.5, 2]
    series = pd.DataFrame({
        "time_s": t + t, "flow": [0] * 5 + [1] * 5,
        "delivered_bytes": [0, 500, 1000, 2000, 3000] + [500] * 5,
        "srtt_s": [0.1, 0.1, 0.2, 0.2, math.nan] + [math.nan] * 5})
    sim = simulated_per_bin(series, 1.0)
    assert sim["t_s"].tolist() == [0, 1]
    assert sim["goodput_bps"].tolist() == [8000.0, 16000.0]  # flow 1 delivered nothing more
    assert sim["rtt_ms"].tolist() == [100.0, 200.0]
    meas = pd.DataFrame({"t_s": [0.0, 1.0, 2.0], "goodput_bps": [10000.0, 14000.0, 1e9],
                         "rtt_ms": [90.0, math.nan, 1.0], "loss": [0, 0, 0]})
    s = summary(sim, meas)  # over the bins both cover: 0 and 1
    assert s == {"goodput_measured_bps": 12000.0, "goodput_simulated_bps": 12000.0,
                 "rtt_measured_ms": 90.0, "rtt_simulated_ms": 150.0}


def test_report_of_a_run_directory_beside_a_measured_series(tmp_path):
    from conftest import GEO

    run_dir = tmp_path / "run"
    r = run_cli("run", GEO, "--out", run_dir, "--set", "run.stop=12s")
    assert r.returncode == 0, r.stderr
    r = run_cli("trace", "import", DATA / "starlink_history_wrapped.json", "--out", tmp_path / "m")
    assert r.returncode == 0, r.stderr
    r = run_cli("report", run_dir, "--out", tmp_path / "rep", "--measured", tmp_path / "m" / "measured.csv")
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "<h2>Measured and simulated</h2>" in page and "data:image/png;base64," in page
    # the measured means of the six dish seconds: 28 Mb/s, RTT (30+32+45+28+50)/5
    assert "<td>2.8e+07</td>" in page and "<td>37</td>" in page
    bad = tmp_path / "bad.csv"
    bad.write_text("t_s,goodput_bps,rtt_ms,loss\n0,x,1,0\n")
    r = run_cli("report", run_dir, "--out", tmp_path / "rep2", "--measured", bad)
    assert r.returncode == 2 and f"{bad}: line 2, goodput_bps: expected a number or nothing, found 'x'" in r.stderr
    r = run_cli("report", tmp_path / "m", "--out", tmp_path / "rep3")
    assert r.returncode == 2 and "no series.csv or series.parquet" in r.stderr


def test_store_report_draws_the_chosen_runs_beside_the_measurement(tmp_path):
    import pandas as pd

    import satcp
    from conftest import base_scenario
    from satcp.report import write_report

    d = base_scenario()
    res = satcp.run(d)
    flows = pd.DataFrame([{"key": "k1", "status": "ok", "flow": f["name"], "goodput_bps": f["goodput_bps"],
                           "completion_s": f.get("completion_s")} for f in res.summary["flows"]])
    runs = pd.DataFrame([{"key": "k1", "status": "ok", "scenario_json": json.dumps(d),
                          "sim_time_s": res.sim_time_s}])
    meas = measured.read(_write_measured(tmp_path))
    path = write_report(flows, runs, tmp_path / "rep", factors=[], measured=(meas, "dish.csv"))
    page = path.read_text()
    assert "<h2>Measured and simulated</h2>" in page and "dish.csv" in page
    assert page.count("data:image/png;base64,") >= 2  # the traces figure and the measured one
    # and it renders: every image decodes, every table has rows, no error
    from test_report import render

    res, _ = render(path, tmp_path)
    assert len(res["images"]) == page.count("<img ") >= 2
    assert all(im["complete"] and im["w"] > 100 for im in res["images"]), res["images"]
    assert all(rows > 0 for rows in res["tables"]) and res["errors"] == []


def _write_measured(tmp_path: Path) -> Path:
    df, _ = measured.series([starlink_dish.read(_read("starlink_history_wrapped.json"), "d")])
    p = tmp_path / "measured.csv"
    measured.write(p, df)
    return p


def test_the_engine_runs_on_what_the_importer_writes(tmp_path):
    """The importer's files and snippet, as printed, load and run in the
    engine: a flow over the measured capacity, delay and loss."""
    out = tmp_path / "t"
    r = run_cli("trace", "import", DATA / "iperf3_tcp_server.json", DATA / "ping_O_losses.txt",
                "--out", out, "--relative-to", out)
    assert r.returncode == 0, r.stderr
    keys = "\n".join(line for line in r.stdout.splitlines() if "_trace" in line)
    assert keys.count("_trace") == 3, r.stdout
    scenario = out / "run.toml"
    scenario.write_text(f"""
[run]
seed = 1
stop = "20s"
[nodes]
server = {{}}
client = {{}}
[[links]]
a = "server"
b = "client"
{keys}
queue = {{ kind = "droptail", packets = 100 }}
[[flows]]
name = "probe"
src = "server"
dst = "client"
app = {{ kind = "cbr", rate = "1Mbps", packet_size = 1000, start = "0s", stop = "4s" }}
""")
    res = satcp.run(str(scenario))
    # ping's losses (0.5 in the first second, all in the fourth) are applied
    assert res.links["drops_errors"].sum() > 0
    # a rate series with an empty interval is refused by the importer, naming it
    empty = tmp_path / "empty.json"
    text = _read("iperf3_tcp_server.json")
    doc = json.loads(text)
    doc["intervals"][1]["sum"]["bytes"] = 0
    for s in doc["intervals"][1]["streams"]:
        s["bytes"] = 0
    empty.write_text(json.dumps(doc))
    r = run_cli("trace", "import", empty, "--out", tmp_path / "e", "--rate-csv")
    assert r.returncode == 2 and "carried 0 bytes" in r.stderr, r.stderr
