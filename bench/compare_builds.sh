#!/usr/bin/env bash
# Compare two builds of satcp-bench on the same machine, interleaved so that
# machine noise hits both: ROUNDS rounds (default 6) of `--repeat 5` each,
# alternating which binary goes first; prints each build's best and median
# wall time per scenario and the ratio new/old. Event counts must agree (the
# same scenarios give the same results).
#
#   bench/compare_builds.sh OLD_SATCP_BENCH NEW_SATCP_BENCH [ROUNDS]
#
# To keep a build for later: make build (or, without PGO, cargo build
# --release -p satcp-core) &&
# cp target/release/satcp-bench /tmp/satcp-bench-before
set -euo pipefail
old=$1 new=$2 rounds=${3:-6}
out=$(mktemp)
for ((i = 0; i < rounds; i++)); do
  if ((i % 2 == 0)); then
    echo "old $("$old" --repeat 5 --json)" >> "$out"
    echo "new $("$new" --repeat 5 --json)" >> "$out"
  else
    echo "new $("$new" --repeat 5 --json)" >> "$out"
    echo "old $("$old" --repeat 5 --json)" >> "$out"
  fi
done
python3 - "$out" <<'PY'
import json, statistics, sys
runs = {"old": [], "new": []}
for line in open(sys.argv[1]):
    who, rows = line.split(" ", 1)
    runs[who].append(json.loads(rows))
print(f"{'scenario':<22} {'events':>10} {'old best s':>10} {'old med s':>10} {'new best s':>10} {'new med s':>10} {'new/old best':>12} {'new/old med':>11}")
for k, row in enumerate(runs["old"][0]):
    if "events" not in row:
        continue  # a derived figure (the ARQ's cost per frame), not a timed scenario
    ev_old = {r[k]["events"] for r in runs["old"]}
    ev_new = {r[k]["events"] for r in runs["new"]}
    assert ev_old == ev_new and len(ev_old) == 1, f"{row['scenario']}: events differ {ev_old} vs {ev_new}"
    o = [r[k]["wall_s"] for r in runs["old"]]
    n = [r[k]["wall_s"] for r in runs["new"]]
    print(f"{row['scenario']:<22} {row['events']:>10} {min(o):>10.4f} {statistics.median(o):>10.4f} "
          f"{min(n):>10.4f} {statistics.median(n):>10.4f} {min(n) / min(o):>12.3f} {statistics.median(n) / statistics.median(o):>11.3f}")
PY
rm -f "$out"
