"""Where the files satcp reads at run time live: the papers' numbers
(``data/``), the example and study scenarios (``scenarios/``) and the ns-2
peers (``crosscheck/ns2/``).

They are part of the package, under ``satcp/_resources``, so a wheel built
the standard way (``pip wheel .``, ``pip install .``) carries them and an
installed satcp runs every command outside the repository. In a checkout
the top-level ``data``, ``scenarios`` and ``crosscheck/ns2`` are symbolic
links to the same directories (git stores each file once); the build
backend (maturin) does not follow symbolic links, which is why the files
themselves live in the package.
"""

from __future__ import annotations

from pathlib import Path

#: The directory holding ``data/``, ``scenarios/`` and ``crosscheck/ns2/``.
ROOT = Path(__file__).resolve().parent / "_resources"
