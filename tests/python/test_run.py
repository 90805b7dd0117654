"""Running scenarios through the CLI and the Python API."""

from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

import satcp
from conftest import GEO, is_png, run_cli

FLOW_KEYS = {"name", "completed", "completion_s", "bytes_delivered", "goodput_bps",
             "throughput_bps", "retransmissions", "timeouts"}
LINK_KEYS = {"a", "b", "direction", "utilization", "drops"}


def _without_wall(s: str) -> dict:
    d = json.loads(s)
    d.pop("wall_s")
    return d


def test_version():
    assert isinstance(satcp.__version__, str) and satcp.__version__[0].isdigit()
    r = run_cli("--version")
    assert r.returncode == 0 and satcp.__version__ in r.stdout


def test_cli_json_geo():
    r = run_cli("run", GEO, "--json", "--set", "flows.download.app.size=2MB")
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)  # exactly one JSON document on stdout
    assert isinstance(summary, dict)
    assert {"flows", "links", "events", "wall_s"} <= summary.keys()
    assert len(summary["flows"]) == 1
    f = summary["flows"][0]
    assert FLOW_KEYS <= f.keys()
    assert f["name"] == "download"
    assert f["completed"] is True
    assert f["bytes_delivered"] == 2_000_000
    assert f["completion_s"] > 0.5  # at least one GEO round trip
    assert 0 < f["goodput_bps"] <= 2_048_000
    assert f["throughput_bps"] >= f["goodput_bps"] * 0.999
    assert len(summary["links"]) == 4  # two links, both directions
    for l in summary["links"]:
        assert LINK_KEYS <= l.keys()
        assert l["direction"] in ("ab", "ba")
        assert 0.0 <= l["utilization"] <= 1.0
        assert {"queue", "errors"} <= l["drops"].keys()
    down = [l for l in summary["links"] if l["a"] == "gateway" and l["direction"] == "ab"]
    assert len(down) == 1 and down[0]["utilization"] > 0
    assert summary["events"] > 0
    assert summary["wall_s"] >= 0


def test_the_issue_scenario_runs_exactly_as_written():
    """scenarios/geo_bent_pipe.toml, no overrides: 50 MB SACK download at
    BER 1e-7 on the 2048 kb/s downlink completes well before its 2000 s stop."""
    r = run_cli("run", GEO, "--json")
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    f = s["flows"][0]
    assert s["ended_by"] == "completed" and f["completed"]
    assert f["bytes_delivered"] == 50_000_000
    # bit errors hit the downlink only, and SACK repairs them mostly without timeouts
    down = next(l for l in s["links"] if l["from"] == "gateway" and l["to"] == "client")
    assert down["drops"]["errors"] > 0 and f["retransmissions"] >= down["drops"]["errors"]
    assert all(l["drops"]["errors"] == 0 for l in s["links"] if l is not down)
    # window-limited at 65535 B per ~0.53 s round trip: below 1 Mb/s, above 0.5 Mb/s
    assert 500e3 < f["goodput_bps"] < 1e6


def test_cli_table():
    r = run_cli("run", GEO, "--set", "flows.download.app.size=1MB")
    assert r.returncode == 0, r.stderr
    assert "download" in r.stdout
    assert "gateway->client" in r.stdout
    assert "goodput" in r.stdout.lower()
    with pytest.raises(json.JSONDecodeError):
        json.loads(r.stdout)


