#!/usr/bin/env bash
# Profile-guided optimisation (PGO) of the engine's release builds
# (docs/performance.md, "Profile-guided optimisation"). Builds an
# instrumented satcp-run, runs the training set, merges the profile, and
# writes OUT_DIR/rustflags: the RUSTFLAGS the Makefile's release builds use.
#
#   scripts/pgo.sh OUT_DIR
#
# The training set is every scenario file in scenarios/ (a link into the
# package, python/satcp/_resources: find needs the trailing slash) and the four
# networks in bench/pgo/, the four-flow one once for every tcp.variant
# (satcp-run --list-variants) under each of the rfc, linux and ns2 profiles,
# so that no model's code is left cold (relay.toml: the only one whose
# gateway is cut through, world/cut_through.rs; pep.toml: a PEP's relay under unlimited flows). The benchmark's own scenarios are not trained
# on: they measure the result.
#
# llvm-profdata must come from the LLVM that rustc uses (rustc -vV); when
# none is found (nor installable as Debian's llvm-N), rustflags is empty and
# the build goes on without PGO, saying so; SATCP_PGO=0 asks for that.
# Results do not depend on it: PGO changes the machine code's layout and
# inlining, never what it computes.
set -euo pipefail
out=$(realpath -m "$1")
mkdir -p "$out"
if [[ ${SATCP_PGO:-1} == 0 ]]; then
  echo "pgo: SATCP_PGO=0: building without profile-guided optimisation" >&2
  : > "$out/rustflags"
  exit 0
fi
major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')

find_profdata() {
  local c
  for c in "llvm-profdata-$major" "/usr/lib/llvm-$major/bin/llvm-profdata" llvm-profdata; do
    if command -v "$c" >/dev/null && "$c" --version 2>/dev/null | grep -q "LLVM version $major\."; then
      command -v "$c"
      return 0
    fi
  done
  return 1
}

profdata=$(find_profdata || true)
if [[ -z $profdata && $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
  echo "pgo: installing llvm-$major for llvm-profdata (rustc's LLVM is $major)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q "llvm-$major" >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q "llvm-$major" >/dev/null 2>&1; } || true
  profdata=$(find_profdata || true)
fi
if [[ -z $profdata ]]; then
  echo "pgo: no llvm-profdata for LLVM $major: building without profile-guided optimisation (the engine runs about 10% slower; results are the same)" >&2
  : > "$out/rustflags"
  exit 0
fi

raw=$out/raw
rm -rf "$raw" "$out/satcp.profdata"
echo "pgo: building the instrumented satcp-run"
# a toolchain that cannot instrument (no profiler runtime) gives a plain
# build, said; a training run that fails is an engine error and stops make
if ! RUSTFLAGS="-Cprofile-generate=$raw" CARGO_TARGET_DIR="$out/gen" cargo build --release -q -p satcp-core --bin satcp-run 2>"$out/err"; then
  cat "$out/err" >&2
  echo "pgo: the instrumented build failed (above): building without profile-guided optimisation" >&2
  : > "$out/rustflags"
  exit 0
fi
run=$out/gen/release/satcp-run
echo "pgo: training"
while IFS= read -r f; do
  "$run" "$f" >/dev/null
done < <(find scenarios/ -name '*.toml' | sort; echo bench/pgo/arq.toml; echo bench/pgo/relay.toml; echo bench/pgo/pep.toml)
for v in $("$run" --list-variants); do
  for p in rfc linux ns2; do
    sets=()
    for i in 0 1 2 3; do sets+=(--set "flows.$i.tcp.variant=$v" --set "flows.$i.tcp.profile=$p"); done
    # a combination the parser refuses (exit 2: "enhanced" needs delayed
    # ACKs, which the ns2 profile leaves off) is skipped; a failed run is not
    status=0
    "$run" bench/pgo/dumbbell.toml "${sets[@]}" >/dev/null 2>"$out/err" || status=$?
    if ((status == 2)); then
      echo "pgo: not trained: $v under $p ($(head -c 200 "$out/err"))"
    elif ((status != 0)); then
      cat "$out/err" >&2
      exit 1
    fi
  done
done
"$profdata" merge -o "$out/satcp.profdata" "$raw"
echo "-Cprofile-use=$out/satcp.profdata" > "$out/rustflags"
echo "pgo: profile in $out/satcp.profdata"
