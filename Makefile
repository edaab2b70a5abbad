# Guildhall: every target sets up what it needs (virtualenv, dependencies, generated code, Redis).
#   make test   the whole suite          make demo   one bot match per game, replayed from Redis
#   make run    the stack in foreground  make bench  the benchmarks         make lint   ruff + mypy
#   make bench-peers  boardgame.io beside Guildhall   make soak  faults under bot load

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PROTOS := $(shell find protos -name '*.proto')
# Parallel test workers; each starts its own Redis.
WORKERS ?= 2

.PHONY: all venv gen web chromium debian-tools checkov buf proto-baseline test image image-test demo run bench bench-quick bench-peers bench-bots bench-botworker lint golden schemas manifests lock clean soak
all: test

venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed (PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' -c constraints.txt
	@# Generated gRPC modules live in gen/ (git-ignored): put it on the venv's path.
	$(PY) -c 'import os, sysconfig; open(os.path.join(sysconfig.get_paths()["purelib"], "guildhall-gen.pth"), "w").write(os.path.abspath("gen") + "\n")'
	touch $@

gen: gen/.stamp
gen/.stamp: $(VENV)/.installed $(PROTOS)
	rm -rf gen && mkdir -p gen
	$(PY) -m grpc_tools.protoc -Iprotos --python_out=gen --pyi_out=gen --grpc_python_out=gen $(PROTOS)
	@# The Connect (HTTP) side of the gateway's services: gateway_connect.py, admin_connect.py (gateway/api/connect.py).
	$(PY) -m grpc_tools.protoc -Iprotos --plugin=protoc-gen-connect-python=$(VENV)/bin/protoc-gen-connect-python \
	  --connect-python_out=gen protos/guildhall/gateway/v1/gateway.proto protos/guildhall/admin/v1/admin.proto
	touch $@

# The TypeScript client and the web table (clients/web): npm ci from the lockfile, generated
# protobuf-es code and per-game types from schemas/ (git-ignored, like gen/), the package's library
# (tsc: dist/lib/, JS and .d.ts) and esbuild bundles in clients/web/dist/.
WEB := clients/web
WEB_SOURCES := $(shell find $(WEB)/src $(WEB)/table $(WEB)/scripts -type f -not -path '*/gen/*' 2>/dev/null) \
  $(wildcard $(WEB)/tsconfig*.json) $(shell find schemas -name '*.schema.json')
web: $(WEB)/dist/.stamp
$(WEB)/dist/.stamp: $(VENV)/.installed $(WEB)/package.json $(WEB)/package-lock.json $(PROTOS) $(WEB_SOURCES)
	@command -v npm >/dev/null || { echo "npm (Node 20+) is needed for the web client"; exit 1; }
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	cd $(WEB) && PYTHON=$(abspath $(PY)) npm run --silent build
	touch $@

# Debian packages the tests use, installed when missing: chromium for the browser tests
# (tests/web), prometheus for promtool (the alert rules' tests, tests/deploy/test_monitoring.py).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_TOOLS := chromium:chromium promtool:prometheus
debian-tools:
	@missing=$$(for pair in $(DEBIAN_TOOLS); do command -v $${pair%%:*} >/dev/null || echo $${pair#*:}; done); \
	if [ -n "$$missing" ]; then $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; fi
chromium: debian-tools

# checkov (the manifests' policy test, tests/deploy/test_checkov.py) in a venv of its own: its
# many pinned dependencies would otherwise fight the project's.
TOOLS := .venv-tools
CHECKOV_VERSION := 3.3.30
checkov: $(TOOLS)/.checkov-$(CHECKOV_VERSION)
$(TOOLS)/.checkov-$(CHECKOV_VERSION):
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/pip install --quiet --disable-pip-version-check checkov==$(CHECKOV_VERSION)
	touch $@

# buf (from npm: @bufbuild/buf) for the contract's lint and breaking-change checks (buf.yaml):
# `make lint` and tests/test_contract.py run them against protos/baseline.binpb.
BUF := tools/buf/node_modules/.bin/buf
buf: $(BUF)
$(BUF): tools/buf/package.json tools/buf/package-lock.json
	@command -v npm >/dev/null || { echo "npm (Node 20+) is needed for buf"; exit 1; }
	cd tools/buf && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# Write the compatibility baseline from today's protos: only for an intended breaking change,
# that is a new major version (docs/clients.md, "Versioning").
proto-baseline: buf
	$(BUF) build -o protos/baseline.binpb

test: gen web debian-tools checkov buf
	$(PY) -m pytest -n $(WORKERS) -q -m "not image"

# The container image (deploy/Dockerfile) with docker or podman, whichever is present; with no
# registry to pull python:3.11-slim from, on a Debian base built with debootstrap
# (devstack/image.py). BASE_IMAGE=... picks another base.
image: gen
	$(PY) -m devstack.image build

# The image run as the manifests run it (Redis, a rules service per game and a gateway, each its
# own container, non-root, read-only root): the demo played through it. About 4 minutes.
image-test: gen
	$(PY) -m pytest -q -m image tests/image

demo: gen
	$(PY) -m devstack.demo

run: gen web
	$(PY) -m devstack.stack

# Every benchmark section, figures beside same-run baselines: bench/results.{json,md}.
bench: gen
	$(PY) -m benchmarks.run

bench-quick: gen
	$(PY) -m benchmarks.run --quick

# The peer alone (boardgame.io, installed with npm into benchmarks/peers/boardgameio/) beside
# Guildhall's Play stream and unary path: bench/results.{json,md} hold this section only.
bench-peers: gen
	$(PY) -m benchmarks.run --sections peers

# Strong bot against greedy (and greedy against random), 0.2 s of CPU per decision, two worker
# processes, niced; resumable: finished matches are appended to bench/bots/results.jsonl (commit
# it) and bench/bots/summary.md is regenerated. BOT_HOURS stops taking new matches after that long.
BOT_HOURS ?= 3
bench-bots: gen
	nice -n 19 $(PY) -m benchmarks.bench_strong --workers 2 --hours $(BOT_HOURS)

# How many strong seats one bot worker serves at 1 s a decision (bench/bots/capacity.md).
bench-botworker: gen
	nice -n 19 $(PY) -m benchmarks.bench_botworker

# Bot matches of every game through two gateway replicas while Redis, replicas and rules services
# are killed at random; every match audited, lost/duplicated acknowledged events counted (must be 0).
# SOAK_SECONDS bounds the play; the report goes to var/soak/report.md. CLUSTER=1: the store on a
# local Redis Cluster, with primaries killed and stalled past their failover (acknowledged
# receipts checked for forks; spectator delays on the other replica).
SOAK_SECONDS ?= 300
CLUSTER ?= 0
soak: gen
	$(PY) -m soak --duration $(SOAK_SECONDS) $(if $(filter 1,$(CLUSTER)),--cluster)

lint: gen buf
	$(BUF) lint
	$(BUF) breaking --against protos/baseline.binpb
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy services gateway devstack

# Rewrite the golden playthroughs after an intended rules change; review the diff before committing.
golden: gen
	UPDATE_GOLDEN=1 $(PY) -m pytest -q tests/golden

# Re-export the JSON Schemas clients build against (schemas/<game>/); a test keeps them current.
schemas: gen
	$(PY) -m services.export_schemas
	$(PY) -m gateway.schemas
	@# The Python client's per-game TypedDicts from them (the TypeScript ones are made by make web).
	$(PY) -m guildhall_client.games.generate

# Re-render the per-game Kubernetes manifests from the registry; a test keeps them current.
manifests: gen
	$(PY) -m deploy.render

# Refresh constraints.txt: the newest versions pyproject.toml allows, resolved in a scratch venv.
lock:
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install --quiet '.[dev]'
	(echo "# Versions the suite was last run with; \`make lock\` refreshes it. pyproject.toml keeps the ranges."; \
	 .venv-lock/bin/pip freeze --exclude-editable | grep -vi '^guildhall') > constraints.txt
	rm -rf .venv-lock build

clean:
	rm -rf $(VENV) $(TOOLS) gen .pytest_cache .mypy_cache .ruff_cache var $(WEB)/node_modules $(WEB)/dist $(WEB)/src/gen
