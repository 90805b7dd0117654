"""The measured series: what ``satcp trace import`` writes for ``satcp report
--measured`` to draw beside a simulated run.

File: CSV with the header ``t_s,goodput_bps,rtt_ms,loss``, one row per bin
(one second by default), ``t_s`` the bin's start in seconds from the
measurement's start:

* ``goodput_bps``: bytes measured in the bin x 8 / the bin's length (an
  interval that straddles a bin edge is shared in proportion to its
  overlap; the last bin is divided by the time it covers, and a bin the
  measurement covers for less than a millisecond, such as the few
  microseconds iperf3's last interval runs over, is left empty);
* ``rtt_ms``: mean round-trip time of the probes that got a reply in the
  bin (ping; the dish's PoP ping; iperf3's TCP sender ``rtt``);
* ``loss``: mean loss in the bin (ping: lost probes / probes; the dish's
  ``pop_ping_drop_rate``; iperf3 UDP ``lost/packets``).

A column a measurement does not give is empty (NaN). With several inputs
(iperf3 for goodput and ping for RTT, taken together), each column comes
from the first input that has it, every input's time starting at its own
first sample (align the recordings by starting them together).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .measurement import Measurement, TraceInputError, Volume
from .writers import bin_means, loss_samples

COLUMNS = ("t_s", "goodput_bps", "rtt_ms", "loss")


def _goodput(volume: Volume, bin_s: float, n: int) -> np.ndarray:
    """Bits per second per bin, each interval's bytes shared by overlap."""
    edges = np.arange(n + 1) * bin_s
    got = np.zeros(n)
    covered = np.zeros(n)
    for a, z, b in zip(volume.start_s, volume.end_s, volume.bytes):
        lo = np.maximum(edges[:-1], a)
        hi = np.minimum(edges[1:], z)
        ov = np.clip(hi - lo, 0.0, None)
        got += b * ov / (z - a)
        covered += ov
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(covered >= 1e-3, got * 8 / covered, math.nan)


def series(inputs: list[Measurement], bin_s: float = 1.0) -> tuple[pd.DataFrame, dict[str, str]]:
    """The measured series and, per column, the input it came from."""
    if not bin_s > 0:
        raise ValueError(f"bin {bin_s}: expected a number of seconds > 0")
    vol = next((m for m in inputs if m.volume is not None), None)
    rtt = next((m for m in inputs if m.probes is not None and np.isfinite(m.probes.rtt_ms).any()), None)
    loss = next((m for m in inputs if loss_samples(m) is not None), None)
    ends = []
    if vol is not None:
        ends.append(vol.volume.duration_s)
    for m in (rtt, loss):
        if m is not None:
            step, vals = (m.probes.interval_s, m.probes.rtt_ms) if m is rtt else loss_samples(m)
            ends.append(len(vals) * step)
    # iperf3's intervals run microseconds long: up to 1 ms past a bin edge
    # opens no bin of its own
    n = max(1, math.ceil((max(ends, default=0.0) - 1e-3) / bin_s))
    df = pd.DataFrame({"t_s": np.arange(n) * bin_s})
    df["goodput_bps"] = _goodput(vol.volume, bin_s, n) if vol is not None else math.nan

    def fit(v: np.ndarray) -> np.ndarray:
        out = np.full(n, math.nan)
        out[: min(n, len(v))] = v[:n]
        return out

    df["rtt_ms"] = fit(bin_means(rtt.probes.interval_s, rtt.probes.rtt_ms, bin_s)) if rtt is not None else math.nan
    df["loss"] = fit(bin_means(*loss_samples(loss), bin_s)) if loss is not None else math.nan
    origin = {c: m.source for c, m in (("goodput_bps", vol), ("rtt_ms", rtt), ("loss", loss)) if m is not None}
    return df, origin


def write(path: Path, df: pd.DataFrame) -> None:
    df.to_csv(path, index=False, columns=list(COLUMNS), float_format="%.6g", na_rep="")


def read(path: str | Path) -> pd.DataFrame:
    """A measured series back, checked: the header, numbers, increasing t_s."""
    path = Path(path)
    if not path.is_file():
        raise TraceInputError(str(path), "", "file not found; expected a measured series (satcp trace import)")
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        raise TraceInputError(str(path), "line 1", "empty; expected the header " + ",".join(COLUMNS))
    header = [h.strip() for h in lines[0].split(",")]
    if "t_s" not in header or not {"goodput_bps", "rtt_ms"} & set(header):
        raise TraceInputError(str(path), "line 1", f"header {lines[0]!r}; expected " + ",".join(COLUMNS))
    rows = []
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        cells = line.split(",")
        if len(cells) != len(header):
            raise TraceInputError(str(path), f"line {n}", f"{len(cells)} fields; expected {len(header)} ({lines[0]})")
        row = []
        for h, c in zip(header, cells):
            c = c.strip()
            try:
                row.append(float(c) if c else math.nan)
            except ValueError:
                raise TraceInputError(str(path), f"line {n}, {h}", f"expected a number or nothing, found {c!r}") from None
        rows.append(row)
    df = pd.DataFrame(rows, columns=header)
    for c in COLUMNS:
        if c not in df.columns:
            df[c] = math.nan
    t = df["t_s"].to_numpy()
    bad = np.flatnonzero(~np.isfinite(t) | (np.diff(t, prepend=-math.inf) <= 0))
    if len(bad):
        raise TraceInputError(str(path), f"line {bad[0] + 2}, t_s", "expected a time greater than the previous row's")
    return df[list(COLUMNS)]
