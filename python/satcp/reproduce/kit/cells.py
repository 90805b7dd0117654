"""Per-cell tables for the studies of our own that compare arms cell by
cell (quic-geo, pep): one row per experiment, arm and factor levels with
each metric's mean over the seeds and the half-width of its Student-t
interval (``satcp.stats.t_interval``), lookups of one cell, and the
analysis those studies hand their reports (the observations, the runs and
that table)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from ...stats import t_interval

LEVEL = 0.95


def mean_ci(x: Any, level: float = LEVEL) -> tuple[float, float]:
    """Mean and the half-width of its Student-t interval (NaN for fewer
    than two values; 0 when every run gave the same value)."""
    mean, lo, hi = t_interval(np.asarray(x, dtype=float), level)
    return mean, (hi - lo) / 2 if hi == hi else math.nan


def cell_table(obs: pd.DataFrame, keys: Sequence[str], levels: Sequence[str], metrics: Sequence[str],
               rank: Callable[[pd.Series], int], sort_by: Sequence[str]) -> pd.DataFrame:
    """Per cell (``keys`` + ``levels``) of the runs that ended ok: runs,
    completed runs, and each metric's mean with ``_ci``, its half-width;
    sorted by ``sort_by`` and then by ``rank`` of a row (the arms' order)."""
    ok = obs[obs["status"] == "ok"]
    rows = []
    for cell, g in ok.groupby(list(keys) + list(levels), dropna=False, sort=False):
        row = dict(zip(list(keys) + list(levels), cell), runs=len(g), completed=int(g["completed"].sum()))
        for m in metrics:
            row[m], row[m + "_ci"] = mean_ci(g[m])
        rows.append(row)
    out = pd.DataFrame(rows)
    if not out.empty:
        out["_o"] = [rank(r) for _, r in out.iterrows()]
        out = out.sort_values([*sort_by, "_o"], na_position="first").drop(columns="_o")
    return out.reset_index(drop=True)


def cell(rows: pd.DataFrame, **eq: Any) -> pd.DataFrame:
    """The table's rows whose columns equal ``eq``."""
    m = np.ones(len(rows), dtype=bool)
    for k, v in eq.items():
        m &= (rows[k] == v).to_numpy()
    return rows[m]


def one(rows: pd.DataFrame, col: str, **eq: Any) -> float:
    """``col`` of the one row ``eq`` picks (NaN unless exactly one)."""
    c = cell(rows, **eq)
    return float(c[col].iloc[0]) if len(c) == 1 else math.nan


@dataclass
class CellAnalysis:
    """A cell-by-cell study's report material."""

    observations: pd.DataFrame
    runs: pd.DataFrame
    rows: pd.DataFrame  # the cell table
