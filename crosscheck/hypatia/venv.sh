#!/usr/bin/env bash
# Makes .venv-hypatia at the repository root with satgenpy 0.4.0 (Hypatia's
# satellite network generator, from PyPI) and the versions of its
# dependencies the cross-check was measured with (requirements.txt), if it
# is missing. Exit status 3: they could not be installed (no network, no
# python3 venv).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VENV="$ROOT/.venv-hypatia"
REQ="$ROOT/crosscheck/hypatia/requirements.txt"
STAMP="$VENV/.satcp-$(md5sum "$REQ" | cut -c1-8)"
PY="${PYTHON:-python3}"

[[ -f "$STAMP" ]] && exit 0
echo "== installing satgenpy into $VENV (crosscheck/hypatia/requirements.txt)" >&2
if ! { [[ -x "$VENV/bin/python" ]] || "$PY" -m venv "$VENV"; } ||
    ! "$VENV/bin/python" -m pip install --quiet -r "$REQ" >&2; then
    echo "$0: could not install satgenpy from PyPI into $VENV" >&2
    exit 3
fi
touch "$STAMP"
