"""Split-TCP PEPs from Python (docs/models/pep.md): `Result.peps`,
`Result.pep_series` and `satcp run --out` writing pep_series.csv."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import satcp
from satcp import cli

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "pep_geo.toml"


def test_peps_and_their_buffer_series():
    res = satcp.run(SCENARIO, set=["run.sample_interval=0.5s"])
    assert [p["node"] for p in res.peps] == ["gateway", "term"]
    assert res.peps[0]["peer"] == "term" and res.peps[0]["counters"]["split"] == 1
    legs = res.peps[0]["connections"][0]["legs"]
    assert [l["toward"] for l in legs] == ["opener", "acceptor"] and legs[1]["variant"] == "hybla"
    s = res.pep_series
    assert list(s.columns) == ["t_s", "pep", "connection", "flow", "flow_name", "to_acceptor_bytes", "to_opener_bytes", "pool_used_bytes"]
    assert set(s["pep"]) == {"gateway", "term"} and set(s["flow_name"]) == {"download"}
    # never more than the buffer, and the gateway's fills while Hybla ramps up
    assert (s["to_acceptor_bytes"] <= 4_000_000).all()
    assert s[s["pep"] == "gateway"]["to_acceptor_bytes"].max() > 100_000
    assert res.flows["first_byte_s"].notna().all()


def test_runs_without_peps_have_no_pep_series():
    res = satcp.run(SCENARIO, set=["peps=[]", "run.sample_interval=1s"])
    assert res.peps == [] and res.pep_series.empty
    assert "first_byte_s" not in res.flows.columns


def test_run_out_writes_the_pep_series(tmp_path):
    out = tmp_path / "o"
    assert cli.main(["run", str(SCENARIO), "--out", str(out)]) == 0
    df = pd.read_csv(out / "pep_series.csv")
    assert len(df) > 0 and (df["pool_used_bytes"] == 8_000_000).all()


def test_run_prints_the_split_connections(capsys):
    assert cli.main(["run", str(SCENARIO)]) == 0
    text = capsys.readouterr().out
    assert "PEP split connections" in text and "acceptor (client)" in text
    assert "flow download: first byte at 0.275 s" in text
