#!/usr/bin/env python3
"""Compile and run the worked examples of docs/architecture.md.

The document marks each piece of an example with an HTML comment before
its code block:

* ``<!-- example: file PATH -->``: the block is a new file at PATH;
* ``<!-- example: insert PATH after "LINE" -->`` (or ``before``): the
  block goes after (before) the line that reads exactly LINE, which must
  be in PATH once;
* ``<!-- example: run ARGS => DOTTED.PATH OP VALUE -->`` (no block):
  satcp-run runs a three-node scenario (a - g - b, one FTP flow ``f``)
  with ARGS (``--set`` overrides) after the examples before it are
  applied, and the summary's value at DOTTED.PATH must satisfy
  ``OP VALUE`` (``==``, ``>``).

Every example goes into a copy of the workspace (the checkout is never
touched), built with ``cargo build -p satcp-core --bin satcp-run`` into
``target/doc-examples``. Exit 1 with the reason if an anchor is gone, the
copy does not compile, or a run's value is wrong.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"

SCENARIO = """[run]
stop = "10s"
[nodes]
a = {}
g = {}
b = {}
[[links]]
a = "a"
b = "g"
rate = "10Mbps"
delay = "5ms"
[[links]]
a = "g"
b = "b"
rate = "2Mbps"
delay = "250ms"
[[flows]]
name = "f"
src = "a"
dst = "b"
app = { kind = "ftp", size = "1MB" }
"""

MARK = re.compile(r"<!-- example: (.*?) -->")


def steps(text: str) -> list[tuple[str, str | None]]:
    """(directive, code block or None) in document order."""
    out = []
    for m in MARK.finditer(text):
        directive = m.group(1).strip()
        block = None
        if not directive.startswith("run "):
            rest = text[m.end():]
            b = re.match(r"\s*```\w*\n(.*?)```", rest, re.S)
            if not b:
                raise SystemExit(f"{DOC.name}: no code block after <!-- example: {directive} -->")
            block = b.group(1)
        out.append((directive, block))
    return out


def apply(copy: Path, directive: str, block: str) -> None:
    if directive.startswith("file "):
        path = copy / directive[len("file "):].strip()
        if path.exists():
            raise SystemExit(f"example file {path.relative_to(copy)} exists already in the tree")
        path.write_text(block)
        return
    m = re.fullmatch(r'insert (\S+) (after|before) "(.*)"', directive)
    if not m:
        raise SystemExit(f"unreadable directive: {directive}")
    path, where, anchor = copy / m.group(1), m.group(2), m.group(3).replace('\\"', '"')
    lines = path.read_text().split("\n")
    hits = [i for i, line in enumerate(lines) if line == anchor]
    if len(hits) != 1:
        raise SystemExit(f"{m.group(1)}: the anchor line {anchor!r} is there {len(hits)} times (the example has drifted)")
    at = hits[0] + (1 if where == "after" else 0)
    lines[at:at] = block.rstrip("\n").split("\n")
    path.write_text("\n".join(lines))


def value_at(summary: dict, dotted: str):
    v = summary
    for part in dotted.split("."):
        v = v[int(part)] if isinstance(v, list) else v[part]
    return v


def run(copy: Path, target: Path, directive: str) -> None:
    m = re.fullmatch(r"run (.*) => (\S+) (==|>) (.+)", directive)
    if not m:
        raise SystemExit(f"unreadable run directive: {directive}")
    args, path, op, want = shlex.split(m.group(1)), m.group(2), m.group(3), json.loads(m.group(4))
    build = subprocess.run(["cargo", "build", "-q", "-p", "satcp-core", "--bin", "satcp-run"], cwd=copy,
                           env={**os.environ, "CARGO_TARGET_DIR": str(target), "RUSTFLAGS": ""},
                           capture_output=True, text=True)
    if build.returncode != 0:
        raise SystemExit(f"the examples do not compile:\n{build.stderr[-6000:]}")
    scn = copy / "example.toml"
    scn.write_text(SCENARIO)
    r = subprocess.run([str(target / "debug" / "satcp-run"), str(scn), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"satcp-run {' '.join(args)}: {r.stderr.strip()}")
    got = value_at(json.loads(r.stdout), path)
    ok = got == want if op == "==" else got > want
    if not ok:
        raise SystemExit(f"satcp-run {' '.join(args)}: {path} = {got!r}, expected {op} {want!r}")
    print(f"ok: {' '.join(args)} => {path} = {got!r}")


def main() -> int:
    todo = steps(DOC.read_text())
    if not todo:
        raise SystemExit(f"{DOC.name} marks no examples")
    target = ROOT / "target" / "doc-examples"
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp)
        shutil.copytree(ROOT / "crates", copy / "crates", ignore=shutil.ignore_patterns("target"))
        for f in ("Cargo.toml", "Cargo.lock"):
            shutil.copy(ROOT / f, copy / f)
        for directive, block in todo:
            if block is None:
                run(copy, target, directive)
            else:
                apply(copy, directive, block)
    return 0


if __name__ == "__main__":
    sys.exit(main())
