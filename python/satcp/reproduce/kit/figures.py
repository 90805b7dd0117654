"""What every study's figures draw with, so that a reader can trust them.

* **The runs, and an interval that stays within them.** A mean over a few
  runs is drawn with the runs themselves as points beside it and a
  percentile bootstrap interval of the mean (:func:`bootstrap_interval`):
  its ends are means of resampled runs, so they lie between the smallest
  and the largest run and cannot cross a bound every run respects (a
  completion time, a goodput, a utilisation). A Student-t interval over
  three runs can: the leo-geo figure once drew a completion time below
  zero. The resampling is seeded, so a figure is the same every time.
  Tables keep their Student-t intervals (their numbers are the studies'
  published comparisons); only the figures draw these.
* **Axes with units**: :func:`axis_label` writes "quantity (unit)".
* **Legends that name the profile**: :func:`legend` titles every legend
  with the TCP profile the runs used (``satcp, profile ns2``), so a figure
  cut out of its report still says which behaviour it shows.

:data:`INTERVAL_NOTE` is what a caption says about the intervals.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

#: The bootstrap interval's level, resamples and seed.
LEVEL = 0.95
RESAMPLES = 2000
SEED = 1

INTERVAL_NOTE = (f"points: each run; marker and bar: the mean and its {LEVEL:.0%} percentile bootstrap interval "
                 f"({RESAMPLES:,} resamples of the runs), which stays within the runs")


def bootstrap_interval(x: Sequence[float], level: float = LEVEL) -> tuple[float, float, float]:
    """(mean, low, high) of the runs ``x`` (NaNs left out): the percentile
    bootstrap interval of the mean, seeded; one run gives no interval (its
    value thrice), none gives NaNs."""
    v = np.asarray(x, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return math.nan, math.nan, math.nan
    mean = float(v.mean())
    if v.size == 1:
        return mean, mean, mean
    idx = np.random.default_rng(SEED).integers(0, v.size, size=(RESAMPLES, v.size))
    lo, hi = np.quantile(v[idx].mean(axis=1), [(1 - level) / 2, (1 + level) / 2])
    # the quantiles of resampled means are means of runs: within [min, max]
    # (and around the mean, to within rounding)
    return mean, float(min(max(lo, v.min()), mean)), float(max(min(hi, v.max()), mean))


def runs_and_mean(ax, x: float, runs: Sequence[float], *, color: Any = None, label: str | None = None,
                  marker: str = "o", spread: float = 0.0) -> None:
    """At ``x``: every run as a small hollow point (spread over
    ``spread`` to either side, evenly, when there are several) and the
    mean as a filled marker with its bootstrap interval."""
    v = np.asarray(runs, dtype=float)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return
    xs = np.full(v.size, float(x)) if v.size == 1 or not spread else np.linspace(x - spread, x + spread, v.size)
    ax.plot(xs, v, ls="none", marker=marker, ms=3.5, mfc="none", mec=color, alpha=0.6)
    mean, lo, hi = bootstrap_interval(v)
    ax.errorbar([x], [mean], yerr=[[mean - lo], [hi - mean]], fmt=marker, color=color, ms=6, capsize=3, label=label)


def means_with_intervals(ax, xs: Sequence[float], runs: Sequence[Sequence[float]], *, color: Any = None,
                         ls: str = "-", label: str | None = None, marker: str = "o") -> None:
    """A line through the means at ``xs`` (one list of runs per x), each
    mean with its bootstrap interval and its runs as points."""
    stats = [bootstrap_interval(r) for r in runs]
    mean = np.array([s[0] for s in stats])
    err = np.array([[s[0] - s[1] for s in stats], [s[2] - s[0] for s in stats]])
    for x, r in zip(xs, runs):
        v = np.asarray(r, dtype=float)
        ax.plot(np.full(v.size, x), v, ls="none", marker=marker, ms=3, mfc="none", mec=color, alpha=0.5)
    ax.errorbar(xs, mean, yerr=np.nan_to_num(err), marker=marker, capsize=3, color=color, ls=ls, label=label)


def axis_label(quantity: str, unit: str | None = None) -> str:
    """``quantity (unit)``; a quantity without a unit (an index, a
    fraction) says what it is instead."""
    return f"{quantity} ({unit})" if unit else quantity


def legend(ax, profile: str, **kw: Any) -> None:
    """The axes' legend, titled with the TCP profile the runs used."""
    ax.legend(title=f"satcp, profile {profile}", title_fontsize=kw.get("fontsize", 8), **kw)
