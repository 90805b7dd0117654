"""`satcp demo --quick` runs end to end and writes its figures."""

from __future__ import annotations

import pandas as pd

from conftest import is_png, run_cli


def test_demo_quick(tmp_path):
    out = tmp_path / "demo"
    r = run_cli("demo", "--quick", "--out", out, timeout=1200)
    assert r.returncode == 0, r.stderr
    for v in ("newreno", "sack", "hybla", "cubic", "bbr"):
        assert v in r.stdout
    for ber in ("1e-7", "1e-6", "1e-5"):
        assert ber in r.stdout
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) >= 2, pngs
    assert all(is_png(p) for p in pngs)
    assert str(out) in r.stdout, "the demo must say where the figures went"
    runs = pd.read_csv(out / "demo_runs.csv")
    assert set(runs["variant"]) == {"newreno", "sack", "hybla", "cubic", "bbr"}
    assert len(runs) == 5 * 4 * 2  # variants x BERs x seeds
    # without bit errors every quick download completes
    clean = runs[runs["ber"] == 0]
    assert clean["completed"].all()
    assert (clean["completion_s"] > 0).all()
    # no flow is held back by a default the user did not choose, and the
    # table says what limited each one
    assert "limited by" in r.stdout
    assert (runs["limited_rwnd"] < 0.01).all(), runs[["variant", "ber", "limited_rwnd"]]
    shares = runs[[f"limited_{k}" for k in ("cwnd", "rwnd", "app", "pacing")]].sum(axis=1)
    assert ((shares - 1).abs() < 1e-9).all()
