"""`satcp reproduce quic-geo`: the catalogue (every arm and level, QUIC and
TCP set up alike), the findings on a hand-made table, and one `--quick`
run end to end (every cell present, sane numbers: QUIC's handshake one
round trip, goodput below the link's rate, lossy cells slower, a small
stream window capping goodput), run once per module."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pandas as pd
import pytest

from satcp import engine
from satcp import sweep as sw
from satcp.reproduce import reproduce
from satcp.reproduce.kit import catalogue
from satcp.reproduce.kit.claims import Verdict
from satcp.reproduce.quic_geo import experiments as qg
from satcp.reproduce.quic_geo import results

ROOT = Path(__file__).resolve().parents[2]


def _arms(quic_iws=qg.IWS, tcp=True):
    n = len(qg.QUIC_CCS) * len(quic_iws)
    if tcp:
        n += len(qg.TCP_CCS) * len(quic_iws)
    return n


def test_the_catalogue_has_every_arm_and_level_and_sets_both_transports_alike():
    for quick in (False, True):
        p = catalogue.plan(qg.catalogue(quick), ROOT, quick, validate=not quick)
        assert not p.unavailable
        seeds = qg.QUICK_SEEDS if quick else qg.SEEDS
        pers = qg.QUICK_PERS if quick else qg.PERS
        sizes = qg.QUICK_SIZES_KB if quick else qg.SIZES_KB
        pip = qg.QUICK_PIPELINING if quick else qg.PIPELINING
        wins = qg.QUICK_WINDOWS if quick else qg.WINDOWS
        count = {}
        for r in p.runs:
            count[r.experiment] = count.get(r.experiment, 0) + 1
        for path in qg.PATHS:
            assert count[f"bulk-{path}"] == _arms() * len(pers) * len(sizes) * seeds
            assert count[f"http-{path}"] == _arms() * len(pers) * len(pip) * seeds
        assert count["window-20mbps"] == len(qg.QUIC_CCS) * len(wins) * (1 if quick else 2) * (1 if quick else seeds)
        for path in qg.PATHS:
            resume_arms = len(qg.RESUME_QUIC_CCS) + len(qg.RESUME_TCP_CCS)
            assert count[f"resume-{path}"] == resume_arms * len(pers) * len(qg.RESUME_SIZES_KB) * seeds
        leo_arms = len(qg.LEO_QUIC_CCS) + len(qg.LEO_TCP_CCS)
        leo_sizes = qg.QUICK_LEO_SIZES_KB if quick else qg.LEO_SIZES_KB
        assert count["leo-starlink"] == leo_arms * len(qg.LEO_PERS) * len(leo_sizes) * seeds
        # 100 MB over the fast GEO path: the full form only
        assert count.get("big-20mbps", 0) == (0 if quick else 7 * len(qg.BIG_PERS) * qg.BIG_SEEDS)
    p = catalogue.plan(qg.catalogue(True), ROOT, True, validate=False)
    for r in p.runs:
        s = json.loads(r.run.scenario_json)
        flow = s["flows"][0]
        spec = qg.spec(r.arm)
        if r.experiment == "leo-starlink":
            # every ground-satellite link, both ways; the transfer from New York to Paris
            assert s["constellations"][0]["gsl"]["errors"] == {"per": r.levels["per"]}
            assert (flow["src"], flow["dst"]) == ("new-york", "paris")
        else:
            link = next(l for l in s["links"] if l["name"] == qg.LINK)
            assert link["errors_ab"] == {"per": r.levels["per"]}
        resume = r.experiment.startswith("resume")
        path = r.experiment.split("-", 1)[1]
        if spec.transport == "quic":
            assert flow["transport"] == "quic" and "tcp" not in flow
            # the same bytes as TCP's IW of MSS-sized segments
            cc, _, cr = spec.cc.partition("+")
            assert flow["quic"]["initial_window"] == spec.iw * 1448 and flow["quic"]["cc"] == cc
            # Careful Resume's saved state: 2 (cr) or 8 (cr4) BDPs and the path's RTT
            saved = {"": None, "cr": 2 * qg.BDP.get(path, 0), "cr4": 8 * qg.BDP.get(path, 0)}[cr]
            assert flow["quic"].get("careful_resume") == (saved and {"saved_cwnd": saved, "saved_rtt": "510ms"})
            if resume:
                assert flow["quic"]["stream_window"] == max(1_250_000, 4 * qg.BDP[path])
            assert flow["quic"].get("cubic_style", "linux") == "linux"
            assert flow["quic"].get("hybla_style", "linux") == "linux"
        else:
            assert "quic" not in flow
            assert flow["tcp"] == {"profile": "linux", "variant": spec.cc, "initial_window": spec.iw}
        if r.experiment.startswith("http"):
            assert flow["app"]["kind"] == "http" and flow["app"]["request"] == qg.REQUEST
        else:
            assert flow["app"]["kind"] == "ftp" and flow["app"]["request"] == qg.REQUEST
        if r.experiment.startswith("window"):
            assert flow["quic"]["stream_window"] == r.levels["stream_window"]


def test_an_arm_label_reads_back():
    for a in qg.arms():
        s = qg.spec(a.label)
        assert qg.label(s.transport, s.cc, s.iw) == a.label
    assert qg.spec("quic-quinn-newreno-iw32") == qg.Spec("quic", "quinn-newreno", 32)


def test_quinns_default_stream_window_is_the_level_written_as_quinns():
    """The window experiment writes quinn's default out (1.25 MB): the run
    is the one that leaves the key out."""
    import tomllib
    base = tomllib.loads((ROOT / qg.PATHS["20mbps"]).read_text())
    quic = {"cc": "quinn-cubic", "initial_window": 14480}
    common = {"flows.transfer.transport": "quic", "flows.transfer.app.size": "3MB", "flows.transfer.app.request": 350}
    a = engine.run(sw.set_levels(base, {**common, "flows.transfer.quic": quic})).flows.iloc[0]
    b = engine.run(sw.set_levels(base, {**common, "flows.transfer.quic": {**quic, "stream_window":
                                                                          qg.QUINN_STREAM_WINDOW}})).flows.iloc[0]
    assert a["completion_s"] == b["completion_s"] and a["segments_sent"] == b["segments_sent"]


def _row(**kw):
    r = dict(experiment="bulk-2mbps", path="2mbps", kind="bulk", arm="", transport="quic", cc="quinn-cubic", iw=10,
             per=0.0, size_kb=10000, pipelining=None, stream_window=None, runs=2, completed=2, completion_s=math.nan,
             goodput_bps=math.nan, page_response_s=math.nan, handshake_s=math.nan, lost_packets=0.0,
             retransmissions=0.0, timeouts=0.0)
    r.update(kw)
    r["arm"] = qg.label(r["transport"], r["cc"], r["iw"])
    return r


def test_findings_computed_by_hand():
    rows = pd.DataFrame([
        _row(completion_s=44.0, goodput_bps=1.9e6, handshake_s=0.555),
        _row(transport="tcp", cc="cubic", completion_s=42.0, goodput_bps=1.95e6),
        _row(per=0.01, completion_s=300.0, goodput_bps=0.3e6, handshake_s=0.555),
        _row(per=0.01, transport="tcp", cc="cubic", completion_s=200.0, goodput_bps=0.4e6),
    ])
    f = {c.id: c for c in results.findings(rows)}
    assert f["quic_fills_geo"].verdict == Verdict.HOLDS  # 1.9 / 2.048 = 93%
    assert "93%" in f["quic_fills_geo"].evidence
    assert f["same_controller_within_10pct"].verdict == Verdict.HOLDS and "x1.048" in f[
        "same_controller_within_10pct"].evidence
    assert f["quic_handshake_one_rtt"].verdict == Verdict.HOLDS
    assert f["loss_slows_every_arm"].verdict == Verdict.HOLDS
    assert f["quic_vs_tcp_under_loss"].verdict == Verdict.DOES_NOT_HOLD and "x1.50" in f[
        "quic_vs_tcp_under_loss"].evidence
    rows.loc[0, "handshake_s"] = 0.6  # beyond 1.1 RTT
    rows.loc[1, "completion_s"] = 38.0  # 44 / 38: 16% apart
    f = {c.id: c for c in results.findings(rows)}
    assert f["quic_handshake_one_rtt"].verdict == Verdict.DOES_NOT_HOLD
    assert f["same_controller_within_10pct"].verdict == Verdict.DOES_NOT_HOLD
    assert results.findings(rows.iloc[:0]) == []


def test_resume_findings_computed_by_hand():
    r = dict(experiment="resume-2mbps", path="2mbps", kind="resume", iw=10, per=0.0, size_kb=10000)
    rows = pd.DataFrame([
        _row(**r, cc="cubic", completion_s=44.0),
        _row(**r, cc="cubic+cr", completion_s=42.0),
        _row(**r, cc="cubic+cr4", completion_s=48.0),  # 9% later: within 10%
        _row(**r, cc="bbr", completion_s=46.0),
        _row(**r, cc="bbr", transport="tcp", completion_s=50.0),  # x0.92
        _row(**{**r, "per": 0.01}, cc="cubic", completion_s=160.0),
        _row(**{**r, "per": 0.01}, cc="bbr", completion_s=50.0),  # x3.2
    ])
    f = {c.id: c for c in results.findings(rows)}
    assert f["careful_resume_sooner"].verdict == Verdict.HOLDS and "44.00 / 42.00 s" in f["careful_resume_sooner"].evidence
    assert f["careful_resume_retreats_safely"].verdict == Verdict.HOLDS
    assert f["bbr_quic_near_tcp"].verdict == Verdict.HOLDS and "x0.920" in f["bbr_quic_near_tcp"].evidence
    assert f["bbr_rides_out_loss"].verdict == Verdict.HOLDS and "x3.2" in f["bbr_rides_out_loss"].evidence
    rows.loc[1, "completion_s"] = 45.0
    rows.loc[2, "completion_s"] = 49.0  # 11% later
    rows.loc[3, "completion_s"] = 44.0  # x0.88
    rows.loc[6, "completion_s"] = 90.0  # x1.8
    f = {c.id: c for c in results.findings(rows)}
    for claim in ("careful_resume_sooner", "careful_resume_retreats_safely", "bbr_quic_near_tcp", "bbr_rides_out_loss"):
        assert f[claim].verdict == Verdict.DOES_NOT_HOLD, claim


def test_leo_and_big_findings_computed_by_hand():
    r = dict(experiment="leo-starlink", path="starlink", kind="leo", iw=10, size_kb=10000)
    rows = pd.DataFrame([
        _row(**r, cc="quinn-cubic", completion_s=1.38),  # x1.095 of TCP cubic
        _row(**r, cc="cubic", completion_s=1.28),
        _row(**r, cc="bbr", completion_s=1.40),
        _row(**r, transport="tcp", cc="cubic", completion_s=1.26),
        _row(**r, transport="tcp", cc="bbr", completion_s=1.36),
        _row(**{**r, "per": 1e-3}, cc="cubic", completion_s=5.12),  # x4.00
        _row(**{**r, "per": 1e-3}, cc="bbr", completion_s=1.54),  # x1.10
        _row(**{**r, "per": 1e-3}, transport="tcp", cc="cubic", completion_s=5.04),
        _row(**{**r, "per": 1e-3}, transport="tcp", cc="bbr", completion_s=1.50),
        _row(experiment="big-20mbps", path="20mbps", kind="big", size_kb=100000, completion_s=55.0,
             goodput_bps=16.4e6),
        _row(experiment="big-20mbps", path="20mbps", kind="big", size_kb=100000, cc="cubic",
             completion_s=60.0, goodput_bps=14.6e6),
    ])
    f = {c.id: c for c in results.findings(rows)}
    assert f["starlink_transfers_complete"].verdict == Verdict.HOLDS and "18 of 18" in f[
        "starlink_transfers_complete"].evidence
    assert f["starlink_same_controller_within_10pct"].verdict == Verdict.HOLDS
    assert "x1.095" in f["starlink_same_controller_within_10pct"].evidence
    assert f["starlink_loss_costs_cubic_more"].verdict == Verdict.HOLDS
    assert "QUIC satcp cubic x4.00" in f["starlink_loss_costs_cubic_more"].evidence
    # 16.4 Mb/s is 82% of 20, 14.6 is 73%
    assert f["quic_fills_geo_100mb"].verdict == Verdict.DOES_NOT_HOLD
    assert "82%" in f["quic_fills_geo_100mb"].evidence and "73%" in f["quic_fills_geo_100mb"].evidence
    rows.loc[0, "completion_s"] = 1.40  # x1.111
    rows.loc[6, "completion_s"] = 6.0  # BBR now slowed more than CUBIC on QUIC
    rows.loc[3, "completed"] = 1
    f = {c.id: c for c in results.findings(rows)}
    for claim in ("starlink_transfers_complete", "starlink_same_controller_within_10pct",
                  "starlink_loss_costs_cubic_more"):
        assert f[claim].verdict == Verdict.DOES_NOT_HOLD, claim


def test_the_interval_is_students_t():
    from satcp.reproduce.kit.cells import mean_ci
    mean, half = mean_ci([1.0, 3.0])
    assert mean == 2.0 and half == pytest.approx(12.706204736 * 1.0, rel=1e-6)  # t(0.975, 1) x s / sqrt(2)
    assert mean_ci([5.0, 5.0])[1] == 0.0 and math.isnan(mean_ci([5.0])[1])
    assert math.isnan(mean_ci([math.nan])[0])


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("quic-geo")
    buf = io.StringIO()
    status = reproduce("quic-geo", quick=True, out=out, workers=2, stdout=buf)
    return status, out, buf.getvalue()


def test_a_quick_run_completes_with_every_cell(quick):
    status, out, text = quick
    assert status == 0, text
    assert (out / "index.html").is_file() and (out / "report.md").is_file()
    runs = pd.read_csv(out / "runs.csv")
    plan = catalogue.plan(qg.catalogue(True), ROOT, True, validate=False)
    assert len(runs) == len(plan.runs) and (runs["status"] == "ok").all()
    assert runs["completed"].all()
    table = pd.read_csv(out / "table.csv")
    cells = {(r.experiment, r.arm) for r in plan.runs}
    assert cells == set(zip(table["experiment"], table["arm"]))
    assert "claim quic_handshake_one_rtt: holds" in text
    md = (out / "report.md").read_text()
    assert "no published numbers exist for this study" in md


def test_a_quick_runs_numbers_are_sane(quick):
    _, out, _ = quick
    runs = pd.read_csv(out / "runs.csv")
    q = runs[(runs["transport"] == "quic") & (runs["kind"] != "leo")]
    # QUIC's handshake: one propagation RTT plus the flights' serialisation
    assert ((q["handshake_s"] >= qg.RTT_S) & (q["handshake_s"] <= 1.1 * qg.RTT_S))[q["per"] == 0].all()
    # across the Starlink shell: at least the light's round trip New York - Paris over the ground
    # (5,837 km great circle: 38.9 ms), at most three times that
    leo = runs[(runs["transport"] == "quic") & (runs["kind"] == "leo")]
    assert len(leo) and ((leo["handshake_s"] >= 0.0389) & (leo["handshake_s"] <= 3 * 0.0389)).all()
    assert runs[runs["transport"] == "tcp"]["handshake_s"].isna().all()
    bulk = runs[runs["kind"] != "http"]
    rate = bulk["path"].map(qg.RATE_BPS)
    assert (bulk["goodput_bps"] < rate).all() and (bulk["goodput_bps"] > 0).all()
    big = bulk[(bulk["kind"] == "bulk") & (bulk["size_kb"] == bulk["size_kb"].max())]
    mean = big.groupby(["path", "arm", "per"])["completion_s"].mean().unstack("per")
    assert (mean[max(qg.QUICK_PERS)] > mean[0.0]).all()
    # loss-free cells lose nothing to the channel: a 1 KB response costs two round trips on both
    one = bulk[(bulk["kind"] == "bulk") & (bulk["size_kb"] == 1) & (bulk["per"] == 0)]
    assert ((one["completion_s"] >= 2 * qg.RTT_S) & (one["completion_s"] <= 2.3 * qg.RTT_S)).all()
    http = runs[runs["kind"] == "http"]
    assert (http["pages_completed"] == qg.PAGES).all() and (http["page_response_s"] > 2 * qg.RTT_S).all()
    # a window of half a bandwidth-delay product caps goodput at about window / RTT
    w = runs[(runs["kind"] == "window") & (runs["stream_window"] == qg.BDP_20 // 2)]
    assert len(w) and (w["goodput_bps"] <= qg.BDP_20 // 2 * 8 / qg.RTT_S * 1.02).all()
    assert (w["lost_packets"] == 0).all()
