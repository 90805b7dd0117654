"""An experiment of our own: split-TCP performance-enhancing proxies (RFC
3135) against end-to-end transport on a GEO bent pipe and the TRANSAT path,
``satcp reproduce pep`` (docs/reproduce-pep.md).

Modules: ``experiments`` (end to end, one PEP at the gateway, a PEP pair
with a Hybla or the flow's own controller on the satellite leg; TCP
variants and QUIC; bulk transfers and HTTP pages over PER levels; the
PEP's memory pool with six concurrent downloads), ``results`` (observations
from the store's runs, the PEPs' legs from the run summaries, means with
intervals, the findings), ``figures``, ``report``.
"""

from __future__ import annotations

from ..kit.study import Profile, Study
from .experiments import QUICK_SEEDS, SEEDS

STUDY = Study(
    name="pep",
    title="Split-TCP PEPs against end-to-end transport over GEO, an experiment of our own",
    profile=Profile("linux", "an experiment of our own, no paper's simulator to follow: TCP as Linux runs it (SACK "
                             "with RACK, TLP and PRR, IW 10), the stack PEPsal and the hosts behind a commercial "
                             "PEP run; the PEPs' own ends run the same profile; QUIC is quinn-proto 0.11.19"),
    replications=f"the pep study's replications are {SEEDS} seeds ({QUICK_SEEDS} with --quick)",
    package=__name__,
)
