"""The HTML report from store-shaped frames, rendered by headless Chromium.

The frames are built here the way the store gives them (one row per run x
flow, factor columns named by dotted path, identity columns, flow metrics;
a runs frame with scenario_json), from real satcp runs over a small grid:
TCP variant of flow "a" (flow "b" stays SACK) x downlink BER x 3
replications with common random numbers, plus one failed run.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import subprocess

import pandas as pd
import pytest

import satcp
from satcp import report, stats
from conftest import base_scenario, system_tool

VARIANT = "flows.a.tcp.variant"
BER = "links.1.errors_ab.ber"


def _base() -> dict:
    d = base_scenario()
    f = d["flows"][0]
    f["app"]["size"] = "150KB"
    a = json.loads(json.dumps(f))
    a["name"] = "a"
    b = json.loads(json.dumps(f))
    b["name"] = "b"
    d["flows"] = [a, b]
    return d


def _set(d: dict, path: str, value) -> dict:
    """Set a dotted path (flows addressed by name, links by index)."""
    d = json.loads(json.dumps(d))
    node = d
    parts = path.split(".")
    for p in parts[:-1]:
        if isinstance(node, list):
            node = node[int(p)] if p.isdigit() else next(x for x in node if x.get("name") == p)
        else:
            node = node[p]
    node[parts[-1]] = value
    return d


def build_frames(grid: dict[str, list], reps: int, sweep: str = "test") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(flows, runs) frames in the store's shape, from real runs."""
    flow_rows, run_rows = [], []
    names = list(grid)
    for levels in itertools.product(*grid.values()):
        cell = json.dumps(dict(zip(names, levels)), sort_keys=True)
        for rep in range(reps):
            scn = _base()
            for n, v in zip(names, levels):
                scn = _set(scn, n, v)
            seed = 1 + rep  # common random numbers across cells
            scn["run"]["seed"] = seed
            text = json.dumps(scn, sort_keys=True)
            key = hashlib.sha256(f"{text}|{satcp.__version__}".encode()).hexdigest()[:16]
            res = satcp.run(scn)
            run_rows.append(dict(key=key, sweep=sweep, cell=cell, replication=rep, seed=seed,
                                 satcp_version=satcp.__version__, status="ok", error=None,
                                 wall_s=res.wall_s, sim_time_s=res.sim_time_s, events=res.events,
                                 scenario_json=text, summary_json=res.to_json()))
            for _, f in res.flows.iterrows():
                row = dict(key=key, sweep=sweep, cell=cell, replication=rep, seed=seed, status="ok",
                           flow=f["name"])
                row.update(dict(zip(names, levels)))
                row.update({k: f[k] for k in f.index if k != "name"})
                flow_rows.append(row)
    # a run that failed: a BER the validator refuses
    bad = _set(_base(), BER, 2.0)
    with pytest.raises(satcp.ScenarioError) as e:
        satcp.run(bad)
    run_rows.append(dict(key="f" * 16, sweep=sweep, cell=json.dumps({BER: 2.0, VARIANT: "sack"}), replication=0,
                         seed=1, satcp_version=satcp.__version__, status="failed", error=str(e.value),
                         wall_s=0.0, sim_time_s=None, events=None, scenario_json=json.dumps(bad),
                         summary_json=None))
    flow_rows.append(dict(key="f" * 16, sweep=sweep, cell=run_rows[-1]["cell"], replication=0, seed=1,
                          status="failed", flow=None, **{BER: 2.0, VARIANT: "sack"}))
    return pd.DataFrame(flow_rows), pd.DataFrame(run_rows)


@pytest.fixture(scope="module")
def frames():
    return build_frames({VARIANT: ["newreno", "sack"], BER: [1e-7, 1e-6, 1e-5]}, reps=3)


@pytest.fixture(scope="module")
def page(frames, tmp_path_factory):
    flows, runs = frames
    out = tmp_path_factory.mktemp("report")
    path = report.write_report(flows, runs, out, level=0.90, title="GEO <test> sweep")
    return path


# Appended to a copy of the page: records every image's decoded width,
# every table's body rows and every error event into the DOM.
CHECK_HEAD = """<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message || (e.target && e.target.src) || e)), true);
</script>"""
CHECK_TAIL = """<script>
window.addEventListener('load', () => {
  const imgs = Array.from(document.images);
  const tables = Array.from(document.querySelectorAll('table'));
  const res = {
    images: imgs.map(i => ({complete: i.complete, w: i.naturalWidth, h: i.naturalHeight})),
    tables: tables.map(t => t.tBodies.length ? t.tBodies[0].rows.length : 0),
    errors: window.__errors,
  };
  const pre = document.createElement('pre');
  pre.id = 'satcp-check';
  pre.textContent = JSON.stringify(res);
  document.body.appendChild(pre);
});
</script>"""


