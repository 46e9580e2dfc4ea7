"""tests/plan.py: the scanner tests are found by what they import, so the BRAIN_NATIVE=0 pass
of scripts/test cannot miss a new one; and semantic search is off unless a module asks."""

from __future__ import annotations

import fnmatch
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from brain.search.embedding import semantic_off
from tests.conftest import URI_ENV
from tests.plan import (
    MAX_EXAMPLES_ENV,
    RECORDED,
    SCANNER_IMPORT,
    SECOND_SERVER_ENV,
    neo4j_group,
    reads_scanners,
    split_neo4j,
)

TESTS = Path(__file__).resolve().parents[1]
# The nested runs below use no language-server fixture: without pytest-lsp's plugin each of
# their processes skips importing lsprotocol (most of a second of a core each).
NO_LSP = ("-p", "no:pytest-lsp")


def test_the_scanner_tests_are_those_that_import_a_scanner() -> None:
    marked = {p.relative_to(TESTS).as_posix() for p in TESTS.rglob("test_*.py") if reads_scanners(p)}
    assert {"unit/test_native.py", "unit/test_parse.py", "unit/test_layout_space.py",
            "search/test_postings.py", "search/test_bm25.py"} <= marked
    assert "unit/test_workspace.py" not in marked
    assert "search/test_held_postings.py" not in marked  # held_postings has no native twin


def test_the_import_forms_are_recognised() -> None:
    for line in ("from brain.parse import native", "from brain.parse.note import parse_note",
                 "from brain.layouts import secrets as s", "from brain.layouts.secrets import x",
                 "from brain.index import postings, postings_numpy",
                 "    from brain.parse.native import native",
                 "from brain.index.counting import count_block",
                 "from brain.parse.secrets.scan import find_secret"):
        assert SCANNER_IMPORT.search(line), line
    for line in ("from brain.ingest.parse_helpers import x", "from brain.index.held_postings import y",
                 "# from brain.parse import native", "from brain.index import bm25",
                 "from brain.parse import safejson"):
        assert not SCANNER_IMPORT.search(line), line


def test_semantic_search_is_off_in_a_module_that_did_not_ask() -> None:
    # "off", or another off word: an in-process test that loads `[search] semantic = false`
    # exports it to this worker's environment, as the CLI does for its helpers.
    assert os.environ["BRAIN_SEMANTIC"].lower() in ("0", "off", "false", "no")
    assert semantic_off()


def test_the_cache_folders_are_this_sessions(tmp_path_factory: pytest.TempPathFactory) -> None:
    from brain.snapshot.cachepaths import cache_dir, snapshot_path

    session = tmp_path_factory.getbasetemp()
    assert cache_dir().is_relative_to(session)
    assert snapshot_path(TESTS).is_relative_to(session)
    assert not cache_dir().is_relative_to(Path.home() / ".cache")


def group_of(request: pytest.FixtureRequest) -> str | None:
    marker = request.node.get_closest_marker("xdist_group")
    return None if marker is None else str(marker.args[0] if marker.args else marker.kwargs["name"])


def test_a_test_of_function_fixtures_goes_to_any_worker(request: pytest.FixtureRequest) -> None:
    assert group_of(request) is None  # not held to its module by the module-scoped _semantic_search


@pytest.fixture(scope="module")
def shared_by_the_module() -> str:
    return "started once"


def test_a_test_of_a_module_fixture_shares_its_modules_worker(
    request: pytest.FixtureRequest, shared_by_the_module: str
) -> None:
    assert group_of(request) == __file__


@pytest.mark.neo4j
def test_a_neo4j_test_shares_the_worker_of_its_server(request: pytest.FixtureRequest) -> None:
    groups = {"neo4j-a", "neo4j-b"} if os.environ.get(SECOND_SERVER_ENV) else {"neo4j"}
    assert group_of(request) == neo4j_group(Path(__file__))
    assert group_of(request) in groups


