"""Pieces of the CLI that do not need the engine."""

from __future__ import annotations

import satcp
from satcp.cli import build_parser, sample_interval_override, summary_text
from satcp.tables import cell, format_table, num
from conftest import GEO


def test_sample_interval_default_and_long_runs():
    text = GEO.read_text()  # stop = "2000s", no sample_interval
    assert sample_interval_override(text, []) == "run.sample_interval=100ms"
    # a long stop time gets a coarser interval: at most 20k samples per flow
    o = sample_interval_override(text, ["run.stop=100000s"])
    ms = int(o.split("=")[1].removesuffix("ms"))
    assert 100_000_000 / ms <= 20_000
    assert sample_interval_override('[run]\nstop = 36000\n', []) == "run.sample_interval=2000ms"
    # many flows: coarser still, so that the engine's cap on time-series
    # rows (1e8) is never met by the default (2000 s x 10,000 flows)
    many = text + "".join(f'[[flows]]\nname = "x{i}"\nsrc = "server"\ndst = "client"\n' for i in range(10_000))
    ms = int(sample_interval_override(many, []).split("=")[1].removesuffix("ms"))
    flows_and_dirs = 10_001 + 2 * 2
    assert 2000_000 / ms * flows_and_dirs <= 50_000_000 < 2000_000 / (ms / 2.5) * flows_and_dirs


def test_sample_interval_left_alone_when_set():
    assert sample_interval_override('[run]\nsample_interval = "1s"\n', []) is None
    assert sample_interval_override(GEO.read_text(), ["run.sample_interval=10ms"]) is None
    assert sample_interval_override('{"run": {"sample_interval": 1}}', [], "json") is None
    # malformed TOML: the engine reports it, the CLI adds nothing special
    assert sample_interval_override("[run\n", []) is None


def test_format_table_aligns():
    t = format_table(["name", "n"], [("a", 1), ("longer", 100)])
    lines = t.splitlines()
    assert len(lines) == 4
    assert lines[2].startswith("a ") and lines[2].endswith("  1")
    assert len({len(l) for l in lines[1:]}) == 1


def test_summary_text():
    s = {
        "satcp_version": "0", "seed": 1, "sim_time_s": 1.0, "ended_by": "completed",
        "events": 10, "wall_s": 0.1,
        "flows": [{"name": "dl", "variant": "sack", "completed": False, "completion_s": None,
                   "goodput_bps": 1.5e6, "throughput_bps": 2e6, "retransmissions": 4, "timeouts": 1}],
        "links": [{"from": "gw", "to": "cl", "utilization": 0.25, "drops": {"queue": 3, "errors": 5}}],
    }
    t = summary_text(s)
    assert "dl" in t and "sack" in t and "1.500" in t and "2.000" in t
    assert "gw->cl" in t and "25.0" in t
    assert "drops down" not in t  # no outage (and an older summary without the key)
    s["links"][0]["drops"].update(down=7, pushed_out=0)
    t = summary_text(s)
    assert "drops down" in t and t.splitlines()[-1].endswith("  7")
    assert "pushed out" not in t and "nodes" not in t and "agents" not in t
    # nodes that dropped something, and every agent's counters
    s["nodes"] = [{"name": "gw", "drops_no_route": 2, "drops_ttl": 0}, {"name": "cl", "drops_no_route": 0, "drops_ttl": 0}]
    s["agents"] = [{"node": "gw", "link": None, "kind": "rwnd_clamp", "counters": {"segments_clamped": 9, "segments_seen": 11}}]
    lines = summary_text(s).splitlines()
    assert lines[lines.index("nodes") + 3].split() == ["gw", "2", "0"]
    assert not any(l.startswith("cl ") for l in lines[lines.index("nodes"):lines.index("agents")])
    assert lines[-1].split() == ["gw", "rwnd_clamp", "all", "segments_seen", "11"]


def test_summary_text_names_what_limited_each_flow_and_hints_at_a_receive_window():
    s = {
        "satcp_version": "0", "seed": 1, "sim_time_s": 1.0, "ended_by": "completed", "events": 10, "wall_s": 0.1,
        "flows": [{"name": "dl", "variant": "sack", "completed": True, "completion_s": 1.0, "goodput_bps": 1e6,
                   "throughput_bps": 1e6, "retransmissions": 0, "timeouts": 0,
                   "limited": {"cwnd": 0.2, "rwnd": 0.78, "app": 0.02, "pacing": 0.0}},
                  {"name": "up", "variant": "cubic", "completed": True, "completion_s": 1.0, "goodput_bps": 1e6,
                   "throughput_bps": 1e6, "retransmissions": 0, "timeouts": 0,
                   "limited": {"cwnd": 0.97, "rwnd": 0.0, "app": 0.03, "pacing": 0.0}},
                  {"name": "cbr", "variant": "udp", "completed": False, "completion_s": None, "goodput_bps": 0,
                   "throughput_bps": 0, "retransmissions": 0, "timeouts": 0, "limited": None}],
        "links": [],
    }
    lines = summary_text(s).splitlines()
    assert "limited by" in lines[3]
    row = {l.split()[0]: l for l in lines[5:8]}
    assert row["dl"].endswith("rwnd 78%") and row["up"].endswith("cwnd 97%") and row["cbr"].endswith("-")
    hints = [l for l in lines if l.startswith("hint:")]
    assert len(hints) == 1 and "flow dl" in hints[0] and "78%" in hints[0] and "tcp.rwnd" in hints[0]


def test_missing_numbers_read_as_a_dash():
    assert num(None, ".2f") == num(float("nan"), ".2f") == cell(None) == cell(float("nan")) == "-"
    assert num(1.5e6, ".3f", 1e-6) == "1.500" and num(0.123, "+.1f", 100, "%") == "+12.3%"
    assert cell(0.1 + 0.2) == "0.3" and cell(3) == "3" and cell("x") == "x"


def test_parser_has_subcommands():
    p = build_parser()
    a = p.parse_args(["run", "x.toml", "--set", "a=1", "--set", "b=2", "--json"])
    assert a.set == ["a=1", "b=2"] and a.json and a.format == "csv"
    d = p.parse_args(["demo", "--quick"])
    assert d.quick and d.out == "out/demo"


def test_scenario_error_attributes():
    e = satcp.ScenarioError("links.0.rate = 0: a rate > 0", "links.0.rate", "0", "a rate > 0")
    assert isinstance(e, ValueError) and isinstance(e, satcp._core.ScenarioError)
    assert (e.path, e.value, e.allowed) == ("links.0.rate", "0", "a rate > 0")
    assert str(e) == "links.0.rate = 0: a rate > 0"
