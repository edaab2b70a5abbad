# Guildhall: every target sets up what it needs (virtualenv, dependencies, generated code, Redis).
#   make test   the whole suite          make demo   one bot match per game, replayed from Redis
#   make run    the stack in foreground  make bench  the benchmarks         make lint   ruff + mypy
#   make bench-peers  boardgame.io beside Guildhall   make soak  faults under bot load
#   make docs   the docs site (var/site)   make screenshots  the docs' pictures (docs/images)
#   make bundle  each game's rules version as a bundle (var/bundles/)

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PROTOS := $(shell find protos -name '*.proto')
# Parallel test workers; each starts its own Redis.
WORKERS ?= 2

.PHONY: all venv gen web docs screenshots chromium debian-tools checkov buf redocly proto-baseline schema-baseline openapi test image image-test demo run backup restore bench bench-quick bench-peers bench-bots bench-botworker lint golden schemas manifests lock clean soak bundle
all: test

# The server (pyproject.toml) and the Python client (clients/python: its own distribution,
# guildhall-client) are both installed editable, so `import guildhall_client` works everywhere.
CLIENT := clients/python
venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml $(CLIENT)/pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed (PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	@# A venv from before the split (one distribution named guildhall) maps guildhall_client to
	@# its old path: drop it.
	$(PY) -m pip uninstall --quiet --yes guildhall 2>/dev/null || true
	$(PY) -m pip install --quiet -e '.[dev]' -c constraints.txt
	@# The client's build reads its grpcio/protobuf floors from the grpcio-tools just pinned.
	$(PY) -m pip install --quiet --no-build-isolation -e $(CLIENT) -c constraints.txt
	@# Generated gRPC modules live in gen/ (git-ignored): put it on the venv's path.
	$(PY) -c 'import os, sysconfig; open(os.path.join(sysconfig.get_paths()["purelib"], "guildhall-gen.pth"), "w").write(os.path.abspath("gen") + "\n")'
	touch $@

gen: gen/.stamp
gen/.stamp: $(VENV)/.installed $(PROTOS)
	rm -rf gen && mkdir -p gen
	$(PY) -m grpc_tools.protoc -Iprotos --python_out=gen --pyi_out=gen --grpc_python_out=gen $(PROTOS)
	@# The descriptors with their comments, for the OpenAPI document (gateway/api/openapi.py).
	$(PY) -m grpc_tools.protoc -Iprotos --include_imports --include_source_info \
	  --descriptor_set_out=gen/guildhall/descriptors.binpb $(PROTOS)
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
# (tests/web), prometheus for promtool (the alert rules' tests, tests/deploy/test_monitoring.py),
# prometheus-redis-exporter for the Redis alerts' series (tests/deploy/test_redis_exporter.py).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_TOOLS := chromium:chromium promtool:prometheus prometheus-redis-exporter:prometheus-redis-exporter
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

# Tools from npm, each pinned by tools/<tool>/package.json and its lockfile, installed with npm ci.
NPM_TOOL_STAMP = tools/%/node_modules/.installed
$(NPM_TOOL_STAMP): tools/%/package.json tools/%/package-lock.json
	@command -v npm >/dev/null || { echo "npm (Node 20+) is needed for tools/$*"; exit 1; }
	cd tools/$* && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# buf (from npm: @bufbuild/buf) for the contract's lint and breaking-change checks (buf.yaml):
# `make lint` and tests/test_contract.py run them against protos/baseline.binpb.
BUF := tools/buf/node_modules/.bin/buf
buf: tools/buf/node_modules/.installed

# Redocly CLI (from npm: @redocly/cli) lints the OpenAPI document (tests/gateway/test_openapi.py).
redocly: tools/redocly/node_modules/.installed

# Write the compatibility baseline from today's protos: only for an intended breaking change,
# that is a new major version (docs/clients.md, "Versioning").
proto-baseline: buf
	$(BUF) build -o protos/baseline.binpb

# The docs site (mkdocs.yml, MkDocs Material): README.md is the front door, docs/ the site. Built
# strictly (a broken link, anchor or nav entry fails) into var/site/; open var/site/index.html.
docs: venv
	$(PY) -m mkdocs build --strict --site-dir var/site

# Record today's game JSON Schemas (and each game's edition and game-data kinds) as released:
# schemas/baseline.json, what services/schema_compat.py compares with. For a release only.
schema-baseline: gen
	$(PY) -m services.schema_compat --write-baseline

test: gen web debian-tools checkov buf redocly
	$(PY) -m pytest -n $(WORKERS) -q -m "not image"

# Refresh the docs' pictures (docs/images/table/, docs/images/boards/) from the browser tests that
# take them (tests/web/pictures.py): whole matches played in Chromium, a few minutes. `make test`
# writes its pictures under var/test-artifacts/web/ and never touches docs/images/.
screenshots: gen web debian-tools
	GUILDHALL_SCREENSHOTS=1 $(PY) -m pytest -n $(WORKERS) -q -p no:cacheprovider \
	  tests/web/test_table.py tests/web/test_boards_a.py tests/web/test_boards_b.py

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

# Issue 43: back up Redis (REDIS_URL; REDIS_CLUSTER=1 for a cluster) and the archive (ARCHIVE_DIR
# or ARCHIVE_S3_BUCKET) into BACKUP, a new directory, and verify it; restore a BACKUP into a fresh
# Redis and archive, then verify them (docs/deploy.md, "Back up and restore").
BACKUP ?= var/backups/$(shell date -u +%Y%m%dT%H%M%SZ)
backup: gen
	$(PY) -m gateway.backup create $(BACKUP)
restore: gen
	@test -d "$(BACKUP)" || { echo "make restore BACKUP=<a backup directory> REDIS_URL=<a fresh Redis>"; exit 2; }
	$(PY) -m gateway.backup restore $(BACKUP)

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
# VERSION_SWITCH=1: version B of every game beside A, the current version switched, rolled back
# and switched again under load (issue 40, soak/versions.py).
SOAK_SECONDS ?= 300
CLUSTER ?= 0
VERSION_SWITCH ?= 0
soak: gen
	$(PY) -m soak --duration $(SOAK_SECONDS) $(if $(filter 1,$(CLUSTER)),--cluster) \
	  $(if $(filter 1,$(VERSION_SWITCH)),--version-switch)

# Rules bundles (issue 40, docs/versions.md): each game's rules version as the zip that re-executes
# its matches once it is retired, in var/bundles/. GAME=<id> for one game; DATA=<file> with GAME:
# that game played with a replacement data file (another version).
bundle: gen
	$(PY) -m services.bundles build --out var/bundles $(if $(GAME),--game $(GAME)) \
	  $(if $(DATA),--data $(GAME)=$(DATA))

lint: gen buf
	$(BUF) lint
	$(BUF) breaking --against protos/baseline.binpb
	$(PY) -m services.schema_compat
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy services gateway devstack $(CLIENT)/guildhall_client

# Rewrite the golden playthroughs after an intended rules change; review the diff before committing.
golden: gen
	UPDATE_GOLDEN=1 $(PY) -m pytest -q tests/golden

# Re-export the JSON Schemas clients build against (schemas/<game>/); a test keeps them current.
schemas: gen
	$(PY) -m services.export_schemas
	$(PY) -m gateway.schemas
	@# The ids of each game's data and the fields holding them (schemas/<game>/ids.json), for both clients' types.
	$(PY) -m services.export_ids
	@# The Python client's per-game TypedDicts from them (the TypeScript ones are made by make web).
	$(PY) -m guildhall_client.games.generate

# Re-generate the gateway's OpenAPI 3.1 document from the protos' descriptors (gateway/api/openapi.py):
# docs/api/openapi.json, what GET /openapi.json serves; a test keeps it current.
openapi: gen
	$(PY) -m gateway.api.openapi

# Re-render the per-game Kubernetes manifests from the registry; a test keeps them current.
manifests: gen
	$(PY) -m deploy.render

# Refresh constraints.txt: the newest versions pyproject.toml allows, resolved in a scratch venv.
lock:
	rm -rf .venv-lock && $(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install --quiet '.[dev]' ./$(CLIENT)
	(echo "# Versions the suite was last run with; \`make lock\` refreshes it. pyproject.toml keeps the ranges."; \
	 .venv-lock/bin/pip freeze --exclude-editable | grep -vi '^guildhall') > constraints.txt
	rm -rf .venv-lock build $(CLIENT)/build

clean:
	rm -rf $(VENV) $(TOOLS) gen .pytest_cache .mypy_cache .ruff_cache var $(WEB)/node_modules $(WEB)/dist $(WEB)/src/gen
