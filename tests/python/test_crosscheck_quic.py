"""satcp's QUIC flows against QUIC on a real path (the full check is
`make crosscheck-quic`, docs/validation-quic.md).

The real side, quinn 0.11 on real sockets (the same quinn-proto 0.11.19,
`crates/satcp-quicpeer`) and aioquic through `satcp-linkemu` between two
network namespaces, is recorded in data/measured/quic_crosscheck.csv;
satcp is held to it without root:

* on the loss-free cells (1 and 10 MB over 10 Mb/s, 250 ms one way): the
  completion within 5% of real quinn and 20% of aioquic (the issue's
  bounds), the handshake within 5 ms of real quinn's (one round trip);
* on the cells at PER 1e-2, where a transfer's time depends on where the
  first losses fall (1 MB: 4.6 to 14.7 s over three real runs): satcp's
  median over 15 seeds within 25% of real quinn's median of three.

With root, the emulator and the peer built, one live 1 MB run of real
quinn against satcp (within 5%); skipped, with the reason, otherwise.
"""

from __future__ import annotations

import pytest

from satcp import crosscheck_quic as q

RECORD = q.REPO / "data" / "measured" / "quic_crosscheck.csv"


def _satcp(cell: q.Cell) -> q.Transfer:
    return q._median([q.run_satcp(cell.path, seed=i + 1) for i in range(q.SATCP_SEEDS)])


def test_satcp_holds_to_real_quinn_and_aioquic_on_the_loss_free_cells():
    rec = q.recorded(RECORD)
    assert set(rec) == set(q.CELL_NAMES), "every cell is recorded"
    rows = []
    for cell in (c for c in q.CELLS if c.path.per == 0):
        r = rec[cell.name]
        s = _satcp(cell)
        quinn, aio = float(r["quinn_s"]), float(r["aioquic_s"])
        rows.append(f"{cell.name}: quinn {quinn:.3f} s, aioquic {aio:.3f} s, satcp {s.completion_s:.3f} s")
        assert s.integrity_errors == 0
        assert abs(s.completion_s / quinn - 1) <= q.QUINN_TOLERANCE, rows[-1]
        assert abs(s.completion_s / aio - 1) <= q.INDEPENDENT_TOLERANCE, rows[-1]
        assert abs(s.handshake_s - float(r["quinn_handshake_s"])) < 0.005, (s.handshake_s, r["quinn_handshake_s"])
    print("\n".join(rows))


def test_satcp_is_within_the_real_runs_spread_on_the_lossy_cells():
    rec = q.recorded(RECORD)
    for cell in (c for c in q.CELLS if c.path.per > 0):
        r = rec[cell.name]
        s = _satcp(cell)
        diff = s.completion_s / float(r["quinn_s"]) - 1
        print(f"{cell.name}: quinn {float(r['quinn_s']):.2f} s ({r['quinn_s_min']}-{r['quinn_s_max']}), "
              f"satcp {s.completion_s:.2f} s ({diff:+.1%})")
        assert s.integrity_errors == 0
        assert abs(diff) <= q.LOSSY_TOLERANCE, (cell.name, diff)


def test_the_scenario_is_the_emulated_path():
    cell = q.CELL_NAMES["geo-10MB-per1e-2"]
    s = q.satcp_scenario(cell.path)
    link, flow = s["links"][0], s["flows"][0]
    assert (link["rate_ab"], link["rate_ba"], link["delay"]) == (10_000_000, 10_000_000, 0.25)
    assert link["queue_ab"] == {"kind": "droptail", "packets": 400} and link["errors_ab"] == {"per": 0.01}
    assert flow["transport"] == "quic" and flow["quic"] == {"cc": "quinn-cubic"}
    assert flow["app"] == {"kind": "ftp", "size": 10_000_000}
    assert "errors_ab" not in q.satcp_scenario(q.CELL_NAMES["geo-1MB"].path)["links"][0]


def test_bad_cells_are_refused(capsys):
    assert q.main(["--cells", "geo-1MB,nope"]) == 2
    assert "--cells nope" in capsys.readouterr().err
    assert q.main(["--repeat", "0"]) == 2


try:
    q.quinn_available()
    REASON = None
except q.LinuxUnavailable as e:
    REASON = str(e)


@pytest.mark.skipif(REASON is not None, reason=f"QUIC cross-check unavailable: {REASON}")
def test_real_quinn_and_satcp_agree_on_one_megabyte():
    """Real programs on a busy machine run late (a CI run's compiler
    beside them took a real transfer from 4.16 to 4.86 s), never early: up
    to three tries, and one must agree."""
    cell = q.CELL_NAMES["geo-1MB"]
    sim = q.run_satcp(cell.path)
    tries = []
    for _ in range(3):
        real = q.run_quinn(cell.path)
        assert real.integrity_errors == 0
        tries.append(real.completion_s)
        if abs(sim.completion_s / real.completion_s - 1) <= q.QUINN_TOLERANCE:
            break
    print(f"real quinn {tries} s, satcp {sim.completion_s:.3f} s")
    assert abs(sim.completion_s / tries[-1] - 1) <= q.QUINN_TOLERANCE, tries
