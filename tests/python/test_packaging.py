"""The files satcp reads at run time are part of the package, so that the
standard build (``pip wheel .``, maturin) carries them (satcp/paths.py).
The wheel itself is built and run outside the checkout by
``scripts/test_wheel.sh`` (``make test-wheel``); these are the quick checks
of what that depends on."""

from __future__ import annotations

import subprocess
from pathlib import Path

import satcp
from satcp import paths
from satcp.reproduce import studies

REPO = Path(__file__).resolve().parents[2]
PKG = REPO / "python" / "satcp"


def test_the_resources_are_in_the_package():
    assert paths.ROOT == PKG / "_resources"
    assert Path(satcp.__file__).resolve().parent == PKG  # the checkout's package, not an installed one
    for d in ("data/published", "data/measured", "scenarios", "crosscheck/ns2"):
        assert (paths.ROOT / d).is_dir() and not (paths.ROOT / d).is_symlink(), d


def test_the_checkout_names_are_links_to_the_package():
    for d in ("data", "scenarios", "crosscheck/ns2"):
        link = REPO / d
        assert link.is_symlink(), d
        assert link.resolve() == (paths.ROOT / d).resolve(), d


def test_no_symbolic_link_inside_the_package():
    # maturin leaves symbolic links out of the wheel without a word
    links = [p.relative_to(PKG) for p in PKG.rglob("*") if p.is_symlink()]
    assert links == []


def test_no_resource_is_ignored_by_git():
    # maturin leaves what .gitignore names out of the wheel
    files = [str(p.relative_to(REPO)) for p in (PKG / "_resources").rglob("*") if p.is_file()]
    assert len(files) > 40
    ignored = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], input="\n".join(files), cwd=REPO,
                             capture_output=True, text=True).stdout.split()
    assert ignored == []


def test_every_study_scenario_resolves_under_the_package_root():
    bases = set()
    for study in studies().values():
        for quick in (True, False):
            bases |= {e.base for e in study.part("experiments").catalogue(quick)}
    assert len(bases) >= 15
    missing = [b for b in sorted(bases) if not (paths.ROOT / b).is_file()]
    assert missing == []


def test_the_published_numbers_resolve_under_the_package_root():
    from satcp.crosscheck_ns2 import PEER
    from satcp.reproduce.adalr.published import CLAIMS_TOML, PUBLISHED_CSV
    from satcp.reproduce.ceten.results import PUBLISHED, PUBLISHED_ANOVA
    from satcp.reproduce.xfwa.ns2 import TCL

    for f in (PEER, CLAIMS_TOML, PUBLISHED_CSV, PUBLISHED, PUBLISHED_ANOVA, TCL):
        assert f.is_file() and f.resolve().is_relative_to(PKG / "_resources"), f
