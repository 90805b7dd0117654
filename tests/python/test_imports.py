"""Every satcp module imports, and the satcp modules import one another
without a cycle. Imports inside functions count: a cycle held off by a
function-local import comes back the day someone moves it to the top."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from satcp import shards

import satcp

PKG = Path(satcp.__file__).parent


def modules() -> dict[str, Path]:
    """Dotted name -> source file of every module of the package."""
    out = {}
    for p in sorted(PKG.rglob("*.py")):
        parts = p.relative_to(PKG.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The satcp modules ``name`` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module
            subs = [f"{base}.{a.name}" for a in node.names]
            found.update(s for s in subs if is_module(s))
            # `from .x import y` runs x; `from . import sweep` only needs the
            # package's module sweep, `from . import __version__` the package
            if node.module or not all(is_module(s) for s in subs):
                found.add(base)
    return {m for m in found if m in known and m != name}


def is_module(dotted: str) -> bool:
    """A module of its own (source or extension, like satcp._core)."""
    try:
        return importlib.util.find_spec(dotted) is not None
    except ModuleNotFoundError:
        return False


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {name: imports_of(name, path, set(mods)) for name, path in mods.items()}


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(g[m]):
            if state.get(n) == 1:
                return path[path.index(n):] + [n]
            if n not in state and (c := visit(n)):
                return c
        state[m] = 2
        path.pop()
        return None

    for m in sorted(g):
        if m not in state and (c := visit(m)):
            return c
    return None


@pytest.mark.parametrize("name", [m for m in modules() if m != "satcp.__main__"])
def test_every_module_imports(name):
    importlib.import_module(name)


def test_no_import_cycle():
    g = graph()
    assert "satcp.demo" in g["satcp.cli"]  # the walk sees imports inside functions
    cycle = find_cycle(g)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_walk_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]


def test_only_main_imports_the_cli():
    g = graph()
    assert {m for m, deps in g.items() if "satcp.cli" in deps} == {"satcp.__main__"}


def test_help_loads_no_heavy_library():
    # `satcp --help` stays fast: DuckDB, SciPy, matplotlib, Dask load with
    # the subcommand that needs them.
    code = ("import sys, satcp.cli\n"
            "print(sorted(m for m in ('duckdb', 'scipy', 'statsmodels', 'matplotlib', 'distributed', 'rich')"
            " if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]"


def test_python_dash_m_satcp():
    r = subprocess.run([sys.executable, "-m", "satcp", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("satcp ")


@pytest.mark.parametrize("args", [["--help"], ["validate", "scenarios/geo_bent_pipe.toml"],
                                  ["run", "scenarios/geo_bent_pipe.toml", "--set", "flows.download.app.size=100KB"]])
def test_the_front_end_starts_without_the_heavy_libraries(args):
    # `satcp --help`, `validate` and a small `run` answer without importing
    # pandas, matplotlib or DuckDB (a second of start-up each)
    code = ("import sys\nfrom satcp import cli\ntry:\n    cli.main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "heavy = sorted(m for m in ('pandas', 'matplotlib', 'duckdb') if m in sys.modules)\n"
            "print('HEAVY', heavy)\n")
    r = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=PKG.parents[1],
                       timeout=120)
    assert "HEAVY []" in r.stdout, (r.stdout[-500:], r.stderr[-500:])


def test_a_sweep_worker_runs_without_the_heavy_libraries(tmp_path):
    # a local worker is a fresh process that imports what its task names
    # (satcp.worker's run_chunk and run_task) and runs it: pandas and DuckDB
    # would cost it most of a second at start
    from satcp import execute

    assert execute.run_chunk.__module__ == execute.run_task.__module__ == "satcp.worker"
    code = ("import sys, json, satcp.worker as w\n"
            "from satcp.engine import scenario_text\n"
            "text, fmt = scenario_text('scenarios/geo_bent_pipe.toml')\n"
            "import tomllib\n"
            "tree = tomllib.loads(text); tree['flows'][0]['app']['size'] = 100000\n"
            "[out] = w.run_chunk(w.run_task, [{'key': 'k', 'scenario_json': json.dumps(tree)}])\n"
            "heavy = sorted(m for m in ('pandas', 'numpy', 'pyarrow', 'duckdb', 'matplotlib') if m in sys.modules)\n"
            "print('STATUS', out['status'], out['error'], 'HEAVY', heavy)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PKG.parents[1], timeout=120)
    assert "STATUS ok None HEAVY []" in r.stdout, (r.stdout[-500:], r.stderr[-500:])
    # a sweep's chunk, written as a Parquet shard: pyarrow (and its numpy), still no pandas
    sharded = code.replace("'scenario_json': json.dumps(tree)}",
                           "'scenario_json': json.dumps(tree), 'run': ('s', '{}', 0, 1), 'factors': [], "
                           "'shard': {'version': satcp.worker._core.version(), 'dir': sys.argv[1]}}")
    assert sharded != code
    r = subprocess.run([sys.executable, "-c", "import satcp.worker\n" + sharded, str(tmp_path)], capture_output=True,
                       text=True, cwd=PKG.parents[1], timeout=120)
    assert "STATUS ok None HEAVY ['numpy', 'pyarrow']" in r.stdout, (r.stdout[-500:], r.stderr[-500:])
    assert len(shards.complete(tmp_path)) == 1  # the shard
