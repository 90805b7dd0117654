"""The TRANSAT study (Astuti & Kojo, ns-2 of 2003) reproduced:
``satcp reproduce transat`` (docs/reproduce-transat.md).

Modules: ``experiments`` (every configuration the paper compares, as
sweeps), ``results`` (observations from the store, the paper's statistics
per table cell, its claims), ``figures`` (the sequence-number figures
redrawn from captured runs, with their claims), ``report``.
"""

from __future__ import annotations

from ..kit.study import Profile, Study
from .experiments import QUICK_REPLICATIONS, REPLICATIONS

STUDY = Study(
    name="transat",
    title="the TRANSAT study (Astuti & Kojo, ns-2): Tables 1-14 and the paper's claims",
    profile=Profile("ns2-2003", "the paper ran the ns-2 of 2003: one-way agents without SYN or FIN, NewReno's "
                                "timer restarted by every partial ACK, 1 s minimum RTO; elapsed time to the "
                                "sender's last ACK (ns-2 2.35 run the same way gives the paper's Table 1)"),
    replications=f"the TRANSAT study has {REPLICATIONS} replications per cell ({QUICK_REPLICATIONS} with --quick)",
    package=__name__,
)
