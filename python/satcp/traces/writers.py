"""The trace files satcp's trace-driven links read, written from a
measurement (``measurement.py``), and the scenario snippet that uses them.

Formats (the scenario keys ``capacity_trace``, ``rate_trace``,
``delay_trace``, ``loss_trace``; docs/traces.md):

* capacity (``capacity_trace = "bw.txt"``): a Mahimahi delivery-opportunity
  trace, one integer millisecond per line, each an opportunity for 1,504
  bytes; the trace repeats with its last timestamp as period.
* rate (``rate_trace = "rate.csv"``): ``t_seconds,rate`` per line, the rate
  in bps from that time on (``0.000000,19922944bps``).
* delay (``delay_trace = { file = "delay.txt", interval = "10ms" }``): one
  one-way delay in milliseconds per line, one line per interval.
* loss (``loss_trace = { file = "loss.txt", interval = "1s" }``): one loss
  probability per line, one line per interval.

Bytes to opportunities, the rule and its choices:

* Each interval's bytes are spread evenly over its milliseconds (interval
  ends rounded to the millisecond); a running sum counts opportunities,
  and millisecond ``m`` (covering ``[m, m+1)`` ms) gets as many lines
  ``m + 1`` as the sum crossed multiples of ``bytes_per_opportunity``
  during it: fractions carry forward, across interval ends too. An
  opportunity is written at the end of the millisecond in which its bytes
  accumulated, so the trace never runs ahead of the measurement.
* The fraction left at the end is rounded (half an opportunity or more
  gives one more line at the last millisecond), so the trace's bytes
  (lines x 1,504) equal the measured bytes within half an opportunity.
* Mahimahi's period is the last line's timestamp. So that the trace
  repeats with the measurement's duration, not earlier, the last
  opportunity is moved to the measurement's last millisecond when it
  fell before it (one opportunity, shifted by at most the gap after the
  last one; nothing is added or removed).
* ``bytes_per_opportunity`` (default 1,504) is how many measured bytes one
  opportunity stands for. 1,504 counts the measured bytes as link bytes
  (the rule above). iperf3 and the dish count payload: a TCP flow with
  timestamps fills a 1,504-byte opportunity with 1,448 payload bytes, so
  ``1448`` makes a satcp TCP flow over the trace deliver the measured
  goodput rather than the measured rate plus headers.

Delay: one-way = RTT x ``split`` (default 0.5: the two directions take
equal time, which ping cannot check; a dish's uplink and downlink differ,
so the split is a choice, ``--delay-split``). A probe without reply holds
the last value (the measured series marks it lost); probes before the
first reply take the first reply's value.

Loss: the probability of an interval is the mean of the loss values that
fall in it (for ping: lost probes / probes sent in it; the dish's
``pop_ping_drop_rate`` per second; iperf3 UDP's ``lost/packets``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .measurement import Measurement, Probes, TraceInputError, Volume

MAHIMAHI_OPPORTUNITY_BYTES = 1504


# --------------------------------------------------------------------------
# capacity


def opportunities(volume: Volume, bytes_per_opportunity: float = MAHIMAHI_OPPORTUNITY_BYTES) -> np.ndarray:
    """Millisecond timestamps of the delivery opportunities (one per line)."""
    if bytes_per_opportunity <= 0:
        raise ValueError(f"bytes per opportunity {bytes_per_opportunity}: expected > 0")
    edges = np.rint(np.concatenate([volume.start_s[:1], volume.end_s]) * 1e3).astype(np.int64)
    total_ms = int(edges[-1])
    per_ms = np.zeros(total_ms, dtype=float)
    carry_in = 0.0  # bytes of intervals shorter than half a millisecond
    for i, b in enumerate(volume.bytes):
        a, z = int(edges[i]), int(edges[i + 1])
        if z <= a:
            carry_in += float(b)
            continue
        per_ms[a:z] += (float(b) + carry_in) / (z - a)
        carry_in = 0.0
    if total_ms == 0:
        raise ValueError("the measurement lasts under half a millisecond: no trace")
    per_ms[-1] += carry_in
    # opportunities crossed by the running sum in each millisecond; the small
    # tolerance keeps an exact multiple from being lost to float rounding
    running = np.cumsum(per_ms) / bytes_per_opportunity
    whole = np.floor(running + 1e-9).astype(np.int64)
    counts = np.diff(np.concatenate([[0], whole]))
    if running[-1] - whole[-1] >= 0.5:
        counts[-1] += 1
    stamps = np.repeat(np.arange(1, total_ms + 1, dtype=np.int64), counts)
    if len(stamps) == 0:
        raise ValueError(f"{volume.total_bytes:.0f} bytes measured: less than half an opportunity "
                         f"({bytes_per_opportunity:g} bytes), no capacity trace")
    stamps[-1] = total_ms
    return stamps


def write_capacity(path: Path, stamps: np.ndarray) -> None:
    path.write_text("\n".join(map(str, stamps.tolist())) + "\n", encoding="ascii")


def read_capacity(path: Path) -> np.ndarray:
    """A Mahimahi trace back (for checks): the timestamps, validated."""
    out = []
    prev = 0
    for n, line in enumerate(path.read_text(encoding="ascii").splitlines(), 1):
        s = line.strip()
        if not s:
            continue
        if not s.isdigit():
            raise TraceInputError(str(path), f"line {n}", f"expected an integer millisecond, found {s!r}")
        v = int(s)
        if v < prev:
            raise TraceInputError(str(path), f"line {n}", f"expected a timestamp >= {prev} (non-decreasing), found {v}")
        out.append(v)
        prev = v
    if not out or out[-1] == 0:
        raise TraceInputError(str(path), "", "expected at least one line and a last timestamp > 0 (the period)")
    return np.array(out, dtype=np.int64)


def rate_lines(volume: Volume, source: str = "the measurement") -> list[str]:
    """``t_seconds,rate`` lines: each interval's mean rate from its start.

    ``rate_trace`` takes rates above 0 (a rate is in force while a packet is
    serialised); an interval that carried nothing is refused, naming it:
    the capacity trace (``bw.txt``, no opportunities there) is the form that
    says the link carried nothing."""
    dur = volume.end_s - volume.start_s
    lines = []
    for t, b, d in zip(volume.start_s, volume.bytes, dur):
        if b <= 0:
            raise TraceInputError(source, f"interval from {t:g} s", "carried 0 bytes: a rate series (--rate-csv) "
                                  "needs rates above 0; leave --rate-csv out and use the capacity trace bw.txt, "
                                  "which has no opportunities over such an interval")
        lines.append(f"{t:.6f},{max(1, round(b * 8 / d))}bps")
    return lines


# --------------------------------------------------------------------------
# delay and loss


def one_way_delays(probes: Probes, split: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """(one-way delay in ms per probe, True where the value is held)."""
    if not 0 < split < 1:
        raise ValueError(f"delay split {split}: expected a fraction in (0, 1), e.g. 0.5")
    rtt = probes.rtt_ms
    have = np.isfinite(rtt)
    if not have.any():
        raise ValueError("no probe got a reply: no RTT, no delay trace")
    idx = np.where(have, np.arange(len(rtt)), -1)
    np.maximum.accumulate(idx, out=idx)
    idx[idx < 0] = int(np.flatnonzero(have)[0])
    return rtt[idx] * split, ~have


def loss_samples(m: Measurement) -> tuple[float, np.ndarray] | None:
    """(interval, loss values) of a measurement: interval losses if it has
    them, else its probes' loss, else None."""
    if m.loss is not None:
        return m.loss.interval_s, m.loss.probability
    if m.probes is not None and np.isfinite(m.probes.lost).any():
        return m.probes.interval_s, m.probes.lost
    return None


