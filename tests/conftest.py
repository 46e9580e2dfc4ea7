"""Shared fixtures: `store` runs a test on the embedded store and on a real Neo4j server.

The Neo4j leg uses the server at BRAIN_TEST_NEO4J_URI (optionally NEO4J_USER, NEO4J_PASSWORD,
NEO4J_DATABASE), and with BRAIN_TEST_NEO4J_URI_B also a second one: tests/plan.py splits the
Neo4j tests by module over the two, so two workers run them. Without a URI, a bundled server
is started from tools/neo4j when Java and Maven are there, and stopped at the end of the
session. Otherwise the leg is skipped with the reason, except in CI (CI=true), where a
missing server is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from neo4j import GraphDatabase

from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from brain.store.neo4j.store import Neo4jStore
from brain.store.open import StoreUnavailable
from tests.plan import (  # noqa: F401  (hooks, by name)
    _semantic_search,
    neo4j_group,
    pytest_collection_modifyitems,
)
from tests.repo_guard import (  # noqa: F401  (a fixture and a hook, by name)
    _repository_untouched,
    pytest_runtest_teardown,
)
from tests.skips import (  # noqa: F401  (pytest finds hooks by name in a conftest)
    pytest_make_collect_report,
    pytest_runtest_makereport,
    pytest_terminal_summary,
)

# pytest keeps each test module's assertion-rewritten code in __pycache__ only where bytecode
# may be written; under PYTHONDONTWRITEBYTECODE (set in many containers, this machine's too)
# every pytest process, each xdist worker and each nested run, rewrote all ~400 test modules
# again: 2-6 s of a core each (issue 40). The cache is pytest's own, gitignored, and checked
# against each module's source as any .pyc is.
sys.dont_write_bytecode = False

REPO = Path(__file__).resolve().parent.parent
LAUNCHER = REPO / "tools" / "neo4j" / "neo4j.sh"
URI_ENV = "BRAIN_TEST_NEO4J_URI"
SECOND_URI_ENV = "BRAIN_TEST_NEO4J_URI_B"
STORES = ["memory", pytest.param("neo4j", marks=pytest.mark.neo4j)]

# In CI, property tests draw the same examples every run, so a red build reads the same when
# rerun; locally each run explores new ones (and keeps failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI") == "true":
    settings.load_profile("ci")


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI needs a Neo4j server for the neo4j tests: {reason}", pytrace=False)
    pytest.skip(f"no Neo4j server: {reason}")


class Neo4jServers:
    """The session's Neo4j servers: the first at BRAIN_TEST_NEO4J_URI (or started here from
    tools/neo4j), the second at BRAIN_TEST_NEO4J_URI_B. tests/plan.py gives each module with
    Neo4j tests a group ("neo4j" or "neo4j-a": the first; "neo4j-b": the second), and all the
    tests of a group run on one worker, so no two workers share a database."""

    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._factory = tmp_path_factory
        self._found: dict[str, str] = {}  # server -> URI, or the reason it is not there
        self._missing: set[str] = set()
        self._started: list[dict[str, str]] = []
        self.schema_set_up: set[str] = set()

    def uri(self, group: str) -> str:
        server = "b" if group == "neo4j-b" else "a"
        if server not in self._found:
            try:
                self._found[server] = self._find(server)
            except _NoServer as missing:
                self._found[server] = str(missing)
                self._missing.add(server)
        if server in self._missing:  # tried once a session: a failed start is not retried
            _unavailable(self._found[server])
        return self._found[server]

    def _find(self, server: str) -> str:
        uri = os.environ.get(SECOND_URI_ENV if server == "b" else URI_ENV)
        if uri:
            return uri
        if server == "b":
            raise _NoServer(f"set {SECOND_URI_ENV} (tests/plan.py split the Neo4j tests over two servers)")
        if shutil.which("java") is None or not LAUNCHER.exists():
            raise _NoServer(f"set {URI_ENV}, or install Java 17+ and Maven to use tools/neo4j")
        env = {**os.environ, "BRAIN_NEO4J_STATE": str(self._factory.mktemp("neo4j-server"))}
        started = subprocess.run(
            ["bash", str(LAUNCHER), "start", "--keep-plans"], env=env, capture_output=True, text=True,
            timeout=900, check=False,
        )
        lines = started.stdout.strip().splitlines()
        if started.returncode != 0 or not lines:
            raise _NoServer(f"tools/neo4j/neo4j.sh start failed: {started.stderr.strip()[-2000:]}")
        self._started.append(env)
        return lines[-1]

    def stop(self) -> None:
        for env in self._started:
            subprocess.run(["bash", str(LAUNCHER), "stop"], env=env, capture_output=True, timeout=120,
                           check=False)


class _NoServer(Exception):
    pass


@pytest.fixture(scope="session")
def neo4j_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jServers]:
    servers = Neo4jServers(tmp_path_factory)
    try:
        yield servers
    finally:
        servers.stop()


@pytest.fixture(scope="module")
def neo4j_uri(neo4j_servers: Neo4jServers, request: pytest.FixtureRequest) -> str:
    """The bolt URI of the Neo4j server of this module's group (tests/plan.py)."""
    return neo4j_servers.uri(neo4j_group(request.path))


