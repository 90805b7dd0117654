"""The Modified Peach study's experiments (Sarkar, Shukla, Dasgupta,
"Modified TCP Peach Protocol for Satellite based Networks", section 4;
spec ``/work/shared/specs/003-modified-peach.md``) as platform sweeps.

The network is ``scenarios/peach/ten_flows.toml`` (every choice in its
header): ten FTP flows, 500 kb/s access links, a 5 Mb/s satellite link with
550 ms between the earth stations, a 25-packet buffer, rwnd 64 segments,
PER 0.001, 0.01 and 0.1 on the satellite link, 550 s, profile ``ns2``.

Arms: the paper's eight variants (Tahoe, Reno, NewReno, SACK, FACK,
Vegas, Westwood, Modified Peach) and the unmodified Peach; a second
experiment (``readings``) runs the spec's other readings of Peach at the
same PERs: the latch cleared by the first ACK covering the retransmission
(reading A), the literal "every three duplicate ACKs" halving, GTNetS's
dummy-drop rule on the access queues, no window inflation in Rapid
Recovery, Rapid-Recovery dummies on the timer; a third (``baselines``)
runs a baseline on the recovery ns-2's agent uses.
"""

from __future__ import annotations

from typing import Any

from ..kit.catalogue import Arm, Experiment, Factor

BASE = "scenarios/peach/ten_flows.toml"

VARIANTS = ("tahoe", "reno", "newreno", "sack", "fack", "vegas", "westwood", "modified-peach", "peach")
#: The paper's eight (it plots no unmodified Peach: "all the eight TCP variants").
PAPER_EIGHT = VARIANTS[:8]
NAMES = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "sack": "SACK", "fack": "FACK", "vegas": "Vegas",
         "westwood": "Westwood", "modified-peach": "Modified Peach", "peach": "Peach"}
#: The baselines ns-2 2.35 ships, by satcp variant.
NS2_AGENTS = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "Newreno", "sack": "Sack1", "fack": "Fack",
              "vegas": "Vegas"}
PERS = (0.001, 0.01, 0.1)
FLOWS = tuple(f"f{i}" for i in range(10))
MSS = 1000
STOP_S = 550.0
SAMPLE_S = 5.0
REPLICATIONS = 10
QUICK_REPLICATIONS = 3
#: Replications per variant and PER run again for the figures' time series.
FIGURE_SEEDS = 3
QUICK_FIGURE_SEEDS = 1

#: The other readings of Peach (spec 003 section 10), each on the three PERs.
READINGS = {
    "mp_latch_retx": ("Modified Peach, latch cleared by the ACK of the retransmission (A1 reading A)",
                      "modified-peach", {"peach_latch": "retransmission"}),
    "peach_every3": ("Peach halving on every third duplicate ACK (A4, the literal reading)",
                     "peach", {"peach_rehalve": "every_dupthresh"}),
    "mp_gtnets": ("Modified Peach, GTNetS's dummy-drop rule on the access queues (C15, Q3)",
                  "modified-peach", {}),
    "mp_no_inflation": ("Modified Peach, no window inflation in Rapid Recovery (A5)",
                        "modified-peach", {"peach_inflation": False}),
    "mp_timer_dummies": ("Modified Peach, Rapid-Recovery dummies every RTT/rwnd (B9)",
                         "modified-peach", {"peach_recovery_clock": "timer"}),
}

#: Baselines once more on another recovery, where ns-2's agent repairs
#: differently from the preset (compared with ns-2's agent).
BASELINE_READINGS = {
    "vegas_reno": ("Vegas on Reno recovery (ns-2's Agent/TCP/Vegas leaves recovery on the first new ACK)",
                   "vegas", {"recovery": "reno"}),
}


def _tcp(variant: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    keys = {"variant": variant, "sack": variant in ("sack", "fack"), **(extra or {})}
    return {f"flows.{f}.tcp.{k}": v for f in FLOWS for k, v in keys.items()}


def _per_factor() -> Factor:
    return Factor("per", "links.satellite.errors_ab.per", PERS, PERS)


def experiments() -> list[Experiment]:
    arms = tuple(Arm(v, _tcp(v), {f: v for f in FLOWS}) for v in VARIANTS)
    reading_arms = []
    for label, (_, variant, extra) in READINGS.items():
        s = _tcp(variant, extra)
        if label == "mp_gtnets":
            s.update({f"links.up{i}.queue_ab.dummy_drop": "queued" for i in range(len(FLOWS))})
        reading_arms.append(Arm(label, s, {f: variant for f in FLOWS}))
    baseline_arms = tuple(Arm(label, _tcp(v, extra), {f: v for f in FLOWS})
                          for label, (_, v, extra) in BASELINE_READINGS.items())
    return [
        Experiment("per", "Ten flows, PER 0.001 / 0.01 / 0.1 (Figs. 3-5)", BASE, "ftp", arms, (_per_factor(),),
                   replications=REPLICATIONS, quick_replications=QUICK_REPLICATIONS, figures=("3", "4", "5")),
        Experiment("readings", "Peach's other readings (spec 003 section 10)", BASE, "ftp", tuple(reading_arms),
                   (_per_factor(),), replications=REPLICATIONS, quick_replications=QUICK_REPLICATIONS),
        Experiment("baselines", "Baselines on the recovery ns-2's agent uses", BASE, "ftp", baseline_arms,
                   (_per_factor(),), replications=REPLICATIONS, quick_replications=QUICK_REPLICATIONS),
    ]


def catalogue(quick: bool) -> list[Experiment]:
    """Every experiment; ``--quick`` runs fewer replications of the same."""
    return experiments()