def bin_means(step_s: float, values: np.ndarray, bin_s: float) -> np.ndarray:
    """Mean of the values (sample ``i`` at ``i * step_s``) per bin of
    ``bin_s``; NaN values are left out, a bin without values is NaN."""
    if bin_s + 1e-9 < step_s:
        raise ValueError(f"interval {bin_s:g} s is shorter than the measurement's {step_s:g} s")
    k = np.floor(np.arange(len(values)) * step_s / bin_s + 1e-9).astype(np.int64)
    n = int(k[-1]) + 1 if len(k) else 0
    ok = np.isfinite(values)
    s = np.bincount(k[ok], weights=values[ok], minlength=n)
    c = np.bincount(k[ok], minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(c > 0, s / np.maximum(c, 1), math.nan)


def loss_probabilities(m: Measurement, interval_s: float) -> np.ndarray:
    got = loss_samples(m)
    if got is None:
        raise ValueError(f"{m.source}: {m.tool} gives no loss")
    p = bin_means(got[0], got[1], interval_s)
    return np.nan_to_num(p, nan=0.0)


def duration_text(interval_s: float) -> str:
    """An interval as the scenario file writes it: "1s", "200ms"."""
    ms = round(interval_s * 1e3, 6)
    if ms >= 1000 and ms % 1000 == 0:
        return f"{int(ms // 1000)}s"
    return f"{ms:g}ms"


def write_values(path: Path, values: np.ndarray, digits: int) -> None:
    path.write_text("\n".join(f"{v:.{digits}f}" for v in values) + "\n", encoding="ascii")


@dataclass
class Written:
    """What was written, for the snippet and the summary."""

    capacity: Path | None = None
    rate: Path | None = None
    delay: Path | None = None
    delay_interval_s: float | None = None
    loss: Path | None = None
    loss_interval_s: float | None = None


def scenario_snippet(w: Written, relative_to: Path | None = None) -> str:
    """The link keys that use the files (paths relative to the scenario's
    directory when given, else as written)."""

    def rel(p: Path) -> str:
        if relative_to is not None:
            try:
                import os

                return os.path.relpath(p.resolve(), relative_to.resolve())
            except ValueError:
                pass
        return str(p)

    lines = ["# in a [[links]] table (plain keys: both directions; _ab / _ba: one)"]
    if w.capacity is not None:
        lines.append(f'capacity_trace = "{rel(w.capacity)}"')
    if w.rate is not None:
        lines.append(("# or, instead of capacity_trace: " if w.capacity is not None else "")
                     + f'rate_trace = "{rel(w.rate)}"')
    if w.delay is not None:
        lines.append(f'delay_trace = {{ file = "{rel(w.delay)}", interval = "{duration_text(w.delay_interval_s)}" }}')
    if w.loss is not None:
        lines.append(f'loss_trace = {{ file = "{rel(w.loss)}", interval = "{duration_text(w.loss_interval_s)}" }}')
    return "\n".join(lines) + "\n"
