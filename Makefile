# satcp: build, test and demo entry points. GNU make.
#   make demo   build everything and run the GEO demo (figures in out/demo)
#   make test   Rust + Python test suites, 20 s of each fuzz target, the wheel outside the checkout
#   make bench  engine benchmark

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV   := .venv
VENV_ABS := $(abspath $(VENV))
# Run a command with the venv active (maturin develop installs into VIRTUAL_ENV).
IN_VENV := VIRTUAL_ENV=$(VENV_ABS) PATH=$(VENV_ABS)/bin:$$PATH
PY_DEPS := pip maturin pytest numpy pandas matplotlib pyarrow scipy statsmodels duckdb "dask[distributed]" rich sgp4
# The stamp names a hash of PY_DEPS, so an existing venv gets what is added.
STAMP  := $(VENV)/.satcp-deps-$(shell echo '$(PY_DEPS)' | md5sum | cut -c1-8)
DEMO_OUT ?= out/demo

.PHONY: help venv pgo build demo test test-rust test-python test-sysdeps bench bench-ns3 bench-suite bench-sweep-overhead crosscheck crosscheck-ns2 crosscheck-linux crosscheck-pep crosscheck-quic crosscheck-hypatia hypatia-venv clean fuzz fuzz-build test-fuzz wheel test-wheel

help:
	@echo "satcp make targets:"
	@echo "  make demo    build everything, run the GEO demo (figures in $(DEMO_OUT))"
	@echo "  make test    build, then cargo test (satcp-core), pytest tests/python and 20 s of each fuzz target"
	@echo "  make fuzz    each fuzz target for FUZZ_SECONDS (300), growing fuzz/corpus (docs/reliability.md)"
	@echo "  make bench   build, then the engine benchmark (satcp-bench), sweep scaling (1 vs 2 workers), bench-ns3, bench-suite, bench-sweep-overhead"
	@echo "  make bench-ns3  satcp vs ns-3 3.44 side by side (bench/ns3, minutes)"
	@echo "  make bench-suite  reference scenarios: satcp alone, beside ns-2 and ns-3, scaling (bench/suite.py)"
	@echo "  make bench-sweep-overhead  10,000 one-second runs on 2 workers: time outside the engine"
	@echo "  make crosscheck satcp vs ns-3 3.44: goodput and completion per TCP variant, PER, delayed ACK"
	@echo "  make crosscheck-ns2  satcp (profile ns2) vs ns-2 2.35's agents (installs Debian's ns2)"
	@echo "  make crosscheck-linux  satcp (profile linux) vs this kernel's TCP over a user-space link emulator (root; real time, minutes)"
	@echo "  make crosscheck-pep   satcp's PEP vs socat splitting TCP between two emulated hops (root; real time; in crosscheck-linux)"
	@echo "  make crosscheck-quic  satcp's QUIC vs quinn on real sockets and aioquic over the same emulator (root; real time, ~20 min)"
	@echo "  make crosscheck-hypatia  satcp's constellation paths vs Hypatia's (satgenpy 0.4.0 in .venv-hypatia; half an hour the first time)"
	@echo "  make reproduce-NAME  a study, every table and claim (report in out/reproduce-NAME; the studies:"
	@echo "                       satcp reproduce --help, or python -m satcp.reproduce)"
	@echo "  make reproduce-NAME-quick  the same in its --quick form (CI-sized)"
	@echo "  make build   maturin develop --release into $(VENV) + Rust CLIs, profile-guided (scripts/pgo.sh)"
	@echo "  make pgo     the PGO profile alone (target/pgo)"
	@echo "  make venv    create $(VENV) with the Python dependencies"
	@echo "  make clean   remove build products, $(VENV) and out/"

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(VENV)/bin/python
	$(VENV)/bin/python -m pip install --upgrade --quiet $(PY_DEPS)
	touch $@

venv: $(STAMP)

# Profile-guided optimisation: scripts/pgo.sh trains an instrumented
# satcp-run and writes the RUSTFLAGS every release build here uses
# (-Cprofile-use=..., or nothing where no llvm-profdata matches rustc's
# LLVM). The engine runs 7-14% faster with it and computes the same bits
# (docs/performance.md). Redone when the engine or the training set changes.
PGO_DIR := target/pgo
PGO_FLAGS := $(PGO_DIR)/rustflags
PGO_INPUTS := $(shell find crates/satcp-core scenarios/ bench/pgo -name '*.rs' -o -name '*.toml' 2>/dev/null) Cargo.lock scripts/pgo.sh
# SATCP_PGO=0 make build: a plain release build, the profile left alone
ifeq ($(SATCP_PGO),0)
RELEASE_ENV := RUSTFLAGS=
PGO_DEP :=
else
RELEASE_ENV = RUSTFLAGS="$$(cat $(PGO_FLAGS))"
PGO_DEP := $(PGO_FLAGS)
endif
$(PGO_FLAGS): $(PGO_INPUTS)
	scripts/pgo.sh $(PGO_DIR)

