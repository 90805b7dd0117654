"""The leo-geo study's experiments: TCP between two cities over a LEO
constellation against the same transfer over a GEO bent pipe, an
experiment beyond the papers.

Networks (every choice in their headers): ``scenarios/leo/study-leo.toml``
(Paris to New York over one Starlink shell with +Grid ISLs, 100 Mb/s
ground links, satellites reassigned at 12, 27, 42 and 57 s past each
minute, a new satellite at every epoch, what is on a ground link lost at a
handover) and ``scenarios/leo/study-geo.toml`` (the same cities through one
geostationary bent pipe at 100 Mb/s, RTT 500 ms). Both queues hold about
one bandwidth-delay product.

Experiments: ``leo`` and ``geo``, each NewReno, SACK, CUBIC, BBR and Hybla
(arms) x transfers of 1, 10 and 100 MB (1 and 10 MB with ``--quick``).
Replications are start times spread over one 15-second reassignment cycle
(2 s, 3.5 s, ... 15.5 s: 10), so each transfer meets the constellation and
the reassignment at 12 s at a different phase; ``--quick`` takes 9.5, 10.5
and 11.5 s, which the reassignment at 12 s catches in most transfers. The
GEO runs take the same start times. Means with 95% Student-t intervals over them.

Metrics per run: completion time (first SYN to the last byte delivered),
goodput (size over completion time), retransmissions, retransmission
timeouts, spurious timeouts (undone by the timestamps or F-RTO check), and
for LEO the station handovers during the transfer and the packets lost on
ground links taken away (``drops.down``).
"""

from __future__ import annotations

from ..kit.catalogue import Arm, Experiment, Factor

LEO = "scenarios/leo/study-leo.toml"
GEO = "scenarios/leo/study-geo.toml"
VARIANTS = ("newreno", "sack", "cubic", "bbr", "hybla")
NAMES = {"newreno": "NewReno", "sack": "SACK", "cubic": "CUBIC", "bbr": "BBR", "hybla": "Hybla"}
SIZES_MB = (1, 10, 100)
QUICK_SIZES_MB = (1, 10)
STARTS_S = tuple(2 + 1.5 * k for k in range(10))
QUICK_STARTS_S = (9.5, 10.5, 11.5)


def experiments() -> list[Experiment]:
    factors = (Factor("size_mb", "flows.transfer.app.size", SIZES_MB, QUICK_SIZES_MB, encode=lambda v: f"{v}MB"),
               Factor("start_s", "flows.transfer.app.start", STARTS_S, QUICK_STARTS_S, encode=lambda v: f"{v:g}s"))
    arms = tuple(Arm(v, {"flows.transfer.tcp.variant": v}, {"transfer": v}) for v in VARIANTS)
    return [Experiment(path, f"Paris to New York over {path.upper()}", base, "ftp", arms, factors)
            for path, base in (("leo", LEO), ("geo", GEO))]


def catalogue(quick: bool) -> list[Experiment]:
    return experiments()
