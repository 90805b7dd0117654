"""Reduced cross-check against ns-3 3.44 (the full one is `make crosscheck`).

NewReno (SACK off) and SACK, delayed ACK on, on the GEO transfer of
`satcp.crosscheck` (10 MB, 10/2 Mb/s, 250 ms, 250-packet gateway queue):
loss-free once, and at PER 1e-2 over 8 seeds in each simulator. The first
run installs the `ns3==3.44.post0` wheel into `.venv-ns3` and compiles
`bench/ns3/tcp_peer.cc` (about a minute); the runs themselves take seconds.
The test is skipped, with the installer's message, only if the wheel cannot
be installed. Then one loss-free run per window controller (CUBIC, BBR,
Vegas, Westwood+, Hybla; delayed ACK on), with the tolerances and bands
explained above those tests.

Tolerances (docs/validation.md, "Cross-check against ns-3", has the
measurements). satcp runs with `ssthresh_basis = "pipe"`, ns-3's loss
response (it halves its BytesInFlight, not RFC 5681's FlightSize):

* Loss-free, both variants: completion time within 5%. The runs are
  deterministic; measured differences are +3.1% (NewReno) and +1.1%
  (SACK), after 338 drops at the 250-packet queue. NewReno's gap is ns-3's
  cascade of spurious fast recoveries after its timeout (20 recoveries and
  4193 retransmissions against satcp's 2 and 1385: ns-3 enters recovery on
  a single duplicate ACK without the `recover` check). It was +0.2% while
  satcp timed the segments above a hole on a partial ACK (an SRTT of
  1.5 s and an 11 s RTO, which happened to delay the second timeout).
* PER 1e-2, NewReno: mean completion time within 20%. Measured with 10
  seeds: +2.8%. The standard error of each mean over 8 seeds is 2-4%,
  that of the difference about 4.5%.
* PER 1e-2, SACK: within 15%. Measured with 10 seeds: -5.2% (ns-3 times
  out more, 20.9 vs 13.5 RTOs per run).
* The same SACK cell with satcp's RFC rule (`ssthresh_basis = "flight"`):
  satcp faster by 10% to 40% (measured -26.0%): with real SACK information
  ns-3's pipe at the entry of recovery is 32% below FlightSize (8.6 vs
  12.6 segments, mean of 57 recoveries of a seed-1 trace), so ns-3 runs
  with a smaller window after every loss. It fails if the two rules
  stopped differing or either side's SACK recovery broke.
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
    cc.VARIANTS["sack-flight"] = ({"variant": "sack", "ssthresh_basis": "flight"}, "NewReno", "1")
    try:
        rows = cc.crosscheck(["newreno", "sack"], [0.0, 1e-2], [True], SEEDS, jobs=2, peer=peer)
        rows += cc.crosscheck(["sack-flight"], [1e-2], [True], SEEDS, jobs=2, peer=peer)
    finally:
        del cc.VARIANTS["sack-flight"]
    return {(r.variant, r.per): r for r in rows}


def completion_diff(row: cc.CaseRow) -> float:
    s, n = cc.mean_completion(row.satcp), cc.mean_completion(row.ns3)
    assert s is not None and n is not None, "a transfer did not complete"
    return s / n - 1


@pytest.mark.parametrize("variant", ["newreno", "sack"])
def test_loss_free_completion_within_5_percent(rows, variant):
    row = rows[(variant, 0.0)]
    assert len(row.satcp) == len(row.ns3) == 1
    assert abs(completion_diff(row)) <= 0.05, cc.format_table([row])


def test_lossy_newreno_within_20_percent(rows):
    row = rows[("newreno", 1e-2)]
    assert len(row.satcp) == len(row.ns3) == SEEDS
    assert abs(completion_diff(row)) <= 0.20, cc.format_table([row])


def test_lossy_sack_within_15_percent(rows):
    row = rows[("sack", 1e-2)]
    assert abs(completion_diff(row)) <= 0.15, cc.format_table([row])


def test_lossy_sack_with_the_rfc_rule_is_faster_than_ns3_s_pipe_rule(rows):
    row = rows[("sack-flight", 1e-2)]
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


# Window controllers, loss-free, delayed ACK on: one deterministic run per
# side (about 30 s in all, most of it ns-3's paced BBR). Measured
# differences (docs/validation.md, section 4) and the bands asserted:
#
# * CUBIC (HyStart off, byte counting up to 2 segments per ACK in slow
#   start on both sides): +2.1% (16.51 s vs 16.17 s). The slow starts are
#   identical (1266 segments at the first loss); the recovery window then
#   overflows the 250-packet queue again and satcp times out twice where
#   ns-3 times out once. Tolerance 15%: the measured gap plus about the
#   spread such a repair gives (it was +9.6% and +11.7% with FlightSize as
#   the loss response's basis). It can fail: satcp's AIMD (the SACK row,
#   14.32 s) against ns-3's CUBIC is -11.4%, so a CUBIC that fell back to
#   Reno growth would show.
# * BBR: +10.1% (15.99 s vs 14.52 s), both paced, the same v1 state
#   machine. Both lose the fast retransmission of the slow-start overshoot's
#   first hole and wait for the RTO, while BBR keeps sending new data at its
#   pacing rate (RFC 6675 cannot see a retransmission lost again). satcp's
#   RTO fires at 8.2 s with the bottleneck queue still full of that data:
#   the go-back-N's second segment is dropped and a second, backed-off RTO
#   follows (ns-3: one). It was +1.0% while the ACK that ends a recovery
#   gave an RTT sample from long-SACKed segments: the inflated SRTT put the
#   RTO at 8.95 s, after the queue had drained. Now +12.9% (16.40 s):
#   satcp's BBR clears Startup's full-bandwidth reference at a timeout, as
#   tcp_bbr.c's bbr_set_state(TCP_CA_Loss) does and ns-3's TcpBbr does not,
#   so it stays in Startup three rounds longer after the RTO (15.99 s
#   without that). Tolerance 15%.
# * Vegas: satcp -36.7% (37.73 s vs 59.64 s). ns-3's Vegas decides from
#   SRTT values and truncates its target window to whole segments, so with
#   alpha = 1 any SRTT above the base one gives diff >= 1 and the window
#   stops growing at the 63 segments where slow start ended; satcp's (ns-2's)
#   keeps adding a segment every few rounds. Band: -45% to -25%.
# * Westwood+: satcp +23.6% (27.13 s vs 21.95 s): ns-3's Tustin filter and
#   its RTO give it a larger ssthresh after the slow-start loss (131 vs 115
#   segments, then 174 after its RTO). Band: +10% to +40%.
# * Hybla: ns-3's never recomputes rho (it gets SRTT and waits for it to
#   equal the minimum RTT), so it runs NewReno: the same completion time as
#   ns-3's SACK within 1%, and satcp's Hybla with rho = 1 (RTT0 1 s > RTT)
#   matches it within 3%, as satcp's SACK does.
CONTROLLER_TOL = {"cubic": 0.15, "bbr": 0.15}
BANDS = {"vegas": (-0.45, -0.25), "westwood": (0.10, 0.40)}


def loss_free(peer, variant):
    case = cc.Case(variant, True, 0.0, 1)
    return cc.run_satcp(cc.Network(), case), cc.run_ns3(peer, cc.Network(), case)


@pytest.mark.parametrize("variant", ["cubic", "bbr"])
def test_loss_free_controller_agrees(peer, variant):
    s, n = loss_free(peer, variant)
    assert abs(s.completion_s / n.completion_s - 1) <= CONTROLLER_TOL[variant], (s, n)


@pytest.mark.parametrize("variant", sorted(BANDS))
def test_loss_free_controller_difference_as_explained(peer, variant):
    s, n = loss_free(peer, variant)
    lo, hi = BANDS[variant]
    assert lo <= s.completion_s / n.completion_s - 1 <= hi, (s, n)


def test_ns3_hybla_is_newreno_and_satcp_hybla_with_rho_1_matches(peer, monkeypatch):
    _, ns3_sack = loss_free(peer, "sack")
    _, ns3_hybla = loss_free(peer, "hybla")
    assert abs(ns3_hybla.completion_s / ns3_sack.completion_s - 1) <= 0.01
    tcp, ns3_variant, sack = cc.VARIANTS["hybla"]
    # rho = 1 and the bare rules (no Hoe estimate, no spacing: ns-3 has
    # neither) make satcp's Hybla Reno with SACK
    bare = {**tcp, "hybla_rtt0": 1.0, "hybla_ssthresh_estimate": False, "pacing": False}
    monkeypatch.setitem(cc.VARIANTS, "hybla", (bare, ns3_variant, sack))
    s, n = loss_free(peer, "hybla")
    assert abs(s.completion_s / n.completion_s - 1) <= 0.03, (s, n)
    # satcp's own Hybla (RTT0 25 ms, rho ~ 20, Hoe's ssthresh, spacing) is
    # a different transfer: measured +6.8% with 434 retransmissions against
    # 338 (rho^2 growth overflows the 250-packet queue in congestion
    # avoidance; the preset's RACK, PRR and RTO restart off, as ns-3's
    # classic recovery has none of them)
    monkeypatch.undo()
    s, _ = loss_free(peer, "hybla")
    assert s.retransmissions > 1.2 * n.retransmissions, (s, n)
