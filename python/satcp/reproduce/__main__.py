"""``python -m satcp.reproduce``: the studies of the one list, one a line
(name, TCP profile, the other simulators it runs beside ours, title);
``--peers NAME``: only those simulators of one study, for ``make
reproduce-NAME`` to install them first."""

from __future__ import annotations

import sys

from ..messages import error
from . import studies


def main(argv: list[str]) -> int:
    known = studies()
    if argv[:1] == ["--peers"] and len(argv) == 2:
        if argv[1] not in known:
            error(f"--peers {argv[1]}: unknown study; allowed: {', '.join(known)}")
            return 2
        print(" ".join(known[argv[1]].peers))
        return 0
    if argv:
        error(f"{' '.join(argv)}: expected nothing, or --peers NAME")
        return 2
    for s in known.values():
        print(f"{s.name}\t{s.profile.name}\t{','.join(s.peers) or '-'}\t{s.title}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
