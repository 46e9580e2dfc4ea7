"""How the suite is cut up: which tests share a worker, which read the scanners, which need
the semantic model. The hooks and fixture are imported by tests/conftest.py.

- Workers (pytest-xdist, `--dist loadgroup`): the tests of one Neo4j server share one worker,
  because they share one database that each test clears; the tests of a module with a
  module-scoped fixture (a served workspace) share one, so the fixture starts once, not once
  a worker; and a folder or modules that mark their own group share one: tests/vscode (one
  code-server and browser for the folder, tests/vscode/shared.py), and the web UI's modules
  that read the two shared servers of the example ("ui-readers", tests/ui/conftest.py). The
  web UI's tests keep one Chromium per worker for a run of consecutive browser tests
  (tests/ui/conftest.py), a fresh context each.
- Neo4j servers: with a second server (BRAIN_TEST_NEO4J_URI_B, scripts/test starts two), the
  Neo4j tests are split by module into "neo4j-a" and "neo4j-b", balanced by the seconds each
  module took in a recorded run (tests/neo4j_seconds.json, `python -m tests.plan JUNIT.xml`
  records it again); tests/conftest.py's fixtures give a module the server of its group.
  With one server they are all in "neo4j", on one worker.
  (pytest 9.2 and pytest-xdist 3.8 disagree on where a node's id lives: `_name_the_group`
  writes the group where pytest reads it.)
- Scanners (`-m scanner`): the test modules that import the scanners with a native twin
  (brain.parse.note, .body, .native and .secrets.scan, brain.layouts.secrets, brain.index.postings and
  .counting). scripts/test runs
  them again with BRAIN_NATIVE=0 (the Python twins alone); the rest of the suite reaches the
  scanners only through these same functions. A test marked `no_native_rerun` is left out of
  that pass: it calls no native scanner (it reads none, or sets the twin it tests itself, as a
  `python` parameter does), so the pass would run it exactly as the main run did;
  tests/unit/test_plan.py runs the marked tests with every native function raising, to prove it.
- Property tests (hypothesis): BRAIN_MAX_EXAMPLES caps every test's examples (`make check`
  sets it: the fast loop draws 200 of the 3,000-4,000 examples the scanner equivalence
  tests drew in `make test`, which sets no cap); a test of batches (tests/batches.py: 20
  texts an example) gets that many texts.
- Semantic search is off in tests (BRAIN_SEMANTIC=off, inherited by every `brain serve` a test
  starts) unless a module asks with `pytestmark = pytest.mark.semantic` (tests/search asks as
  a whole): loading the model and embedding the workspace was work every served test
  workspace did, for the few tests that look at semantic results.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path

import pytest
from hypothesis import settings

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
ROOT = Path(__file__).resolve().parent.parent
SECOND_SERVER_ENV = "BRAIN_TEST_NEO4J_URI_B"
RECORDED = Path(__file__).with_name("neo4j_seconds.json")
MAX_EXAMPLES_ENV = "BRAIN_MAX_EXAMPLES"
# A module's Neo4j group ("neo4j", or "neo4j-a" / "neo4j-b" with two servers), by module path:
# set at collection, read by the Neo4j fixtures (tests/conftest.py) to pick the server.
NEO4J_GROUP_OF: dict[str, str] = {}


def uses_neo4j(item: pytest.Item) -> bool:
    uses = set(getattr(item, "fixturenames", ()))
    return item.get_closest_marker("neo4j") is not None or bool(NEO4J_FIXTURES & uses)


def module_key(path: Path) -> str:
    """A module as the recorded seconds name it: its path from the repository."""
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def neo4j_group(path: Path) -> str:
    """The Neo4j group of a test module: "neo4j-b" names the second server, anything else the first."""
    return NEO4J_GROUP_OF.get(str(path), "neo4j")


def split_neo4j(items: Sequence[pytest.Item], two_servers: bool) -> dict[str, str]:
    """Each module with Neo4j tests -> its group: all "neo4j" on one server, or with two,
    "neo4j-a" / "neo4j-b" by longest-first greedy balance of the recorded seconds (a module
    not recorded counts the recorded mean per test). Every worker collects the same tests, so
    every worker computes the same split."""
    counts = Counter(str(item.path) for item in items if uses_neo4j(item))
    if not two_servers:
        return dict.fromkeys(counts, "neo4j")
    recorded: dict[str, list[float]] = json.loads(RECORDED.read_text()) if RECORDED.exists() else {}
    mean = sum(s for s, _ in recorded.values()) / max(1, sum(n for _, n in recorded.values())) or 1.0

    def seconds(path: str) -> float:
        took, tests = recorded.get(module_key(Path(path)), (mean, 1))
        return took / max(1, tests) * counts[path]

    load = {"neo4j-a": 0.0, "neo4j-b": 0.0}
    split: dict[str, str] = {}
    for path in sorted(counts, key=lambda p: (-seconds(p), p)):
        group = min(load, key=lambda g: (load[g], g))
        split[path] = group
        load[group] += seconds(path)
    return split


def record(junit_files: Sequence[str]) -> dict[str, list[float]]:
    """Seconds and count of the Neo4j tests per module, from JUnit XML of runs of the whole
    suite (their ids end in the group, `@neo4j...`); several runs are averaged."""
    took: dict[str, list[float]] = {}
    for name in junit_files:
        runs: dict[str, list[float]] = {}
        for case in ET.parse(name).getroot().iter("testcase"):
            if "@neo4j" not in case.get("name", ""):
                continue
            parts = case.get("classname", "").split(".")
            module = next((p for i in range(len(parts), 0, -1)
                           if (ROOT / (p := "/".join(parts[:i]) + ".py")).exists()), None)
            if module is not None:
                row = runs.setdefault(module, [0.0, 0])
                row[0] += float(case.get("time", "0"))
                row[1] += 1
        for module, (seconds, tests) in runs.items():
            row = took.setdefault(module, [0.0, 0])
            row[0] += seconds / len(junit_files)
            row[1] = max(row[1], tests)
    return {m: [round(s, 1), int(n)] for m, (s, n) in sorted(took.items())}


def _group(item: pytest.Item) -> str | None:
    # One worker a server: two that set up the schema at once can deadlock in Neo4j, and a
    # test's clear() would empty the database under the other's test.
    if uses_neo4j(item):
        return neo4j_group(item.path)
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.items() if info is not None else []
    # (Not _semantic_search: module-scoped and on every test, but it only sets a variable.)
    if any(d[-1].scope in ("module", "class", "package") for name, d in defs if d and name not in CHEAP):
        return str(item.path)
    return None


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    grouping = bool(getattr(config.option, "loadgroup", False))  # set on xdist's workers
    NEO4J_GROUP_OF.clear()
    NEO4J_GROUP_OF.update(split_neo4j(items, bool(os.environ.get(SECOND_SERVER_ENV))))
    cap = int(os.environ.get(MAX_EXAMPLES_ENV) or 0)
    for item in items:
        if cap > 0:
            cap_examples(item, cap)
        if (item.path.suffix == ".py" and reads_scanners(item.path)
                and item.get_closest_marker("no_native_rerun") is None):
            item.add_marker(pytest.mark.scanner)
        group = _group(item)
        if group is not None and item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(group))
        if grouping:
            _name_the_group(item)


def cap_examples(item: pytest.Item, cap: int) -> None:
    """At most `cap` examples for a hypothesis test: its settings, as @settings left them on
    the test function, get the lower max_examples (hypothesis reads them when the test runs).
    A test of batches (tests/batches.py) gets `cap` inputs: cap / its batch examples."""
    test = getattr(item, "obj", None)
    cap = -(-cap // getattr(test, "brain_batch", 1))
    held = getattr(test, "_hypothesis_internal_use_settings", None)
    if isinstance(held, settings) and held.max_examples > cap:
        test._hypothesis_internal_use_settings = settings(held, max_examples=cap)  # type: ignore[union-attr]


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


if __name__ == "__main__":  # python -m tests.plan JUNIT.xml...: record the Neo4j seconds again
    rows = [f"{json.dumps(module)}: {json.dumps(row)}" for module, row in record(sys.argv[1:]).items()]
    RECORDED.write_text("{\n" + ",\n".join(rows) + "\n}\n")
