"""pcap capture read back by tshark: its per-flow counts agree with
satcp's own counters.

Scenario: server - gateway - terminal - client, the satellite hop
(gateway -> terminal, 2048 kb/s, 250 ms) with bit errors and no queue
limit, a 100 Mb/s LAN behind the terminal; a SACK and a NewReno download
of 1 MB each. Captures: the server's first hop (both directions), the
satellite hop, and the LAN hop after the lossy link.

What must agree, and why:
* every frame's IPv4 and TCP checksums verify;
* tshark's conversations are the two flows, and its exact byte and frame
  totals equal the link's counters (frames x 14 B Ethernet + IP bytes);
* per flow, data-bearing segments (payload or FIN) each side sends, counted
  at its own first hop (the run stops when the last flow completes, so a
  client's final FIN may not have gone further) = satcp's segments_sent;
* per flow, segments tshark marks as retransmissions = satcp's
  retransmissions. tshark's heuristic labels a retransmission that follows
  the previous segment within its out-of-order threshold as
  "out-of-order" instead, so the count is retransmission OR out_of_order
  (first transmissions are never out of order on a FIFO path);
* per flow, payload bytes server -> client on the LAN hop (after the
  lossy link) = bytes_received, and the highest relative sequence number
  reached = bytes_delivered + 2 (SYN and FIN each take one).
"""

from __future__ import annotations

import copy
import re
import subprocess
from collections import Counter

import pytest

import satcp
from conftest import system_tool

SERVER = "10.0.0.1"
CLIENT = "10.0.3.1"


def scenario(tmp_path) -> dict:
    flow = {
        "name": "dl_sack", "src": "server", "dst": "client",
        "tcp": {"variant": "sack", "mss": 1460, "initial_window": 2, "rwnd": 65535, "delayed_ack": True},
        "app": {"kind": "ftp", "size": "1MB"},
    }
    nr = copy.deepcopy(flow)
    nr["name"] = "dl_newreno"
    nr["tcp"]["variant"] = "newreno"
    return {
        "run": {"seed": 7},
        "nodes": {"server": {}, "gateway": {}, "terminal": {}, "client": {}},
        "links": [
            {"a": "server", "b": "gateway", "rate": "10Mbps", "delay": "5ms"},
            {"name": "sat", "a": "gateway", "b": "terminal", "rate_ab": "2048kbps", "rate_ba": "256kbps",
             "delay": "250ms", "errors_ab": {"ber": 3e-6}},
            {"name": "lan", "a": "terminal", "b": "client", "rate": "100Mbps", "delay": "1ms"},
        ],
        "flows": [flow, nr],
        "captures": [
            {"link": 0, "file": str(tmp_path / "up.pcap")},
            {"link": "sat", "file": str(tmp_path / "sat.pcap")},
            {"link": "lan", "file": str(tmp_path / "lan.pcap"), "snaplen": 128},
        ],
    }


