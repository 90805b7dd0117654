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
differs (the engine's wall time each stored summary carries left out)
and every difference in what its reports say; it exits 1 if anything
does. A capture without engine outputs (``--no-engine``) compares the
studies only.

Reports are text for people, so they are compared as the sequence of the
numbers and verdicts they print, in order (``report_tokens``): the
printed summary (``stdout.txt``) and ``report.md``, each normalised
first. Normalising maps the verdict words of before the study kit
("borne out", "direction only", "not borne out", "not evaluated") onto
the kit's ("holds", "holds in direction only", "does not hold", "no
data"), and leaves out what a capture cannot repeat (the satcp version,
how many runs were run now or found stored, wall times, paths) and the
figures' captions and image lines (a figure's presentation is not a
result; the set of figures is compared by name). A difference is listed
with the lines it sits in, before and after.

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


#: A run's engine wall time inside its stored summary (CSV doubles the quotes).
SUMMARY_WALL = re.compile(r'(""wall_s"":)[-+0-9.eE]+')


def _repeatable(path: Path) -> str:
    """A captured table's text without what no two captures repeat: the
    wall time each stored summary carries."""
    return SUMMARY_WALL.sub(r"\g<1>0", path.read_text())


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
            if x.exists() and (not y.exists() or _repeatable(x) != _repeatable(y)):
                diff = list(difflib.unified_diff(_repeatable(x).splitlines(), _repeatable(y).splitlines()
                                                 if y.exists() else [], lineterm="", n=0))[:12]
                problems.append(f"study {d.name}: {f} differs\n  " + "\n  ".join(diff))
    return problems


#: The verdict words of before the study kit, and the kit's (in the order
#: they are replaced: "not borne out" before "borne out").
OLD_VERDICTS = ((re.compile(r"\bnot borne out\b"), "does not hold"),
                (re.compile(r"(?<!holds in )\bdirection only\b"), "holds in direction only"),
                (re.compile(r"\bborne out\b"), "holds"),
                (re.compile(r"\bnot evaluated\b"), "no data"))
#: A verdict or a number, not part of a name (``fig5_ahead``, ``t7_5``,
#: ``n1->n2`` hold no number).
TOKEN = re.compile(r"holds in direction only|does not hold|\bholds\b|\bno data\b"
                   r"|(?<![\w.])[-+]?\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+)?%?")
#: Lines of a report or summary that no capture repeats: header rows, the
#: command's last lines; and a figure's image and caption lines.
UNREPEATABLE = re.compile(r"^\| (satcp version|run now|already in the store|run wall time \(s\)) \||^report: |"
                          r"^!\[|^\*.*\*$")
RUNS_LINE = re.compile(r"^runs: (\d+) \(\d+ run now, \d+ already stored, (\d+) failed\); total wall time .*$")


def normalise_report(text: str) -> list[str]:
    """The lines of a summary or report.md whose numbers and verdicts are
    results, old verdict words in the kit's."""
    out = []
    for line in text.splitlines():
        if UNREPEATABLE.search(line):
            continue
        line = RUNS_LINE.sub(r"runs: \1 (\2 failed)", line)
        for old, new in OLD_VERDICTS:
            line = old.sub(new, line)
        out.append(line)
    return out


def report_tokens(text: str) -> list[tuple[str, str]]:
    """(token, the line it is on) for every number and verdict, in order."""
    return [(m.group(0), line) for line in normalise_report(text) for m in TOKEN.finditer(line)]


def _token_differences(where: str, a: str, b: str) -> list[str]:
    ta, tb = report_tokens(a), report_tokens(b)
    out = []
    sm = difflib.SequenceMatcher(None, [t for t, _ in ta], [t for t, _ in tb], autojunk=False)
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        before = " / ".join(dict.fromkeys(line for _, line in ta[i1:i2])) or "-"
        after = " / ".join(dict.fromkeys(line for _, line in tb[j1:j2])) or "-"
        out.append(f"{where}: {op} {[t for t, _ in ta[i1:i2]]} -> {[t for t, _ in tb[j1:j2]]}\n"
                   f"    before: {before[:400]}\n    after:  {after[:400]}")
    return out


def compare_reports(a: Path, b: Path) -> list[str]:
    """Per study captured in both: every number and verdict its summary and
    report.md print, in order, and the figures it draws (by name)."""
    problems = []
    for d in sorted((a / "studies").glob("*")):
        e = b / "studies" / d.name
        if not e.exists():
            continue
        for name, rel in (("summary", "stdout.txt"), ("report.md", "out/report.md")):
            x, y = d / rel, e / rel
            if x.exists():
                problems += _token_differences(f"study {d.name}: {name}", x.read_text(),
                                               y.read_text() if y.exists() else "")
        figs = [sorted(p.name for p in (s / "out" / "figures").glob("*.png")) for s in (d, e)]
        if figs[0] != figs[1]:
            problems.append(f"study {d.name}: figures {sorted(set(figs[0]) - set(figs[1]))} only before, "
                            f"{sorted(set(figs[1]) - set(figs[0]))} only after")
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
    engine = (args.after / "engine").exists()
    if not engine:
        print(f"(no engine outputs captured in {args.after}: only the studies compared)")
    for f in sorted((args.before / "engine").glob("*.tsv")) if engine else []:
        problems += compare_tsv(f, args.after / "engine" / f.name)
    problems += compare_studies(args.before, args.after)
    problems += compare_reports(args.before, args.after)
    for p in problems:
        print(p)
    n = sum(len((args.before / "engine" / f.name).read_text().splitlines())
            for f in (args.before / "engine").glob("*.tsv")) if engine else 0
    print(f"{len(problems)} difference(s); {n} engine lines compared")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
