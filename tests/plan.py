"""How the suite is cut up: which tests share a worker, which read the scanners, which need
the semantic model. The hooks and fixture are imported by tests/conftest.py.

- Workers (pytest-xdist, `--dist loadgroup`): every
  test of the Neo4j store shares one worker, because they share one server and one database
  that each test clears; and the tests of a module with a module-scoped fixture (a browser,
  a code-server, a served workspace) share one, so the fixture starts once, not once a worker.
  (pytest 9.2 and pytest-xdist 3.8 disagree on where a node's id lives: `_name_the_group`
  writes the group where pytest reads it.)
- Scanners (`-m scanner`): the test modules that import the scanners with a native twin
  (brain.parse.note, .body, .native and .secrets.scan, brain.layouts.secrets, brain.index.postings and
  .counting). scripts/test runs
  them again with BRAIN_NATIVE=0 (the Python twins alone); the rest of the suite reaches the
  scanners only through these same functions.
- Semantic search is off in tests (BRAIN_SEMANTIC=off, inherited by every `brain serve` a test
  starts) unless a module asks with `pytestmark = pytest.mark.semantic` (tests/search asks as
  a whole): loading the model and embedding the workspace was work every served test
  workspace did, for the few tests that look at semantic results.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import tempfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

SCANNER_IMPORT = re.compile(
    r"^\s*(?:from brain\.(?:parse|parse\.secrets|layouts|index) import [^\n]*"
    r"\b(?:native|note|body|secrets|scan|postings|counting)\b"
    r"|from brain\.(?:parse\.(?:note|body|native|secrets\.scan)|layouts\.secrets"
    r"|index\.(?:postings|counting))\b)",
    re.MULTILINE,
)
# Set before any fixture, so a module-scoped server inherits it. The second variable says the
# suite set it (not the person running it): pytest-xdist's workers inherit both from the
# controller, and must still turn semantic search on where a module asks.
OFF_BY_THE_SUITE = "BRAIN_SEMANTIC_OFF_BY_TESTS"
SEMANTIC_SET_HERE = "BRAIN_SEMANTIC" not in os.environ or os.environ.get(OFF_BY_THE_SUITE) == "1"
if SEMANTIC_SET_HERE:
    os.environ["BRAIN_SEMANTIC"] = "off"
    os.environ[OFF_BY_THE_SUITE] = "1"


@cache
def reads_scanners(module: Path) -> bool:
    return bool(SCANNER_IMPORT.search(module.read_text(encoding="utf-8")))


NEO4J_FIXTURES = {"neo4j_uri", "neo4j_login", "neo4j_store"}
CHEAP = {"_semantic_search"}


def _group(item: pytest.Item) -> str | None:
    # One worker: two that set up the schema at once can deadlock in Neo4j, and a test's
    # clear() would empty the database under the other's test.
    uses = set(getattr(item, "fixturenames", ()))
    if item.get_closest_marker("neo4j") is not None or NEO4J_FIXTURES & uses:
        return "neo4j"
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.items() if info is not None else []
    # (Not _semantic_search: module-scoped and on every test, but it only sets a variable.)
    if any(d[-1].scope in ("module", "class", "package") for name, d in defs if d and name not in CHEAP):
        return str(item.path)
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    grouping = bool(getattr(config.option, "loadgroup", False))  # set on xdist's workers
    for item in items:
        if item.path.suffix == ".py" and reads_scanners(item.path):
            item.add_marker(pytest.mark.scanner)
        group = _group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))
        if grouping:
            _name_the_group(item)


def _name_the_group(item: pytest.Item) -> None:
    """Put the group in the node id, where xdist's controller reads it (`id@group`).

    pytest-xdist 3.8 writes that suffix to `item._nodeid`; pytest 9.2 keeps a node's id in
    `item._id` and no longer reads `_nodeid`, so with these two versions no test was grouped
    (each worker started its own browser, code-server and Neo4j schema). Written here where
    pytest reads it; xdist's own write stays harmless. tests/unit/test_plan.py runs a module
    on two workers and checks its module fixture starts once.
    """
    names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                    for m in item.iter_markers("xdist_group")})
    node_id = getattr(item, "_id", None)
    if names and node_id is not None and "@" not in item.nodeid:
        item._id = type(node_id).parse(f"{item.nodeid}@{'_'.join(names)}")


@pytest.fixture(autouse=True, scope="module")
def _semantic_search(request: pytest.FixtureRequest) -> Iterator[None]:
    """Semantic search on for a module marked `semantic` (see the module docstring)."""
    if request.node.get_closest_marker("semantic") is None or not SEMANTIC_SET_HERE:
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("BRAIN_SEMANTIC")
        yield


@contextlib.contextmanager
def one_worker_at_a_time(name: str) -> Iterator[None]:
    """Held by one process of this user at a time: pytest-xdist's workers must not build into
    one folder together (the web UI's bundle, the VS Code extension, code-server's install)."""
    path = Path(tempfile.gettempdir()) / f"brain-{name}-{os.getuid()}.lock"
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
