"""An experiment of our own: QUIC (quinn-proto on simulated time) against
TCP on a GEO bent pipe and across the Starlink shell, ``satcp reproduce
quic-geo``
(docs/reproduce-quic-geo.md).

Modules: ``experiments`` (two GEO paths and a Starlink path, QUIC and TCP arms with the same
controllers and initial windows, bulk transfers, HTTP pages and QUIC's
flow-control window as sweeps), ``results`` (observations from the store's
flow rows, means with intervals, the findings), ``figures``, ``report``.
"""

from __future__ import annotations

from ..kit.study import Profile, Study
from .experiments import QUICK_SEEDS, SEEDS

STUDY = Study(
    name="quic-geo",
    title="QUIC against TCP over a GEO bent pipe and the Starlink shell, an experiment of our own",
    profile=Profile("linux", "an experiment of our own, no paper's simulator to follow: TCP as Linux runs it (SACK "
                             "with RACK, TLP and PRR, IW 10), the TCP a QUIC stack is compared with in practice and "
                             "the one whose loss detection RFC 9002 follows; QUIC is quinn-proto 0.11.19"),
    replications=f"the quic-geo study's replications are {SEEDS} seeds ({QUICK_SEEDS} with --quick)",
    package=__name__,
)
