"""Where the files satcp reads at run time live: the papers' numbers
(``data/``), the example and study scenarios (``scenarios/``) and the ns-2
peers (``crosscheck/ns2/``).

In a checkout they are the repository's own. A wheel carries copies under
``satcp/_resources`` (``make wheel`` puts them there before building), so an
installed satcp runs every command outside the repository.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGED = Path(__file__).resolve().parent / "_resources"

#: The directory holding ``data/``, ``scenarios/`` and ``crosscheck/``.
ROOT = _PACKAGED if _PACKAGED.is_dir() else Path(__file__).resolve().parents[2]