def test_a_run_that_cannot_progress_ends_and_says_why(tmp_path):
    # a new user's slip: BER 0.01 for 1e-5, no run.stop: the flow gives up
    # after 15 timeouts in a row (Linux's tcp_retries2) and the table says so
    slip = tmp_path / "slip.toml"
    slip.write_text('[nodes]\na = {}\nb = {}\n[[links]]\na = "a"\nb = "b"\nrate = "1Mbps"\ndelay = "10ms"\n'
                    'errors_ab = { ber = 0.01 }\n[[flows]]\nname = "f"\nsrc = "a"\ndst = "b"\n'
                    'app = { kind = "ftp", size = "1MB" }\n')
    r = run_cli("run", slip, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "(ended by aborted)" in r.stdout
    assert "flow f aborted: no progress after 15 retransmission timeouts in a row" in r.stdout


def test_cli_out_writes_tables_and_plots(tmp_path):
    out = tmp_path / "res"
    r = run_cli("run", GEO, "--json", "--out", out, "--set", "flows.download.app.size=1MB")
    assert r.returncode == 0, r.stderr
    json.loads(r.stdout)  # still only the summary on stdout
    for name in ("flows", "links", "series", "link_series", "pages"):
        assert (out / f"{name}.csv").is_file(), name
    with open(out / "flows.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 1 and rows[0]["name"] == "download"
    links = pd.read_csv(out / "links.csv")
    assert {"drops_queue", "drops_errors"} <= set(links.columns)
    series = pd.read_csv(out / "series.csv")
    assert len(series) > 0, "--out must turn sampling on"
    assert {"time_s", "cwnd_bytes", "flow_name"} <= set(series.columns)
    assert series.groupby("flow").size().max() <= 20_000
    ls = pd.read_csv(out / "link_series.csv")
    assert "gateway->client" in set(ls["link_name"])
    assert is_png(out / "cwnd.png")
    assert is_png(out / "seq.png")


def test_cli_out_parquet(tmp_path):
    out = tmp_path / "pq"
    r = run_cli("run", GEO, "--json", "--out", out, "--format", "parquet",
                "--set", "flows.download.app.size=500KB")
    assert r.returncode == 0, r.stderr
    df = pd.read_parquet(out / "series.parquet")
    assert len(df) > 0
    assert pd.read_parquet(out / "flows.parquet")["name"].tolist() == ["download"]


def test_api_dict(scenario):
    scenario["run"]["sample_interval"] = "100ms"
    res = satcp.run(scenario)
    assert isinstance(res, satcp.Result)
    assert res.summary["flows"][0]["completed"] is True
    assert res.summary["flows"][0]["bytes_delivered"] == 1_000_000
    assert isinstance(res.flows, pd.DataFrame) and len(res.flows) == 1
    assert res.flows.loc[0, "name"] == "download"
    assert {"drops_queue", "drops_errors"} <= set(res.links.columns)
    assert "drops" not in res.links.columns
    s = res.series
    assert isinstance(s, pd.DataFrame) and len(s) > 0
    assert (s["flow_name"] == "download").all()
    assert s["time_s"].is_monotonic_increasing
    assert s["delivered_bytes"].iloc[-1] <= 1_000_000
    assert s["cwnd_bytes"].max() > 0
    ls = res.link_series
    assert len(ls) > 0 and "gateway->client" in set(ls["link_name"])
    assert res.events == res.summary["events"] > 0
    assert res.sim_time_s == res.summary["sim_time_s"] > 0
    assert json.loads(res.to_json()) == res.to_dict() == res.summary
    assert isinstance(res.pages, pd.DataFrame) and len(res.pages) == 0


def test_api_path_and_toml_string(scenario):
    small = ["flows.download.app.size=300KB"]
    a = satcp.run(GEO, set=small)
    b = satcp.run(str(GEO), set=small)
    c = satcp.run(GEO.read_text(), set=small)
    assert _without_wall(a.to_json()) == _without_wall(b.to_json()) == _without_wall(c.to_json())
    assert a.summary["flows"][0]["bytes_delivered"] == 300_000
    assert a.series.empty  # no sample_interval: no time series


def test_deterministic_same_seed(scenario):
    scenario["links"][1]["errors_ab"] = {"ber": 1e-5}
    r1 = satcp.run(scenario, set=["run.seed=7"])
    r2 = satcp.run(scenario, set=["run.seed=7"])
    assert _without_wall(r1.to_json()) == _without_wall(r2.to_json())
    # and through the CLI
    c1 = run_cli("run", GEO, "--json", "--set", "flows.download.app.size=1MB")
    c2 = run_cli("run", GEO, "--json", "--set", "flows.download.app.size=1MB")
    assert c1.returncode == c2.returncode == 0
    assert _without_wall(c1.stdout) == _without_wall(c2.stdout)


def test_seeds_differ_with_errors(scenario):
    scenario["links"][1]["errors_ab"] = {"ber": 1e-5}
    outs = [satcp.run(scenario, set=[f"run.seed={s}"]).summary for s in (1, 2)]
    assert outs[0]["seed"] == 1 and outs[1]["seed"] == 2

    def downlink(s):
        return [l for l in s["links"] if l["from"] == "gateway" and l["to"] == "client"][0]

    def key(s):
        f = s["flows"][0]
        return (f["retransmissions"], f["completion_s"], f["bytes_received"],
                downlink(s)["drops"]["errors"])

    # PER of a 1500-byte packet at BER 1e-5 is about 11%: both runs lose packets
    assert all(downlink(s)["drops"]["errors"] > 0 for s in outs)
    assert all(s["flows"][0]["retransmissions"] > 0 for s in outs)
    assert key(outs[0]) != key(outs[1])


def test_no_errors_no_loss(scenario):
    scenario["links"][1].pop("errors_ab")
    s = satcp.run(scenario).summary
    f = s["flows"][0]
    assert f["completed"] and f["bytes_delivered"] == 1_000_000
    assert sum(l["drops"]["errors"] for l in s["links"]) == 0
    assert f["integrity_errors"] == 0
    assert f["retransmissions"] == 0 and f["timeouts"] == 0
