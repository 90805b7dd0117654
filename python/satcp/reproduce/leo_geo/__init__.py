"""An experiment beyond the papers: TCP between two cities over a LEO
constellation against the same transfer over a GEO bent pipe,
``satcp reproduce leo-geo`` (docs/reproduce-leo-geo.md).

Modules: ``experiments`` (the two paths, five variants, sizes and start
times as sweeps), ``results`` (observations from the store's tables, the
means, the findings), ``figures``, ``report``.
"""

from __future__ import annotations

from ..kit.study import Profile, Study
from .experiments import QUICK_STARTS_S, STARTS_S

STUDY = Study(
    name="leo-geo",
    title="TCP over a Starlink shell against GEO, an experiment beyond the papers",
    profile=Profile("rfc", "an experiment of our own, no paper's simulator to follow: the default profile, each "
                           "variant as its RFC or paper states it, SACK where the variant uses it"),
    replications=f"the leo-geo study's replications are {len(STARTS_S)} start times ({len(QUICK_STARTS_S)} with "
                 "--quick)",
    package=__name__,
)
