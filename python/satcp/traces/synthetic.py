"""Synthetic Starlink-like traces, seeded: ``satcp trace synth``.

THESE TRACES ARE SYNTHETIC. They are drawn from a small random model whose
parameters are set from what published measurements of Starlink report;
no measured Starlink trace is shipped with satcp, because none is
available from a package registry and nothing fetched from elsewhere may
be committed. A user who has measured a dish (iperf3, ping, the dish's
history, through ``satcp trace import``, or Mahimahi / LeoReplayer files)
passes those files instead (``satcp reproduce starlink-trace --traces
DIR``); the model below only stands in for them.

What is written to ``DIR`` (the formats of docs/models/trace-links.md):

* ``bw.txt``: a Mahimahi delivery-opportunity trace (one integer
  millisecond per line, 1,504 bytes per opportunity), the downlink capacity;
  made from the model's rate steps by ``writers.opportunities`` (the
  importers' rule), so it repeats with the trace's duration as period;
* ``delay.txt``: one one-way delay in milliseconds per 10 ms (LeoReplayer's
  interval), or ``down`` while an outage lasts;
* ``loss.txt``: one loss probability per second (non-congestion loss);
* ``synth.json``: the parameters, the seed, the target mean capacity, the
  reconfiguration instants and the outages drawn (what the files were made
  from, for the study's report and the tests).

The files carry no comment lines, so Mahimahi and LeoReplayer read them
unchanged.

The model and where each parameter comes from (values are our reading of
the papers' figures, rounded; the papers give distributions, not these
parameters):

* **Reconfiguration slots.** Starlink reschedules its user-to-satellite
  assignments globally every 15 s, at 12, 27, 42 and 57 s past each minute
  (Tanveer et al., "Making Sense of Constellations", 2023, who found the
  15-s period and its phase from the dish's latency; Mohan et al., "A
  Multifaceted Look at Starlink Performance", WWW 2024, who measured
  latency and throughput changing at those instants on dishes in two
  countries). Trace time 0 is second 0 of a minute, so the slot
  boundaries are at t mod 60 in {12, 27, 42, 57}. Each slot draws its own
  base one-way delay and its own capacity level, so both step at the
  boundaries.
* **One-way delay.** A slot's base delay is uniform in [``delay_min_ms``,
  ``delay_max_ms``] = [12, 30] ms one way, i.e. an access RTT of about 25
  to 60 ms (Michel et al., "A First Look at Starlink Performance", IMC
  2022: RTTs to nearby anchors with a median near 50 ms and a minimum near
  20 ms; Mohan et al. 2024 likewise). Within a slot the delay drifts
  linearly by a slope uniform in +-``drift_ms`` (2 ms) over the slot, the
  satellite moving; the 10-ms lines are rounded to 0.01 ms. No random
  per-line jitter: with LeoReplayer's rule that a falling delay lets later
  packets overtake, per-line jitter would reorder almost every packet,
  which measurements do not report; reordering comes only from the
  downward jumps at the reconfigurations.
* **Capacity.** A slot's level is log-uniform in [10, 50] Mb/s; around it
  the rate moves every ``step_ms`` (100 ms) as a log-normal AR(1) process
  (stationary log standard deviation ``sigma`` = 0.5, correlation time
  ``tau_s`` = 1 s), clipped to [``capacity_min_mbps``,
  ``capacity_max_mbps``] = [5, 70] Mb/s: capacity swings between about 5
  and 70 Mb/s within seconds to tens of seconds, as the LeoCC traces show
  (Lai et al., "LeoCC: Making Internet Congestion Control Robust to LEO
  Satellite Dynamics", SIGCOMM 2025: the capacity a saturating UDP flow
  finds on a Starlink dish, about 10 to 70 Mb/s) and as Mohan et al. 2024
  report for single-flow throughput. The whole series is then scaled (one factor, found by
  bisection, before clipping) so that its mean, outages included, is
  ``mean_mbps`` (default 25 Mb/s): that mean is the generator's target,
  and ``bw.txt`` carries it to within half an opportunity over the trace.
* **Loss.** One probability per second, uniform in [0.1%, 0.5%]: the
  random, non-congestion loss an idle or lightly loaded Starlink link
  shows (Michel et al. 2022; Mohan et al. 2024 report loss of that order
  outside outages). Ambiguity: the LeoCC work reports higher per-second
  loss under saturating load (up to several percent); we keep the lower
  range, the loss that is not congestion, and let outages carry the rest.
  The study applies it to the downlink.
* **Outages.** At each reconfiguration instant, with probability
  ``outage_probability`` (0.1), an outage of a duration uniform in
  [``outage_min_ms``, ``outage_max_ms``] = [50, 300] ms begins: no
  capacity (no opportunities) and ``down`` delay lines, so what leaves
  then is lost. Short outages clustered at the handovers are what Ma et
  al. ("A Browser-side View of Starlink Connectivity", IMC 2022) and Mohan
  et al. 2024 saw; their rate and length here are our choice.

Determinism: everything is drawn from one ``numpy.random.default_rng(seed)``
in a fixed order, and the files are written with fixed formats, so the same
seed and parameters give byte-identical files.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from .measurement import Volume
from .writers import MAHIMAHI_OPPORTUNITY_BYTES, opportunities, write_capacity

#: Seconds past each minute at which Starlink reconfigures (15-s slots).
RECONFIGURATION_PHASES_S = (12, 27, 42, 57)
SLOT_S = 15
DELAY_INTERVAL_MS = 10
LOSS_INTERVAL_S = 1
GENERATOR = "satcp trace synth 1"  # bumped when the model changes: new traces, new runs


@dataclass(frozen=True)
class Params:
    duration_s: int = 120
    mean_mbps: float = 25.0
    capacity_min_mbps: float = 5.0
    capacity_max_mbps: float = 70.0
    level_min_mbps: float = 10.0
    level_max_mbps: float = 50.0
    step_ms: int = 100
    sigma: float = 0.5
    tau_s: float = 1.0
    delay_min_ms: float = 12.0
    delay_max_ms: float = 30.0
    drift_ms: float = 2.0
    loss_min: float = 0.001
    loss_max: float = 0.005
    outage_probability: float = 0.1
    outage_min_ms: int = 50
    outage_max_ms: int = 300

    def check(self) -> None:
        """Refuse parameters the model cannot use, naming the field."""
        def need(ok: bool, name: str, allowed: str) -> None:
            if not ok:
                raise ValueError(f"{name} = {getattr(self, name)!r}: expected {allowed}")

        need(self.duration_s >= SLOT_S, "duration_s", f"a whole number of seconds >= {SLOT_S}")
        need(0 < self.capacity_min_mbps < self.capacity_max_mbps, "capacity_min_mbps",
             "0 < capacity_min_mbps < capacity_max_mbps")
        need(0 < self.level_min_mbps <= self.level_max_mbps, "level_min_mbps", "0 < level_min_mbps <= level_max_mbps")
        need(self.capacity_min_mbps < self.mean_mbps < self.capacity_max_mbps, "mean_mbps",
             f"between capacity_min_mbps and capacity_max_mbps ({self.capacity_min_mbps:g}, "
             f"{self.capacity_max_mbps:g})")
        need(self.step_ms > 0 and 1000 % self.step_ms == 0, "step_ms", "a divisor of 1000 ms")
        need(self.sigma >= 0 and self.tau_s > 0, "sigma", "sigma >= 0 and tau_s > 0")
        need(0 < self.delay_min_ms <= self.delay_max_ms, "delay_min_ms", "0 < delay_min_ms <= delay_max_ms")
        need(0 <= self.drift_ms < self.delay_min_ms, "drift_ms", "0 <= drift_ms < delay_min_ms")
        need(0 <= self.loss_min <= self.loss_max < 1, "loss_min", "0 <= loss_min <= loss_max < 1")
        need(0 <= self.outage_probability <= 1, "outage_probability", "a probability in [0, 1]")
        need(0 < self.outage_min_ms <= self.outage_max_ms < SLOT_S * 1000, "outage_min_ms",
             "0 < outage_min_ms <= outage_max_ms < 15000")


@dataclass
class Trace:
    """What the model drew: the rate per step (bps), the one-way delay per
    10 ms (ms, NaN while down), the loss per second, the reconfiguration
    instants and the outages ((start_s, end_s) pairs)."""

    params: Params
    seed: int
    rate_bps: np.ndarray
    delay_ms: np.ndarray
    loss: np.ndarray
    reconfigurations_s: list[float]
    outages_s: list[tuple[float, float]] = field(default_factory=list)

    @property
    def target_mean_bps(self) -> float:
        return float(self.rate_bps.mean())


def reconfiguration_instants(duration_s: float) -> list[float]:
    """Every reconfiguration instant in [0, duration): 12, 27, 42, 57 s past
    each minute, trace time 0 being second 0 of a minute."""
    out = []
    minute = 0
    while minute * 60 < duration_s:
        out.extend(float(minute * 60 + p) for p in RECONFIGURATION_PHASES_S if minute * 60 + p < duration_s)
        minute += 1
    return out


def _slot_index(t_s: np.ndarray) -> np.ndarray:
    """The slot each time falls in: slot 0 is [0, 12), slot k >= 1 starts at
    the k-th reconfiguration instant (12 + 15 (k - 1))."""
    return np.where(t_s < 12, 0, np.floor((t_s - 12) / SLOT_S).astype(np.int64) + 1)


def _scale_to_mean(raw: np.ndarray, up: np.ndarray, lo: float, hi: float, target: float) -> np.ndarray:
    """clip(s x raw, lo, hi) x up with s such that its mean is ``target``
    (the mean is continuous and non-decreasing in s: bisection)."""
    def mean(s: float) -> float:
        return float((np.clip(s * raw, lo, hi) * up).mean())

    a, b = 1e-6, 1.0
    while mean(b) < target:
        b *= 2
        if b > 1e12:
            raise ValueError(f"mean {target / 1e6:g} Mb/s cannot be reached under the clip {hi / 1e6:g} Mb/s "
                             "with the outages drawn")
    for _ in range(200):
        m = 0.5 * (a + b)
        a, b = (m, b) if mean(m) < target else (a, m)
    return np.clip(b * raw, lo, hi) * up


def generate(seed: int, params: Params | None = None) -> Trace:
    """Draw a trace (everything from one generator seeded with ``seed``, in
    a fixed order: slots' levels, delays and drifts, outages, the capacity
    process, the losses)."""
    p = params or Params()
    p.check()
    rng = np.random.default_rng(seed)
    reconf = reconfiguration_instants(p.duration_s)
    n_slots = len(reconf) + 1
    level = np.exp(rng.uniform(math.log(p.level_min_mbps), math.log(p.level_max_mbps), n_slots)) * 1e6
    base = rng.uniform(p.delay_min_ms, p.delay_max_ms, n_slots)
    drift = rng.uniform(-p.drift_ms, p.drift_ms, n_slots)
    outages = []
    for t in reconf:
        if rng.random() < p.outage_probability:
            length_ms = int(rng.integers(p.outage_min_ms, p.outage_max_ms + 1))
            outages.append((t, min(float(p.duration_s), t + length_ms / 1e3)))

    # capacity per step: the slot's level x a log-normal AR(1) factor
    steps = p.duration_s * 1000 // p.step_ms
    rho = math.exp(-p.step_ms / 1e3 / p.tau_s)
    z = np.empty(steps)
    z[0] = rng.normal()
    shocks = rng.normal(size=steps)
    for i in range(1, steps):
        z[i] = rho * z[i - 1] + math.sqrt(1 - rho * rho) * shocks[i]
    t_step = np.arange(steps) * p.step_ms / 1e3
    raw = level[_slot_index(t_step)] * np.exp(p.sigma * z - p.sigma ** 2 / 2)
    # the fraction of each step the link is up (outages in whole ms)
    up = _up_ms(p.duration_s, outages).reshape(-1, p.step_ms).mean(axis=1)
    rate = _scale_to_mean(raw, up, p.capacity_min_mbps * 1e6, p.capacity_max_mbps * 1e6, p.mean_mbps * 1e6)

    # one-way delay per 10 ms: the slot's base plus its linear drift
    lines = p.duration_s * 1000 // DELAY_INTERVAL_MS
    t_line = np.arange(lines) * DELAY_INTERVAL_MS / 1e3
    slot = _slot_index(t_line)
    starts = np.concatenate([[0.0], reconf])
    ends = np.concatenate([reconf, [float(p.duration_s)]])
    frac = (t_line - starts[slot]) / (ends[slot] - starts[slot])
    delay = np.round(base[slot] + drift[slot] * frac, 2)
    for a, b in outages:
        # a line is down when its interval overlaps the outage
        delay[(t_line + DELAY_INTERVAL_MS / 1e3 > a) & (t_line < b)] = np.nan

    loss = np.round(rng.uniform(p.loss_min, p.loss_max, p.duration_s // LOSS_INTERVAL_S), 6)
    return Trace(p, seed, rate, delay, loss, reconf, outages)


def _up_ms(duration_s: int, outages: list[tuple[float, float]]) -> np.ndarray:
    """1 for each millisecond the link is up, 0 in an outage (an outage
    [a, b) takes the milliseconds [a, b), its ends rounded to whole ms)."""
    up = np.ones(duration_s * 1000)
    for a, b in outages:
        up[int(round(a * 1e3)):int(round(b * 1e3))] = 0.0
    return up


def up_per_ms(trace: Trace) -> np.ndarray:
    return _up_ms(trace.params.duration_s, trace.outages_s)


def per_ms_volume(trace: Trace) -> Volume:
    """The capacity as bytes per millisecond: each step's rate (the clipped,
    scaled level, outages left out) in the milliseconds the link is up, none
    in an outage, so no opportunity falls inside one. Its total is the
    rate series' (whose steps hold the up fraction's share)."""
    p = trace.params
    up = up_per_ms(trace)
    frac = up.reshape(-1, p.step_ms).mean(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        level = np.where(frac > 0, trace.rate_bps / np.maximum(frac, 1e-12), 0.0)
    per_ms = np.repeat(level, p.step_ms) * up * 1e-3 / 8
    starts = np.arange(len(per_ms)) / 1e3
    return Volume(starts, starts + 1e-3, per_ms)


def write(trace: Trace, out: Path) -> dict[str, Path]:
    """The trace's files in ``out`` (created): bw.txt, delay.txt, loss.txt,
    synth.json. Returns their paths by name."""
    out.mkdir(parents=True, exist_ok=True)
    stamps = opportunities(per_ms_volume(trace), MAHIMAHI_OPPORTUNITY_BYTES)
    paths = {"capacity": out / "bw.txt", "delay": out / "delay.txt", "loss": out / "loss.txt",
             "meta": out / "synth.json"}
    write_capacity(paths["capacity"], stamps)
    paths["delay"].write_text("\n".join("down" if math.isnan(v) else f"{v:.2f}" for v in trace.delay_ms) + "\n",
                              encoding="ascii")
    paths["loss"].write_text("\n".join(f"{v:.6f}" for v in trace.loss) + "\n", encoding="ascii")
    meta = {
        "generator": GENERATOR,
        "synthetic": True,
        "note": "synthetic Starlink-like trace drawn by satcp's model (python/satcp/traces/synthetic.py), "
                "not a measurement",
        "seed": trace.seed,
        "params": asdict(trace.params),
        "target_mean_bps": trace.target_mean_bps,
        "trace_mean_bps": len(stamps) * MAHIMAHI_OPPORTUNITY_BYTES * 8 / (int(stamps[-1]) / 1e3),
        "opportunities": int(len(stamps)),
        "delay_interval_ms": DELAY_INTERVAL_MS,
        "loss_interval_s": LOSS_INTERVAL_S,
        "reconfigurations_s": trace.reconfigurations_s,
        "outages_s": [list(o) for o in trace.outages_s],
    }
    paths["meta"].write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n", encoding="ascii")
    return paths


def synthesize(seed: int, out: Path, params: Params | None = None) -> dict[str, Path]:
    """:func:`generate` then :func:`write`."""
    return write(generate(seed, params), out)


def cached(seed: int, cache: Path, params: Params | None = None) -> Path:
    """The trace of ``seed`` and ``params`` in a directory of ``cache``
    named by them (made once; a directory already holding its
    ``synth.json`` is taken as it is: the files are a function of its name).
    Written under a temporary name and renamed, so a reader never sees a
    half-written directory."""
    p = params or Params()
    import hashlib

    tag = hashlib.sha256(json.dumps([GENERATOR, seed, asdict(p)], sort_keys=True).encode()).hexdigest()[:12]
    d = cache / f"starlink-synth-seed{seed}-{p.duration_s}s-{tag}"
    if (d / "synth.json").is_file():
        return d
    import os
    import tempfile

    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=d.name + ".", dir=cache))
    synthesize(seed, tmp, p)
    try:
        os.replace(tmp, d)
    except OSError:  # another process made it first: same files
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return d
