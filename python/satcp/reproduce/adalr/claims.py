"""The TCP-ADaLR thesis' claims as machine-checkable records, and their
verdicts on our measurements.

A claim (``data/published/adalr_claims.toml``, one ``[[claim]]`` each):
``id``, ``source`` (figure / table / section), ``experiment``, ``metric``,
``subject`` and ``reference`` (selectors: column -> value over
``variant``, ``delayed_ack``, ``flow``), optional ``reference_experiment``
(a claim across two experiments), ``condition`` (``delayed_ack``,
``ber_min``/``ber_max`` or ``x_min``/``x_max``, applied to both sides),
``direction``, optional ``pct = [low, high]`` (the stated percentage; "about
23%" is ``[23, 23]``), ``value = [low, high]`` for ``direction = "value"``,
``scope`` (``all`` or ``any``) and ``wording`` (a paraphrase).

Evaluation. Subject and reference rows are paired per cell: equal values
of the columns ``variant``, ``delayed_ack``, ``x``, ``flow`` that neither
selector fixes. Per cell, from the means and 95% Student-t intervals
(``satcp.stats``):

* the change in the stated direction, in percent of the reference:
  ``higher``: (s - r) / r; ``lower``: (r - s) / r (the thesis' Eq. 7.2/7.3
  improvement when ADaLR is the subject); ``comparable``: |s - r| / r;
* whether the direction holds: ``higher``/``lower`` need the inequality of
  the means and, where both sides are replicated (n >= 2), intervals that
  do not overlap; ``comparable`` needs overlapping intervals or a change
  within ``comparable_pct`` (the file's setting); ``value`` needs the subject mean within ``value`` widened by
  ``value_tolerance`` (relative).

A claim **holds** when the direction holds in every cell
(``scope = "all"``) or in at least one (``"any"``: "up to x%"), and, when a
percentage is stated, the measured change lies within ``pct`` widened by
``pct_tolerance`` percentage points: every cell's for ``all``, the
largest holding cell's for ``any``. When the direction holds but the size
does not, the verdict is **holds in direction only**. Otherwise it **does
not hold**, and the reason says in how many cells the means were in the
other order and in how many the intervals overlapped. With no measured
cell (an experiment that could not run) it has **no data** (the verdicts
are the study kit's, ``satcp.reproduce.kit.claims``).
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ... import stats
from ..kit.claims import Claim, Verdict

CELL_COLUMNS = ("variant", "delayed_ack", "x", "flow")
DIRECTIONS = ("higher", "lower", "comparable", "value")
SCOPES = ("all", "any")
CLAIM_KEYS = {"id", "source", "experiment", "reference_experiment", "metric", "subject", "reference",
              "condition", "direction", "pct", "value", "scope", "wording"}
CONDITION_KEYS = {"delayed_ack", "ber_min", "ber_max", "x_min", "x_max"}
SELECTOR_KEYS = {"variant", "delayed_ack", "flow"}


class ClaimError(ValueError):
    pass


@dataclass(frozen=True)
class StatedClaim:
    """A claim as the claims file states it."""

    id: str
    source: str
    experiment: str
    metric: str
    subject: dict[str, Any]
    reference: dict[str, Any]
    direction: str
    wording: str
    condition: dict[str, Any] = field(default_factory=dict)
    reference_experiment: str | None = None
    pct: tuple[float, float] | None = None
    value: tuple[float, float] | None = None
    scope: str = "all"


@dataclass(frozen=True)
class Settings:
    pct_tolerance: float = 5.0  # percentage points
    comparable_pct: float = 5.0
    value_tolerance: float = 0.10  # relative
    level: float = 0.95


@dataclass
class Evaluation:
    """A stated claim judged on the observations: its verdict, why, and
    the cells it was judged on."""

    stated: StatedClaim
    verdict: Verdict
    reason: str
    cells: pd.DataFrame  # per cell: s/r mean, CI, change_pct, holds
    measured_pct: tuple[float, float] | None  # (min, max) change of the matched cells

    def claim(self) -> Claim:
        """The judged claim as every report prints it."""
        return Claim(self.stated.id, self.stated.wording, self.verdict, self.reason, self.stated.source)


def _range(v: Any, where: str) -> tuple[float, float]:
    if (not isinstance(v, list) or len(v) != 2 or not all(isinstance(x, (int, float)) for x in v)
            or v[0] > v[1]):
        raise ClaimError(f"{where} = {v!r}: a list [low, high] of two numbers, low <= high")
    return (float(v[0]), float(v[1]))


def parse_claims(doc: dict[str, Any]) -> tuple[Settings, list[StatedClaim]]:
    top = {"pct_tolerance", "comparable_pct", "value_tolerance", "level", "claim"}
    unknown = set(doc) - top
    if unknown:
        raise ClaimError(f"{sorted(unknown)[0]}: unknown key; allowed: {', '.join(sorted(top))}")
    settings = Settings(**{k: float(doc[k]) for k in top - {"claim"} if k in doc})
    claims, seen = [], set()
    for i, c in enumerate(doc.get("claim", [])):
        where = f"claim[{i}]"
        unknown = set(c) - CLAIM_KEYS
        if unknown:
            raise ClaimError(f"{where}.{sorted(unknown)[0]}: unknown key; allowed: {', '.join(sorted(CLAIM_KEYS))}")
        for k in ("id", "source", "experiment", "metric", "direction", "wording"):
            if not isinstance(c.get(k), str) or not c[k]:
                raise ClaimError(f"{where}.{k}: a non-empty string is required")
        if c["id"] in seen:
            raise ClaimError(f"{where}.id = {c['id']!r}: ids must be unique")
        seen.add(c["id"])
        if c["direction"] not in DIRECTIONS:
            raise ClaimError(f"{where}.direction = {c['direction']!r}: one of {DIRECTIONS}")
        scope = c.get("scope", "all")
        if scope not in SCOPES:
            raise ClaimError(f"{where}.scope = {scope!r}: one of {SCOPES}")
        for k, allowed in (("subject", SELECTOR_KEYS), ("reference", SELECTOR_KEYS), ("condition", CONDITION_KEYS)):
            v = c.get(k, {})
            if not isinstance(v, dict) or set(v) - allowed:
                raise ClaimError(f"{where}.{k} = {v!r}: a table with keys among {sorted(allowed)}")
        if c["direction"] == "value":
            if "value" not in c:
                raise ClaimError(f"{where}.value: required with direction = \"value\"")
        elif not c.get("reference") and not c.get("reference_experiment"):
            raise ClaimError(f"{where}.reference: required unless direction = \"value\"")
        claims.append(StatedClaim(
            id=c["id"], source=c["source"], experiment=c["experiment"], metric=c["metric"],
            subject=dict(c.get("subject", {})), reference=dict(c.get("reference", {})),
            direction=c["direction"], wording=c["wording"], condition=dict(c.get("condition", {})),
            reference_experiment=c.get("reference_experiment"),
            pct=_range(c["pct"], f"{where}.pct") if "pct" in c else None,
            value=_range(c["value"], f"{where}.value") if "value" in c else None, scope=scope))
    return settings, claims


def load_claims(path: Path) -> tuple[Settings, list[StatedClaim]]:
    return parse_claims(tomllib.loads(Path(path).read_text(encoding="utf-8")))


def _select(df: pd.DataFrame, sel: dict[str, Any]) -> pd.DataFrame:
    for k, v in sel.items():
        df = df[df[k] == v]
    return df


def _condition(df: pd.DataFrame, cond: dict[str, Any]) -> pd.DataFrame:
    if "delayed_ack" in cond:
        df = df[df["delayed_ack"] == cond["delayed_ack"]]
    lo = cond.get("ber_min", cond.get("x_min"))
    hi = cond.get("ber_max", cond.get("x_max"))
    # a relative margin: BER levels are floats written as 1e-7 in both places
    if lo is not None:
        df = df[df["x"] >= lo * (1 - 1e-9)]
    if hi is not None:
        df = df[df["x"] <= hi * (1 + 1e-9)]
    return df


def _summaries(df: pd.DataFrame, metric: str, by: list[str], level: float) -> pd.DataFrame:
    if df.empty:
        return pd.DataFrame(columns=by + ["metric", "n", "mean", "ci_low", "ci_high"])
    d = df.copy()
    d["x"] = d["x"].fillna(-1.0)  # NaN keys would not pair
    s = stats.describe(d, by, metric, level) if by else stats.describe(d, None, metric, level)
    return s[s["n"] > 0]


def evaluate(claim: StatedClaim, obs: pd.DataFrame, settings: Settings = Settings()) -> Evaluation:
    ok = obs[obs["status"] == "ok"] if "status" in obs.columns else obs
    subj = _condition(_select(ok[ok["experiment"] == claim.experiment], claim.subject), claim.condition)
    by = [c for c in CELL_COLUMNS if c not in claim.subject and c not in claim.reference]
    s = _summaries(subj, claim.metric, by, settings.level)
    if claim.direction == "value":
        return _evaluate_value(claim, s, settings)
    ref_exp = claim.reference_experiment or claim.experiment
    ref = _condition(_select(ok[ok["experiment"] == ref_exp], claim.reference), claim.condition)
    r = _summaries(ref, claim.metric, by, settings.level)
    cols = ["mean", "ci_low", "ci_high", "n"]
    cells = (s[by + cols].merge(r[by + cols], on=by, suffixes=("_s", "_r")) if by
             else pd.concat([s[cols].add_suffix("_s").reset_index(drop=True),
                             r[cols].add_suffix("_r").reset_index(drop=True)], axis=1).dropna(subset=["mean_s", "mean_r"]))
    if cells.empty:
        return Evaluation(claim, Verdict.NO_DATA, "no measured cell matches the claim", cells, None)
    cells["x"] = cells["x"].replace(-1.0, math.nan) if "x" in cells.columns else math.nan
    cells["change_pct"] = [_change(claim.direction, a, b) for a, b in zip(cells["mean_s"], cells["mean_r"])]
    cells["holds"] = [_holds(claim.direction, row, settings) for _, row in cells.iterrows()]
    ch = cells["change_pct"].to_numpy(dtype=float)
    measured = (float(np.nanmin(ch)), float(np.nanmax(ch))) if np.isfinite(ch).any() else None
    direction_ok = bool(cells["holds"].all()) if claim.scope == "all" else bool(cells["holds"].any())
    need = "every" if claim.scope == "all" else "at least one"
    reasons = [f"direction holds in {int(cells['holds'].sum())} of {len(cells)} cells (needed: {need})"]
    if claim.direction in ("higher", "lower"):
        wrong = int(sum(c < 0 for c in cells["change_pct"] if np.isfinite(c)))
        overlap = int(((~cells["holds"]) & (cells["change_pct"] > 0)).sum())
        if wrong or overlap:
            reasons.append(f"means in the other order in {wrong}, intervals overlapping in {overlap}")
    magnitude_ok = True
    if claim.pct is not None and claim.direction != "comparable":
        lo, hi = claim.pct[0] - settings.pct_tolerance, claim.pct[1] + settings.pct_tolerance
        held = cells[cells["holds"]]["change_pct"].to_numpy(dtype=float)
        if claim.scope == "all":
            vals = ch
        else:
            vals = np.array([np.nanmax(held)]) if held.size else np.array([])
        magnitude_ok = vals.size > 0 and bool(((vals >= lo) & (vals <= hi)).all())
        reasons.append(f"measured {_pct_text(vals)} vs stated {_stated(claim.pct)} "
                       f"(+-{settings.pct_tolerance:g} points): {'within' if magnitude_ok else 'outside'}")
    verdict = ((Verdict.HOLDS if magnitude_ok else Verdict.DIRECTION_ONLY) if direction_ok
               else Verdict.DOES_NOT_HOLD)
    return Evaluation(claim, verdict, "; ".join(reasons), cells, measured)


def _evaluate_value(claim: StatedClaim, s: pd.DataFrame, settings: Settings) -> Evaluation:
    if s.empty:
        return Evaluation(claim, Verdict.NO_DATA, "no measured cell matches the claim", s, None)
    lo = claim.value[0] * (1 - settings.value_tolerance)
    hi = claim.value[1] * (1 + settings.value_tolerance)
    cells = s.copy()
    cells["holds"] = (cells["mean"] >= lo) & (cells["mean"] <= hi)
    ok = bool(cells["holds"].all()) if claim.scope == "all" else bool(cells["holds"].any())
    means = cells["mean"].to_numpy(dtype=float)
    reason = (f"measured {_num_text(means)} vs stated {_stated(claim.value, '')} "
              f"(+-{settings.value_tolerance:.0%}): {'within' if ok else 'outside'}")
    return Evaluation(claim, Verdict.of(ok), reason, cells, None)


def _change(direction: str, s: float, r: float) -> float:
    if r == 0 or not np.isfinite(r) or not np.isfinite(s):
        return math.nan
    if direction == "higher":
        return (s - r) / r * 100.0
    if direction == "lower":
        return (r - s) / r * 100.0
    return abs(s - r) / abs(r) * 100.0


def _replicated(row: pd.Series) -> bool:
    return (row["n_s"] >= 2 and row["n_r"] >= 2 and all(np.isfinite(row[c]) for c in
            ("ci_low_s", "ci_high_s", "ci_low_r", "ci_high_r")))


def _holds(direction: str, row: pd.Series, settings: Settings) -> bool:
    s, r = row["mean_s"], row["mean_r"]
    if not (np.isfinite(s) and np.isfinite(r)):
        return False
    rep = _replicated(row)
    overlap = rep and row["ci_low_s"] <= row["ci_high_r"] and row["ci_low_r"] <= row["ci_high_s"]
    if direction == "higher":
        return bool(s > r and not overlap)
    if direction == "lower":
        return bool(s < r and not overlap)
    # comparable: intervals that overlap, or means within comparable_pct
    # (many seeds make intervals narrow enough to separate a 1% difference)
    return bool(overlap or abs(_change("comparable", s, r)) <= settings.comparable_pct)


def _stated(rng: tuple[float, float], unit: str = "%") -> str:
    return f"{rng[0]:g}{unit}" if rng[0] == rng[1] else f"{rng[0]:g}-{rng[1]:g}{unit}"


def _pct_text(vals: np.ndarray) -> str:
    vals = vals[np.isfinite(vals)] if vals.size else vals
    if vals.size == 0:
        return "no change in the stated direction"
    if vals.size == 1 or np.isclose(vals.min(), vals.max()):
        return f"{vals.max():.1f}%"
    return f"{vals.min():.1f}% to {vals.max():.1f}%"


def _num_text(vals: np.ndarray) -> str:
    if vals.size == 1:
        return f"{vals[0]:.4g}"
    return f"{vals.min():.4g} to {vals.max():.4g}"


def evaluate_all(claims: list[StatedClaim], obs: pd.DataFrame, settings: Settings) -> list[Evaluation]:
    return [evaluate(c, obs, settings) for c in claims]
