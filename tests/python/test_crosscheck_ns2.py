"""Reduced cross-check against ns-2 2.35 (the full one is `make crosscheck-ns2`).

ns-2 comes from Debian's `ns2` package (`make test-sysdeps` installs it);
without it the tests are skipped with that reason. What is asserted:

* The Tcl peer runs every agent the harness maps (Agent/TCP, Reno, Newreno,
  Sack1, Fack, Vegas) on the GEO cell, delivers every byte and is
  deterministic (loss-free cells give the same numbers twice).
* ns-2 itself reproduces TRANSAT's Table 1 row 1 (10.69 s, the paper's own
  number in data/published/transat_table1.csv) within 2% with the reading of
  the paper satcp's scenario uses (1000-byte packets, 20 ms access links,
  DelAck sink at 200 ms, windowInit_ 1): the reading is ns-2's, not only
  satcp's fit.
* satcp with profile `ns2` is within 2% of ns-2 on that deterministic cell,
  the issue's bound (measured: 10.79 s on both sides, once the profile
  modelled ns-2.35's `syn_ true`).
* On the loss-free GEO cell (a slow-start overshoot into a 250-packet
  buffer and its repair; Vegas leaves slow start before it) every agent
  finishes within 2% of ns-2 (median over three clock phases; measured
  -0.1% to +1.1%), FACK within 2.5% (+2.0%: both time out at 8.88 s and
  are identical packet by packet until the first ACK after it, whose SACK
  blocks differ: ns-2's Sack1 sink reports from its stack of recently
  reported blocks, and tells its sender one more segment is held, so
  satcp resends it; docs/validation-ns2.md), with the same
  retransmissions within 3%; the DelAck variant of the cell for FACK, whose repair is most
  sensitive to which packet of a pair a full queue drops, within 1%
  (measured 15.58 s on both sides); on the Modified Peach cell (ten flows, PER
  1e-2) Newreno's and Sack1's goodput is within 10% over three seeds and
  their timeouts are within a factor of two of ns-2's. docs/validation-ns2.md
  has every cell.
"""

from __future__ import annotations

import shutil

import pytest

from satcp import crosscheck_ns2 as x

pytestmark = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 (`ns`) is not installed")

PAPER_ROW1_S = 10.69


def test_every_agent_runs_delivers_everything_and_is_deterministic():
    for c in x.cells(["geo"], list(x.AGENTS), 1):
        small = x.Cell(c.name, c.agent, packets=2000)
        a, b = x.run_ns2(small, 1), x.run_ns2(small, 1)
        assert a == b, c.agent
        assert a.delivered_bytes == [2000 * small.packet_size] and a.completion_s[0] > 1.0, (c.agent, a)
        s = x.run_satcp(small, 1)
        assert s.delivered_bytes == [2000 * (small.packet_size + small.header - 40)], (c.agent, s)


def test_transat_row_1_in_ns2_and_satcp():
    (cell,) = x.cells(["transat"], ["Newreno"], 1)
    rows = x.crosscheck([cell], jobs=1)
    (s,) = x.summary(rows)
    print(f"TRANSAT row 1: ns-2 {s['ns2']:.2f} s, satcp {s['satcp']:.2f} s, paper {PAPER_ROW1_S} s")
    assert abs(s["ns2"] / PAPER_ROW1_S - 1) < 0.02
    assert abs(s["diff"]) < 0.02
    assert s["ns2_rtx"] == s["satcp_rtx"] == 0


def test_bad_agent_is_refused(capsys):
    assert x.main(["--agents", "Cubic"]) == 2
    assert "--agents Cubic" in capsys.readouterr().err


def test_geo_overshoot_repair_matches_ns2():
    rows = x.crosscheck(x.cells(["geo"], ["Tahoe", "Reno", "Newreno", "Sack1", "Fack", "Vegas"], 3), jobs=2)
    for s in x.summary(rows):
        print(f"geo {s['agent']}: satcp {s['satcp']:.2f} s, ns-2 {s['ns2']:.2f} s, rtx {s['satcp_rtx']} vs {s['ns2_rtx']}")
        # FACK: 2.5%, see the module doc
        assert abs(s["diff"]) <= (0.025 if s["agent"] == "Fack" else 0.02), s
        assert abs(s["satcp_rtx"] - s["ns2_rtx"]) <= 0.03 * s["ns2_rtx"], s


def test_fack_delack_repair_matches_ns2():
    rows = x.crosscheck(x.cells(["geo-delack"], ["Fack"], 1), jobs=2)
    (s,) = x.summary(rows)
    assert abs(s["diff"]) <= 0.01, s


