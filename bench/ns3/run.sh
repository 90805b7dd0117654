#!/usr/bin/env bash
# Side-by-side speed benchmark: satcp-bench against ns-3 3.44 on the same
# scenarios (see bench/ns3/README.md).
#
#   bash bench/ns3/run.sh [--stop SCENARIO=SECONDS]... [SCENARIO...]
#
# SCENARIO: geo-10-flows, geo-50-flows-100mbps (default: both).
# --stop shortens one scenario's simulated time in BOTH simulators (for when
# ns-3 would take too long); without it each scenario runs to its own stop
# time (1000 s and 300 s) and satcp's wall time comes from satcp-bench.
#
# bench/ns3/build.sh creates .venv-ns3 (ns3==3.44.post0 wheel from PyPI) at the
# repository root if missing and compiles bench/ns3/geo_bench.cc into
# target/ns3/geo_bench when the source is newer; this script prints a table and
# writes bench-results/ns3_ratio.csv.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

OUT_DIR="$ROOT/bench-results"
CSV="$OUT_DIR/ns3_ratio.csv"
ALL_SCENARIOS=(geo-10-flows geo-50-flows-100mbps)
PY="${PYTHON:-python3}"

declare -A STOP_OVERRIDE=()
SCENARIOS=()
while (($#)); do
    case "$1" in
        --stop)
            [[ $# -ge 2 && "$2" == *=* ]] || { echo "usage: $0 [--stop SCENARIO=SECONDS]... [SCENARIO...]" >&2; exit 2; }
            STOP_OVERRIDE["${2%%=*}"]="${2#*=}"
            shift 2
            ;;
        -h | --help)
            sed -n '2,15p' "$0"
            exit 0
            ;;
        geo-10-flows | geo-50-flows-100mbps)
            SCENARIOS+=("$1")
            shift
            ;;
        *)
            echo "$0: unknown argument $1" >&2
            exit 2
            ;;
    esac
done
((${#SCENARIOS[@]})) || SCENARIOS=("${ALL_SCENARIOS[@]}")

# --- ns-3 from PyPI (installed and compiled by build.sh) ----------------------
BIN="$(bash "$ROOT/bench/ns3/build.sh" geo_bench)"

# --- satcp ----------------------------------------------------------------
echo "== cargo build --release -p satcp-core (with make's PGO flags, if made)" >&2
RUSTFLAGS="$(cat "$ROOT/target/pgo/rustflags" 2>/dev/null || true)" cargo build --release --quiet -p satcp-core

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

echo "== target/release/satcp-bench --json --repeat 1" >&2
target/release/satcp-bench --json --repeat 1 >"$TMP/satcp-bench.json"

for s in "${SCENARIOS[@]}"; do
    target/release/satcp-bench --print-scenario "$s" >"$TMP/$s.toml"
    sets=()
    ns3_args=()
    if [[ -n "${STOP_OVERRIDE[$s]:-}" ]]; then
        sets=(--set "run.stop=${STOP_OVERRIDE[$s]}s")
        ns3_args=(--stop "${STOP_OVERRIDE[$s]}")
    fi
    echo "== satcp-run $s ${sets[*]}" >&2
    target/release/satcp-run "$TMP/$s.toml" "${sets[@]}" >"$TMP/$s.satcp-run.json"
    echo "== ns-3 $s ${ns3_args[*]} (minutes)" >&2
    start=$SECONDS
    "$BIN" "$s" "${ns3_args[@]}" >"$TMP/$s.ns3.json"
    echo "   done in $((SECONDS - start)) s" >&2
done

mkdir -p "$OUT_DIR"
"$PY" - "$TMP" "$CSV" "${SCENARIOS[@]}" <<'EOF'
import csv, json, sys

tmp, out, scenarios = sys.argv[1], sys.argv[2], sys.argv[3:]
bench = {r["scenario"]: r for r in json.load(open(f"{tmp}/satcp-bench.json"))}
rows = []
for s in scenarios:
    run = json.load(open(f"{tmp}/{s}.satcp-run.json"))
    ns3 = json.loads(open(f"{tmp}/{s}.ns3.json").read().strip().splitlines()[-1])
    b = bench[s]
    sim_s = run["sim_time_s"]
    if abs(sim_s - b["sim_s"]) < 1e-9:
        # Full-length run: satcp-bench's timing (satcp-run ran the same
        # scenario, printed by satcp-bench, for the per-flow goodput).
        assert run["events"] == b["events"], (s, run["events"], b["events"])
        s_wall, s_events = b["wall_s"], b["events"]
        src = "satcp-bench"
    else:
        s_wall, s_events = run["wall_s"], run["events"]
        src = "satcp-run"
    s_bytes = sum(f["bytes_delivered"] for f in run["flows"])
    rows.append({
        "scenario": s,
        "sim_s": sim_s,
        "satcp_wall_s": s_wall,
        "ns3_wall_s": ns3["wall_s"],
        "ratio_ns3_over_satcp": ns3["wall_s"] / s_wall,
        "satcp_events": s_events,
        "ns3_events": ns3["events"],
        "satcp_events_per_s": s_events / s_wall,
        "ns3_events_per_s": (ns3["events"] / ns3["wall_s"]) if ns3["events"] is not None else None,
        "satcp_goodput_mbps": s_bytes * 8 / sim_s / 1e6,
        "ns3_goodput_mbps": ns3["rx_bytes"] * 8 / ns3["sim_s"] / 1e6,
        "satcp_timing_from": src,
    })

def f(v, fmt):
    return "null" if v is None else format(v, fmt)

hdr = f"{'scenario':<22} {'sim s':>6} {'satcp wall s':>12} {'ns-3 wall s':>11} {'ns-3/satcp':>10} " \
      f"{'satcp ev/s':>10} {'ns-3 ev/s':>10} {'satcp Mb/s':>10} {'ns-3 Mb/s':>10}"
print(hdr)
print("-" * len(hdr))
for r in rows:
    print(f"{r['scenario']:<22} {r['sim_s']:>6.0f} {r['satcp_wall_s']:>12.3f} {r['ns3_wall_s']:>11.2f} "
          f"{r['ratio_ns3_over_satcp']:>9.1f}x {f(r['satcp_events_per_s'], '>10.3e')} "
          f"{f(r['ns3_events_per_s'], '>10.3e')} {r['satcp_goodput_mbps']:>10.3f} {r['ns3_goodput_mbps']:>10.3f}")
print("(wall = build + run of one scenario, single thread; goodput = bytes delivered to the "
      "receiving applications, all flows, / sim s)")

with open(out, "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
print(f"wrote {out}")
EOF
