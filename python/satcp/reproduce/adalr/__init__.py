"""The TCP-ADaLR thesis (Omueti, SFU 2007, OPNET) reproduced:
``satcp reproduce adalr`` (docs/reproduce-adalr.md).

Modules: ``experiments`` (the thesis' experiments as sweeps, its recipes),
``published`` (the thesis' numbers), ``results`` (observations from the
store; the analysis), ``claims`` (the claims file and how a claim is
judged), ``compare`` (ours beside the thesis'), ``figures``, ``report``.
"""

from __future__ import annotations

from ..kit.study import Option, Profile, Study
from .experiments import BER_SEEDS, BER_SEEDS_QUICK

STUDY = Study(
    name="adalr",
    title="the TCP-ADaLR thesis (Omueti 2007, OPNET): every table and claim",
    profile=Profile("rfc", "the thesis ran OPNET Modeler, which has no profile of its own: profile rfc with every "
                           "Table 7.4 parameter written out and cwnd_validation = \"off\" (OPNET's TCP lists none; "
                           "the thesis' numbers fit without it)"),
    replications=f"the ADaLR study's BER experiments have {BER_SEEDS} seeds per cell ({BER_SEEDS_QUICK} with --quick)",
    package=__name__,
    options=(Option("--seeds", "seeds", int, "N", f"seeds per cell of the BER experiments (default: the thesis' "
                                                  f"{BER_SEEDS}; {BER_SEEDS_QUICK} with --quick)"),),
)
