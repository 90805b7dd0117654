"""The Modified Peach study (Sarkar, Shukla, Dasgupta; ns-2) reproduced,
ns-2 2.35 beside it: ``satcp reproduce peach`` (docs/reproduce-peach.md).

Modules: ``experiments`` (the paper's variants and the spec's other
readings of Peach, as sweeps), ``ns2`` (ns-2's runs of the baselines),
``results`` (observations from the store, the cells, the claims),
``figures`` (Figs. 3-5 and their curves), ``report``.
"""

from __future__ import annotations

from ..kit.study import Profile, Study
from .experiments import QUICK_REPLICATIONS, REPLICATIONS

STUDY = Study(
    name="peach",
    title="the Modified Peach study (Sarkar, Shukla, Dasgupta): Figs. 3-5 with ns-2 beside",
    profile=Profile("ns2", "the paper ran ns-2 (version not given): ns-2 2.35's agent defaults, no delayed ACK, "
                           "windowInit_ 2 for the baselines and one segment for Peach"),
    replications=f"the Modified Peach study has {REPLICATIONS} replications per cell ({QUICK_REPLICATIONS} with "
                 "--quick)",
    package=__name__,
    peers=("ns-2",),
)
