# The two commands: `make run` (the platform on embedded defaults) and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test install lint messages lock clean

$(STAMP): requirements.lock pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	touch $(STAMP)

install: $(STAMP)
	$(PY) tools/compile_messages.py

run: install
	DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(PY) manage.py seed_demo
	DEBUG=$${DEBUG:-1} $(PY) manage.py runplatform

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

lint: install
	$(VENV)/bin/ruff check .

# Developer helpers (need GNU gettext): refresh the .po files from the sources.
messages: install
	cd platform && ../$(PY) ../manage.py makemessages -l id -l ms -l tr --ignore=../.venv/* || true
	$(PY) manage.py makemessages -l id -l ms -l tr -i .venv -i var -i node_modules

# Re-pin dependencies from pyproject.toml into requirements.lock.
lock:
	rm -rf /tmp/cardroom-lock && $(PYTHON) -m venv /tmp/cardroom-lock
	/tmp/cardroom-lock/bin/pip install --quiet --upgrade pip
	/tmp/cardroom-lock/bin/pip install --quiet ".[dev]"
	/tmp/cardroom-lock/bin/pip freeze --exclude cardroom | grep -v '^-e' > requirements.lock

clean:
	rm -rf $(VENV) var staticfiles
