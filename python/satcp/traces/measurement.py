"""What an importer reads out of a measurement tool's output, before any
trace or series is written: the common shape every importer returns.

A measurement holds up to three things, each optional because no tool
gives all of them:

* ``volume``: bytes that crossed the link in consecutive intervals
  (iperf3's ``intervals``, the dish's per-second throughput times one
  second). Interval starts and ends are seconds from the measurement's
  first interval, so the series starts at 0.
* ``probes``: round-trip times on a fixed grid (ping's ``-i`` interval,
  the dish's one-second samples, iperf3's sender-side ``rtt`` per
  interval), NaN where no reply came, with the fraction of probes lost at
  each grid point (0 or 1 for one ping; the dish's ``pop_ping_drop_rate``;
  NaN where the tool says nothing about loss).
* ``loss``: loss probabilities per interval that do not come from probes
  (iperf3 UDP's ``lost_packets / packets``).

``TraceInputError`` is the one error the importers raise for malformed
input: it names the file (``<stdin>`` for standard input), where in it
(line, or JSON field path) and what was expected there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class TraceInputError(ValueError):
    """Malformed measurement input: file, place in it, what was expected."""

    def __init__(self, source: str, where: str, problem: str):
        self.source, self.where, self.problem = source, where, problem
        super().__init__(f"{source}: {where}: {problem}" if where else f"{source}: {problem}")


@dataclass
class Volume:
    """Bytes per interval; intervals are consecutive (``end_s[i] ==
    start_s[i+1]`` up to the tool's rounding) and start at 0."""

    start_s: np.ndarray
    end_s: np.ndarray
    bytes: np.ndarray

    @property
    def duration_s(self) -> float:
        return float(self.end_s[-1]) if len(self.end_s) else 0.0

    @property
    def total_bytes(self) -> float:
        return float(self.bytes.sum())


@dataclass
class Probes:
    """RTT probes on a fixed grid: probe ``i`` at ``i * interval_s``.
    ``rtt_ms`` is NaN for a probe without reply; ``lost`` is the fraction
    lost at that point (NaN: unknown)."""

    interval_s: float
    rtt_ms: np.ndarray
    lost: np.ndarray

    @property
    def t_s(self) -> np.ndarray:
        return np.arange(len(self.rtt_ms)) * self.interval_s


@dataclass
class IntervalLoss:
    """Loss probability per fixed interval (interval ``i`` starts at
    ``i * interval_s``)."""

    interval_s: float
    probability: np.ndarray


@dataclass
class Measurement:
    source: str
    tool: str
    volume: Volume | None = None
    probes: Probes | None = None
    loss: IntervalLoss | None = None
    notes: list[str] = field(default_factory=list)