@pytest.fixture(scope="module")
def neo4j_login(neo4j_servers: Neo4jServers, neo4j_uri: str) -> tuple[str, str | None, str | None, str]:
    """(uri, user, password, database), with the schema set up once a server for the session."""
    user, password = os.environ.get("NEO4J_USER"), os.environ.get("NEO4J_PASSWORD")
    database = os.environ.get("NEO4J_DATABASE") or "neo4j"
    if neo4j_uri not in neo4j_servers.schema_set_up:
        try:
            Neo4jStore.connect(neo4j_uri, user, password, database).close()
        except StoreUnavailable as exc:
            _unavailable(str(exc))
        neo4j_servers.schema_set_up.add(neo4j_uri)
    return neo4j_uri, user, password, database


def open_neo4j(login: tuple[str, str | None, str | None, str], **config: object) -> Neo4jStore:
    """A store on its own driver (closing it closes only its driver), database cleared."""
    uri, user, password, database = login
    auth = (user, password or "") if user else None
    driver = GraphDatabase.driver(uri, auth=auth, max_transaction_retry_time=5.0, **config)
    store = Neo4jStore(driver, database, uri)
    store.clear()
    return store


@pytest.fixture
def neo4j_store(neo4j_login: tuple[str, str | None, str | None, str]) -> Iterator[Neo4jStore]:
    store = open_neo4j(neo4j_login)
    yield store
    store.close()


@pytest.fixture(params=STORES)
def store_kind(request: pytest.FixtureRequest) -> str:
    kind: str = request.param
    return kind


@pytest.fixture
def store_factory(
    store_kind: str, request: pytest.FixtureRequest
) -> Iterator[Callable[[], GraphStore]]:
    """Makes empty stores of the kind under test (Neo4j: one database, cleared each time)."""
    opened: list[GraphStore] = []

    def make() -> GraphStore:
        made: GraphStore
        made = MemoryStore() if store_kind == "memory" else open_neo4j(request.getfixturevalue("neo4j_login"))
        opened.append(made)
        return made

    yield make
    for made in opened:
        made.close()


@pytest.fixture
def store(store_factory: Callable[[], GraphStore]) -> GraphStore:
    """An empty store: the embedded one, then a real Neo4j."""
    return store_factory()


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """brain's cache folder (embeddings, the language server's code cache) and its startup
    snapshots (brain/snapshot/image.py) are this session's, for the tests and every command they
    run: not the user's, and not shared between runs, where a cache left by an earlier run
    would answer for the code under test."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BRAIN_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        patch.setenv("BRAIN_SNAPSHOT_DIR", str(tmp_path_factory.mktemp("snapshots")))
        yield
