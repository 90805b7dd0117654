"""`satcp reproduce xfwa`: the catalogue, the fairness metric with a
changing flow count on hand-made cases, and one end-to-end `--quick`
reproduction with ns-2 beside it (run once per module)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from satcp.reproduce import reproduce
from satcp.reproduce.kit import catalogue
from satcp.reproduce.xfwa import experiments as xfwa
from satcp.reproduce.xfwa import results

ROOT = Path(__file__).resolve().parents[2]


def test_catalogue_covers_the_papers_experiments():
    full = catalogue.plan(xfwa.catalogue(quick=False), ROOT, quick=False, validate=True)
    quick = catalogue.plan(xfwa.catalogue(quick=True), ROOT, quick=True, validate=False)
    assert not full.unavailable
    by = pd.Series([r.experiment for r in full.runs]).value_counts().to_dict()
    # 4 link types x 4 scenarios x 2 arms; alpha and sigma sweeps with TCP; ON-OFF counts
    assert by["equal"] == 4 * 4 * 2 * xfwa.REPLICATIONS
    assert by["alpha"] == (1 + len(xfwa.ALPHAS)) * xfwa.REPLICATIONS
    assert by["rtt_error"] == (1 + len(xfwa.SIGMAS)) * xfwa.REPLICATIONS
    assert by["onoff"] == 2 * len(xfwa.ONOFF_COUNTS) * xfwa.REPLICATIONS
    q = pd.Series([r.experiment for r in quick.runs]).value_counts().to_dict()
    assert q["equal"] == 2 * 4 * 2 * xfwa.QUICK_REPLICATIONS


def test_fairness_owes_a_flow_the_share_of_its_lifetime():
    # two flows all along at 1 Mb/s each on a 2 Mb/s link: fair
    assert results.fairness(np.array([1e6, 1e6]), np.zeros(2), np.full(2, 20.0)) == pytest.approx(1.0)
    # flow 2 joins at 10 s; over its life (10-20 s) its fair share is half
    # the link, flow 1's is the link for 10 s and half for 10 s (mean 3/4):
    # goodputs over each one's life of 1.5 and 1 Mb/s are exactly fair
    f = results.fairness(np.array([1.5e6, 1e6]), np.array([0.0, 10.0]), np.array([20.0, 20.0]))
    assert f == pytest.approx(1.0)
    # the naive index over the same goodputs is not
    g = np.array([1.5e6, 1e6])
    assert g.sum() ** 2 / (2 * (g ** 2).sum()) < 0.97
    # one flow starved: 1/N + ...
    assert results.fairness(np.array([2e6, 0.0]), np.zeros(2), np.full(2, 20.0)) == pytest.approx(0.5)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce-xfwa")
    buf = io.StringIO()
    status = reproduce("xfwa", quick=True, out=out, workers=2, stdout=buf)
    return status, buf.getvalue(), out


def test_quick_reproduction_redraws_the_figures_and_judges_the_claims(quick_run):
    status, text, out = quick_run
    print(text)
    assert status == 0, text
    md = (out / "report.md").read_text()
    for n in ("5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17"):
        assert (out / "figures" / f"fig{n}.png").is_file(), n
    runs = pd.read_csv(out / "runs.csv")
    assert (runs["status"] == "ok").all()
    # the paper's claim at T1 and T2, and the ns-2 comparison, on our runs
    for cid in ("fig5_fairer_and_fewer_losses", "fig13_rtt_fair", "fig15_onoff"):
        assert f"claim {cid}: holds" in text, cid
    if shutil.which("ns"):
        assert "claim ns2_scenario_a: holds" in text
        assert "Plain NewReno on scenario A beside ns-2 2.35" in md
    # every number the paper prints is in the report beside ours
    assert "| 160 | 160 to 160" in md
    assert "Appendix II" in md
    # the agent's round trip by Eq. 1 is what it measured from the TTLs
    x = runs[(runs["scheme"] == "xfwa") & (runs["experiment"] == "equal")]
    assert (x["agent_rtt_avg_ms"] == 160).all()
