"""Shared helpers for the satcp Python tests.

The CLI is run as a subprocess through the venv's `satcp` entry point (next
to sys.executable), falling back to `python -m satcp.cli`.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GEO = REPO / "scenarios" / "geo_bent_pipe.toml"


def satcp_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("satcp")
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    return [sys.executable, "-m", "satcp.cli"]


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        satcp_cmd() + [str(a) for a in args],
        capture_output=True, text=True, cwd=cwd or REPO, timeout=timeout,
    )


def base_scenario() -> dict:
    """The GEO example as a dict, shrunk to a 1 MB download."""
    d = tomllib.loads(GEO.read_text())
    d = copy.deepcopy(d)
    d["flows"][0]["app"]["size"] = "1MB"
    return d


# -- a tiny TOML writer, enough for scenario dicts ------------------------
def _lit(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_lit(x)}" for k, x in v.items()) + " }"
    if isinstance(v, list):
        return "[" + ", ".join(_lit(x) for x in v) + "]"
    raise TypeError(type(v))


def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def to_toml(d: dict) -> str:
    out = []
    for k, v in d.items():
        if isinstance(v, dict):
            out.append(f"[{_key(k)}]")
            out += [f"{_key(kk)} = {_lit(vv)}" for kk, vv in v.items()]
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for item in v:
                out.append(f"[[{_key(k)}]]")
                out += [f"{_key(kk)} = {_lit(vv)}" for kk, vv in item.items()]
        else:
            out.insert(0, f"{_key(k)} = {_lit(v)}")
        out.append("")
    return "\n".join(out)


@pytest.fixture
def scenario() -> dict:
    return base_scenario()


def is_png(p: Path) -> bool:
    return p.is_file() and p.stat().st_size > 100 and p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def system_tool(name: str) -> str:
    """Path of a system program the tests drive (chromium, tshark). If it is
    missing, install it with `make test-sysdeps` (apt-get, idempotent) once."""
    import shutil

    path = shutil.which(name)
    if path is None:
        r = subprocess.run(["make", "-s", "test-sysdeps"], cwd=REPO, capture_output=True, text=True)
        path = shutil.which(name)
        if path is None:
            pytest.fail(f"{name} is not installed and `make test-sysdeps` did not install it:\n{r.stdout}{r.stderr}")
    return path
