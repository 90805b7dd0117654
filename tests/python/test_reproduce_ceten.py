"""`satcp reproduce ceten`: the thesis' published numbers, the experiment
catalogue, the row comparison and the ANOVA on hand-made data, and one
end-to-end `--quick` reproduction (run once per module)."""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from satcp.reproduce import reproduce
from satcp.reproduce.ceten import experiments as ceten_experiments
from satcp.reproduce.ceten import results as ceten
from satcp.reproduce.kit import catalogue
from satcp.reproduce.kit.study import EXIT_USAGE

ROOT = Path(__file__).resolve().parents[2]


def test_published_rows_cover_the_tables_and_say_whose_they_are():
    pub = ceten.load_published()
    assert len(pub) == 72
    assert pub.groupby("table").size().to_dict() == {"4": 12, "5": 12, "9": 12, "10": 12, "17": 12, "18": 12}
    head = " ".join((ROOT / "data/published/ceten_thesis.csv").read_text().splitlines()[:3])
    assert "NOT measured by satcp" in head
    # the spec's values and errata
    r = pub[(pub["table"] == "5") & (pub["delay_ms"] == 50) & (pub["ber"] == 1e-5) & (pub["ceten"] == "on")]
    assert list(r["mean_bps"]) == [111455]
    assert (pub["erratum"] != "").sum() == 3
    mixed = pub[pub["env"] == "mixed"]
    assert set(mixed["variant"]) == {"reno", "newreno"} and len(mixed) == 24
    a = ceten.load_published_anova()
    assert a[(a["scope"] == "all") & (a["term"] == "N")]["pct"].item() == 3.733
    assert a[(a["scope"] == "all") & (a["term"] == "NA")]["pct"].item() == 0.004


def test_catalogue_is_the_thesis_design_and_quick_drops_only_the_calibration():
    full = catalogue.plan(ceten_experiments.catalogue(quick=False), ROOT, quick=False, validate=True)
    quick = catalogue.plan(ceten_experiments.catalogue(quick=True), ROOT, quick=True, validate=False)
    assert not full.unavailable
    by_exp = pd.Series([r.experiment for r in full.runs]).value_counts().to_dict()
    # 24 homogeneous cells per client count, 12 mixed, five replications
    assert by_exp["single"] == by_exp["four"] == 24 * 5 and by_exp["mixed"] == 12 * 5
    assert {r.run.key for r in quick.runs} == {r.run.key for r in full.runs if r.experiment != "alpha"}
    # common random numbers: CETEN-R on and off run the same seeds
    seeds = {}
    for r in full.runs:
        if r.experiment == "single":
            seeds.setdefault((r.levels["delay_ms"], r.levels["ber"]), {}).setdefault(r.arm, set()).add(r.run.seed)
    assert all(len({frozenset(s) for s in v.values()}) == 1 for v in seeds.values())


def _per_rep(values: dict[tuple, list[float]]) -> pd.DataFrame:
    rows = []
    for (clients, variant, delay, ber, ceten_on, env), xs in values.items():
        rows += [dict(clients=clients, variant=variant, delay_ms=delay, ber=ber, ceten=ceten_on, env=env,
                      replication=i, goodput_bps=x, srtt_s=0.1) for i, x in enumerate(xs)]
    return pd.DataFrame(rows)


def test_a_row_is_reproduced_within_10_percent_or_inside_our_interval():
    pub = ceten.load_published()
    pub = pub[(pub["table"] == "4") & (pub["delay_ms"] == 50) & (pub["ber"] == 1e-7)]
    thesis_off, thesis_on = 808558, 767317
    per = _per_rep({(1, "reno", 50, 1e-7, "off", "all"): [thesis_off * 1.2] * 4 + [thesis_off * 1.21],
                    (1, "reno", 50, 1e-7, "on", "all"): [thesis_on * 1.05, thesis_on * 1.07, thesis_on * 1.06,
                                                          thesis_on * 1.04, thesis_on * 1.08]})
    rows = ceten.table_rows(per, pub).set_index("ceten")
    assert rows.loc["off", "reproduced"] == False  # noqa: E712 (+20%, a tight interval)
    assert rows.loc["on", "reproduced"] == True  # noqa: E712 (+6%)
    assert rows.loc["on", "n"] == 5
    # the 90% t interval: mean +- t(0.95; 4) s / sqrt(5)
    x = np.array([thesis_on * f for f in (1.05, 1.07, 1.06, 1.04, 1.08)])
    half = 2.1318 * x.std(ddof=1) / math.sqrt(5)
    assert rows.loc["on", "ours_hi"] - x.mean() == pytest.approx(half, rel=1e-3)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce-ceten")
    buf = io.StringIO()
    status = reproduce("ceten", quick=True, out=out, workers=2, stdout=buf)
    return status, buf.getvalue(), out


def test_quick_reproduction_reports_every_row_anova_and_claim(quick_run):
    status, text, out = quick_run
    print(text)
    assert status == 0, text
    md = (out / "report.md").read_text()
    rows = pd.read_csv(out / "tables.csv")
    assert len(rows) == 72 and (rows["n"] == 5).all()
    for t in ("Table 4", "Table 5", "Table 9", "Table 10", "Table 17", "Table 18", "Table 7", "Table 11",
              "Table 15"):
        assert t in md, t
    for cid in ("gains_at_1e-5", "no_gain_at_1e-7", "newreno_gains_more", "window_limited", "anova_order_one_client",
                "anova_order_all", "mixed_not_unfair"):
        assert f"| {cid} |" in md, cid
    # what our runs show regardless of calibration: CETEN-R helps one
    # client at BER 1e-5 in every cell, and delay and error rate dominate
    # the variation, as in the thesis
    one = rows[(rows["clients"] == 1) & (rows["ber"] == 1e-5) & (rows["env"] == "all")]
    for (variant, delay), g in one.groupby(["variant", "delay_ms"]):
        g = g.set_index("ceten")
        assert g.loc["on", "ours"] > g.loc["off", "ours"], (variant, delay)
    assert "claim anova_order_one_client: holds" in text and "claim anova_order_all: holds" in text
    # the calibrated reading (docs/models/ceten-r.md): the thesis' findings
    # but NewReno's larger gain hold, and stock TCP is within 10% of the
    # thesis at BER 1e-7 and 1e-6 (one borderline cell allowed) and within
    # 25% at 1e-5, where ours stays 11-20% over
    for cid in ("gains_at_1e-5", "no_gain_at_1e-7", "window_limited", "mixed_not_unfair"):
        assert f"claim {cid}: holds" in text, cid
    stock = rows[(rows["ceten"] == "off") & (rows["env"] == "all")]
    low = stock[stock["ber"] < 1e-5]
    assert len(low) == 16 and low["reproduced"].astype(bool).sum() >= 15, low
    high = stock[stock["ber"] == 1e-5]
    assert (high["deviation_pct"].abs() <= 25).all(), high


def test_seeds_is_refused_for_ceten():
    assert reproduce("ceten", quick=True, options={"seeds": 3}, stdout=io.StringIO()) == EXIT_USAGE
