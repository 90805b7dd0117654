"""The study kit: what every reproduction shares, and nothing of any one of
them (no module here imports a study).

* ``study``: the :class:`~.study.Study` record a study's package exposes
  as ``STUDY`` (name, title, the TCP profile of the simulator its source
  used and why, replications, extra options, peers) and the
  :class:`~.study.Context` its parts are handed;
* ``command``: the one :func:`~.command.reproduce` that runs any study;
* ``catalogue``: experiments written as platform sweeps;
* ``runner``: runs a catalogue through the store and the pool, resumes;
* ``data``: the one door to a study's data: the store's tables for its
  runs, and deterministic re-runs of stored runs for time series;
* ``claims``: the one :class:`~.claims.Claim` and :class:`~.claims.Verdict`
  every report prints;
* ``document``: the report, written once as HTML and Markdown;
* ``figures``: what every study's figures draw with (intervals that stay
  within what the runs can be, axes with units, the profile in the legend).

``study`` imports nothing heavy at module level: the command's help lists
the studies without loading pandas.
"""
