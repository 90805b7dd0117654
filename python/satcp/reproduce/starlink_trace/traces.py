"""The traces the starlink-trace study runs on.

By default SYNTHETIC traces (``satcp.traces.synthetic``, the model and its
sources in that module's header): no measured Starlink trace ships with
satcp (none is available from a package registry, and nothing fetched may
be committed), so the study draws its own at run time, seeded, into a
cache directory (``$SATCP_TRACE_CACHE``, else ``$XDG_CACHE_HOME/satcp/traces``
or ``~/.cache/satcp/traces``; a few MB per trace, made once: the files are
a function of the directory's name). Full form: seeds 1, 2 and 3, 600 s
each; ``--quick``: seed 1.

``--traces DIR`` replaces them with the user's own (measured) trace:

* ``DIR/link.toml`` when present: the link keys ``satcp trace import ...
  --relative-to DIR`` prints (``capacity_trace`` or ``capacity_trace_ab``,
  ``delay_trace = { file, interval }``, ``loss_trace`` /
  ``loss_trace_ab = { file, interval }``), paths relative to DIR;
* otherwise the files by name: ``bw.txt`` (Mahimahi opportunities,
  required), ``delay.txt`` (one-way delay in ms per 10 ms, LeoReplayer's
  interval; required), ``loss.txt`` (a probability per second; optional);
* ``DIR/measured.csv`` (``satcp trace import``'s measured series), when
  present, is drawn beside the simulated runs.

Either way the capacity and loss are the downlink's (PoP to dish), the
delay both directions'. A measured trace's reconfiguration instants are
taken as 12, 27, 42 and 57 s past each minute of trace time, i.e. the
trace is assumed to start at a whole minute (true of the synthetic ones;
cut a measured trace to start at one, or read its timeouts-at-
reconfiguration counts with that in mind).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ...traces import synthetic
from ..kit.study import UsageError

SEEDS = (1, 2, 3)
QUICK_SEEDS = (1,)
DURATION_S = 600


@dataclass(frozen=True)
class TraceSet:
    """One trace the study runs on: its label (``seed 1``, ``measured``),
    its files (absolute paths) and intervals, whether it is synthetic, and
    its measured series when one came with it."""

    label: str
    capacity: Path
    delay: Path
    delay_interval: str
    loss: Path | None
    loss_interval: str | None
    synthetic: bool
    measured: Path | None = None

    def link_keys(self) -> dict:
        """The trace keys of the study's Starlink link."""
        out = {"capacity_trace_ab": str(self.capacity),
               "delay_trace": {"file": str(self.delay), "interval": self.delay_interval}}
        if self.loss is not None:
            out["loss_trace_ab"] = {"file": str(self.loss), "interval": self.loss_interval}
        return out


def cache_dir() -> Path:
    if os.environ.get("SATCP_TRACE_CACHE"):
        return Path(os.environ["SATCP_TRACE_CACHE"])
    base = Path(os.environ["XDG_CACHE_HOME"]) if os.environ.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return base / "satcp" / "traces"


def synthetic_set(seed: int, cache: Path | None = None) -> TraceSet:
    d = synthetic.cached(seed, cache or cache_dir(), synthetic.Params(duration_s=DURATION_S))
    return TraceSet(f"seed {seed}", d / "bw.txt", d / "delay.txt", f"{synthetic.DELAY_INTERVAL_MS}ms",
                    d / "loss.txt", f"{synthetic.LOSS_INTERVAL_S}s", True)


def _file(d: Path, name: str, what: str) -> Path:
    p = (d / name).resolve()
    if not p.is_file():
        raise UsageError(f"--traces {d}: {what} {name} not found")
    return p


def user_set(directory: str) -> TraceSet:
    """The user's trace in ``directory`` (see the module's header); a
    :class:`UsageError` naming what is missing or malformed."""
    d = Path(directory)
    if not d.is_dir():
        raise UsageError(f"--traces {directory}: not a directory; expected one holding bw.txt and delay.txt "
                         "(or a link.toml naming trace files)")
    measured = d / "measured.csv"
    measured = measured.resolve() if measured.is_file() else None
    spec = d / "link.toml"
    if not spec.is_file():
        loss = (d / "loss.txt")
        return TraceSet("measured", _file(d, "bw.txt", "capacity trace"), _file(d, "delay.txt", "delay trace"),
                        "10ms", loss.resolve() if loss.is_file() else None, "1s" if loss.is_file() else None,
                        False, measured)
    try:
        keys = tomllib.loads(spec.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise UsageError(f"--traces {directory}: link.toml: {e}") from None
    allowed = {"capacity_trace", "capacity_trace_ab", "delay_trace", "loss_trace", "loss_trace_ab"}
    bad = sorted(set(keys) - allowed)
    if bad:
        raise UsageError(f"--traces {directory}: link.toml: key {bad[0]!r} not taken; allowed: "
                         f"{', '.join(sorted(allowed))}")
    cap = keys.get("capacity_trace_ab", keys.get("capacity_trace"))
    delay = keys.get("delay_trace")
    if not isinstance(cap, str):
        raise UsageError(f"--traces {directory}: link.toml: capacity_trace = {cap!r}: expected a file name "
                         "(a Mahimahi trace)")
    if not (isinstance(delay, dict) and isinstance(delay.get("file"), str) and isinstance(delay.get("interval"), str)):
        raise UsageError(f"--traces {directory}: link.toml: delay_trace = {delay!r}: expected "
                         '{ file = "delay.txt", interval = "10ms" }')
    loss = keys.get("loss_trace_ab", keys.get("loss_trace"))
    if loss is not None and not (isinstance(loss, dict) and isinstance(loss.get("file"), str)
                                 and isinstance(loss.get("interval"), str)):
        raise UsageError(f"--traces {directory}: link.toml: loss_trace = {loss!r}: expected "
                         '{ file = "loss.txt", interval = "1s" }')
    return TraceSet("measured", _file(d, cap, "capacity trace"), _file(d, delay["file"], "delay trace"),
                    delay["interval"], _file(d, loss["file"], "loss trace") if loss else None,
                    loss["interval"] if loss else None, False, measured)


def trace_sets(quick: bool, traces: str | None = None) -> list[TraceSet]:
    """The traces of a run of the study: the user's one, or the synthetic
    seeds (made now if the cache lacks them)."""
    if traces is not None:
        return [user_set(traces)]
    return [synthetic_set(s) for s in (QUICK_SEEDS if quick else SEEDS)]
