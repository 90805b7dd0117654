"""What satcp's commands tell the user besides their results: errors, on
stderr, in one form (``error: ...``), so a script can tell them from
output and a reader finds the field, the value and what is allowed first."""

from __future__ import annotations

import sys


def error(msg: str) -> None:
    """``error: msg`` on stderr."""
    print(f"error: {msg}", file=sys.stderr)