def test_peach_cell_goodput_and_timeouts_match_ns2():
    rows = x.crosscheck(x.cells(["peach"], ["Newreno", "Sack1"], 3), jobs=2)
    for s in x.summary(rows):
        print(f"peach {s['agent']}: satcp {s['satcp'] / 1e3:.0f} kb/s, ns-2 {s['ns2'] / 1e3:.0f} kb/s, "
              f"timeouts {s['satcp_rto']} vs {s['ns2_rto']}")
        assert abs(s["diff"]) < 0.10, s
        assert 0.5 < s["satcp_rto"] / s["ns2_rto"] < 2, s


def test_transat_rows_1_and_3_as_the_paper_ran_them_match_ns2_and_the_paper():
    """TRANSAT Table 1 rows 1 and 3 as the paper ran them (the agent
    defaults of the ns-2 of 2003: no SYN, the first packet's ACK delayed,
    every partial ACK restarting the timer and dropping the window's
    inflation whole; Limited Transmit off; elapsed time to the sender's
    last ACK): satcp's `ns2-2003` profile and ns-2 itself agree to the
    millisecond, and both give the paper's own numbers to the hundredth
    (10.69, 60.81, 55.89 s) except row 3's SACK, where both take 11.75 s
    against the paper's 15.52 (no timeout in either; the paper's needs
    one)."""
    cs = [c for c in x.cells(["transat-rows"], ["Newreno", "Sack1"], 1) if c.name in ("transat-1", "transat-3")]
    rows = x.crosscheck(cs, jobs=2)
    paper = {("transat-1", "ref_tcp"): 10.69, ("transat-1", "sack"): 10.69, ("transat-3", "ref_tcp"): 60.81,
             ("transat-3", "ref_iw4"): 55.89}
    for r, s in zip(rows, x.summary(rows)):
        assert abs(s["diff"]) <= 0.001, s
        want = paper.get((r.cell.name, r.cell.column))
        if want is not None:
            assert abs(s["ns2"] / want - 1) <= 0.001, s
        if (r.cell.name, r.cell.column) == ("transat-3", "sack"):
            assert abs(s["ns2"] - 11.75) < 0.01 and s["ns2_rto"] == 0, s


def test_a_replayed_burst_gives_ns2_and_satcp_the_same_repair():
    """One burst at [2.0, 2.3) s (PER 1) on TRANSAT's row 3 path, replayed
    by ns-2 (its error model's rate switched by `$ns at`) and by satcp's
    trace model: the same five retransmissions and one timeout, and the
    same elapsed time to the millisecond (measured 43.18 and 43.19 s)."""
    cell = next(c for c in x.cells(["transat-bursts"], ["Newreno"], 1) if c.name == "transat-burst100")
    path = x.burst_timeline(999, cell.burst_per, cell.stop_s)
    path.write_text("start,end,per\n2.0,2.3,1\n")
    n, s = x.run_ns2(cell, 999), x.run_satcp(cell, 999)
    assert (n.retransmissions, n.timeouts) == (s.retransmissions, s.timeouts) == (5, 1), (n, s)
    assert abs(s.completion_s[0] - n.completion_s[0]) < 0.02, (n, s)


def test_whole_burst_timelines_give_ns2_and_satcp_the_same_run():
    """Whole burst timelines (PER 1 in a burst, no randomness left) on
    TRANSAT's Table 3 path: for these seeds satcp and ns-2 finish within
    10 ms of each other with the same retransmissions and timeouts. Each
    needed one of the rules the ns-2 trace showed (docs/validation-ns2.md,
    "TRANSAT's bursts"): the error model at the link's head, a timer's place
    among simultaneous events, the ACK that ends NewReno recovery opening
    cwnd, the DelAck sink delaying a copy of its last in-order segment."""
    cells = {c.agent: c for c in x.cells(["transat-bursts"], ["Newreno", "Sack1"], 1) if c.name == "transat-burst100"}
    for agent, seeds in (("Newreno", (4, 6, 10)), ("Sack1", (5, 6))):
        for seed in seeds:
            n, s = x.run_ns2(cells[agent], seed), x.run_satcp(cells[agent], seed)
            assert abs(s.completion_s[0] - n.completion_s[0]) < 0.01, (agent, seed, n, s)
            assert (s.retransmissions, s.timeouts) == (n.retransmissions, n.timeouts), (agent, seed, n, s)


def test_burst_timelines_are_seeded_and_well_formed():
    a = x.burst_timeline(1, 0.25, 600.0).read_text().splitlines()
    assert a[0] == "start,end,per" and len(a) > 50
    spans = [tuple(map(float, line.split(","))) for line in a[1:]]
    assert all(0.1 <= e - s <= 0.5 + 1e-6 and p == 0.25 for s, e, p in spans)
    gaps = [b[0] - a_[0] for a_, b in zip(spans, spans[1:])]
    assert all(1.0 - 1e-6 <= g <= 10.0 + 1e-6 for g in gaps)
    # uniform on [1, 10]: mean 5.5, a quarter of them below 3.25
    assert abs(sum(gaps) / len(gaps) - 5.5) < 0.8 and 0.1 < sum(g < 3.25 for g in gaps) / len(gaps) < 0.4
