#!/usr/bin/env python3
"""Capture what the engine and the studies produce, and compare two captures.

A refactoring must change no result. ``capture DIR`` records, with the
build in this checkout:

* ``engine/*.tsv``: one line per run (``crates/satcp-core/examples/
  output_digest.rs``): the summary JSON with ``wall_s`` zeroed and a digest
  of every time series, for every scenario file (``scenarios/``,
  ``bench/pgo/``), the same sampled every 50 ms, every TCP variant under
  every profile on the GEO demo path loss-free and with bit errors, and
  every input of the scenario fuzz corpus run as the fuzz target bounds it
  (3,388 scenarios, most of them odd);
* ``studies/NAME/``: each study's ``satcp reproduce NAME --quick`` output
  directory, its printed summary (``stdout.txt``) and the store's runs,
  flows and links tables as CSV, sorted by key (``runs.csv``, ...).

``compare BASE NEW`` reports every engine line that differs (with the
first differing characters) and, per study, every stored table that
differs; it exits 1 if anything does. Reports are text for people: their
comparison is in ``compare_reports`` (numbers and verdicts in order, the
old verdict words mapped to the kit's).

Usage::

    python scripts/compare_outputs.py capture /tmp/before [--no-studies] [--no-corpus]
    python scripts/compare_outputs.py compare /tmp/before /tmp/after
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STUDIES = ("adalr", "transat", "peach", "ceten", "xfwa", "leo-geo")
PROFILES = ("rfc", "linux", "ns2", "ns2-2003")
GEO = "scenarios/geo_bent_pipe.toml"


def digest_binary() -> Path:
    subprocess.run(["cargo", "build", "--release", "-q", "--example", "output_digest", "-p", "satcp-core"],
                   cwd=ROOT, check=True, env={**os.environ, "RUSTFLAGS": ""})
    return ROOT / "target/release/examples/output_digest"


def variants() -> list[str]:
    out = subprocess.run(["cargo", "run", "--release", "-q", "-p", "satcp-core", "--bin", "satcp-run", "--",
                          "--list-variants"], cwd=ROOT, check=True, capture_output=True, text=True,
                         env={**os.environ, "RUSTFLAGS": ""})
    return out.stdout.split()


def capture_engine(out: Path, corpus: bool) -> None:
    exe = digest_binary()
    eng = out / "engine"
    eng.mkdir(parents=True, exist_ok=True)

    def run(name: str, *args: str) -> None:
        r = subprocess.run([str(exe), *args], cwd=ROOT, check=True, capture_output=True, text=True)
        with open(eng / f"{name}.tsv", "a") as f:
            f.write(r.stdout)

    run("scenarios", "scenarios", "bench/pgo")
    run("sampled", "--set", "run.sample_interval=50ms", "scenarios", "bench/pgo")
    for v in variants():
        for p in PROFILES:
            for errors in ("{ per = 0 }", "{ ber = 1e-6 }", "{ per = 0.01 }"):
                sets = [f"flows.download.tcp.variant={v}", f"flows.download.tcp.profile={p}",
                        f"links.1.errors_ab={errors}", "flows.download.app.size=2MB",
                        "run.sample_interval=100ms"]
                with open(eng / "variants.tsv", "a") as f:
                    f.write(f"# {' '.join(sets)}\n")
                run("variants", *[a for s in sets for a in ("--set", s)], GEO)
    if corpus:
        run("corpus", "--bounded", "fuzz/corpus/scenario")


def capture_studies(out: Path, only: list[str] | None) -> None:
    import duckdb

    for name in only or STUDIES:
        d = out / "studies" / name
        d.mkdir(parents=True, exist_ok=True)
        r = subprocess.run([sys.executable, "-m", "satcp", "reproduce", name, "--quick", "--out", str(d / "out"),
                            "--workers", "2"], cwd=ROOT, capture_output=True, text=True)
        (d / "stdout.txt").write_text(r.stdout)
        (d / "stderr.txt").write_text(r.stderr)
        (d / "status.txt").write_text(f"{r.returncode}\n")
        con = duckdb.connect(str(d / "out" / "results.duckdb"), read_only=True)
        for table in ("runs", "flows", "links"):
            cols = [c[0] for c in con.execute(f"DESCRIBE {table}").fetchall()]
            keep = [c for c in cols if c not in ("wall_s", "finished_at", "started_at", "worker", "satcp_build")]
            order = ", ".join(f'"{c}"' for c in ("key", "flow", "link", "direction") if c in cols)
            select = ", ".join(f'"{c}"' for c in keep)
            con.execute(f"COPY (SELECT {select} FROM {table} ORDER BY {order}) TO "
                        f"'{d / (table + '.csv')}' (HEADER)")
        con.close()


# ----- comparison -----------------------------------------------------------------


def _first_difference(a: str, b: str) -> str:
    i = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    lo = max(0, i - 60)
    return f"    before: ...{a[lo:i + 80]}\n    after:  ...{b[lo:i + 80]}"


def compare_tsv(a: Path, b: Path) -> list[str]:
    la = a.read_text().splitlines() if a.exists() else []
    lb = b.read_text().splitlines() if b.exists() else []
    problems = []
    if len(la) != len(lb):
        problems.append(f"{a.name}: {len(la)} lines before, {len(lb)} after")
    heading = ""
    for x, y in zip(la, lb):
        if x.startswith("#"):
            heading = x
        if x != y:
            problems.append(f"{a.name}: {heading}\n  {x.split(chr(9))[0]}\n{_first_difference(x, y)}")
    return problems


def compare_studies(a: Path, b: Path) -> list[str]:
    problems = []
    if not (b / "studies").exists():
        print(f"(no studies captured in {b}: only the engine compared)")
        return problems
    for d in sorted((a / "studies").glob("*")):
        e = b / "studies" / d.name
        if not e.exists():
            problems.append(f"study {d.name}: not captured after")
            continue
        for f in ("runs.csv", "flows.csv", "links.csv", "status.txt"):
            x, y = (d / f), (e / f)
            if x.exists() and (not y.exists() or x.read_bytes() != y.read_bytes()):
                diff = list(difflib.unified_diff(x.read_text().splitlines(), y.read_text().splitlines()
                                                 if y.exists() else [], lineterm="", n=0))[:12]
                problems.append(f"study {d.name}: {f} differs\n  " + "\n  ".join(diff))
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("dir", type=Path)
    c.add_argument("--no-studies", action="store_true")
    c.add_argument("--no-corpus", action="store_true")
    c.add_argument("--no-engine", action="store_true")
    c.add_argument("--study", action="append", help="only these studies (repeatable)")
    k = sub.add_parser("compare")
    k.add_argument("before", type=Path)
    k.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "capture":
        if not args.no_engine:
            for f in (args.dir / "engine").glob("*.tsv"):
                f.unlink()
            capture_engine(args.dir, not args.no_corpus)
        if not args.no_studies:
            capture_studies(args.dir, args.study)
        return 0
    problems = []
    for f in sorted((args.before / "engine").glob("*.tsv")):
        problems += compare_tsv(f, args.after / "engine" / f.name)
    problems += compare_studies(args.before, args.after)
    for p in problems:
        print(p)
    n = sum(len((args.before / "engine" / f.name).read_text().splitlines())
            for f in (args.before / "engine").glob("*.tsv"))
    print(f"{len(problems)} difference(s); {n} engine lines compared")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
