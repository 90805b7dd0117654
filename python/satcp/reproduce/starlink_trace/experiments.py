"""The starlink-trace study's experiments: a bulk download over a
Starlink-like trace-driven access link, six congestion controllers under
three queue disciplines, replicated over traces and start offsets into
them.

Network: ``scenarios/starlink/study-starlink.toml`` (server, 1 Gb/s 5 ms
to the PoP, the trace-driven link to the dish: downlink capacity and loss
from the trace, uplink 10 Mb/s, one-way delay from the trace both ways,
150-packet queues), TCP profile ``linux``.

Experiments, one per queue discipline on the Starlink link (both
directions), each 150 packets:

* ``droptail``: drop-tail;
* ``dropfront``: drop-front (head drop), which a 2026 measurement study
  reports of Starlink's access buffers;
* ``fq_codel_ecn``: FQ-CoDel (Linux's defaults: 1,024 flows, quantum 1,514,
  target 5 ms, interval 100 ms) marking ECN, and the flow with
  ``tcp.ecn = true``.

Arms: NewReno, CUBIC, BBR v1, BBRv3, Hybla and Westwood+ (the research
controller), each on SACK recovery (RACK, PRR: the ``linux`` profile's), as
Linux runs every congestion-control module once SACK is negotiated. The
``newreno`` and ``westwood`` presets pair their controllers with NewReno
recovery, which no Linux host runs: with it, NewReno's window inflation
over a receive window Linux autotunes to 20 MB put 7.8 MB in flight over
a 150-packet queue and 4,000-13,000 retransmissions into 4 of 30 runs. Factors: ``trace`` (the trace's label; its files and the
experiment's queue make the link table) and ``offset_s`` (the transfer
starts at that second of trace time and stops writing ``TRANSFER_S``
later: 60 s, 20 s with ``--quick``). Offsets: 0, 54, ..., 486 s (10; 54 s
is 9 s past a 15-s cycle, so the starts fall at five phases of it, each
twice); ``--quick``: 0, 54 and 108 s. The synthetic traces last 600 s, so
every full transfer lies within one period of its trace; a shorter
measured trace repeats.
"""

from __future__ import annotations

from typing import Any, Callable

from ..kit.catalogue import Arm, Experiment, Factor
from . import traces as tr

BASE = "scenarios/starlink/study-starlink.toml"
LINK = "starlink"
FLOW = "download"
VARIANTS = ("newreno", "cubic", "bbr", "bbr3", "hybla", "westwood")
NAMES = {"newreno": "NewReno", "cubic": "CUBIC", "bbr": "BBR v1", "bbr3": "BBRv3", "hybla": "Hybla",
         "westwood": "Westwood+"}
QUEUE_PACKETS = 150
QUEUES: dict[str, tuple[str, dict[str, Any], bool]] = {
    # id: (title, the queue table, the flow's tcp.ecn)
    "droptail": ("drop-tail", {"kind": "droptail", "packets": QUEUE_PACKETS}, False),
    "dropfront": ("drop-front", {"kind": "dropfront", "packets": QUEUE_PACKETS}, False),
    "fq_codel_ecn": ("FQ-CoDel with ECN", {"kind": "fq_codel", "packets": QUEUE_PACKETS, "flows": 1024,
                                           "quantum": 1514, "target": "5ms", "interval": "100ms", "ecn": True},
                     True),
}
OFFSETS_S = tuple(54 * k for k in range(10))
QUICK_OFFSETS_S = (0, 54, 108)
TRANSFER_S = 60
QUICK_TRANSFER_S = 20


def transfer_s(quick: bool) -> int:
    return QUICK_TRANSFER_S if quick else TRANSFER_S


def _link_table(trace: tr.TraceSet, queue: dict[str, Any]) -> dict[str, Any]:
    return {"name": LINK, "a": "pop", "b": "dish", "rate_ba": "10Mbps", **trace.link_keys(), "queue": dict(queue)}


def _link_encoder(sets: dict[str, tr.TraceSet], queue: dict[str, Any]) -> Callable[[str], dict[str, Any]]:
    return lambda label: _link_table(sets[label], queue)


def _app_encoder(duration_s: int) -> Callable[[int], dict[str, Any]]:
    return lambda off: {"kind": "ftp", "start": f"{off}s", "stop": f"{off + duration_s}s"}


def experiments(quick: bool, sets: list[tr.TraceSet]) -> list[Experiment]:
    by_label = {s.label: s for s in sets}
    labels = tuple(by_label)
    arms = tuple(Arm(v, {f"flows.{FLOW}.tcp.variant": v, f"flows.{FLOW}.tcp.recovery": "sack"}, {FLOW: v})
                 for v in VARIANTS)
    out = []
    for qid, (title, queue, ecn) in QUEUES.items():
        factors = (Factor("trace", f"links.{LINK}", labels, labels, encode=_link_encoder(by_label, queue)),
                   Factor("offset_s", f"flows.{FLOW}.app", OFFSETS_S, QUICK_OFFSETS_S,
                          encode=_app_encoder(transfer_s(quick))))
        out.append(Experiment(qid, f"six controllers over the traces, {title} queue", BASE, "ftp", arms, factors,
                              settings={f"flows.{FLOW}.tcp.ecn": ecn}, link=LINK))
    return out


def catalogue(quick: bool, traces: str | None = None) -> list[Experiment]:
    """The experiments over the synthetic traces (made into the cache if
    missing) or the user's ``--traces DIR``."""
    return experiments(quick, tr.trace_sets(quick, traces))
