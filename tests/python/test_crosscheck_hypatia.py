"""Reduced cross-check against Hypatia's own path computation (the full one
is `make crosscheck-hypatia`, 100 s of steps): the first 2 s after the TLE
epoch, 20 steps of Kuiper-630 with five cities, about 35 s of Hypatia's
time. `make test` installs satgenpy into .venv-hypatia first
(crosscheck/hypatia/venv.sh); the cross-check installs it itself when the
environment is missing."""

from __future__ import annotations

from satcp import crosscheck_hypatia as ch


def test_paths_and_rtts_match_hypatia_s():
    results = ch.crosscheck(0.0, 2.0)
    assert len(results) == 10 and all(r.steps == 20 for r in results)
    # Paris-London's path changes at 0.7 s in both
    changed = [r for r in results if r.hypatia_changes]
    assert [(r.hypatia_changes, r.satcp_changes) for r in changed] == [([0.7], [0.7])]
    assert ch.holds(results), ch.report(results)
    # tighter than what must hold: the same path at every step, the RTT
    # within a microsecond (positions from two SGP4s agree to tens of metres)
    assert all(r.same_path == r.steps for r in results)
    assert max(r.max_rtt_diff_same_path_s for r in results) < 1e-6
