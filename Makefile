# Countersign — the two commands: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PYBABEL := $(BIN)/pybabel
LOCALES := zh ms
CATALOGUES := portal/translations

.PHONY: demo test install install-test constraints wheel i18n translations lint check-imports typecheck test-services test-embedded bench-editor soak clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install only when pyproject.toml or constraints.txt changes.
$(VENV)/.stamp-install: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/pip install --quiet -c constraints.txt -e .
	touch $@

$(VENV)/.stamp-install-test: pyproject.toml constraints.txt | $(BIN)/python
	$(BIN)/pip install --quiet -c constraints.txt -e ".[test]"
	touch $@ $(VENV)/.stamp-install

install: $(VENV)/.stamp-install
install-test: $(VENV)/.stamp-install-test

# The release: a wheel with the templates, static files, migrations and compiled catalogues.
wheel: | $(BIN)/python
	rm -rf dist
	$(BIN)/pip wheel --quiet --no-deps --wheel-dir dist .

# The versions every install takes (pyproject.toml states the ranges it accepts):
# resolved afresh in a scratch environment, then written to constraints.txt.
constraints: | $(BIN)/python
	rm -rf build/constraints-venv
	$(PYTHON) -m venv build/constraints-venv
	build/constraints-venv/bin/pip install --quiet ".[test]"
	{ sed -n '1,3p' constraints.txt; build/constraints-venv/bin/pip freeze --exclude-editable | grep -v '^countersign'; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf build/constraints-venv

# Compiled catalogues are built, never committed.
translations: $(VENV)/.stamp-install
	$(PYBABEL) -q compile --use-fuzzy -d $(CATALOGUES)

# Extract, merge into every catalogue, compile. Translate the new msgids, then commit the .po files.
i18n: $(VENV)/.stamp-install
	$(PYBABEL) -q extract -F $(CATALOGUES)/babel.cfg -k _l -k _lp:1c,2 -k N_ -k N_plural:1,2 --no-location --sort-output \
		--project=Countersign -o $(CATALOGUES)/messages.pot .
	for l in en $(LOCALES); do \
		if [ -f $(CATALOGUES)/$$l/LC_MESSAGES/messages.po ]; then \
			$(PYBABEL) -q update --no-fuzzy-matching -i $(CATALOGUES)/messages.pot -d $(CATALOGUES) -l $$l; \
		else \
			$(PYBABEL) -q init -i $(CATALOGUES)/messages.pot -d $(CATALOGUES) -l $$l; \
		fi; \
	done
	$(PYBABEL) -q compile -d $(CATALOGUES)

demo: install translations
	$(BIN)/portal demo

lint: install-test
	$(BIN)/ruff check portal tests e2e
	$(BIN)/ruff format --check portal tests e2e

check-imports: install-test
	$(BIN)/lint-imports

typecheck: install-test
	$(BIN)/mypy

# Every test on PostgreSQL + Redis (when reachable; see PORTAL_TEST_REQUIRE_SERVICES),
# then everything but the PostgreSQL-only tests again on SQLite + fakeredis.
test: install-test translations
	@bash .ci/ensure-chromium
	$(MAKE) --no-print-directory lint check-imports typecheck
	$(MAKE) --no-print-directory test-services
	$(MAKE) --no-print-directory test-embedded

test-services:
	$(BIN)/pytest

test-embedded:
	PORTAL_TEST_BACKEND=embedded $(BIN)/pytest tests -m "not postgres_only"

# The editor's figures (save round trips, opening and laying out a graph at the caps),
# measured in Chromium against a live server and printed.
bench-editor: install-test translations
	$(BIN)/pytest -s -m "benchmark or e2e" e2e/test_flow_editor.py e2e/test_flow_editor_canvas.py

# The soak: the topology as processes (2 web servers, 2 workers, a sweeper, the
# scheduler, a Redis of its own) against PostgreSQL, 5 minutes of mixed load with faults,
# then the consistency check; exits 1 unless every target is met. SOAK_ARGS passes
# options on (`make soak SOAK_ARGS="--duration 60"`).
soak: install-test translations
	$(BIN)/python -m tests.soak.run $(SOAK_ARGS)

clean:
	rm -rf $(VENV) instance build dist $(CATALOGUES)/*/LC_MESSAGES/*.mo
