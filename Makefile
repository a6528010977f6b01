# The two commands: `make run` (the platform on embedded defaults) and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test install lint messages lock audit clean

# Every package (pip itself included) comes from the two lock files, each file checked against its
# pinned sha256 hashes: requirements.lock is the runtime (what production installs), requirements-dev.lock
# adds the test and tooling packages (its shared pins equal the runtime's; pip refuses the pair otherwise).
$(STAMP): requirements.lock requirements-dev.lock pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes --only-binary :all: -r requirements.lock -r requirements-dev.lock
	touch $(STAMP)

install: $(STAMP)
	$(PY) tools/compile_messages.py

run: install
	DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(PY) manage.py seed_demo
	DEBUG=$${DEBUG:-1} $(PY) manage.py runplatform

# On every core (pytest-xdist; at most 4 workers: each runs its own servers and, with REDIS_URL, uses the
# Redis database after the previous worker's); `make test XDIST=` runs in one process. No replacement
# for a crashed worker: it would be gw<N+1> on a Redis database past the range (and xdist's loadgroup
# scheduler fails on it).
XDIST ?= -n auto --maxprocesses 4 --dist loadgroup --max-worker-restart 0
test: install
	$(PY) -m pytest $(XDIST) $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .

# Developer helpers (need GNU gettext): refresh the .po files from the sources.
messages: install
	cd platform && ../$(PY) ../manage.py makemessages -l id -l ms -l tr --ignore=../.venv/* || true
	$(PY) manage.py makemessages -l id -l ms -l tr -i .venv -i var -i node_modules

# Re-pin dependencies from pyproject.toml into the two hashed lock files (newest releases within
# pyproject's ranges; keep the current pins and change only some with e.g.
# `make lock LOCK_ARGS="--upgrade-package django"` or LOCK_ARGS= for no upgrade at all).
LOCK_ARGS    ?= --upgrade
PIP_COMPILE  := CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/bin/pip-compile --quiet --generate-hashes \
                --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links --no-emit-trusted-host
lock: $(STAMP)
	$(PIP_COMPILE) $(LOCK_ARGS) --output-file requirements.lock pyproject.toml
	$(PIP_COMPILE) $(LOCK_ARGS) --extra dev --constraint requirements.lock --output-file requirements-dev.lock pyproject.toml

# Known vulnerabilities in the locked packages (pip-audit; CI runs it): fails on any finding, and says
# loudly which packages it could not check (AUDIT_STRICT=1 fails on those too).
audit: $(STAMP)
	$(PY) platform/security/dependency_audit.py requirements.lock requirements-dev.lock

clean:
	rm -rf $(VENV) var staticfiles