def render(path, tmp_path) -> tuple[dict, str]:
    text = path.read_text(encoding="utf-8")
    text = text.replace("<head>", "<head>" + CHECK_HEAD, 1).replace("</body>", CHECK_TAIL + "</body>", 1)
    check = tmp_path / "check.html"
    check.write_text(text, encoding="utf-8")
    r = subprocess.run(
        [system_tool("chromium"), "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
         "--virtual-time-budget=10000", "--dump-dom", check.as_uri()],
        capture_output=True, text=True, timeout=180,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    m = re.search(r'<pre id="satcp-check">(.*?)</pre>', r.stdout, re.S)
    assert m, "the check script did not run:\n" + r.stdout[-2000:]
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&")), r.stderr


def test_report_renders_in_chromium(page, tmp_path):
    html = page.read_text(encoding="utf-8")
    # self-contained: no external URL anywhere in the page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html, re.I)
    assert "<script" not in html
    n_img = html.count("<img ")
    n_tab = html.count("<table")
    res, log = render(page, tmp_path)
    assert len(res["images"]) == n_img >= 4  # two metrics, fairness, traces
    for im in res["images"]:
        assert im["complete"] and im["w"] > 100 and im["h"] > 100, im
    assert len(res["tables"]) == n_tab
    assert all(rows > 0 for rows in res["tables"]), res["tables"]
    assert res["errors"] == []
    console = [l for l in log.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    assert console == [], console


def test_report_content(page, frames):
    flows, runs = frames
    html = page.read_text(encoding="utf-8")
    assert "GEO &lt;test&gt; sweep" in html  # escaped title
    for section in ("response time (s)", "goodput (b/s)", "Improvement over variant = newreno",
                    "Analysis of variance", "Fairness", "Time series of chosen runs", "Failed runs (1)"):
        assert section in html, section
    # the failed run's error is shown, escaped
    err = runs.loc[runs["status"] == "failed", "error"].iloc[0]
    assert "links.1.errors_ab.ber" in err
    assert err.split(":")[0] in html
    # a per-cell mean in the page equals the statistics computed here
    ok = flows[flows["status"] == "ok"]
    d = stats.describe(ok, [VARIANT, BER, "flow"], "completion_s", 0.90)
    row = d[(d[VARIANT] == "sack") & (d[BER] == 1e-5) & (d["flow"] == "a")].iloc[0]
    assert row["n"] == 3
    assert report._fmt(row["mean"]) in html
    assert report._fmt(row["ci_high"]) in html
    # default traces: one run per variant at the middle BER
    keys = report._pick_trace_runs(ok, runs, BER, VARIANT, 4)
    assert len(keys) == 2
    assert set(ok[ok["key"].isin(keys)][BER]) == {1e-6}


def test_rerun_reproduces_the_stored_run(frames):
    flows, runs = frames
    r = runs[runs["status"] == "ok"].iloc[4]
    res = report._rerun(r["scenario_json"], 0.5)
    stored = json.loads(r["summary_json"])
    assert [f["completion_s"] for f in res.summary["flows"]] == [f["completion_s"] for f in stored["flows"]]
    assert len(res.series) > 0


def test_bad_arguments_are_reported(frames, tmp_path):
    flows, runs = frames
    with pytest.raises(KeyError, match="not one of the factors"):
        report.write_report(flows, runs, tmp_path, x="links.9.rate")
    with pytest.raises(ValueError, match="baseline"):
        report.write_report(flows, runs, tmp_path, baseline="cubic")
    with pytest.raises(KeyError, match="trace runs not in the runs table"):
        report.write_report(flows, runs, tmp_path, trace_runs=["nope"])


def test_render_check_catches_a_broken_page(tmp_path):
    # the harness itself: an undecodable image, an empty table and a
    # console error must all show up
    bad = tmp_path / "bad.html"
    bad.write_text('<!DOCTYPE html><html><head></head><body><img src="data:image/png;base64,AAAA">'
                   '<table><tbody></tbody></table><script>console.error("boom")</script></body></html>')
    res, log = render(bad, tmp_path)
    assert res["images"][0]["w"] == 0
    assert res["tables"] == [0]
    assert len(res["errors"]) == 1
    assert any("CONSOLE" in l and "boom" in l for l in log.splitlines())


def test_report_without_runs_table_or_numeric_factor(frames, tmp_path):
    # one flow per run, one categorical factor, no runs frame: bar charts,
    # no fairness section, no traces; failures still listed from `status`
    flows, _ = frames
    one = flows[(flows["flow"] == "a") | (flows["status"] == "failed")]
    one = one[one[BER].isin([1e-6, 2.0])].drop(columns=[BER])
    path = report.write_report(one, None, tmp_path / "r", metrics=["completion_s", "throughput_bps"])
    html = path.read_text(encoding="utf-8")
    assert "Fairness" not in html
    assert "No runs table with scenario_json" in html
    assert "Failed runs (1)" in html
    res, _ = render(path, tmp_path)
    assert len(res["images"]) == 2 and all(im["w"] > 100 for im in res["images"])
    assert all(rows > 0 for rows in res["tables"])
    assert res["errors"] == []
    with pytest.raises(KeyError, match="no 'key' column"):
        report.write_report(one.drop(columns=["key"]), None, tmp_path / "r")
