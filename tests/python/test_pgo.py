"""Profile-guided optimisation (scripts/pgo.sh, `make pgo`): the release
builds are compiled with a training profile; they must compute exactly what
a build without it computes, and the script must fall back to a plain build
when asked or when no llvm-profdata fits."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PGO_FLAGS = ROOT / "target" / "pgo" / "rustflags"
PGO_RUN = ROOT / "target" / "release" / "satcp-run"
# `make test-rust` builds it (the integration tests need it): no PGO, debug
# assertions and overflow checks on; the engine promises the same bits.
PLAIN_RUN = ROOT / "target" / "tests-opt" / "satcp-run"


def summary(binary: Path, scenario: Path, sets: list[str] = ()) -> dict:
    args = [str(binary), str(scenario)]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(args, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    d = json.loads(out)
    d.pop("wall_s")
    return d


def cases() -> list[tuple[Path, list[str]]]:
    files = sorted((ROOT / "scenarios").rglob("*.toml"))
    out = [(f, []) for f in files] + [(ROOT / "bench" / "pgo" / "relay.toml", [])]  # the cut-through
    dumbbell = ROOT / "bench" / "pgo" / "dumbbell.toml"
    for variant, profile in [("bbr", "rfc"), ("peach", "ns2"), ("vegas", "linux"), ("hybla", "rfc")]:
        out.append((dumbbell, [f"flows.{i}.tcp.{k}" for i in range(4) for k in (f"variant={variant}", f"profile={profile}")]))
    return out


def test_the_profile_guided_build_computes_the_same_bits():
    if not PGO_FLAGS.exists() or not PGO_FLAGS.read_text().strip():
        pytest.skip("this checkout was built without PGO (make build writes target/pgo/rustflags)")
    if not PLAIN_RUN.exists() or not PGO_RUN.exists():
        pytest.skip("needs make build and make test-rust (target/release and target/tests-opt satcp-run)")
    assert "-Cprofile-use=" in PGO_FLAGS.read_text()
    checked = 0
    for scenario, sets in cases():
        a, b = summary(PGO_RUN, scenario, sets), summary(PLAIN_RUN, scenario, sets)
        assert a == b, f"{scenario.name} {sets}: the PGO build's summary differs from the plain build's"
        assert a["events"] > 0
        checked += 1
    assert checked >= 20


def test_pgo_can_be_switched_off(tmp_path):
    env = dict(os.environ, SATCP_PGO="0")
    r = subprocess.run(["bash", str(ROOT / "scripts" / "pgo.sh"), str(tmp_path / "pgo")], capture_output=True,
                       text=True, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "pgo" / "rustflags").read_text() == ""
    assert "without profile-guided optimisation" in r.stderr


def test_the_training_runs_every_variant_the_parser_knows():
    """The training set names no variant: it asks satcp-run for them, so a
    new controller is trained the day it is registered. The list must be
    the parser's own (the one its error message offers)."""
    binary = PGO_RUN if PGO_RUN.exists() else PLAIN_RUN
    if not binary.exists():
        pytest.skip("needs make build")
    listed = subprocess.run([str(binary), "--list-variants"], capture_output=True, text=True, check=True).stdout.split()
    r = subprocess.run([str(binary), str(ROOT / "bench" / "pgo" / "dumbbell.toml"), "--set", "flows.0.tcp.variant=nonesuch"],
                       capture_output=True, text=True)
    assert r.returncode == 2
    offered = re.findall(r'"([a-z0-9+-]+)"', r.stderr.split("one of", 1)[1])
    assert listed == offered
    assert {"sack", "cubic", "bbr", "peach", "adalr-sack", "ceten-reno"} <= set(listed)
