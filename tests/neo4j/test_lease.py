"""One writer per database: a second writer is refused while the first lives, and takes over
once a crashed writer's lease expires; a clean exit hands the lease on at once. Real
`brain serve` processes on a real Neo4j."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from brain.service.brain import Brain
from brain.store.base import StoreUnavailable
from brain.store.neo4j.sharing.lease import LeaseLost
from tests.api.test_cli_serve import brain_serve, wait_for_url
from tests.conftest import open_neo4j
from tests.contract.helpers import Workspace, note
from tests.neo4j.conftest import Login, StoreMaker
from tests.neo4j.test_restart import store_args

pytestmark = pytest.mark.neo4j

LEASE = {"BRAIN_NEO4J_LEASE_SECONDS": "3"}
HELD = {"BRAIN_NEO4J_LEASE_SECONDS": "600"}  # longer than any test waits


@pytest.fixture
def workspace(tmp_path: Path, neo4j_login: Login) -> Workspace:
    open_neo4j(neo4j_login).close()  # an empty database
    ws = Workspace(tmp_path / "ws")
    ws.write("memory/bot/a.md", note("a"))
    return ws


def test_a_second_writer_is_refused_then_takes_over_from_a_crashed_one_and_hands_on_at_a_clean_exit(
    workspace: Workspace, neo4j_login: Login
) -> None:
    """One chain of writers: the first crashes, the third takes over at its lease's expiry and
    exits cleanly, and the fourth starts at once. (The clean exit was a test of its own that
    started a writer just to stop it: the third writer's start and stop are that.)"""
    args = (str(workspace.root), "--port", "0", *store_args(neo4j_login))
    with brain_serve(*args, env=LEASE) as first:
        url = wait_for_url(first, timeout=90)
        with brain_serve(*args, env=LEASE) as second:
            assert second.wait(90) == 2
            assert second.stderr is not None
            refused = second.stderr.read()
        assert "has a writer already: `brain serve` (pid" in refused, refused
        assert f"pid {first.pid}" in refused
        assert url.removesuffix("/graphql") in refused  # where the running writer answers
        assert "--read-only" in refused  # how to run this one instead
        assert refused.count("\n") == 1, refused  # one line, no traceback

        first.send_signal(signal.SIGKILL)  # a crash: the lease is left behind, and expires
        first.wait(10)
        # The newcomer waits for the expiry the crashed writer stored (3 s), then holds the
        # lease for 600 s: an expiry would be too long to wait for, so the fourth writer
        # below starts only if this one's clean exit handed the lease on.
        with brain_serve(*args, env=HELD) as third:
            wait_for_url(third, timeout=90)  # it waited for the expiry, then took over
            workspace.write("memory/bot/b.md", note("b"))
            third.send_signal(signal.SIGINT)
            assert third.wait(30) == 0
    with brain_serve(*args, env=HELD) as fourth:
        wait_for_url(fourth, timeout=90)


def test_a_writer_that_lost_its_lease_writes_nothing(workspace: Workspace, make_store: StoreMaker) -> None:
    store = make_store()
    brain = Brain(workspace.root, store)
    brain.sync()
    # Another writer took over (this one was paused past its expiry, say).
    store._read("MATCH (l:BrainLease) RETURN l")  # the lease is there
    with store._session() as session:
        session.run("MATCH (l:BrainLease {key: 'writer'}) SET l.holder = 'elsewhere:1:x', "
                    "l.pid = 1, l.host = 'elsewhere', l.command = 'serve'").consume()
    try:
        with pytest.raises(LeaseLost, match=r"lost its lease on .* to `brain serve` \(pid 1, host elsewhere"):
            brain.sync([workspace.write("memory/bot/a.md", note("a, edited"))])
    finally:
        # The made-up holder would keep the lease for 600 s: a later test's writer on this
        # server (one that does not clear the database first) would wait for it.
        with store._session() as session:
            session.run("MATCH (l:BrainLease {key: 'writer'}) DELETE l").consume()
    assert store.get_nodes(["memory:bot/a"])["memory:bot/a"].description == "a"  # type: ignore[union-attr]
    assert isinstance(LeaseLost("x"), StoreUnavailable)
