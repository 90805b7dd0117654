"""Reproductions of published results: ``satcp reproduce NAME``.

A reproduction is a catalogue of experiments (platform sweeps), the
paper's published numbers and claims (``data/published/``), and a report
that sets our measurements beside them with computed verdicts. Modules:
``catalogue`` (experiments as sweeps), ``adalr`` (the TCP-ADaLR thesis'
experiments and recipes), ``observations`` (metrics from the store),
``published`` (the paper's numbers), ``claims`` (claims and verdicts),
``transat``, ``transat_results`` and ``transat_report`` (the TRANSAT study:
experiments, statistics and claims, report and command),
``peach`` and ``peach_report`` (the Modified Peach study: experiments,
ns-2 baselines, statistics and claims; report and command),
``ceten`` and ``ceten_report`` (the CETEN-R thesis' factorial study:
experiments, tables, ANOVA and claims; report and command),
``xfwa`` and ``xfwa_report`` (the XFWA study: experiments, metrics, ns-2
runs and claims; report and command), ``leo_geo`` and ``leo_geo_report``
(an experiment beyond the papers: TCP over a LEO constellation against
GEO; report and command), ``compare`` (ours beside the paper's), ``figures``, ``report``, ``runner``
and ``main`` (the command).
"""

from __future__ import annotations

REPRODUCTIONS = ("adalr", "transat", "peach", "ceten", "xfwa", "leo-geo")

#: The TCP behaviour profile (``tcp.profile``) each reproduction declares:
#: the simulator its paper used, and what that means here.
PROFILES = {
    "adalr": ("rfc", "the thesis ran OPNET Modeler, which has no profile of its own: profile rfc with every "
                     "Table 7.4 parameter written out and cwnd_validation = \"off\" (OPNET's TCP lists none; the "
                     "thesis' numbers fit without it)"),
    "transat": ("ns2-2003", "the paper ran the ns-2 of 2003: one-way agents without SYN or FIN, NewReno's timer "
                            "restarted by every partial ACK, 1 s minimum RTO; elapsed time to the sender's last ACK "
                            "(ns-2 2.35 run the same way gives the paper's Table 1)"),
    "peach": ("ns2", "the paper ran ns-2 (version not given): ns-2 2.35's agent defaults, no delayed ACK, "
                     "windowInit_ 2 for the baselines and one segment for Peach"),
    "ceten": ("rfc", "the thesis ran OPNET 10.0, which has no profile of its own: profile rfc with OPNET's TCP "
                     "defaults written out (as the ADaLR reproduction reads them: RTO in [1 s, 64 s], 3 s initial, "
                     "0.5 s granularity, delayed ACK 200 ms / 2 segments) and cwnd_validation = \"off\""),
    "leo-geo": ("rfc", "an experiment of our own, no paper's simulator to follow: the default profile, each variant "
                       "as its RFC or paper states it, SACK where the variant uses it"),
    "xfwa": ("ns2", "the paper ran ns-2 (version 2): ns-2 2.35's NewReno agent defaults with 1000-byte segments "
                    "and a window that never limits (the paper gives none; ns-2's default of 20 would cap plain "
                    "TCP below its buffer)"),
}
