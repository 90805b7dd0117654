"""Constellations from Python and the command line: `Result.paths`,
`Result.path_series`, `satcp run --out` writing path_series.csv and the
path figures, and the `satcp reproduce leo-geo` study end to end (its
--quick form, about 3 s)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import satcp
from satcp import cli
from satcp.reproduce import reproduce
from satcp.reproduce.kit import catalogue
from satcp.reproduce.leo_geo import experiments as leo_geo

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "leo" / "starlink-paris-new-york.toml"


@pytest.fixture(scope="module")
def res():
    return satcp.run(SCENARIO, set=["flows.download.app.size=\"5MB\""])


def test_paths_and_series_agree(res):
    assert len(res.paths) == 1
    p = res.paths[0]
    assert (p["src"], p["dst"]) == ("paris", "new-york")
    s = res.path_series
    assert list(s.columns) == ["t_s", "src", "dst", "rtt_s", "hops", "path"]
    assert len(s) == int(res.sim_time_s / 0.1) + 1
    assert s["rtt_s"].min() == pytest.approx(p["min_rtt_s"]) and s["rtt_s"].max() == pytest.approx(p["max_rtt_s"])
    assert all(path.split()[0] == "paris" and path.split()[-1] == "new-york" for path in s["path"])
    assert (s["hops"] == s["path"].str.split().str.len() - 1).all()
    assert set(s["path"]) <= set(p["routes"])
    assert [g["name"] for g in res.ground_stations] == ["paris", "new-york"]


def test_links_name_the_directions_that_carried_traffic(res):
    links = res.links
    # the constellation's idle directions are left out; every listed one did something
    moving = links[links["from"].str.startswith("starlink") | links["to"].str.startswith("starlink")]
    assert len(moving) < 100 and (moving["packets_tx"] > 0).all()
    names = res._link_names()
    for _, l in links.iterrows():
        assert names[2 * l["index"] + (l["direction"] == "ba")] == f'{l["from"]}->{l["to"]}'


def test_run_out_writes_the_path_series_and_figures(tmp_path, capsys):
    out = tmp_path / "o"
    status = cli.main(["run", str(SCENARIO), "--set", "flows.download.app.size=\"5MB\"", "--out", str(out)])
    assert status == 0
    text = capsys.readouterr().out
    assert "paths (RTT = twice the propagation delay)" in text and "ground stations" in text
    df = pd.read_csv(out / "path_series.csv")
    assert list(df.columns) == ["t_s", "src", "dst", "rtt_s", "hops", "path"]
    assert (df["rtt_s"] > 0.035).all() and (df["rtt_s"] < 0.08).all()
    for f in ("path_rtt.png", "path_satellites.png"):
        assert (out / f).stat().st_size > 1000


def test_the_study_catalogue():
    full = catalogue.plan(leo_geo.catalogue(quick=False), ROOT, quick=False, validate=True)
    quick = catalogue.plan(leo_geo.catalogue(quick=True), ROOT, quick=True, validate=False)
    assert not full.unavailable
    n = len(leo_geo.VARIANTS)
    assert len(full.runs) == 2 * n * len(leo_geo.SIZES_MB) * len(leo_geo.STARTS_S)
    assert len(quick.runs) == 2 * n * len(leo_geo.QUICK_SIZES_MB) * len(leo_geo.QUICK_STARTS_S)


def test_quick_study_runs_and_reports(tmp_path):
    buf = io.StringIO()
    status = reproduce("leo-geo", quick=True, out=tmp_path / "r", workers=2, stdout=buf)
    text = buf.getvalue()
    assert status == 0, text
    assert (tmp_path / "r" / "index.html").is_file() and (tmp_path / "r" / "report.md").is_file()
    table = pd.read_csv(tmp_path / "r" / "table.csv")
    assert len(table) == 2 * len(leo_geo.VARIANTS) * len(leo_geo.QUICK_SIZES_MB)
    assert (table["runs"] == len(leo_geo.QUICK_STARTS_S)).all()
    runs = pd.read_csv(tmp_path / "r" / "runs.csv")
    leo = runs[runs["experiment"] == "leo"]
    geo = runs[runs["experiment"] == "geo"]
    # the GEO pipe never hands over; the LEO transfers near 12 s do
    assert (geo["handovers"] == 0).all() and leo["handovers"].sum() > 0
    assert np.isnan(geo["min_rtt_s"]).all() and (leo["min_rtt_s"] > 0.035).all()
    # every finding is computed and stated with its numbers
    for claim in ("leo_faster", "gap_largest_for_short_transfers", "handovers_cost_segments", "hybla_helps_geo"):
        assert f"claim {claim}: " in text
    assert "claim leo_faster: holds" in text


PATH_ONLY = """
[run]
stop = "3s"
[[constellations]]
name = "kuiper"
walker = { kind = "delta", planes = 34, per_plane = 34, altitude = "630km", inclination = 51.9, phasing = 1 }
isl = { rate = "10Gbps" }
gsl = { rate = "100Mbps", min_elevation = 30, visibility = "hypatia" }
[[ground_stations]]
name = "paris"
lat = 48.85341
lon = 2.3488
[[ground_stations]]
name = "moscow"
lat = 55.754996
lon = 37.621849
[[ground_stations]]
name = "london"
lat = 51.50853
lon = -0.12574
[[paths]]
src = "paris"
dst = "moscow"
[[paths]]
src = "london"
dst = "moscow"
"""


def test_a_path_only_scenario_writes_its_path_series(tmp_path, capsys):
    """Hypatia's path analysis: no flows, traced to run.stop; --out writes
    path_series.csv (a row per step and pair) and the path figures, and
    samples no idle links."""
    f = tmp_path / "paths.toml"
    f.write_text(PATH_ONLY)
    out = tmp_path / "o"
    assert cli.main(["run", str(f), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "ended by stop" in text and "paris->moscow" in text and "\nflows\n" not in text
    df = pd.read_csv(out / "path_series.csv")
    assert len(df) == 30 * 2
    assert sorted(set(df["t_s"].round(1))) == [round(0.1 * k, 1) for k in range(30)]
    assert (df["rtt_s"] > 0.005).all() and (df["rtt_s"] < 0.05).all()
    assert len(pd.read_csv(out / "link_series.csv")) == 0
    assert {p.name for p in out.glob("*.png")} == {"path_rtt.png", "path_satellites.png"}
    assert cli.sample_interval_override(PATH_ONLY, []) is None
    assert cli.sample_interval_override(PATH_ONLY.replace("[[paths]]", "[[flows]]\nsrc = \"paris\"\ndst = \"moscow\"\napp = { kind = \"ftp\", size = \"1MB\" }\n[[paths]]", 1), []) is not None


def test_a_path_only_scenario_needs_a_stop(tmp_path, capsys):
    f = tmp_path / "paths.toml"
    f.write_text(PATH_ONLY.replace('stop = "3s"', ""))
    assert cli.main(["run", str(f)]) == cli.EXIT_SCENARIO
    err = capsys.readouterr().err
    assert "run.stop" in err and "[[paths]]" in err


def test_a_moving_station_s_track_is_read_beside_its_scenario(tmp_path):
    """The ship example from Python: its track file is found relative to
    the scenario, its bridge window leaves no path for 3 s; a scenario
    copied elsewhere without its track is refused naming the file."""
    ship = ROOT / "scenarios" / "leo" / "ship-dish-mask.toml"
    res = satcp.run(ship, set=["run.stop=\"35s\""])
    s = res.path_series
    under = s[(s["t_s"] >= 29.0 - 1e-9) & (s["t_s"] < 32.0 - 1e-9)]
    assert len(under) == 30 and (under["path"] == "").all() and under["rtt_s"].isna().all() and (under["hops"] == 0).all()
    assert s[s["t_s"] >= 32.0 - 1e-9]["rtt_s"].notna().all()
    g = {x["name"]: x for x in res.ground_stations}["ship"]
    assert g["steps_without_satellite"] == 30
    moved = tmp_path / "ship.toml"
    moved.write_text(ship.read_text())
    with pytest.raises(Exception, match="ground_stations.1.track.*ship-great-belt.csv"):
        satcp.run(moved)
