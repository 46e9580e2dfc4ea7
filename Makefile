# Two commands do all the set-up: `make serve` runs brain on the bundled example workspace,
# `make test` runs the whole test suite (the same command CI runs). Both create .venv first.
# `make check` is the fast loop while working: lint, types and the tests that need no server,
# browser or editor.
PYTHON ?= python3
VENV := .venv
# The stamp names what was installed: a change to the project or to the native crate's sources
# installs again.
NATIVE_SOURCES := native/Cargo.toml native/Cargo.lock native/pyproject.toml $(sort $(wildcard native/src/*.rs native/src/*/*.rs))
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml $(NATIVE_SOURCES) | sha1sum | cut -c1-12)

VERSION := $(shell sed -n 's/^__version__ = "\(.*\)"$$/\1/p' brain/__init__.py)
MODEL_WHEEL := $(VENV)/wheels/brain_minilm-$(VERSION)-py3-none-any.whl

# Build outputs kept outside the clone, as code-server and mypy's cache are (BRAIN_CI_CACHE): a
# fresh clone (CI) built the native crate's dependencies (about 50 s of CPU) and the model's wheel
# (about 30 s, and a download of numpy, onnx and onnxruntime) again each time. Cargo checks its
# own fingerprints; the model's wheel is kept by the hash of everything that builds it. Nothing
# is needed from here: an empty cache builds it all.
BUILD_CACHE := $(or $(BRAIN_CI_CACHE),$(HOME)/.cache/brain-ci)
export CARGO_TARGET_DIR ?= $(BUILD_CACHE)/cargo-target
MODEL_SOURCES := scripts/dist $(sort $(shell find tools/dist -type f -not -path '*/__pycache__/*'))
MODEL_CACHED := $(BUILD_CACHE)/model-$(VERSION)-$(shell cat $(MODEL_SOURCES) | sha1sum | cut -c1-12)

.PHONY: serve test check lint bench clean web native bytecode dist

$(STAMP): pyproject.toml $(NATIVE_SOURCES)
	@# The venv without ensurepip, and a current pip put in by $(PYTHON)'s own (`--python`, pip >=
	@# 22.3): ensurepip byte-compiled Python's bundled pip (about 9 s of CPU) only to have it
	@# replaced the next line. Where $(PYTHON)'s pip cannot, ensurepip as before.
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv --without-pip $(VENV)
	@$(VENV)/bin/python -m pip --version >/dev/null 2>&1 \
		|| $(PYTHON) -m pip --python $(VENV)/bin/python install -q --disable-pip-version-check pip \
		|| $(VENV)/bin/python -m ensurepip
	$(VENV)/bin/python -m pip install -q --upgrade pip
	@# The distribution was called `brain` before it became brain-memory (`brain` on PyPI is another
	@# project's): an old editable install of it goes, or two distributions would own the package.
	@$(VENV)/bin/python -m pip uninstall -q -y brain 2>/dev/null || true
	@# brain[semantic] but its native wheel (`make native` builds that from source when cargo is
	@# there): the model's wheel, made from the pinned upstream one as `make dist` makes it.
	@# A model wheel built before the ONNX graph (model.onnx) was added is built again and replaces
	@# the installed one (same version), or the encoder would stay on numpy, 10 times slower.
	@$(VENV)/bin/python -c "import sys, zipfile; sys.exit('brain_minilm/model/model.onnx' not in zipfile.ZipFile(sys.argv[1]).namelist())" $(MODEL_WHEEL) 2>/dev/null \
		|| { { test -f $(MODEL_CACHED)/$(notdir $(MODEL_WHEEL)) || bash scripts/dist --model $(MODEL_CACHED); } \
			&& rm -f $(MODEL_WHEEL) && mkdir -p $(VENV)/wheels && cp $(MODEL_CACHED)/$(notdir $(MODEL_WHEEL)) $(VENV)/wheels/ \
			&& $(VENV)/bin/python -m pip uninstall -q -y brain-minilm; }
	@# One pip run for brain with its test tools and the model's part: one resolution, one look at
	@# the registry for each package (numpy and the like came up in both, a pip run each).
	$(VENV)/bin/python -m pip install -q -e '.[test]' \
		--find-links $(VENV)/wheels 'brain-minilm==$(VERSION)' 'tokenizers>=0.15' 'onnxruntime>=1.17'
	@$(MAKE) --no-print-directory native
	@rm -f $(VENV)/.installed-* && touch $@