def test_two_servers_split_the_neo4j_modules_by_recorded_seconds() -> None:
    class Item:  # what split_neo4j reads of a collected test
        def __init__(self, path: str) -> None:
            self.path = Path(path)
            self.fixturenames = ["neo4j_login"]

        def get_closest_marker(self, name: str) -> None:
            return None

    names = ["tests/neo4j/test_stable_labels.py", "tests/api/test_documents.py",
             "tests/neo4j/test_faults.py", "tests/neo4j/test_schema.py", "tests/x/test_new.py"]
    items: list[Any] = [Item(str(TESTS.parent / n)) for n in names for _ in range(3)]
    assert set(split_neo4j(items, two_servers=False).values()) == {"neo4j"}
    split = split_neo4j(items, two_servers=True)
    assert set(split.values()) == {"neo4j-a", "neo4j-b"}
    recorded = json.loads(RECORDED.read_text())
    mean = sum(s for s, _ in recorded.values()) / sum(n for _, n in recorded.values())

    def seconds(name: str) -> float:
        took, tests = recorded.get(name, (mean, 1))
        return float(took) / tests * 3

    load = {group: sum(seconds(n) for n in names if split[str(TESTS.parent / n)] == group)
            for group in ("neo4j-a", "neo4j-b")}
    biggest = max(seconds(n) for n in names)
    assert abs(load["neo4j-a"] - load["neo4j-b"]) <= biggest, load  # greedy: off by one module at most


@pytest.fixture(scope="module")
def scheduled(tmp_path_factory: pytest.TempPathFactory) -> list[list[str]]:
    """One run of a made-up suite as scripts/test runs it (two workers, `--dist loadgroup`,
    two Neo4j URIs, BRAIN_MAX_EXAMPLES as `make check` sets it): what each test logged, as
    rows `what worker detail`. One run for the three tests below: each pytest start costs."""
    root = tmp_path_factory.mktemp("scheduled")
    log = root / "log"
    (root / "conftest.py").write_text(
        "from tests.conftest import neo4j_servers, neo4j_uri  # noqa: F401\n"
        "from tests.plan import pytest_collection_modifyitems  # noqa: F401\n"
    )
    note = ("import os, pytest\n"
            "from hypothesis import given, settings, strategies as st\n"
            "def note(*what):\n"
            f"    with open({str(log)!r}, 'a') as f:\n"
            "        f.write(' '.join([what[0], os.environ['PYTEST_XDIST_WORKER'], *what[1:]]) + '\\n')\n")
    (root / "test_grouped.py").write_text(
        note
        + "@pytest.fixture(scope='module')\n"
        "def server():\n"
        "    note('start')\n"
        "@pytest.mark.parametrize('i', range(8))\n"
        "def test_served(server, i):\n"
        "    note('served')\n"
        "@pytest.mark.parametrize('i', range(8))\n"
        "def test_free(i):\n"
        "    note('free')\n"
        "@settings(max_examples=1000, deadline=None)\n"
        "@given(st.integers())\n"
        "def test_property(n):\n"
        "    note('example')\n"
        "from tests.batches import batched, joined_texts\n"
        "@batched\n"
        "@settings(max_examples=1000, deadline=None)\n"
        "@given(joined_texts(['a', 'b'], 3))\n"
        "def test_batches(texts):\n"
        "    note('batch', str(len(texts)))\n"
    )
    # The two Neo4j groups (8 + 4 and 6 + 5 tests) are the largest, so xdist hands them out
    # first, one to each worker, as the real ones (about 180 tests each) are.
    for module, tests in {"one": 8, "two": 6, "three": 5, "four": 4}.items():
        (root / f"test_{module}.py").write_text(
            note
            + f"@pytest.mark.parametrize('i', range({tests}))\n"
            "def test_on_neo4j(neo4j_uri, i):\n"
            f"    note('neo4j', neo4j_uri, {module!r})\n"
            f"@pytest.mark.parametrize('i', range({tests}))\n"
            "def test_free(i):\n"
            "    pass\n"
        )
    env = {**os.environ, "PYTHONPATH": str(TESTS.parent), URI_ENV: "bolt://first:1",
           SECOND_SERVER_ENV: "bolt://second:2", MAX_EXAMPLES_ENV: "7"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NO_LSP, "-n", "2",
         "--dist", "loadgroup", "--rootdir", str(root), str(root)],
        cwd=root, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return [line.split() for line in log.read_text().splitlines()]