pgo: $(PGO_FLAGS)

build: venv $(PGO_DEP)
	$(IN_VENV) $(RELEASE_ENV) maturin develop --release
	$(RELEASE_ENV) cargo build --release -p satcp-core -p satcp-linkemu

demo: build
	$(IN_VENV) satcp demo --out $(DEMO_OUT)

test-rust: build
	cargo test --profile tests-opt -p satcp-core -p satcp-linkemu --features satcp-core/tls
	python3 scripts/check_doc_examples.py

# System tools the Python tests drive: headless Chromium (report rendering),
# tshark (pcap decoding), ns-2 2.35 (the ns-2 cross-check), iperf3 and ping (satcp trace import
# run live). Installed once, non-interactively (Debian).
SYS_TEST_TOOLS := chromium:chromium tshark:tshark ns:ns2 iperf3:iperf3 ping:iputils-ping
test-sysdeps:
	@missing=""; for t in $(SYS_TEST_TOOLS); do command -v $${t%%:*} >/dev/null || missing="$$missing $${t##*:}"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing"; \
	  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi

test-python: build test-sysdeps hypatia-venv
	$(IN_VENV) python -m pytest -q -rs tests/python

test: test-rust test-python test-fuzz test-wheel

# The wheel, built the standard way: pip and the build backend pyproject.toml
# names (maturin, release profile). The files commands read at run time
# (data/, scenarios/, crosscheck/ns2/) are part of the package
# (python/satcp/_resources; the top-level names are links to it), so this,
# `pip wheel .` and `pip install .` give the same package. With the PGO
# flags make build uses.
wheel: venv $(PGO_DEP)
	rm -rf dist
	$(IN_VENV) $(RELEASE_ENV) python -m pip wheel --quiet --no-deps --wheel-dir dist .

# `pip wheel .` in a clean clone of HEAD, installed into an empty virtual
# environment in a temporary directory: every command a user starts with,
# run outside the checkout (scripts/test_wheel.sh; a release build of its
# own, without PGO, as a user's pip makes it).
test-wheel:
	scripts/test_wheel.sh $(PYTHON)

# Coverage-guided fuzzing (fuzz/, docs/reliability.md). cargo-fuzz from
# crates.io; the targets build on the stable toolchain (RUSTC_BOOTSTRAP
# admits the -Z flags libFuzzer's instrumentation needs; no sanitizer:
# the code is safe Rust, and debug assertions catch overflows).
FUZZ_TARGETS := scenario receiver sender arq
FUZZ_BIN := fuzz/target/x86_64-unknown-linux-gnu/release
FUZZ_SECONDS ?= 300
FUZZ_FLAGS := -max_len=4096 -rss_limit_mb=4096 -timeout=10 -print_final_stats=1
fuzz-build:
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked --version 0.13.2
	cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz build -s none -O --debug-assertions

# each target for FUZZ_SECONDS, growing its corpus in fuzz/corpus/TARGET
fuzz: fuzz-build
	for t in $(FUZZ_TARGETS); do mkdir -p fuzz/artifacts/$$t; \
	  $(FUZZ_BIN)/$$t fuzz/corpus/$$t -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) -artifact_prefix=fuzz/artifacts/$$t/ || exit 1; done

# CI's short form: 20 s a target, new inputs in a scratch directory
test-fuzz: fuzz-build
	for t in $(FUZZ_TARGETS); do d=$$(mktemp -d); \
	  $(FUZZ_BIN)/$$t $$d fuzz/corpus/$$t -max_total_time=20 $(FUZZ_FLAGS) -artifact_prefix=$$d/ || exit 1; rm -rf $$d; done

bench: build
	$(RELEASE_ENV) cargo run --release -p satcp-core --bin satcp-bench
	$(RELEASE_ENV) cargo run --release -p satcp-core --features tls --bin satcp-bench -- --only quic-cost
	$(RELEASE_ENV) cargo run --release -p satcp-core --bin satcp-bench -- --only xfwa-oc3-512
	$(RELEASE_ENV) cargo run --release -p satcp-core --bin satcp-bench -- --only starlink-1000-flows-10s --repeat 1
	$(RELEASE_ENV) cargo run --release -p satcp-core --bin satcp-bench -- --only starlink-1000-flows-100s --repeat 1
	$(IN_VENV) python bench/sweep_scaling.py
	bash bench/ns3/run.sh
	$(MAKE) bench-suite bench-sweep-overhead