serve: $(STAMP) bytecode
	@bash web/build.sh --if-needed || echo "make serve: the web UI was not built (see above); the API works, / says how to build it"
	$(VENV)/bin/brain serve examples/workspace

# brain's bytecode, compiled ahead (only what changed): where PYTHONDONTWRITEBYTECODE is set, as
# in many containers, every brain process (each parse helper too) compiled brain's sources
# again as it started, a tenth of a second each.
bytecode: $(STAMP)
	@$(VENV)/bin/python -m compileall -q brain >/dev/null

# The web UI (web/ -> brain/api/web_dist): Node >= 18 and the npm registry.
web:
	bash web/build.sh

# brain's text scanners in Rust (native/, brain/parse/native.py): a first ingest's parsing several
# times faster. Needs cargo (rustup); without it brain runs on the Python code, slower.
# rustup puts cargo in ~/.cargo/bin, which a non-login shell's PATH may lack.
# The wheel is the one `make dist` ships (scripts/dist --native), kept in BUILD_CACHE by the hash
# of its sources and toolchain: a fresh clone of unchanged native/ sources (CI) compiles nothing.
CARGO := $(shell command -v cargo 2>/dev/null || ls $$HOME/.cargo/bin/cargo 2>/dev/null)
native:
	@if [ -n "$(CARGO)" ]; then \
		out=$$(mktemp -d); \
		{ PATH="$(dir $(CARGO)):$$PATH" BRAIN_DIST_NATIVE_CACHE="$(BUILD_CACHE)" PYTHON="$(PYTHON)" bash scripts/dist --native "$$out" \
			&& $(VENV)/bin/python -m pip install -q --force-reinstall --no-deps "$$out"/brain_native-*.whl; } \
			|| echo "make: brain's native scanners did not build (see above): brain works, a first ingest is slower"; \
		rm -rf "$$out"; \
	else \
		echo "make: cargo not found, so brain's native scanners were not built: brain works, a first ingest is slower (https://rustup.rs)"; \
	fi

# What a release publishes, into dist/: brain's wheel and sdist with the web UI inside, the native
# scanners' abi3 wheel, the model's wheel (scripts/dist; needs Node >= 18, npm and cargo, and
# stops at the first part that does not build). `pip install --find-links dist 'brain-memory[semantic]'`.
dist:
	bash scripts/dist dist

# scripts/test makes the venv (make bytecode) itself, beside the set-up steps that do not use it.
test:
	bash scripts/test

# The fast loop (under 90 s on an idle 2-core machine): ruff, mypy, the import layers, and tests/unit on two
# workers (pytest-xdist; tests/plan.py groups what shares a fixture), without the Neo4j legs.
# The random-operation state machines (tests/unit/test_linking_random.py, a quarter of tests/unit's
# time) try 30 sequences each here, 250 in `make test`; the property tests draw at most 200
# examples (or texts, for a test of batches: tests/batches.py) each here (BRAIN_MAX_EXAMPLES,
# tests/plan.py): the scanner equivalence tests compare 1,800-4,800 texts in `make test`.
# (50 and 300 until issue 40: make check's unit tests took 172 s of CPU with them, 160 s with
# these.) No unit test uses pytest-lsp's fixtures: without its plugin the controller and each worker skip importing
# lsprotocol, most of a second of a core each.
check: $(STAMP) bytecode
	$(VENV)/bin/ruff check brain tests bench tools/layers
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --strict tools/layers/check.py
	$(VENV)/bin/python tools/layers/check.py
	BRAIN_RANDOM_OPS_EXAMPLES=30 BRAIN_MAX_EXAMPLES=200 $(VENV)/bin/python -m pytest -q -p no:cacheprovider \
		-p no:pytest-lsp -n 2 --dist loadgroup -m "not neo4j" tests/unit

lint: $(STAMP)
	$(VENV)/bin/ruff check brain tests bench tools/layers
	$(VENV)/bin/mypy
	$(VENV)/bin/mypy --strict tools/layers/check.py
	$(VENV)/bin/python tools/layers/check.py
	@if [ -n "$(CARGO)" ]; then $(CARGO) clippy --quiet --release --manifest-path native/Cargo.toml -- -D warnings; fi

clean:
	rm -rf $(VENV) *.egg-info .mypy_cache .ruff_cache .pytest_cache native/target dist
