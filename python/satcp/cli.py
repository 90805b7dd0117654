"""The ``satcp`` command line: ``satcp run``, ``satcp validate``, ``satcp demo``."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tomllib
from pathlib import Path
from typing import Any, Sequence

EXIT_SCENARIO = 2  # scenario error or missing file: nothing ran

# At most this many samples per flow when `--out` turns sampling on.
MAX_SAMPLES = 20_000
DEFAULT_SAMPLE_MS = 100

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(ns|us|ms|s)?\s*$")
_DURATION_SCALE = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, None: 1.0}


def _err(msg: str) -> None:
    print(f"error: {msg}", file=sys.stderr)


def _duration_s(v: Any) -> float | None:
    """Best-effort reading of a duration as the scenario file writes it."""
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        m = _DURATION.match(v.strip().strip("\"'"))
        if m:
            return float(m.group(1)) * _DURATION_SCALE[m.group(2)]
    return None


def _nice_ms(ms: float) -> int:
    """Round up to 1, 2 or 5 times a power of ten."""
    if ms <= 1:
        return 1
    exp = 10 ** math.floor(math.log10(ms))
    for m in (1, 2, 5, 10):
        if m * exp >= ms - 1e-9:
            return int(m * exp)
    return int(10 * exp)


def sample_interval_override(text: str, overrides: Sequence[str], fmt: str = "toml") -> str | None:
    """The `run.sample_interval=...` override `--out` adds, or None if the
    scenario (or an override) already sets one."""
    def key_of(o: str) -> str:
        return o.split("=", 1)[0].strip()

    if any(key_of(o) == "run.sample_interval" for o in overrides):
        return None
    try:
        doc = json.loads(text) if fmt == "json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return None  # the engine will report the syntax error
    if not isinstance(doc, dict):
        return None
    run = doc.get("run") if isinstance(doc.get("run"), dict) else {}
    if "sample_interval" in run:
        return None
    stop = run.get("stop")
    for o in overrides:
        if key_of(o) == "run.stop" and "=" in o:
            stop = o.split("=", 1)[1].strip()
    stop_s = _duration_s(stop) if stop is not None else None
    ms = DEFAULT_SAMPLE_MS
    if stop_s is not None and stop_s > 0:
        ms = max(ms, _nice_ms(stop_s * 1000.0 / MAX_SAMPLES))
    return f"run.sample_interval={ms}ms"


# --------------------------------------------------------------------------
# plain-text tables

def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> str:
    """Fixed-width table; `align` is one char per column, 'l' or 'r'."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)

    def line(r: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align)).rstrip()

    out = [line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return "\n".join(out)


def _f(v: Any, fmt: str, scale: float = 1.0) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return format(v * scale, fmt)


def summary_text(summary: dict[str, Any]) -> str:
    flows = [
        (
            f["name"], f["variant"], "yes" if f["completed"] else "no",
            _f(f["completion_s"], ".3f"), _f(f["goodput_bps"], ".3f", 1e-6),
            _f(f["throughput_bps"], ".3f", 1e-6), f["retransmissions"], f["timeouts"],
        )
        for f in summary["flows"]
    ]
    links = [
        (
            f'{l["from"]}->{l["to"]}', _f(l["utilization"], ".1f", 100.0),
            l["drops"]["queue"], l["drops"]["errors"],
        )
        for l in summary["links"]
    ]
    parts = [
        f"satcp {summary['satcp_version']}  seed {summary['seed']}  "
        f"simulated {summary['sim_time_s']:.3f} s (ended by {summary['ended_by']})  "
        f"{summary['events']} events in {summary['wall_s']:.3f} s wall",
        "",
        "flows",
        format_table(
            ["name", "variant", "completed", "completion s", "goodput Mb/s",
             "throughput Mb/s", "retransmissions", "timeouts"],
            flows, "lllrrrrr",
        ),
        "",
        "links",
        format_table(["from->to", "utilization %", "drops queue", "drops errors"], links, "lrrr"),
    ]
    return "\n".join(parts)


# --------------------------------------------------------------------------
# files and plots

def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def write_tables(res, out: Path, fmt: str) -> list[Path]:
    tables = {
        "flows": res.flows,
        "links": res.links,
        "series": res.series,
        "link_series": res.link_series,
        "pages": res.pages,
    }
    written = []
    for name, df in tables.items():
        p = out / f"{name}.{fmt}"
        if fmt == "parquet":
            df.to_parquet(p, index=False)
        else:
            df.to_csv(p, index=False)
        written.append(p)
    return written


def plot_run(res, out: Path) -> list[Path]:
    plt = _pyplot()
    s = res.series
    names = [f["name"] for f in res.summary["flows"]]
    written = []

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, name in enumerate(names):
        d = s[s["flow"] == i]
        ax.plot(d["time_s"], d["cwnd_bytes"] / 1e3, label=name, drawstyle="steps-post")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("congestion window (kB)")
    ax.set_title("cwnd over time")
    written.append(_save(fig, ax, s.empty, out / "cwnd.png"))

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, name in enumerate(names):
        d = s[s["flow"] == i]
        ax.plot(d["time_s"], d["delivered_bytes"] / 1e6, label=f"{name} delivered")
        ax.plot(d["time_s"], d["rcv_high_bytes"] / 1e6, label=f"{name} received (highest)",
                linestyle="--", linewidth=0.8)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("sequence number (MB of stream)")
    ax.set_title("delivered / received sequence number over time")
    written.append(_save(fig, ax, s.empty, out / "seq.png"))
    return written


def _save(fig, ax, empty: bool, path: Path) -> Path:
    """Grid, legend (or a note that nothing was sampled), write the PNG."""
    ax.grid(True, alpha=0.3)
    if empty:
        ax.text(0.5, 0.5, "no samples recorded", ha="center", va="center", transform=ax.transAxes)
    elif ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    _pyplot().close(fig)
    return path


# --------------------------------------------------------------------------
# subcommands

def _read_scenario(path: str) -> str | None:
    p = Path(path)
    if not p.is_file():
        _err(f"scenario file not found: {path}")
        return None
    return p.read_text(encoding="utf-8")


def cmd_run(args: argparse.Namespace) -> int:
    import satcp

    text = _read_scenario(args.file)
    if text is None:
        return EXIT_SCENARIO
    overrides = list(args.set or [])
    fmt = "json" if args.file.lower().endswith(".json") else "toml"
    if args.out is not None:
        extra = sample_interval_override(text, overrides, fmt)
        if extra is not None:
            overrides.append(extra)
    try:
        base = str(Path(args.file).resolve().parent)
        res = satcp.Result(satcp._core.run(text, fmt, overrides, base))
    except satcp._core.ScenarioError as e:
        _err(str(e.args[0]) if e.args else str(e))
        return EXIT_SCENARIO

    if args.json:
        sys.stdout.write(res.to_json() + "\n")
    else:
        print(summary_text(res.summary))
    if args.out is not None:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        files = write_tables(res, out, args.format) + plot_run(res, out)
        msg = f"wrote {len(files)} files to {out}/: " + ", ".join(p.name for p in files)
        print(msg, file=sys.stderr if args.json else sys.stdout)
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    import satcp

    text = _read_scenario(args.file)
    if text is None:
        return EXIT_SCENARIO
    fmt = "json" if args.file.lower().endswith(".json") else "toml"
    try:
        satcp._core.validate(text, fmt, list(args.set or []), str(Path(args.file).resolve().parent))
    except satcp._core.ScenarioError as e:
        _err(str(e.args[0]) if e.args else str(e))
        return EXIT_SCENARIO
    print(f"{args.file}: ok")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from . import demo

    return demo.main(out=Path(args.out), quick=args.quick, jobs=args.jobs)


def build_parser() -> argparse.ArgumentParser:
    import satcp

    p = argparse.ArgumentParser(
        prog="satcp",
        description="Packet-level simulation of TCP over satellite networks.",
    )
    p.add_argument("--version", action="version", version=f"satcp {satcp.__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    r = sub.add_parser("run", help="run one scenario file",
                       description="Validate and run one scenario file; print a summary.")
    r.add_argument("file", metavar="FILE", help="scenario file (.toml, or .json)")
    r.add_argument("--set", action="append", metavar="PATH=VALUE", default=[],
                   help="override a field before validation, e.g. "
                        "flows.download.tcp.variant=newreno or links.1.errors_ab={ber=1e-6} "
                        "(repeatable)")
    r.add_argument("--out", metavar="DIR",
                   help="write tables (flows, links, series, link_series, pages) and plots "
                        "(cwnd.png, seq.png) to DIR; turns on sampling if the scenario has no "
                        "run.sample_interval")
    r.add_argument("--json", action="store_true",
                   help="print the summary as one JSON object (nothing else on stdout)")
    r.add_argument("--format", choices=["csv", "parquet"], default="csv",
                   help="table format for --out (default csv)")
    r.set_defaults(func=cmd_run)

    v = sub.add_parser("validate", help="check a scenario file without running it")
    v.add_argument("file", metavar="FILE")
    v.add_argument("--set", action="append", metavar="PATH=VALUE", default=[])
    v.set_defaults(func=cmd_validate)

    d = sub.add_parser("demo", help="GEO demo: NewReno vs SACK over a range of bit error rates",
                       description="Run the built-in GEO scenario for NewReno and SACK at "
                                   "BER 0, 1e-7, 1e-6, 1e-5; print a table and write figures.")
    d.add_argument("--out", metavar="DIR", default="out/demo", help="figure directory (default out/demo)")
    d.add_argument("--quick", action="store_true", help="1 MB file and 2 seeds instead of 5 MB and 4")
    d.add_argument("--jobs", type=int, default=None, help="parallel runs (default: CPU count)")
    d.set_defaults(func=cmd_demo)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
