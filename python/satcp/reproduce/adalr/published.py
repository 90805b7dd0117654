"""The thesis' own numbers (``data/published/adalr_thesis.csv``), read for
comparison; satcp never writes that file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ...paths import ROOT

PUBLISHED_CSV = ROOT / "data" / "published" / "adalr_thesis.csv"
CLAIMS_TOML = ROOT / "data" / "published" / "adalr_claims.toml"


def load_published(path: Path = PUBLISHED_CSV) -> pd.DataFrame:
    """One row per published number: table, experiment, variant,
    delayed_ack (bool), x (float, NaN when none), x_unit, flow, metric,
    value, unit. Tables stay strings ("7.5")."""
    df = pd.read_csv(path, comment="#", dtype={"table": str, "x_unit": str, "unit": str})
    df["delayed_ack"] = df["delayed_ack"].map({True: True, False: False, "true": True, "false": False})
    df["x"] = pd.to_numeric(df["x"], errors="coerce").astype(float)
    df["x_unit"] = df["x_unit"].fillna("")
    df["unit"] = df["unit"].fillna("")
    return df


def table_order(tables) -> list[str]:
    """Table ids in the thesis' order (5.1, 7.5, ..., 7.15)."""
    return sorted(set(tables), key=lambda t: tuple(int(p) for p in t.split(".")))
