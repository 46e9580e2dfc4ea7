"""tests/plan.py: the scanner tests are found by what they import, so the BRAIN_NATIVE=0 pass
of scripts/test cannot miss a new one; and semantic search is off unless a module asks."""

from __future__ import annotations

import fnmatch
import os
import subprocess
import sys
from pathlib import Path

import pytest

from brain.search.embedding import semantic_off
from tests.plan import SCANNER_IMPORT, reads_scanners

TESTS = Path(__file__).resolve().parents[1]


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
    assert os.environ["BRAIN_SEMANTIC"] == "off"
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
def test_a_neo4j_test_shares_the_neo4j_worker(request: pytest.FixtureRequest) -> None:
    assert group_of(request) == "neo4j"


def test_a_module_fixture_starts_once_on_two_workers(tmp_path: Path) -> None:
    """The grouping as xdist schedules it, not only the marker: a module of a module-scoped
    fixture runs on two workers, and the fixture starts once (all its tests on one worker)."""
    log = tmp_path / "log"
    (tmp_path / "conftest.py").write_text(
        "from tests.plan import pytest_collection_modifyitems  # noqa: F401\n"
    )
    (tmp_path / "test_grouped.py").write_text(
        "import os, pytest\n"
        f"LOG = {str(log)!r}\n"
        "def note(what):\n"
        "    with open(LOG, 'a') as f:\n"
        "        f.write(what + ' ' + os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n"
        "@pytest.fixture(scope='module')\n"
        "def server():\n"
        "    note('start')\n"
        "@pytest.mark.parametrize('i', range(8))\n"
        "def test_served(server, i):\n"
        "    note('served')\n"
        "@pytest.mark.parametrize('i', range(8))\n"
        "def test_free(i):\n"
        "    note('free')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(TESTS.parent)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
         "--dist", "loadgroup", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = log.read_text().split("\n")
    starts = [line for line in lines if line.startswith("start")]
    served_on = {line.split()[1] for line in lines if line.startswith("served")}
    assert len(starts) == 1, lines
    assert len(served_on) == 1, lines
    assert sum(line.startswith("free") for line in lines) == 8


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
