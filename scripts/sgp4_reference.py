"""Reference positions for satcp's SGP4 cross-check (`tests/leo_tle.rs`):
each TLE of `crates/satcp-core/tests/data/tle/verification.tle` propagated
by the Python `sgp4` package (Vallado's implementation) over one orbit, 21
points, TEME km. Writes `sgp4_reference.csv` beside it. Run:

    .venv/bin/python scripts/sgp4_reference.py

The CSV holds what that package measured, not hand-typed numbers;
`tests/python/test_sgp4_reference.py` checks it is what the installed
package gives today.
"""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

from sgp4.api import Satrec

DIR = Path(__file__).resolve().parents[1] / "crates" / "satcp-core" / "tests" / "data" / "tle"


def three_line_sets(text: str):
    lines = [x for x in text.splitlines() if x.strip() and not x.startswith("#")]
    for i in range(0, len(lines), 3):
        yield lines[i].strip(), lines[i + 1], lines[i + 2]


def rows():
    for name, l1, l2 in three_line_sets((DIR / "verification.tle").read_text()):
        sat = Satrec.twoline2rv(l1, l2)
        period_min = 2 * math.pi / sat.no_kozai  # no_kozai: rad/min
        for k in range(21):
            minutes = period_min * k / 20
            err, r, _ = sat.sgp4_tsince(minutes)
            if err:
                raise SystemExit(f"{name}: sgp4 error {err} at {minutes} min")
            yield [name, f"{minutes:.9f}", *(f"{v:.9f}" for v in r)]


def main() -> int:
    with open(DIR / "sgp4_reference.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["# TEME positions (km) by the Python sgp4 package; regenerate with scripts/sgp4_reference.py"])
        w.writerow(["name", "minutes", "x_km", "y_km", "z_km"])
        w.writerows(rows())
    return 0


if __name__ == "__main__":
    sys.exit(main())
