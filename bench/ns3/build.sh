#!/usr/bin/env bash
# Installs ns-3 3.44 from PyPI and compiles ns-3 peer programs against it.
#
#   bash bench/ns3/build.sh PROGRAM...     (PROGRAM: geo_bench, tcp_peer)
#
# Creates .venv-ns3 at the repository root with `pip install --no-deps
# ns3==3.44.post0` (the wheel carries ns-3's C++ headers and shared
# libraries) if it is missing, compiles bench/ns3/PROGRAM.cc into
# target/ns3/PROGRAM when the source (or this script) is newer than the
# binary, and prints each binary's path on stdout, one per line.
# Exit status 3: the wheel could not be installed (no network, no wheel for
# this platform, no python3 venv); 1: anything else failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
NS3_VERSION="3.44.post0"
VENV="$ROOT/.venv-ns3"
PY="${PYTHON:-python3}"

(($#)) || { echo "usage: $0 PROGRAM..." >&2; exit 2; }

if ! compgen -G "$VENV/lib/python3*/site-packages/ns3/include/ns3/tcp-socket-base.h" >/dev/null; then
    echo "== creating $VENV with ns3==$NS3_VERSION" >&2
    if ! { [[ -x "$VENV/bin/python" ]] || "$PY" -m venv "$VENV"; } ||
        ! "$VENV/bin/python" -m pip install --quiet --no-deps "ns3==$NS3_VERSION" >&2; then
        echo "$0: could not install ns3==$NS3_VERSION from PyPI into $VENV" >&2
        exit 3
    fi
fi
if ! command -v g++ >/dev/null; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "== apt-get install -y g++" >&2
        apt-get install -y -q g++ >&2 || { apt-get update -q >&2 && apt-get install -y -q g++ >&2; }
    else
        echo "$0: g++ is needed to compile the ns-3 peers (apt-get install g++)" >&2
        exit 1
    fi
fi
NS3_DIR="$(compgen -G "$VENV/lib/python3*/site-packages/ns3" | head -n 1)"
NS3_INC="$NS3_DIR/include"
NS3_LIB="$NS3_DIR/lib64"

for prog in "$@"; do
    src="$ROOT/bench/ns3/$prog.cc"
    bin="$ROOT/target/ns3/$prog"
    [[ -f "$src" ]] || { echo "$0: no $src" >&2; exit 2; }
    if [[ ! -x "$bin" || "$src" -nt "$bin" || "${BASH_SOURCE[0]}" -nt "$bin" ]]; then
        echo "== compiling $bin" >&2
        mkdir -p "$(dirname "$bin")"
        # The wheel's libraries are ns-3's "release" profile (-O3, NS_ASSERT
        # and NS_LOG compiled in); build the program the same way.
        g++ -O2 -std=c++20 -DNS3_BUILD_PROFILE_RELEASE -DNS3_ASSERT_ENABLE -DNS3_LOG_ENABLE \
            -I"$NS3_INC" "$src" -o "$bin.tmp" \
            -L"$NS3_LIB" -Wl,-rpath,"$NS3_LIB" \
            -lns3.44-applications -lns3.44-point-to-point -lns3.44-internet \
            -lns3.44-traffic-control -lns3.44-bridge -lns3.44-network -lns3.44-stats \
            -lns3.44-core
        mv "$bin.tmp" "$bin"
    fi
    echo "$bin"
done