def test_a_module_fixture_starts_once_on_two_workers(scheduled: list[list[str]]) -> None:
    """The grouping as xdist schedules it, not only the marker: a module of a module-scoped
    fixture runs on two workers, and the fixture starts once (all its tests on one worker)."""
    starts = [row for row in scheduled if row[0] == "start"]
    served_on = {row[1] for row in scheduled if row[0] == "served"}
    assert len(starts) == 1, scheduled
    assert len(served_on) == 1, scheduled
    assert sum(row[0] == "free" for row in scheduled) == 8


def test_two_neo4j_servers_are_used_by_two_workers_one_each(scheduled: list[list[str]]) -> None:
    """With two servers, each module's Neo4j tests get the server of its group, and no server
    is used from two workers (they would clear each other's data)."""
    rows = [row[1:] for row in scheduled if row[0] == "neo4j"]  # worker, uri, module
    assert len(rows) == 23
    uri_of = {module: {uri for _, uri, m in rows if m == module} for _, _, module in rows}
    assert all(len(uris) == 1 for uris in uri_of.values()), uri_of
    workers_of = {uri: {w for w, u, _ in rows if u == uri} for _, uri, _ in rows}
    assert set(workers_of) == {"bolt://first:1", "bolt://second:2"}
    assert all(len(workers) == 1 for workers in workers_of.values()), workers_of
    assert workers_of["bolt://first:1"] != workers_of["bolt://second:2"]


def test_max_examples_caps_a_property_test(scheduled: list[list[str]]) -> None:
    """BRAIN_MAX_EXAMPLES=7 (make check's cap, smaller): 1,000 examples asked, at most 7 run
    (hypothesis may add an explicit or a shrinking run; none fails here)."""
    examples = sum(row[0] == "example" for row in scheduled)
    assert 1 <= examples <= 7, examples


def test_max_examples_caps_the_texts_of_a_batched_property_test(scheduled: list[list[str]]) -> None:
    """A test of batches (tests/batches.py) gets the cap in texts: 7 texts are one example of
    20, not 7 examples (140 texts, where `make check` would compare 4,000 of 200)."""
    batches = [row for row in scheduled if row[0] == "batch"]
    assert [row[2] for row in batches] == ["20"], batches


def test_no_test_folder_is_one_pytest_passes_over(pytestconfig: pytest.Config) -> None:
    """pytest does not go into folders named like its `norecursedirs` (`dist`, `build`, ...):
    tests/dist, the clean-venv install test, was never collected by `make test` until it was
    renamed tests/release."""
    skipped = pytestconfig.getini("norecursedirs")
    tests = Path(__file__).resolve().parents[1]
    folders = {p.parent for p in tests.rglob("test_*.py")}
    hidden = [f for f in folders for part in f.relative_to(tests).parts
              if any(fnmatch.fnmatch(part, pattern) for pattern in skipped)]
    assert len(folders) >= 10
    assert hidden == []


def test_the_tests_left_out_of_the_python_scanner_pass_call_no_native_scanner(tmp_path: Path) -> None:
    """The tests marked `no_native_rerun` pass with every native function raising
    (tests/native_trap.py): they call none, so the BRAIN_NATIVE=0 pass would rerun them as they
    ran. Fewer examples: the trap fires at the first call, and every example calls the same."""
    # Not by importing brain.parse.native: that would make this a scanner module (tests/plan.py),
    # run again by the BRAIN_NATIVE=0 pass, where it has nothing to trap.
    if os.environ.get("BRAIN_NATIVE") == "0" or importlib.util.find_spec("brain_native") is None:
        pytest.skip("the native scanner is not built (cargo)")
    marked = sorted(str(p) for p in TESTS.rglob("test_*.py")
                    if "mark.no_native_rerun" in p.read_text(encoding="utf-8"))
    assert len(marked) >= 3, marked
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *NO_LSP, "-p", "tests.native_trap",
         "-m", "no_native_rerun", *marked],
        cwd=TESTS.parent, env={**os.environ, MAX_EXAMPLES_ENV: "30", "PYTHONPATH": str(TESTS.parent)},
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout, done.stdout[-2000:]
