"""The XFWA study (Taleb, Kato and Nemoto, IEEE JSAC 2003) reproduced,
ns-2 2.35 beside it: ``satcp reproduce xfwa`` (docs/reproduce-xfwa.md).

Modules: ``experiments`` (the paper's experiments as sweeps), ``ns2``
(ns-2's plain NewReno on scenario A), ``results`` (observations from the
store, the cells, the re-runs, the claims), ``figures``, ``report``.
"""

from __future__ import annotations

from ..kit.study import Profile, Study
from .experiments import QUICK_REPLICATIONS, REPLICATIONS

STUDY = Study(
    name="xfwa",
    title="XFWA (Taleb, Kato and Nemoto, IEEE JSAC 2003): its figures and claims, ns-2 beside",
    profile=Profile("ns2", "the paper ran ns-2 (version 2): ns-2 2.35's NewReno agent defaults with 1000-byte "
                           "segments and a window that never limits (the paper gives none; ns-2's default of 20 "
                           "would cap plain TCP below its buffer)"),
    replications=f"the XFWA study has {REPLICATIONS} replications per cell ({QUICK_REPLICATIONS} with --quick)",
    package=__name__,
    peers=("ns-2",),
)
