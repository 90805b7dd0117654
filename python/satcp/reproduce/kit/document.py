"""A study's report, written once as two files: ``DIR/index.html``
(self-contained: figures are embedded PNG, no scripts, no external URL)
and ``DIR/report.md`` (the same content; figures as
``DIR/figures/*.png``). A study builds it with :class:`Doc`'s calls
(headings, notes, tables, figures, claims); every number in it comes from
the store, the source's published files or a deterministic re-run.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ... import report as sweep_report
from ...plotting import png_bytes
from ...tables import MISSING, is_missing
from .claims import Claim, Verdict

if TYPE_CHECKING:
    from .study import Context

_CSS = sweep_report.CSS_COMMON + """
table.data td.l, table.data th.l { text-align: left; }
td.ok { background: #dff0d8; } td.part { background: #fcf3cf; } td.bad { background: #f6d6d6; } td.none { background: #eee; }
"""

_VERDICT_CLASS = {Verdict.HOLDS: "ok", Verdict.DIRECTION_ONLY: "part", Verdict.DOES_NOT_HOLD: "bad",
                  Verdict.NO_DATA: "none"}


def fmt(v: Any, digits: int = 6) -> str:
    """Like the sweep report's cells, but floats to 3 decimals and NaN as '-'."""
    if isinstance(v, (float, np.floating)):
        if is_missing(v):
            return MISSING
        if v != 0 and (abs(v) >= 1e7 or abs(v) < 1e-3):
            return f"{v:.{digits}g}"
        return f"{round(v, 3):.10g}"
    return sweep_report._fmt(v)


class Doc:
    """Builds the HTML page and the Markdown file from the same calls."""

    @classmethod
    def opened(cls, ctx: "Context", title: str, note: str) -> "Doc":
        """A study's report begun as every one begins: its title (marked
        when it is the quick form), the note saying whose numbers it holds
        and how they were judged, and the rows saying what ran and how."""
        doc = cls(ctx.out, ctx.title(title))
        doc.heading(1, doc.title)
        doc.para(note, note=True)
        doc.table(pd.DataFrame(ctx.header(), columns=["", "value"]), left=("", "value"))
        return doc

    def close(self, runs: pd.DataFrame) -> tuple[Path, Path]:
        """The failed runs' section last, then both files; their paths."""
        self.failed_runs(runs)
        return self.write()

    def __init__(self, out_dir: Path, title: str):
        self.out_dir = Path(out_dir)
        self.title = title
        self.html: list[str] = []
        self.md: list[str] = []
        self.fig_dir = out_dir / "figures"
        self.fig_dir.mkdir(parents=True, exist_ok=True)
        self.figure_count = 0

    def heading(self, level: int, text: str) -> None:
        self.html.append(f"<h{level}>{html.escape(text)}</h{level}>")
        self.md.append(f"\n{'#' * level} {text}\n")

    def para(self, text: str, note: bool = False) -> None:
        cls = ' class="note"' if note else ""
        self.html.append(f"<p{cls}>{html.escape(text)}</p>")
        self.md.append(f"\n{text}\n")

    def table(self, df: pd.DataFrame, left: tuple[str, ...] = (), verdict_col: str | None = None) -> None:
        cols = list(df.columns)
        head = "".join(f'<th class="{"l" if c in left else ""}">{html.escape(str(c))}</th>' for c in cols)
        body = []
        for row in df.itertuples(index=False):
            cells = []
            for c, v in zip(cols, row):
                cls = "l" if c in left else ""
                if c == verdict_col:
                    cls += " " + _VERDICT_CLASS.get(v, "")
                cells.append(f'<td class="{cls.strip()}">{html.escape(fmt(v))}</td>')
            body.append("<tr>" + "".join(cells) + "</tr>")
        self.html.append(f'<table class="data"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')
        md = ["| " + " | ".join(str(c) for c in cols) + " |", "|" + "---|" * len(cols)]
        for row in df.itertuples(index=False):
            md.append("| " + " | ".join(fmt(v).replace("|", "/") for v in row) + " |")
        self.md.append("\n" + "\n".join(md) + "\n")

    def failed_runs(self, runs: pd.DataFrame) -> None:
        """The section listing the runs that did not end ok (with their
        errors), from a frame with key, status and error columns."""
        failed = runs[runs["status"] != "ok"] if not runs.empty else runs
        self.heading(2, f"Failed runs ({len(failed)})")
        if failed.empty:
            self.para("None.", note=True)
        else:
            self.table(failed[["key", "error"]], left=("key", "error"))

    def figure(self, fig, name: str, caption: str) -> None:
        if fig is None:
            self.para(f"(no data for: {caption})", note=True)
            return
        data = png_bytes(fig, dpi=90)
        (self.fig_dir / f"{name}.png").write_bytes(data)
        b64 = base64.b64encode(data).decode("ascii")
        self.html.append(f'<figure><img class="fig" alt="{html.escape(caption)}" src="data:image/png;base64,{b64}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")
        self.md.append(f"\n![{name}](figures/{name}.png)\n\n*{caption}*\n")
        self.figure_count += 1

    def claims(self, claims: list[Claim], source: str, where: str | None = None, heading: str | None = None) -> None:
        """Claims as a table (under a heading of their own if given): id,
        where the source states them (if ``where`` names that column), the
        source's words (a column named ``source``: "paper", "thesis"), our
        verdict and its evidence."""
        if heading:
            self.heading(2, heading)
        cols = ["claim"] + ([where] if where else []) + [source, "satcp", "evidence"]
        rows = [(c.id, *([c.where] if where else []), c.wording, c.verdict, c.evidence) for c in claims]
        self.table(pd.DataFrame(rows, columns=cols), left=tuple(cols), verdict_col="satcp")

    def table_or_note(self, frame: pd.DataFrame | None, left: tuple[str, ...], missing: str) -> None:
        """The table, or a note saying why there is none."""
        if frame is None or frame.empty:
            self.para(f"({missing})", note=True)
        else:
            self.table(frame, left=left)

    def write(self) -> tuple[Path, Path]:
        """Both files; their paths."""
        out_dir, title = self.out_dir, self.title
        page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
                + "\n".join(self.html) + "\n</body></html>\n")
        h = out_dir / "index.html"
        h.write_text(page, encoding="utf-8")
        m = out_dir / "report.md"
        m.write_text("\n".join(self.md).lstrip() + "\n", encoding="utf-8")
        return h, m


