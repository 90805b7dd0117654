"""satcp's PEP against a real split proxy (the full check is `make
crosscheck-pep`, part of `make crosscheck-linux`; docs/validation-linux.md).

socat splitting TCP in a middle network namespace between two
`satcp-linkemu` hops (100 Mb/s 5 ms, then GEO: 10 Mb/s 250 ms), Linux CUBIC
on both legs; its side is recorded in data/measured/pep_crosscheck.csv and
satcp's PEP (profile linux) is held to it without root: first byte and
completion within 15% on every cell (1 and 10 MB, PER 0 and 1e-3), the
issue's bound.
"""

from __future__ import annotations

from satcp import crosscheck_pep as p

RECORD = p.REPO / "data" / "measured" / "pep_crosscheck.csv"


def test_satcp_s_pep_holds_to_the_real_split_proxy_on_every_recorded_cell():
    rec = p.recorded(RECORD)
    assert set(rec) == set(p.CELL_NAMES), "every cell is recorded"
    rows, bad = [], []
    for cell in p.CELLS:
        r = rec[cell.name]
        s = p.satcp_median(cell, int(r["runs"]))
        d_first, d_done = p.diff(float(r["proxy_first_byte_s"]), s.first_byte_s), p.diff(float(r["proxy_s"]), s.completion_s)
        rows.append(f"{cell.name}: first byte {float(r['proxy_first_byte_s']):.3f} vs {s.first_byte_s:.3f} s "
                    f"({d_first:+.1%}), completion {float(r['proxy_s']):.2f} vs {s.completion_s:.2f} s ({d_done:+.1%})")
        if not (abs(d_first) <= p.TOLERANCE and abs(d_done) <= p.TOLERANCE):
            bad.append(rows[-1])
    print("\n".join(rows))
    assert not bad, bad


def test_the_pep_splits_and_the_first_byte_waits_for_the_satellite_leg_s_handshake():
    """One PEP on the opener's side: the split connection's satellite leg
    opens when the sender's SYN reaches the gateway, so the first byte
    reaches the receiver after that leg's handshake (one GEO round trip
    plus the access hop) and one more one-way trip."""
    import satcp
    out = satcp.run(p.satcp_scenario(p.CELL_NAMES["1MB"])).summary
    assert out["peps"][0]["counters"]["split"] == 1
    first = out["flows"][0]["first_byte_s"]
    rtt_geo, one_way_geo = 2 * p.GEO.delay_ms / 1000, p.GEO.delay_ms / 1000
    assert rtt_geo + one_way_geo < first < rtt_geo + one_way_geo + 0.03, first


def test_bad_cells_are_refused(capsys):
    assert p.main(["--cells", "1MB,nope"]) == 2
    assert "--cells nope" in capsys.readouterr().err
    assert p.main(["--repeat", "0"]) == 2
