"""UDP cross traffic, RED and burst errors through the Python API."""

from __future__ import annotations

import math

import satcp

SCENARIO = """
[run]
seed = 3
sample_interval = "500ms"
[nodes]
h1 = {}
n1 = {}
h2 = {}
[[links]]
a = "h1"
b = "n1"
rate = "10Mbps"
delay = "1ms"
[[links]]
a = "n1"
b = "h2"
rate = "2Mbps"
delay = "250ms"
queue_ab = { kind = "red", packets = 50 }
errors_ab = { model = "dsn_burst", gap_max = "2s" }
[[flows]]
name = "bulk"
src = "h1"
dst = "h2"
tcp = { variant = "sack", mss = 960 }
app = { kind = "ftp", size = 500000 }
[[flows]]
name = "cbr"
src = "h1"
dst = "h2"
app = { kind = "cbr", rate = "1Mbps", packet_size = 1000 }
"""


def test_udp_counters_red_drops_and_red_average_reach_pandas():
    res = satcp.run(SCENARIO)
    flows = res.flows.set_index("name")
    assert flows.loc["bulk", "completed"]
    assert math.isnan(flows.loc["bulk", "udp_packets_sent"])
    sent = flows.loc["cbr", "udp_packets_sent"]
    got = flows.loc["cbr", "udp_packets_received"]
    lost = flows.loc["cbr", "udp_packets_lost"]
    assert sent > 0 and lost > 0 and got + lost <= sent
    assert "udp" not in res.flows.columns
    assert {"drops_red_early", "drops_red_forced"} <= set(res.links.columns)
    sat = res.links[(res.links["from"] == "n1") & (res.links["to"] == "h2")].iloc[0]
    assert sat["drops_errors"] > 0
    avg = res.link_series["red_avg_packets"]
    assert avg.notna().any() and avg.isna().any()  # RED on one direction only


def test_trace_file_relative_to_the_scenario_file(tmp_path, monkeypatch):
    (tmp_path / "bursts.csv").write_text("start,end\n0.5,1.0\n")
    text = SCENARIO.replace('errors_ab = { model = "dsn_burst", gap_max = "2s" }',
                            'errors_ab = { model = "trace", file = "bursts.csv" }')
    (tmp_path / "s.toml").write_text(text)
    monkeypatch.chdir("/")
    res = satcp.run(tmp_path / "s.toml")
    sat = res.links[(res.links["from"] == "n1") & (res.links["to"] == "h2")].iloc[0]
    assert sat["drops_errors"] > 0
    satcp.validate(str(tmp_path / "s.toml"))
    try:
        satcp.validate(text)  # as text: relative to "/", where there is no such file
    except satcp.ScenarioError as e:
        assert "cannot read" in str(e)
    else:
        raise AssertionError("expected a ScenarioError")