# The reference scenarios: satcp alone, then side by side with ns-2 2.35 and
# ns-3 3.44, and scaling (bench/suite.py; tables in bench-results/suite/)
bench-suite: build test-sysdeps
	@[ -x /usr/bin/time ] || { apt-get update -q && apt-get install -y -q time; }
	bash bench/ns3/build.sh geo_bench >/dev/null
	$(IN_VENV) python bench/suite.py

# The share of 2 local workers' time outside the engine over 100,000 runs
# of about 10 ms (issue 43's case: 40 CUBIC flows for 3 s), then 10,000 of
# about 2 ms (20 flows for 1 s): minutes of both cores
bench-sweep-overhead: build
	$(IN_VENV) python bench/sweep_overhead.py --runs 100000 --flows 40 --stop 5s
	$(IN_VENV) python bench/sweep_overhead.py --runs 10000

# satcp-bench's scenarios in ns-3 3.44 (wheel in .venv-ns3); table + bench-results/ns3_ratio.csv
bench-ns3: build
	bash bench/ns3/run.sh

# Behavioural cross-check against ns-3 3.44 (python/satcp/crosscheck.py, peer
# bench/ns3/tcp_peer.cc): table on stdout, CSV in bench-results/crosscheck/
crosscheck: build
	$(IN_VENV) python -m satcp.crosscheck

# satcp's ns2 profile against ns-2 2.35 itself (python/satcp/crosscheck_ns2.py,
# Tcl peer crosscheck/ns2/peer.tcl): table on stdout, CSV in bench-results/crosscheck-ns2/
crosscheck-ns2: build test-sysdeps
	$(IN_VENV) python -m satcp.crosscheck_ns2

# satcp's linux profile against the kernel's own TCP: two network namespaces
# joined by satcp-linkemu over TUN devices (python/satcp/crosscheck_linux.py;
# root; runs in real time, about 8 minutes); CSV in bench-results/crosscheck-linux/
crosscheck-linux: build
	$(IN_VENV) python -m satcp.crosscheck_linux
	$(MAKE) crosscheck-pep

# satcp's split-TCP PEP against socat splitting between two satcp-linkemu
# hops (python/satcp/crosscheck_pep.py; root; real time, about 3 minutes);
# part of crosscheck-linux
crosscheck-pep: build
	@command -v socat >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q socat)
	$(IN_VENV) python -m satcp.crosscheck_pep

# satcp's QUIC flows against quinn on real sockets (satcp-quicpeer, the same
# quinn-proto) and aioquic, through the same emulator (python/satcp/
# crosscheck_quic.py, docs/validation-quic.md; root; real time, about 20 minutes)
AIOQUIC_VERSION := 1.7.2
crosscheck-quic: build
	$(RELEASE_ENV) cargo build --release -p satcp-quicpeer
	$(VENV)/bin/python -m pip install --quiet aioquic==$(AIOQUIC_VERSION)
	$(IN_VENV) python -m satcp.crosscheck_quic

# Hypatia's satgenpy 0.4.0 and the dependency versions the Hypatia
# cross-check was measured with, in .venv-hypatia (crosscheck/hypatia/venv.sh)
hypatia-venv:
	bash crosscheck/hypatia/venv.sh

# satcp's constellation paths against Hypatia's own path computation
# (python/satcp/crosscheck_hypatia.py, peer crosscheck/hypatia/peer.py):
# table on stdout, CSV in bench-results/crosscheck-hypatia/. Hypatia's
# state for the 100 s window takes it about half an hour (a Floyd-Warshall
# over 1,156 satellites a step); kept in target/hypatia/ for the next run
crosscheck-hypatia: build hypatia-venv
	$(IN_VENV) python -m satcp.crosscheck_hypatia

# A study reproduced (docs/reproduce.md): report, store and summary. The
# name is checked against the one list of studies (python/satcp/reproduce/
# __init__.py) by satcp itself, which lists them when it is unknown; a
# study that runs a simulator beside ours (ns-2) gets it installed first.
# Pattern rules: make finds no rule for a phony target, so these are not.
reproduce-%-quick: build
	@$(call reproduce-peers,$*)
	$(IN_VENV) satcp reproduce $* --quick --out out/reproduce-$*-quick

reproduce-%: build
	@$(call reproduce-peers,$*)
	$(IN_VENV) satcp reproduce $* --out out/reproduce-$*

reproduce-peers = if [ -n "$$($(IN_VENV) python -m satcp.reproduce --peers $(1) 2>/dev/null)" ]; then \
	  $(MAKE) --no-print-directory test-sysdeps; fi

clean:
	cargo clean
	rm -rf $(VENV) out .pytest_cache python/satcp/_core*.so
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
