"""Figure set-up shared by every module that draws: matplotlib on the Agg
backend (files only, no display needed, safe in worker processes and CI).

matplotlib is imported on first use, not with this module, so importing
satcp (and ``satcp --help``) does not pay for it.
"""

from __future__ import annotations

import io
from pathlib import Path

NO_SAMPLES = "no samples recorded"


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def legend_or_note(ax, empty: bool = False, **legend) -> None:
    """A legend, or a note across the axes when nothing was drawn (``empty``
    or no labelled line), so an empty figure says why."""
    if empty or not ax.get_legend_handles_labels()[0]:
        ax.text(0.5, 0.5, NO_SAMPLES, ha="center", va="center", transform=ax.transAxes)
    else:
        ax.legend(**legend)


def save_png(fig, path: Path, dpi: int = 120) -> Path:
    """Lay out, write ``path`` and close the figure (pyplot keeps every open one)."""
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)
    return path


def png_bytes(fig, dpi: int) -> bytes:
    """The figure as PNG bytes, cropped to its content, for embedding in a
    report; the figure is closed."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    pyplot().close(fig)
    return buf.getvalue()
