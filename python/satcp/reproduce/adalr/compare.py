"""Ours beside the thesis': every published table row with our mean, the
95% t-interval half-width (replicated cells), the number of runs and the
deviation; every claim with its verdict and the stated and measured
percentages."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ... import stats
from .claims import Evaluation


def _match(obs: pd.DataFrame, row: pd.Series) -> pd.DataFrame:
    sel = obs[(obs["status"] == "ok") & (obs["experiment"] == row["experiment"])
              & (obs["variant"] == row["variant"]) & (obs["flow"] == row["flow"])]
    if row["flow"] != "all":
        sel = sel[sel["delayed_ack"] == row["delayed_ack"]]
    if np.isfinite(row["x"]) and row["flow"] in ("ftp", "http"):
        sel = sel[np.isclose(sel["x"], row["x"])]
    return sel


def table_rows(obs: pd.DataFrame, published: pd.DataFrame, level: float = 0.95) -> pd.DataFrame:
    """``published`` with ``ours``, ``ci_half``, ``n`` and ``deviation_pct``
    = (ours - thesis) / thesis x 100."""
    out = published.copy()
    ours, half, n = [], [], []
    for _, row in published.iterrows():
        vals = _match(obs, row)[row["metric"]].dropna() if not obs.empty else pd.Series(dtype=float)
        mean, lo, hi = stats.t_interval(vals, level) if len(vals) else (math.nan,) * 3
        ours.append(mean)
        half.append((hi - lo) / 2 if np.isfinite(hi) else math.nan)
        n.append(len(vals))
    out["ours"] = ours
    out["ci_half"] = half
    out["n"] = n
    out["deviation_pct"] = (out["ours"] - out["value"]) / out["value"] * 100.0
    return out


def claim_rows(evaluations: list[Evaluation]) -> pd.DataFrame:
    rows = []
    for v in evaluations:
        c = v.stated
        lo, hi = c.pct if c.pct is not None else (math.nan, math.nan)
        mmin, mmax = v.measured_pct if v.measured_pct is not None else (math.nan, math.nan)
        if c.pct is None or c.direction == "comparable":
            mmin = mmax = math.nan
        rows.append(dict(id=c.id, source=c.source, experiment=c.experiment, metric=c.metric,
                         direction=c.direction, scope=c.scope, wording=c.wording, verdict=v.verdict,
                         reason=v.reason, stated_low=lo, stated_high=hi, measured_min=mmin, measured_max=mmax,
                         points_low=mmin - lo, points_high=mmax - hi))
    return pd.DataFrame(rows)
