# Countersign — the two commands: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PYBABEL := $(BIN)/pybabel
LOCALES := zh ms

.PHONY: demo test install install-test i18n translations lint check-imports typecheck test-services test-embedded bench-editor clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# Re-install only when pyproject.toml changes.
$(VENV)/.stamp-install: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.stamp-install-test: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e ".[test]"
	touch $@ $(VENV)/.stamp-install

install: $(VENV)/.stamp-install
install-test: $(VENV)/.stamp-install-test

# Compiled catalogues are built, never committed.
translations: $(VENV)/.stamp-install
	$(PYBABEL) -q compile --use-fuzzy -d translations

# Extract, merge into every catalogue, compile. Translate the new msgids, then commit the .po files.
i18n: $(VENV)/.stamp-install
	$(PYBABEL) -q extract -F translations/babel.cfg -k _l -k _lp:1c,2 -k N_ -k N_plural:1,2 --no-location --sort-output \
		--project=Countersign -o translations/messages.pot .
	for l in en $(LOCALES); do \
		if [ -f translations/$$l/LC_MESSAGES/messages.po ]; then \
			$(PYBABEL) -q update --no-fuzzy-matching -i translations/messages.pot -d translations -l $$l; \
		else \
			$(PYBABEL) -q init -i translations/messages.pot -d translations -l $$l; \
		fi; \
	done
	$(PYBABEL) -q compile -d translations

demo: install translations
	$(BIN)/portal demo

lint: install-test
	$(BIN)/ruff check portal tests e2e migrations
	$(BIN)/ruff format --check portal tests e2e migrations

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

clean:
	rm -rf $(VENV) instance translations/*/LC_MESSAGES/*.mo