def tshark(*args: str) -> str:
    r = subprocess.run([system_tool("tshark"), "-n", *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def fields(pcap, *names: str, filt: str | None = None) -> list[list[str]]:
    args = ["-r", str(pcap), "-T", "fields", "-E", "separator=/t"]
    if filt:
        args += ["-Y", filt]
    for n in names:
        args += ["-e", n]
    return [line.split("\t") for line in tshark(*args).splitlines()]


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pcap")
    res = satcp.run(scenario(tmp))
    return tmp, res


def client_port(flow_index: int) -> str:
    return str(49152 + flow_index)


def test_checksums_and_options(captured):
    tmp, res = captured
    for name in ("up", "sat"):
        pcap = tmp / f"{name}.pcap"
        out = tshark("-r", str(pcap), "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE",
                     "-T", "fields", "-e", "ip.checksum.status", "-e", "tcp.checksum.status")
        statuses = Counter(out.split())
        frames = sum(l["packets_tx"] for l in res.summary["links"][:2]) if name == "up" else \
            sum(l["packets_tx"] for l in res.summary["links"][2:4])
        # status 1 = "Good" for both checksums of every frame
        assert statuses == Counter({"1": 2 * frames}), statuses
    syn = fields(tmp / "up.pcap", "tcp.dstport", "tcp.options.mss_val", "tcp.options.wscale.shift",
                 "tcp.options.sack_perm", filt="tcp.flags.syn == 1 && tcp.flags.ack == 0")
    by_port = {r[0]: r for r in syn}
    assert by_port[client_port(0)][1:3] == ["1460", "0"]
    assert by_port[client_port(0)][3] != ""  # SACK-permitted on the SACK flow's SYN
    assert by_port[client_port(1)][3] == ""  # not on NewReno's
    sacks = Counter(r[0] for r in fields(tmp / "up.pcap", "tcp.srcport", filt="tcp.options.sack.count > 0"))
    assert sacks[client_port(0)] > 0 and sacks[client_port(1)] == 0


def test_conversations_and_totals_match_link_counters(captured):
    tmp, res = captured
    links = res.summary["links"]
    out = tshark("-r", str(tmp / "up.pcap"), "-q", "-z", "conv,tcp")
    rows = {}
    for line in out.splitlines():
        m = re.match(r"^(\S+:\d+)\s+<->\s+(\S+:\d+)\s+(\d+)\s+\S+(?: \w?B| bytes)?\s+(\d+)\s+\S+(?: \w?B| bytes)?\s+(\d+)", line)
        if m:
            rows[(m.group(1), m.group(2))] = (int(m.group(3)), int(m.group(4)), int(m.group(5)))
    assert set(rows) == {(f"{SERVER}:5001", f"{CLIENT}:{client_port(i)}") for i in range(2)}, out
    total_frames = sum(r[2] for r in rows.values())
    assert total_frames == links[0]["packets_tx"] + links[1]["packets_tx"]
    io = tshark("-r", str(tmp / "up.pcap"), "-q", "-z",
                f"io,stat,0,SUM(frame.len)frame.len && ip.src=={SERVER},SUM(frame.len)frame.len && ip.src=={CLIENT}")
    sums = [int(x) for x in re.findall(r"\|\s*0\.0+\s*<>\s*[\d.]+\s*\|\s*(\d+)\s*\|\s*(\d+)\s*\|", io)[0]]
    assert sums[0] == links[0]["bytes_tx"] + 14 * links[0]["packets_tx"]
    assert sums[1] == links[1]["bytes_tx"] + 14 * links[1]["packets_tx"]


def test_per_flow_segments_retransmissions_and_bytes(captured):
    tmp, res = captured
    flows = res.summary["flows"]
    # the scenario exercises fast recovery and timeouts in both flows
    assert all(f["fast_recoveries"] > 0 and f["timeouts"] > 0 for f in flows), flows
    for i, f in enumerate(flows):
        port = client_port(i)
        # each side's segments at its own first hop: the run stops when the
        # last flow completes, before the client's last segments go further
        has_data = f"tcp.port == {port} && (tcp.len > 0 || tcp.flags.fin == 1)"
        sent = fields(tmp / "up.pcap", "frame.number", filt=f"{has_data} && ip.src == {SERVER}")
        sent += fields(tmp / "lan.pcap", "frame.number", filt=f"{has_data} && ip.src == {CLIENT}")
        assert len(sent) == f["segments_sent"], f["name"]
        for hop in ("up", "sat"):
            retx = fields(tmp / f"{hop}.pcap", "frame.number",
                          filt=f"tcp.port == {port} && (tcp.analysis.retransmission || tcp.analysis.out_of_order)")
            assert len(retx) == f["retransmissions"], (f["name"], hop)
        lan = fields(tmp / "lan.pcap", "tcp.len", "tcp.nxtseq", filt=f"tcp.dstport == {port}")
        assert sum(int(r[0]) for r in lan) == f["bytes_received"], f["name"]
        assert max(int(r[1]) for r in lan if r[1]) == f["bytes_delivered"] + 2


def test_unwritable_capture_file_raises_oserror(tmp_path):
    d = scenario(tmp_path)
    d["captures"] = [{"link": 0, "file": str(tmp_path / "no" / "such" / "dir.pcap")}]
    with pytest.raises(OSError, match=r"capture file .*dir\.pcap"):
        satcp.run(d)
    d["captures"] = [{"link": "nope", "file": "x.pcap"}]
    with pytest.raises(satcp.ScenarioError) as e:
        satcp.run(d)
    assert e.value.path == "captures.0.link"
