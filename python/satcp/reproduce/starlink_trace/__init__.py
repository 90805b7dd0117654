"""An experiment of our own: TCP over Starlink-like trace-driven links,
``satcp reproduce starlink-trace`` (docs/reproduce-starlink-trace.md).

Modules: ``traces`` (which traces the study runs on: SYNTHETIC ones drawn
by ``satcp.traces.synthetic``, or the user's own with ``--traces DIR``),
``experiments`` (three queue disciplines x six controllers x trace seeds
and offsets, as sweeps), ``results`` (observations from the store and from
sampled re-runs: goodput, RTT inflation, retransmissions, timeouts at the
reconfigurations; intervals over trace offsets; the findings),
``figures``, ``report``.
"""

from __future__ import annotations

from ..kit.study import Option, Profile, Study

STUDY = Study(
    name="starlink-trace",
    title="Six TCP controllers and three queues over synthetic or measured Starlink traces, an experiment of our "
          "own",
    profile=Profile("linux", "an experiment of our own about the stacks Starlink users run: Linux's defaults "
                             "(F-RTO, so spurious timeouts are found; timestamps; RACK, TLP), as LeoReplayer "
                             "replays traces under the Linux kernel"),
    replications="the starlink-trace study's replications are trace seeds x start offsets into each trace "
                 "(3 x 10; 1 x 3 with --quick; with --traces, offsets into the given trace)",
    package=__name__,
    options=(Option("--traces", "traces", str, "DIR",
                    "run on the traces in DIR (bw.txt: Mahimahi capacity, required; delay.txt: one-way ms per "
                    "10 ms; loss.txt: a probability per second; or a link.toml naming them as `satcp trace "
                    "import --relative-to DIR` prints; measured.csv is drawn beside the runs) instead of the "
                    "synthetic ones"),),
)
