# Guildhall: every target sets up what it needs (virtualenv, dependencies, generated code, Redis).
#   make test   the whole suite          make demo   one bot match per game, replayed from Redis
#   make run    the stack in foreground  make bench  the benchmarks         make lint   ruff + mypy

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
PROTOS := $(shell find protos -name '*.proto')
# Parallel test workers; each starts its own Redis.
WORKERS ?= 2

.PHONY: all venv gen test demo run bench bench-quick lint golden schemas manifests lock clean soak
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
	touch $@

test: gen
	$(PY) -m pytest -n $(WORKERS) -q

demo: gen
	$(PY) -m devstack.demo

run: gen
	$(PY) -m devstack.stack

# Every benchmark section, figures beside same-run baselines: bench/results.{json,md}.
bench: gen
	$(PY) -m benchmarks.run

bench-quick: gen
	$(PY) -m benchmarks.run --quick

# Bot matches of every game through two gateway replicas while Redis, replicas and rules services
# are killed at random; every match audited, lost/duplicated acknowledged events counted (must be 0).
# SOAK_SECONDS bounds the play; the report goes to var/soak/report.md.
SOAK_SECONDS ?= 300
soak: gen
	$(PY) -m soak --duration $(SOAK_SECONDS)

lint: gen
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy services gateway devstack

# Rewrite the golden playthroughs after an intended rules change; review the diff before committing.
golden: gen
	UPDATE_GOLDEN=1 $(PY) -m pytest -q tests/golden

# Re-export the JSON Schemas clients build against (schemas/<game>/); a test keeps them current.
schemas: gen
	$(PY) -m services.export_schemas

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
	rm -rf $(VENV) gen .pytest_cache .mypy_cache .ruff_cache var
