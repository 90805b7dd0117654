"""`satcp reproduce peach`: the paper's claims file, the experiment
catalogue, the statistics and verdicts on hand-made data, ns-2's output
parsing, and one end-to-end `--quick` reproduction with ns-2 2.35 beside it
(run once per module, then rerun to check resume)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest

from satcp.reproduce import reproduce
from satcp.reproduce.kit import catalogue
from satcp.reproduce.kit.claims import Verdict
from satcp.reproduce.kit.study import EXIT_USAGE
from satcp.reproduce.peach import experiments as peach
from satcp.reproduce.peach import ns2, results

HOLDS, FAILS = Verdict.HOLDS, Verdict.DOES_NOT_HOLD

ROOT = Path(__file__).resolve().parents[2]


def test_claims_file_says_whose_words_they_are():
    claims = results.load_claims()
    assert set(claims["id"]) == {"fig3_comparable", "fig4_best", "fig5_ahead", "fig5_best", "fair", "mp_beats_peach"}
    head = (ROOT / "data/published/peach_claims.csv").read_text().splitlines()[0]
    assert "published by the paper, NOT measured by satcp" in head
    assert claims.set_index("id").loc["fig5_ahead", "wording"].endswith("by almost 100%")


def test_catalogue_runs_nine_variants_on_three_pers_and_quick_is_a_subset():
    exps = peach.experiments()
    full = catalogue.plan(exps, ROOT, quick=False, validate=True)
    quick = catalogue.plan(exps, ROOT, quick=True, validate=False)
    assert not full.unavailable
    assert {r.run.key for r in quick.runs} <= {r.run.key for r in full.runs}
    main_runs = [r for r in full.runs if r.experiment == "per"]
    assert len(main_runs) == 9 * 3 * peach.REPLICATIONS
    assert {r.arm for r in main_runs} == set(peach.VARIANTS)
    assert {r.levels["per"] for r in main_runs} == set(peach.PERS)
    # common random numbers: every variant of a PER runs the same seeds
    seeds = {}
    for r in main_runs:
        seeds.setdefault(r.levels["per"], {}).setdefault(r.arm, set()).add(r.run.seed)
    for per, by_arm in seeds.items():
        assert len({frozenset(s) for s in by_arm.values()}) == 1, per


def test_gtnets_reading_sets_the_dummy_rule_on_every_access_queue():
    readings = {a.label: a for a in peach.experiments()[1].arms}
    s = readings["mp_gtnets"].settings
    assert all(s[f"links.up{i}.queue_ab.dummy_drop"] == "queued" for i in range(10))
    assert s["flows.f9.tcp.variant"] == "modified-peach"
    assert readings["peach_every3"].settings["flows.f0.tcp.peach_rehalve"] == "every_dupthresh"


def _table(gp: dict[str, float], per: float, jain: float = 0.99) -> pd.DataFrame:
    return pd.DataFrame([dict(experiment="per", arm=a, per=per, goodput_kbps=g, jain=jain) for a, g in gp.items()])


def _verdict(claims, cid):
    return next(c for c in claims if c.id == cid).verdict


def test_claim_criteria_on_hand_made_tables():
    base = {v: 40.0 for v in peach.VARIANTS}
    t1 = _table({**base, "vegas": 100, "westwood": 95, "modified-peach": 91}, 0.001)
    t2 = _table({**base, "modified-peach": 60, "westwood": 59}, 0.01)
    t3 = _table({**base, "modified-peach": 71, "peach": 80}, 0.1)
    claims = results.evaluate_claims(pd.concat([t1, t2, t3]))
    assert _verdict(claims, "fig3_comparable") == HOLDS  # 91 within 10% of 100
    assert _verdict(claims, "fig4_best") == HOLDS
    assert _verdict(claims, "fig5_ahead") == HOLDS  # 71 / 40 = 1.78 > 1.75
    assert _verdict(claims, "mp_beats_peach") == FAILS
    assert _verdict(claims, "fair") == HOLDS
    t1b = _table({**base, "vegas": 100, "westwood": 95, "modified-peach": 89}, 0.001)
    t3b = _table({**base, "modified-peach": 69}, 0.1)
    t2b = _table({**base, "modified-peach": 60, "sack": 61}, 0.01, jain=0.9)
    claims = results.evaluate_claims(pd.concat([t1b, t2b, t3b]))
    assert _verdict(claims, "fig3_comparable") == FAILS
    assert _verdict(claims, "fig4_best") == FAILS
    assert _verdict(claims, "fig5_ahead") == FAILS and _verdict(claims, "fig5_best") == HOLDS
    assert _verdict(claims, "fair") == FAILS
    # a PER that did not run leaves its claims without data
    assert _verdict(results.evaluate_claims(t1), "fig4_best") == Verdict.NO_DATA


def test_per_run_goodput_and_jain():
    rows = [dict(experiment="per", arm="sack", per=0.01, replication=0, seed=1, key="k", status="ok", flow=f"f{i}",
                 goodput_bps=g, retransmissions=1, timeouts=0, fast_recoveries=1, dummy_segments_sent=0,
                 dummy_acks_received=0, access_dummies_dropped=0.0, access_data_drops=0.0, sat_queue_drops=0.0,
                 sat_max_queue=3.0) for i, g in enumerate([100.0, 100.0, 200.0, 200.0])]
    r = results.per_run(pd.DataFrame(rows))
    assert r["goodput_bps"].iloc[0] == 150.0
    # Jain: (600)^2 / (4 x 100000) = 0.9
    assert r["jain"].iloc[0] == pytest.approx(0.9)
    assert r["retransmissions"].iloc[0] == 4


def test_ns2_output_parsing():
    text = ("sample 5.000000 0 47\nsample 5.000000 1 98\n"
            "flow 0 last -1 done -1 acked 464 rexmitpack 5 rexmit 0 bytes 488840\n"
            "flow 1 last -1 done -1 acked 354 rexmitpack 11 rexmit 1 bytes 368200\n")
    flows, samples = ns2.parse_ns2(text)
    assert [f["acked"] for f in flows] == [464, 354] and flows[1]["timeouts"] == 1
    assert samples == [(5.0, 0, 47), (5.0, 1, 98)]
    args = ns2.ns2_args("vegas", 0.1, 3)
    # ns-2's Vegas sends packetSize_ bytes with no header; the others add 40
    assert "hdr=0" in args and "agent=Vegas" in args and "access_qlim=50" in args
    assert "hdr=40" in ns2.ns2_args("fack", 0.1, 3) and "sink=TCPSink/Sack1" in ns2.ns2_args("fack", 0.1, 3)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce-peach")
    buf = io.StringIO()
    status = reproduce("peach", quick=True, out=out, workers=2, stdout=buf)
    return status, buf.getvalue(), out


def test_quick_reproduction_reports_every_figure_claim_and_ns2(quick_run):
    status, text, out = quick_run
    print(text)
    assert status == 0, text
    assert (out / "index.html").is_file() and (out / "report.md").is_file()
    assert {p.name for p in (out / "figures").iterdir()} == {"fig3.png", "fig4.png", "fig5.png"}
    md = (out / "report.md").read_text()
    for c in results.load_claims()["id"]:
        assert re.search(rf"\| {c} \|.*\| (holds|does not hold) \|", md), c
    table = pd.read_csv(out / "goodput.csv")
    main_t = table[table["experiment"] == "per"]
    assert len(main_t) == 27 and main_t["n"].eq(peach.QUICK_REPLICATIONS).all()
    # every dummy the Peach variants send is answered or lost; the others send none
    for arm, g in main_t.groupby("arm"):
        assert (g["dummies"] > 0).all() == (arm in ("peach", "modified-peach")), arm
    # the paper's qualitative result holds in our runs: Modified Peach ahead
    # of every other of the eight at PER 0.01 and 0.1
    for per in (0.01, 0.1):
        t = main_t[main_t["per"] == per].set_index("arm")["goodput_kbps"]
        assert t["modified-peach"] > max(t[v] for v in peach.PAPER_EIGHT if v != "modified-peach"), per
    curves = pd.read_csv(out / "curves.csv")
    # the paper's metric rises to the segments acknowledged by the end
    last = curves[curves["t"] == curves["t"].max()].set_index(["variant", "per"])["segments"]
    assert last.loc[("newreno", 0.001)] > 20_000


def test_quick_reproduction_agrees_with_ns2_on_the_six_baselines(quick_run):
    """Our mean goodput within 10% of ns-2 2.35's on each baseline and PER
    (Vegas at PER 0.1 too, since ns-2's RTO backoff at Vegas's fast
    retransmit is modelled). On Reno recovery our Vegas falls short of
    ns-2's agent at every PER: its recovery is closer to the preset's
    NewReno (the report's baselines)."""
    _, text, out = quick_run
    table = pd.read_csv(out / "goodput.csv")
    main_t = table[(table["experiment"] == "per") & (table["ns2_n"] > 0)]
    assert set(main_t["arm"]) == set(peach.NS2_AGENTS) and len(main_t) == 18
    off = main_t[main_t["diff_pct"].abs() > 10]
    assert off.empty, off[["arm", "per", "diff_pct"]]
    vr = table[(table["experiment"] == "baselines") & (table["arm"] == "vegas_reno")]
    assert len(vr) == 3 and (vr["diff_pct"] < 0).all(), vr[["per", "goodput_kbps", "ns2_kbps", "diff_pct"]]


def test_quick_reproduction_resumes_from_its_store(quick_run):
    _, _, out = quick_run
    buf = io.StringIO()
    assert reproduce("peach", quick=True, out=out, workers=2, stdout=buf) == 0
    assert re.search(r"runs: \d+ \(0 run now, \d+ already stored, 0 failed\)", buf.getvalue()), buf.getvalue()


def test_seeds_is_refused_for_peach():
    assert reproduce("peach", quick=True, options={"seeds": 3}, stdout=io.StringIO()) == EXIT_USAGE
