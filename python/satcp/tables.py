"""Plain-text tables for the terminal: one fixed-width layout and one rule
for a missing number (None, or NaN as pandas writes it): "-".

Every table satcp prints (``satcp run``, ``results``, ``sweep --dry-run``,
``demo``, ``reproduce``, the ns-3 cross-check) is built from these, so a
missing value reads the same everywhere.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any, Sequence

MISSING = "-"


def is_missing(v: Any) -> bool:
    """None, or a float NaN (numpy's float64 included: it is a float)."""
    return v is None or (isinstance(v, float) and math.isnan(v))


def num(v: Any, spec: str = "", scale: float = 1.0, suffix: str = "") -> str:
    """``v * scale`` formatted with ``spec`` (then ``suffix``), or "-"."""
    if is_missing(v):
        return MISSING
    return format(v * scale, spec) + suffix


def cell(v: Any) -> str:
    """A value of any type: "-" when missing, floats to 6 significant digits."""
    if isinstance(v, float):
        return num(v, ".6g")
    return MISSING if v is None else str(v)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> str:
    """Fixed-width table; `align` is one char per column, 'l' or 'r'
    (default: the first column left, the others right)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" + "r" * (len(headers) - 1)

    def line(r: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align)).rstrip()

    out = [line(cells[0]), "  ".join("-" * w for w in widths)]
    out += [line(r) for r in cells[1:]]
    return "\n".join(out)


def write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Rows of dicts (the first's keys are the columns) as a CSV file,
    its directory made if need be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
