"""The CETEN-R thesis (Carroll, AFIT 2004, OPNET) reproduced:
``satcp reproduce ceten`` (docs/reproduce-ceten.md).

Modules: ``experiments`` (the thesis' factorial design and the
calibration, as sweeps), ``results`` (observations from the store, the
rows beside the thesis', the ANOVA, the claims), ``report``.
"""

from __future__ import annotations

from ..kit.study import Profile, Study
from .experiments import LEVEL, REPLICATIONS

STUDY = Study(
    name="ceten",
    title="the CETEN-R thesis (Carroll 2004, OPNET): its factorial study, ANOVA and findings",
    profile=Profile("rfc", "the thesis ran OPNET 10.0, which has no profile of its own: profile rfc with OPNET's "
                           "TCP defaults written out (as the ADaLR reproduction reads them: RTO in [1 s, 64 s], 3 s "
                           "initial, 0.5 s granularity, delayed ACK 200 ms / 2 segments) and cwnd_validation = "
                           "\"off\""),
    replications=f"the CETEN-R study has the thesis' {REPLICATIONS} replications per cell",
    package=__name__,
    level=LEVEL,
)
