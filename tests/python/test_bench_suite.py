"""The benchmark suite's script runs (its numbers are benchmarks, not tests:
only that it measures and compares what it says it does)."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys

import pytest

from conftest import REPO


@pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 is not installed (make test-sysdeps)")
def test_suite_quick_measures_satcp_and_compares_with_ns2(tmp_path):
    r = subprocess.run([sys.executable, str(REPO / "bench" / "suite.py"), "--quick", "--rounds", "1", "--no-ns3",
                        "--only", "geo-10-flows-per1e-3,geo-1-flow-50mb", "--out", str(tmp_path)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    alone = list(csv.DictReader(open(tmp_path / "satcp.csv")))
    assert [a["scenario"] for a in alone] == ["geo-1-flow-50mb", "geo-10-flows-per1e-3"]
    for a in alone:
        assert int(a["events"]) > 1000 and float(a["wall_s"]) > 0 and float(a["delivered_pkts"]) > 100
        assert 0 < float(a["peak_rss_mib"]) < 500
    peers = list(csv.DictReader(open(tmp_path / "peers.csv")))
    assert {(p["scenario"], p["peer"]) for p in peers} == {("geo-1-flow-50mb", "ns-2"), ("geo-10-flows-per1e-3", "ns-2")}
    ten = next(p for p in peers if p["scenario"] == "geo-10-flows-per1e-3")
    # both simulators carried the same network's traffic: goodput within a
    # third after 30 simulated seconds (the full suite compares 300 s)
    assert ten["metric"] == "goodput Mb/s" and abs(float(ten["rel_diff"])) < 0.33
    assert float(ten["peer_wall_s"]) > 0 and float(ten["ratio"]) > 0
    assert "peer / satcp" in r.stdout


def test_against_ns3_satcp_runs_the_cross_checks_mapping():
    # ns-3's loss response (its pipe halved, NewReno leaving recovery at
    # ssthresh) and its PPP framing, as python/satcp/crosscheck.py sets them
    sys.path.insert(0, str(REPO / "bench"))
    import suite

    import satcp

    for r in suite.REFS:
        if r.bench:
            continue
        tree = suite.satcp_ns3_tree(r.at(1))
        satcp.validate(tree)
        assert all(f["tcp"]["ssthresh_basis"] == "pipe" for f in tree["flows"])
        assert all(("full_ack_cwnd" in f["tcp"]) == (r.variant == "newreno") for f in tree["flows"])
        assert [link["overhead"] for link in tree["links"]] == [2, 2]
        # the rest is the scenario as a user writes it
        plain = suite.satcp_tree(r.at(1))
        for f in tree["flows"]:
            f["tcp"].pop("ssthresh_basis")
            f["tcp"].pop("full_ack_cwnd", None)
        for link in tree["links"]:
            link.pop("overhead")
        assert tree == plain


def test_the_reference_networks_are_cut_through_and_compute_the_same(tmp_path):
    # the cut-through of relay nodes (world/cut_through.rs) on the suite's
    # own networks, as a user writes them and under the ns-2 and ns-3
    # mappings: the same summary but for fewer events
    import json
    sys.path.insert(0, str(REPO / "bench"))
    import suite
    from satcp import crosscheck_ns2 as ns2x
    run = REPO / "target" / "release" / "satcp-run"
    if not run.exists():
        pytest.skip("needs make build (target/release/satcp-run)")
    r = next(x for x in suite.REFS if x.name == "geo-10-flows-per1e-3").at(20)
    for i, tree in enumerate([suite.satcp_tree(r), suite.satcp_ns3_tree(r), ns2x.satcp_scenario(suite.ns2_cell(r), 1)]):
        f = tmp_path / f"s{i}.toml"
        f.write_text(suite.to_toml(tree))
        on, off = ({k: v for k, v in json.loads(subprocess.run([str(run), str(f), *flag], capture_output=True,
                                                                   text=True, check=True).stdout).items()
                    if k != "wall_s"} for flag in ([], ["--no-cut-through"]))
        assert on.pop("events") < 0.8 * off.pop("events"), i
        assert on == off, i
