"""Reduced cross-check against ns-3 3.44 (the full one is `make crosscheck`).

NewReno (SACK off) and SACK, delayed ACK on, on the GEO transfer of
`satcp.crosscheck` (10 MB, 10/2 Mb/s, 250 ms, 250-packet gateway queue):
loss-free once, and at PER 1e-2 over 8 seeds in each simulator. The first
run installs the `ns3==3.44.post0` wheel into `.venv-ns3` and compiles
`bench/ns3/tcp_peer.cc` (about a minute); the runs themselves take seconds.
The test is skipped, with the installer's message, only if the wheel cannot
be installed.

Tolerances (docs/validation.md, "Cross-check against ns-3", has the
measurements):

* Loss-free, both variants: completion time within 3%. The runs are
  deterministic; measured differences are +0.2% (NewReno) and +1.1% (SACK),
  the remaining gap being the two stacks' different slow-start overshoot and
  recovery timing after 338 drops at the 250-packet queue.
* PER 1e-2, NewReno: mean completion time within 20%. Measured with 10
  seeds: -11.1% (satcp faster). ns-3 halves its pipe estimate instead of
  FlightSize when it enters recovery (9.9 instead of 10.9 segments on
  average in a seed-1 trace) and times out more (12.7 vs 9.6 RTOs per run).
  The standard error of each mean over 8 seeds is 2-4%, that of the
  difference about 4.5%: 20% is the measured bias plus two standard errors.
* PER 1e-2, SACK: satcp faster by 10% to 40%. Measured with 10 seeds:
  -26.0%. ns-3's ssthresh from its pipe is, with real SACK information,
  32% below FlightSize / 2 at the entry of recovery (8.6 vs 12.6 segments,
  mean of 57 recoveries of a seed-1 trace), so ns-3's SACK flow runs with a
  smaller window after every loss, and ns-3 times out three times as often
  (20.9 vs 6.2 RTOs per run). satcp follows RFC 6675 / RFC 5681
  (FlightSize / 2). The band is -26% +- about 3 standard errors of the
  difference; it fails if satcp adopted ns-3's rule or if either side's
  SACK recovery broke (an RTO per loss roughly doubles the time).
"""

from __future__ import annotations

import statistics

import pytest

from satcp import crosscheck as cc

SEEDS = 8


@pytest.fixture(scope="module")
def peer():
    try:
        return cc.build_peer()
    except cc.Ns3Unavailable as e:
        pytest.skip(f"ns3 wheel could not be installed from PyPI: {e}")


@pytest.fixture(scope="module")
def rows(peer):
    rows = cc.crosscheck(["newreno", "sack"], [0.0, 1e-2], [True], SEEDS, jobs=2, peer=peer)
    return {(r.variant, r.per): r for r in rows}


def completion_diff(row: cc.CaseRow) -> float:
    s, n = cc.mean_completion(row.satcp), cc.mean_completion(row.ns3)
    assert s is not None and n is not None, "a transfer did not complete"
    return s / n - 1


@pytest.mark.parametrize("variant", ["newreno", "sack"])
def test_loss_free_completion_within_3_percent(rows, variant):
    row = rows[(variant, 0.0)]
    assert len(row.satcp) == len(row.ns3) == 1
    assert abs(completion_diff(row)) <= 0.03, cc.format_table([row])


def test_lossy_newreno_within_20_percent(rows):
    row = rows[("newreno", 1e-2)]
    assert len(row.satcp) == len(row.ns3) == SEEDS
    assert abs(completion_diff(row)) <= 0.20, cc.format_table([row])


def test_lossy_sack_faster_than_ns3_by_its_pipe_ssthresh(rows):
    row = rows[("sack", 1e-2)]
    assert -0.40 <= completion_diff(row) <= -0.10, cc.format_table([row])


def test_lossy_runs_see_the_error_rate(rows):
    """Each simulator loses about 1% of the ~6,850 data packets: the mean
    retransmission count is within [50, 200] (at least the losses, at most a
    few go-back-N rounds)."""
    for variant in ("newreno", "sack"):
        row = rows[(variant, 1e-2)]
        for side in (row.satcp, row.ns3):
            m = statistics.fmean(r.retransmissions for r in side)
            assert 50 <= m <= 200, (variant, m)


def test_rejected_variant_is_marked_not_crashed(peer, monkeypatch):
    """A preset this satcp build refuses gives a row marked "not in satcp"
    with the ns-3 numbers; the table says so."""
    monkeypatch.setitem(cc.VARIANTS, "bogus", ({"variant": "bogus"}, "NewReno", "1"))
    assert cc.satcp_rejects("sack") is None
    assert "flows.f0.tcp.variant" in cc.satcp_rejects("bogus")
    rows = cc.crosscheck(["bogus"], [0.0], [True], 1, peer=peer)
    assert rows[0].satcp_error and not rows[0].satcp and len(rows[0].ns3) == 1
    assert "not in satcp" in cc.format_table(rows)
