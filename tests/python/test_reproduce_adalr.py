"""`satcp reproduce adalr`: the thesis' published numbers and claims, the
experiment catalogue, claim verdicts on hand-made data, and one end-to-end
`--quick` reproduction (run once per module, then rerun to check resume)."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pandas as pd
import pytest

from satcp import stats
from satcp.paths import ROOT as RESOURCES
from satcp.reproduce import profiles, reproduce
from satcp.reproduce.adalr import claims, published
from satcp.reproduce.adalr import experiments as adalr
from satcp.reproduce.adalr import results as observations
from satcp.reproduce.adalr.claims import Settings, StatedClaim
from satcp.reproduce.kit import catalogue
from satcp.reproduce.kit.claims import Verdict

ROOT = Path(__file__).resolve().parents[2]
TABLES = ["5.1", "7.5", "7.6", "7.7", "7.8", "7.9", "7.10", "7.11", "7.12", "7.13", "7.14", "7.15"]


@pytest.fixture(scope="module")
def pub() -> pd.DataFrame:
    return published.load_published()


# --------------------------------------------------------------------------
# the published CSV


def test_published_csv_has_every_row_of_every_table(pub):
    # Rows per table, counted in spec 000 section 5: Table 5.1 has six RTTs;
    # 7.5-7.10 four variants x delayed ACK on/off; 7.11, 7.12, 7.14 six
    # connections; 7.13 Jain and max-min for two variants; 7.15 one mix.
    expected = {"5.1": 6, "7.5": 8, "7.6": 8, "7.7": 8, "7.8": 8, "7.9": 8, "7.10": 8,
                "7.11": 6, "7.12": 6, "7.13": 4, "7.14": 6, "7.15": 2}
    assert pub.groupby("table").size().to_dict() == expected
    assert published.table_order(pub["table"]) == TABLES
    assert not pub.duplicated(["table", "variant", "delayed_ack", "x", "flow", "metric"]).any()


def test_published_csv_says_whose_numbers_they_are():
    head = published.PUBLISHED_CSV.read_text().splitlines()[:3]
    assert any("published by the thesis, NOT measured by satcp" in line for line in head)


@pytest.mark.parametrize("table,variant,dack,x,flow,metric,value", [
    ("5.1", "sack", True, 250, "ftp", "response_s", 272.7),
    ("5.1", "sack", True, 500, "ftp", "response_s", 470.1),
    ("7.5", "adalr-sack", False, None, "ftp", "response_s", 333.4),
    ("7.6", "sack", True, None, "ftp", "response_s", 533.5),
    ("7.7", "adalr-newreno", False, None, "ftp", "response_s", 235.4),
    ("7.8", "newreno", False, None, "http", "response_s", 4.3),
    ("7.9", "adalr-newreno", True, None, "ftp", "response_s", 1228.0),
    ("7.10", "newreno", True, None, "http", "response_s", 16.6),
    ("7.11", "adalr-newreno", True, 300, "c300", "throughput_Bps", 195099.8),
    ("7.12", "newreno", True, 500, "c500", "throughput_Bps", 109239.5),
    ("7.13", "newreno", True, None, "all", "max_min", 0.3388),
    ("7.14", "adalr-newreno", True, 400, "c400", "throughput_Bps", 188513.4),
    ("7.15", "mixed", True, None, "all", "jain", 0.9859),
])
def test_published_values_match_the_spec(pub, table, variant, dack, x, flow, metric, value):
    sel = pub[(pub["table"] == table) & (pub["variant"] == variant) & (pub["delayed_ack"] == dack)
              & (pub["flow"] == flow) & (pub["metric"] == metric)]
    if x is not None:
        sel = sel[sel["x"] == x]
    assert len(sel) == 1
    assert sel["value"].iloc[0] == value


@pytest.mark.parametrize("source,target,variant", [("7.11", "7.13", "adalr-newreno"),
                                                   ("7.12", "7.13", "newreno"),
                                                   ("7.14", "7.15", "mixed")])
def test_fairness_indices_recomputed_from_the_throughput_tables(pub, source, target, variant):
    # The spec's check: Jain (Eq. 7.4) and max-min (Eq. 7.5) of the per-
    # connection throughputs reproduce Tables 7.13 and 7.15 to 3 decimals.
    x = pub[pub["table"] == source]["value"]
    t = pub[(pub["table"] == target) & (pub["variant"] == variant)].set_index("metric")["value"]
    assert abs(stats.jain_index(x) - t["jain"]) < 5e-4
    assert abs(stats.max_min_fairness(x) - t["max_min"]) < 5e-4


def test_every_published_row_names_a_catalogued_experiment(pub):
    ids = set(adalr.experiment_ids())
    assert set(pub["experiment"]) <= ids
    by_id = {e.id: e for e in adalr.experiments()}
    for t, g in pub.groupby("table"):
        assert all(t in by_id[e].tables for e in g["experiment"])


# --------------------------------------------------------------------------
# the claims file


def test_claims_file_parses_and_names_existing_experiments_and_metrics():
    settings, cl = claims.load_claims(published.CLAIMS_TOML)
    assert settings.level == 0.95
    assert len(cl) >= 60
    exps = {e.id: e for e in adalr.experiments()}
    for c in cl:
        assert c.experiment in exps, c.id
        assert c.reference_experiment is None or c.reference_experiment in exps, c.id
        assert c.metric in observations.METRICS, c.id
        for sel, exp in ((c.subject, c.experiment), (c.reference, c.reference_experiment or c.experiment)):
            if "variant" in sel:
                arms = exps[exp].arms
                known = {a.label for a in arms} | {v for a in arms for v in a.flow_variants.values()}
                assert sel["variant"] in known, c.id


def test_claims_cover_every_figure_group():
    _, cl = claims.load_claims(published.CLAIMS_TOML)
    sources = " ".join(c.source for c in cl)
    for fig in ("7.4", "7.8", "7.12", "7.16", "7.19", "7.20", "7.28", "7.38", "7.39", "7.40", "7.49", "7.50",
                "7.51", "Table 7.13", "Table 7.15"):
        assert fig in sources, fig


@pytest.mark.parametrize("doc,message", [
    ({"claim": [{"id": "a", "source": "s", "experiment": "t7_5", "metric": "response_s", "direction": "faster",
                 "wording": "w", "reference": {"variant": "sack"}}]}, "direction = 'faster'"),
    ({"claim": [{"id": "a", "source": "s", "experiment": "t7_5", "metric": "response_s", "direction": "lower",
                 "wording": "w", "reference": {"variant": "sack"}, "pct": [30, 20]}]}, "claim[0].pct"),
    ({"claim": [{"id": "a", "source": "s", "experiment": "t7_5", "metric": "response_s", "direction": "lower",
                 "wording": "w"}]}, "claim[0].reference"),
    ({"tolerance": 1}, "tolerance: unknown key"),
])
def test_bad_claims_are_refused_with_the_field(doc, message):
    with pytest.raises(claims.ClaimError, match=re.escape(message)):
        claims.parse_claims(doc)


# --------------------------------------------------------------------------
# claim verdicts on hand-made observations


def _obs(cells: dict[tuple[str, float], list[float]], metric: str = "response_s") -> pd.DataFrame:
    rows = []
    for (variant, x), values in cells.items():
        for r, v in enumerate(values):
            rows.append(dict(experiment="e", arm=variant, variant=variant, delayed_ack=True, x=x, flow="ftp",
                             replication=r, seed=r + 1, key=f"{variant}{x}{r}", status="ok", **{metric: v}))
    return pd.DataFrame(rows)


def _claim(**kw) -> StatedClaim:
    base = dict(id="c", source="s", experiment="e", metric="response_s", subject={"variant": "new"},
                reference={"variant": "old"}, direction="lower", wording="w")
    base.update(kw)
    return StatedClaim(**base)


def test_overlapping_intervals_do_not_hold():
    # new: 10, 12, 14 (mean 12); old: 11, 13, 15 (mean 13). The means are in
    # the claimed order but the 95% intervals (+-4.97) overlap.
    v = claims.evaluate(_claim(), _obs({("new", 1e-6): [10, 12, 14], ("old", 1e-6): [11, 13, 15]}))
    assert v.verdict == Verdict.DOES_NOT_HOLD
    assert not v.cells["holds"].iloc[0]
    assert v.cells["change_pct"].iloc[0] == pytest.approx(100 / 13)
    assert "other order in 0, intervals overlapping in 1" in v.reason


def test_a_clear_win_holds_with_its_percentage():
    # new 9.9/10/10.1 against old 19.9/20/20.1: (20 - 10) / 20 = 50% shorter.
    obs = _obs({("new", 1e-6): [9.9, 10.0, 10.1], ("old", 1e-6): [19.9, 20.0, 20.1]})
    v = claims.evaluate(_claim(pct=(50.0, 50.0)), obs)
    assert v.verdict == Verdict.HOLDS
    assert v.measured_pct == pytest.approx((50.0, 50.0))


def test_a_stated_range_is_checked_with_the_tolerance():
    obs = _obs({("new", 1e-6): [9.9, 10.0, 10.1], ("old", 1e-6): [19.9, 20.0, 20.1]})
    far = claims.evaluate(_claim(pct=(20.0, 30.0)), obs, Settings(pct_tolerance=5.0))
    # the direction holds, the size (50% against 20-30%) does not
    assert far.verdict == Verdict.DIRECTION_ONLY and "outside" in far.reason
    near = claims.evaluate(_claim(pct=(20.0, 46.0)), obs, Settings(pct_tolerance=5.0))
    assert near.verdict == Verdict.HOLDS and "within" in near.reason


def test_scope_all_needs_every_cell_and_any_needs_one():
    # x = 1: new clearly shorter (10 vs 20); x = 2: new clearly longer (30 vs 20).
    obs = _obs({("new", 1): [9.9, 10.0, 10.1], ("old", 1): [19.9, 20.0, 20.1],
                ("new", 2): [29.9, 30.0, 30.1], ("old", 2): [19.9, 20.0, 20.1]})
    both = claims.evaluate(_claim(), obs)
    assert both.verdict == Verdict.DOES_NOT_HOLD and "other order in 1, intervals overlapping in 0" in both.reason
    up_to = claims.evaluate(_claim(scope="any", pct=(50.0, 50.0)), obs)
    assert up_to.verdict == Verdict.HOLDS
    only_x1 = claims.evaluate(_claim(condition={"x_max": 1}), obs)
    assert only_x1.verdict == Verdict.HOLDS and len(only_x1.cells) == 1


def test_comparable_and_value_claims():
    # Single deterministic runs: 100 vs 103 is within comparable_pct = 5%, 100 vs 110 is not.
    obs = _obs({("new", 1): [100.0], ("old", 1): [103.0], ("new", 2): [100.0], ("old", 2): [110.0]})
    assert claims.evaluate(_claim(direction="comparable", condition={"x_max": 1}), obs).verdict == Verdict.HOLDS
    assert claims.evaluate(_claim(direction="comparable"), obs).verdict == Verdict.DOES_NOT_HOLD
    # replicated: narrow intervals 1% apart do not overlap, but are comparable
    rep = _obs({("new", 1): [100.0, 100.1, 99.9], ("old", 1): [101.0, 101.1, 100.9]})
    assert claims.evaluate(_claim(direction="comparable"), rep).verdict == Verdict.HOLDS
    value = _claim(direction="value", reference={}, value=(95.0, 95.0), condition={"x_max": 1})
    assert claims.evaluate(value, obs, Settings(value_tolerance=0.10)).verdict == Verdict.HOLDS
    assert claims.evaluate(value, obs, Settings(value_tolerance=0.01)).verdict == Verdict.DOES_NOT_HOLD


def test_a_claim_without_data_has_no_data():
    v = claims.evaluate(_claim(experiment="other"), _obs({("new", 1): [1.0], ("old", 1): [2.0]}))
    assert v.verdict == Verdict.NO_DATA


def test_delayed_ack_claims_pair_on_the_variant():
    # A subject/reference split on delayed_ack pairs the cells of each variant.
    rows = []
    for v, on, off in (("a", 12.0, 10.0), ("b", 22.0, 20.0)):
        for d, val in ((True, on), (False, off)):
            rows.append(dict(experiment="e", arm=v, variant=v, delayed_ack=d, x=math.nan, flow="ftp",
                             replication=0, seed=1, key=f"{v}{d}", status="ok", response_s=val))
    c = _claim(subject={"delayed_ack": False}, reference={"delayed_ack": True})
    v = claims.evaluate(c, pd.DataFrame(rows))
    assert v.verdict == Verdict.HOLDS and sorted(v.cells["variant"]) == ["a", "b"]


# --------------------------------------------------------------------------
# the catalogue


def test_quick_form_is_a_subset_of_the_full_form():
    exps = adalr.experiments()
    for e in exps:
        assert e.quick_replications <= e.replications
        for f in e.factors:
            assert set(f.quick) <= set(f.values), (e.id, f.column)
    full = catalogue.plan(exps, ROOT, quick=False, validate=False)
    quick = catalogue.plan(exps, ROOT, quick=True, validate=False)
    assert {r.run.key for r in quick.runs} <= {r.run.key for r in full.runs}
    assert len(quick.runs) < len(full.runs)


def test_ber_experiments_follow_the_thesis_design():
    e = {x.id: x for x in adalr.experiments()}["ber_ftp"]
    assert [a.label for a in e.arms] == list(adalr.VARIANTS)
    assert e.replications == 4
    ber = e.factor("x")
    assert ber.values == (1e-9, 1e-8, 1e-7, 1e-6, 1e-5)
    assert ber.encode(1e-6) == {"ber": 1e-6, "bits": 12000}
    assert e.factor("delayed_ack").values == (True, False)


def test_rtt_recipe_gives_the_base_scenario_at_the_nominal_500_ms():
    base = tomllib.loads((ROOT / adalr.FTP_BASE).read_text())
    links = {link["name"]: link for link in base["links"]}
    assert links["ethernet"]["delay"] == f"{adalr.ETHERNET_DELAY_MS:g}ms"
    assert f"{adalr.satellite_delay_for_rtt(500):g}ms" == links["satellite"]["delay"]
    assert adalr.BASE_PROPAGATION_RTT_MS == 2 * (10 + 268)
    # RTT / 2 + 18 ms: 30.5 ms at 25 ms, 143 ms at 250 ms.
    assert adalr.satellite_delay_for_rtt(25) == pytest.approx(30.5)
    assert adalr.satellite_delay_for_rtt(250) == pytest.approx(143.0)


def test_http_congestion_uses_the_ftp_congestion_scenarios_reading():
    # Both congestion scenarios are their lossless ones with the same gateway
    # hop (360 kb/s forwarding behind a drop-tail buffer) in front of an
    # unchanged satellite link: 25 packets for FTP, 15 for HTTP.
    def load(path):
        return tomllib.loads((ROOT / path).read_text())

    def link(doc, name):
        return next(x for x in doc["links"] if x["name"] == name)

    ftp, http = load(adalr.FTP_CONGESTION_BASE), load(adalr.HTTP_CONGESTION_BASE)
    fwd_ftp, fwd_http = link(ftp, "forwarding"), link(http, "forwarding")
    assert fwd_ftp["queue_ab"] == {"packets": 25}
    assert fwd_http["queue_ab"] == {"packets": 15}
    strip = lambda d: {k: v for k, v in d.items() if k != "queue_ab"}
    assert strip(fwd_ftp) == strip(fwd_http) and fwd_ftp["rate_ab"] == "360kbps"
    for cong, lossless in ((ftp, load(adalr.FTP_BASE)), (http, load(adalr.HTTP_BASE))):
        assert link(cong, "satellite") == {**link(lossless, "satellite"), "a": "gateway_out"}
        assert cong["flows"] == lossless["flows"]


def test_seeds_option_sets_the_ber_replications(capsys, tmp_path):
    by_id = {x.id: x for x in adalr.experiments(seeds=12)}
    assert by_id["ber_ftp"].replications_for(False) == by_id["ber_ftp"].replications_for(True) == 12
    assert by_id["t7_5"].replications_for(False) == 1  # deterministic lossless runs stay single
    assert {x.id: x for x in adalr.experiments()}["ber_ftp"].replications_for(False) == adalr.BER_SEEDS == 4
    assert reproduce("adalr", options={"seeds": 1}, out=tmp_path) == 2
    assert "--seeds 1" in capsys.readouterr().err


def test_unknown_names_exit_2_listing_the_allowed_ones(capsys, tmp_path):
    assert reproduce("adalrr", out=tmp_path) == 2
    assert "allowed: adalr" in capsys.readouterr().err
    assert reproduce("adalr", only=["t7_55"], out=tmp_path) == 2
    err = capsys.readouterr().err
    assert "--only t7_55: unknown experiment" in err and "ber_http_cong" in err


# --------------------------------------------------------------------------
# end to end: one quick reproduction, then a rerun


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce")
    cmd = [sys.executable, "-m", "satcp", "reproduce", "adalr", "--quick", "--out", str(out), "--workers", "2"]
    first = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=900)
    second = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=900)
    return out, first, second


def test_quick_reproduction_writes_both_reports_with_every_table(quick_run):
    out, first, _ = quick_run
    expected_rc = 1 if catalogue.plan(adalr.experiments(), ROOT, quick=True).unavailable else 0
    assert first.returncode == expected_rc, first.stderr[-2000:]
    page = (out / "index.html").read_text()
    md = (out / "report.md").read_text()
    for t in TABLES:
        assert f"Table {t}</h3>" in page, t
        assert f"### Table {t}" in md, t
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert page.count('src="data:image/png;base64,') >= 10
    _, cl = claims.load_claims(published.CLAIMS_TOML)
    for c in cl:
        assert f"| {c.id} |" in md, c.id
    assert re.search(r"total wall time \d+\.\d s", first.stdout)
    assert "TCP profile: rfc (" in first.stdout and "TCP profile" in page


def test_report_numbers_come_from_the_store(quick_run):
    from satcp.reproduce.kit.document import fmt
    from satcp.store import Store

    out, first, _ = quick_run
    plan = catalogue.plan([e for e in adalr.experiments() if e.id == "t7_5"], ROOT, quick=True)
    run = next(r for r in plan.runs if r.arm == "sack" and r.levels["delayed_ack"])
    with Store(out / "results.duckdb", read_only=True) as st:
        value = st.query("SELECT completion_s FROM flows WHERE key = ?", [run.run.key])["completion_s"].iloc[0]
    row = next(line for line in (out / "report.md").read_text().splitlines()
               if line.startswith("| TCP SACK | enabled |") and "| 470.1 |" in line)
    assert f"| {fmt(float(value))} |" in row
    assert any(line.startswith("7.5 ") and fmt(float(value)) in line for line in first.stdout.splitlines())


def test_rerun_resumes_and_runs_nothing_new(quick_run):
    _, first, second = quick_run
    total = re.search(r"runs: (\d+) \((\d+) run now", first.stdout)
    again = re.search(r"runs: (\d+) \((\d+) run now, (\d+) already stored", second.stdout)
    assert total and again
    assert int(total.group(2)) > 0
    assert again.group(1) == total.group(1)
    assert again.group(2) == "0" and again.group(3) == total.group(1)


def test_quick_report_renders_in_chromium(quick_run, tmp_path):
    from test_report import render

    out, _, _ = quick_run
    page = out / "index.html"
    html = page.read_text(encoding="utf-8")
    res, log = render(page, tmp_path)
    assert len(res["images"]) == html.count("<img ") >= 10
    for im in res["images"]:
        assert im["complete"] and im["w"] > 100 and im["h"] > 100, im
    assert len(res["tables"]) == html.count("<table") and all(rows > 0 for rows in res["tables"])
    assert res["errors"] == []


def test_every_run_declares_the_reproductions_profile():
    """Each experiment's scenario names the profile the reproduction
    declares (rfc, for OPNET), so a change of satcp's defaults cannot move
    the thesis' numbers unseen; the quick reproduction prints it."""
    profile = profiles()["adalr"].name
    root = RESOURCES
    for e in adalr.experiments(None):
        doc = tomllib.loads((root / e.base).read_text())
        for f in doc["flows"]:
            assert f["tcp"].get("profile") == profile, (e.id, f.get("name"))
            assert f["tcp"].get("cwnd_validation") == "off", (e.id, f.get("name"))
