#!/usr/bin/env bash
# The package as a user builds and installs it: `pip wheel .` in a clean
# clone of this checkout's HEAD (what is committed, nothing else; a tree
# without git history is copied without its build products), the wheel
# installed into an empty virtual environment in a temporary directory, and
# every command a user starts with run from there, outside any checkout.
#
#   scripts/test_wheel.sh [PYTHON]      (PYTHON: python3 unless given)
#
# pip builds in an isolated environment with the build backend pyproject.toml
# names (maturin, from PyPI) and the release profile, without the PGO flags
# `make build` uses: the build a user's `pip install .` makes. The files the
# commands read at run time (data/, scenarios/, crosscheck/ns2/) are part of
# the package (python/satcp/_resources, satcp/paths.py); this is the check
# that the wheel carries them. Prints the build's wall time.
set -euo pipefail
python=${1:-python3}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

if git -C "$repo" rev-parse --verify -q HEAD >/dev/null 2>&1; then
  git clone --quiet --no-checkout "$repo" "$d/src"
  git -C "$d/src" checkout --quiet --detach "$(git -C "$repo" rev-parse HEAD)"
else  # a source tree without its git history (a CI that unpacks an archive): the tree without build products
  echo "wheel: $repo is not a git checkout: building from a copy of it without build products"
  mkdir "$d/src"
  tar -C "$repo" --exclude=./target --exclude='./.venv*' --exclude=./out --exclude=./dist --exclude=./bench-results \
      --exclude=./fuzz/target --exclude='*.so' --exclude=__pycache__ --exclude='*.duckdb' -cf - . | tar -C "$d/src" -xf -
fi

t0=$(date +%s)
if ! (cd "$d/src" && "$python" -m pip wheel --verbose --no-deps --wheel-dir "$d/dist" .) >"$d/build.log" 2>&1; then
  cat "$d/build.log" >&2
  echo "wheel: pip wheel . failed (above)" >&2
  exit 1
fi
echo "wheel: pip wheel . built $(basename "$d"/dist/satcp-*.whl) in $(($(date +%s) - t0)) s"
# cargo's last line says which profile the engine was compiled with
grep -o 'Finished `[a-z-]*` profile.*' "$d/build.log" | tail -1 | sed 's/^/wheel: cargo: /'
# the wheel has the run-time files, and nothing outside the package
"$python" - "$d"/dist/satcp-*.whl <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
need = ["satcp/_resources/data/published/adalr_thesis.csv", "satcp/_resources/scenarios/geo_bent_pipe.toml",
        "satcp/_resources/crosscheck/ns2/peer.tcl", "satcp/scenarios/geo_demo.toml"]
missing = [n for n in need if n not in names]
stray = sorted({n.split("/")[0] for n in names} - {"satcp", next(n.split("/")[0] for n in names if ".dist-info/" in n)})
if missing or stray:
    sys.exit(f"wheel: missing {missing}, outside the package {stray}")
EOF

rm -rf "$d/src"  # nothing of the checkout is left to find
"$python" -m venv "$d/venv"
"$d/venv/bin/python" -m pip install --quiet "$d"/dist/satcp-*.whl
cd "$d"
venv/bin/satcp --help >/dev/null
venv/bin/satcp demo --quick --out demo
venv/bin/satcp reproduce adalr --quick --out adalr
venv/bin/satcp results adalr/results.duckdb >/dev/null
venv/bin/satcp report adalr/results.duckdb --out report >/dev/null
test -s report/index.html
venv/bin/satcp reproduce leo-geo --quick --out leo >/dev/null
SATCP_TRACE_CACHE="$d/traces" venv/bin/satcp reproduce starlink-trace --quick --out starlink >/dev/null
venv/bin/satcp reproduce quic-geo --quick --out quic >/dev/null
venv/bin/satcp reproduce pep --quick --out pep >/dev/null
echo "wheel: every command ran outside the checkout ($d)"
