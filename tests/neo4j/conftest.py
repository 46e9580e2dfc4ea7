"""Fixtures of the Neo4j-only tests: stores on a faulty driver, or behind a proxy."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from neo4j import Driver, GraphDatabase

from bench.workload import generate
from brain.service.brain import Brain
from brain.store.base import GraphExport
from brain.store.neo4j.store import Neo4jStore
from brain.store.neo4j.write import Limits
from tests.conftest import open_neo4j
from tests.contract.helpers import reference_export
from tests.neo4j.faults import FaultyDriver, Injector
from tests.neo4j.proxy import Proxy

Login = tuple[str, str | None, str | None, str]

# No lease heartbeat during a test (brain/store/neo4j/sharing/lease.py): the fault injector counts
# every statement, and a heartbeat would land at a different place in each run.
os.environ.setdefault("BRAIN_NEO4J_LEASE_SECONDS", "600")

# Tiny statements and transactions, so a small workspace spans many of them.
# (A first sync is written in many of them too: no atomic write past 40 rows.)
SMALL = Limits(
    node_rows=8, memory_rows=6, link_rows=24, transaction_rows=40, memory_weight=2, atomic_rows=40
)



def driver_for(login: Login, uri: str | None = None, retry_seconds: float = 5.0) -> Driver:
    target, user, password, _ = login
    return GraphDatabase.driver(
        uri or target,
        auth=(user, password or "") if user else None,
        max_transaction_retry_time=retry_seconds,
        initial_retry_delay=0.02,  # tests wait for retries, not for back-off
        connection_timeout=2.0,
    )


StoreMaker = Callable[..., Neo4jStore]
ReplicaOpener = Callable[[], Neo4jStore]


@pytest.fixture
def make_store(neo4j_login: Login) -> Iterator[StoreMaker]:
    """`make_store(injector=None, uri=None, limits=SMALL, retry_seconds=5)`: stores on a
    database cleared once per test (every store made in a test sees the same database)."""
    open_neo4j(neo4j_login).close()
    yield from _stores(neo4j_login)


@pytest.fixture
def keep_store(neo4j_login: Login) -> Iterator[StoreMaker]:
    """`make_store` on the database as the last test left it (not cleared): for the tests
    that share a graph they only read (each checks it is the one it expects)."""
    yield from _stores(neo4j_login)


def _stores(neo4j_login: Login) -> Iterator[StoreMaker]:
    made: list[Neo4jStore] = []

    def make(
        injector: Injector | None = None, uri: str | None = None, limits: Limits = SMALL,
        retry_seconds: float = 5.0,
    ) -> Neo4jStore:
        driver = driver_for(neo4j_login, uri, retry_seconds)
        wrapped: Any = driver if injector is None else FaultyDriver(driver, injector)
        store = Neo4jStore(cast(Driver, wrapped), neo4j_login[3], uri or neo4j_login[0])
        store.limits = limits
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()


@pytest.fixture
def open_replica(neo4j_login: Login) -> Iterator[ReplicaOpener]:
    """`open_replica()`: a read-only store on the test's database, as a replica process opens
    it (its own driver); each is closed after the test."""
    opened: list[Neo4jStore] = []

    def open_one() -> Neo4jStore:
        replica = Neo4jStore(driver_for(neo4j_login), neo4j_login[3], neo4j_login[0], read_only=True)
        opened.append(replica)
        return replica

    yield open_one
    for replica in opened:
        replica.close()


@pytest.fixture(scope="session")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("faults") / "workload"
    # 45 notes: 20 transactions of SMALL (test_faults asserts at least 10), and each of that
    # module's 16 ingests runs three fifths of the statements 90 notes (32 transactions) did.
    generate(root, notes=45, agents=3, seed=3)
    return root


@pytest.fixture(scope="session")
def workload_export(workload: Path) -> GraphExport:
    return reference_export(workload)


@pytest.fixture(scope="module")  # the module's server (tests/plan.py)
def baseline(workload: Path, neo4j_login: Login) -> Injector:
    """How many statements and commits an uninterrupted ingest of the workload makes."""
    counting = Injector()
    open_neo4j(neo4j_login).close()
    store = Neo4jStore(cast(Driver, FaultyDriver(driver_for(neo4j_login), counting)), neo4j_login[3])
    store.limits = SMALL
    try:
        Brain(workload, store).sync()
        synced = dataclasses.replace(counting)  # not the lease's release when the store closes
    finally:
        store.close()
        open_neo4j(neo4j_login).close()  # the tests start from an empty database
    return synced


@pytest.fixture
def proxy(neo4j_login: Login, request: pytest.FixtureRequest) -> Iterator[Proxy]:
    """A proxy, up until the test ends. A test asks for it before `make_store`: fixtures end in
    the reverse order, so the stores close (releasing their lease through it) while it is still
    up; closed behind a proxy already down, each waited out its driver's retries (about 10 s a
    store with the default 5 s of them, in teardown)."""
    names = request.fixturenames
    assert "make_store" not in names or names.index("proxy") < names.index("make_store"), (
        "ask for `proxy` before `make_store`, so the stores close while it is up")
    running = Proxy(neo4j_login[0]).up()
    yield running
    running.down()
