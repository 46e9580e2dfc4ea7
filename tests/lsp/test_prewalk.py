"""The start of a language server: the walk begun in a child before the imports (prewalk.py),
the client's first message put back for the protocol reader, and the first answers served
before the index takes the CPU."""

from __future__ import annotations

import asyncio
import io
import json
import pickle
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from brain.layouts import get_layout
from brain.lsp.session import Session
from brain.lsp.startup import prewalk
from brain.lsp.startup.early import WalkedNames, walk_names, walk_parts
from brain.lsp.startup.packed import PackedNames, pack
from brain.lsp.startup.prewalk import Prewalk, Replay, folders_of, read_first
from brain.lsp.stdio import read_loop

from .conftest import WORKSPACE, write_tree


def framed(message: dict[str, object] | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"workspaceFolders": [{"uri": "file:///work/a", "name": "a"}], "capabilities": {}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "initialized", "params": {}}


@pytest.mark.parametrize(
    ("data", "folders"),
    [
        (framed(INITIALIZE) + framed(INITIALIZED), ["file:///work/a"]),
        (framed({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootUri": "file:///r"}}),
         ["file:///r"]),
        (framed({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"rootPath": "/r/p"}}),
         ["file:///r/p"]),
        (b"Content-Type: x\r\n" + framed(INITIALIZE), ["file:///work/a"]),
        (framed(INITIALIZED) + framed(INITIALIZE), []),  # not an initialize: nothing to walk
        (framed(b"{not json"), []),
        (framed(b"[1, 2]"), []),
        (framed(b"[" * 200_000 + b"]" * 200_000), []),  # deeper than json goes: not a crash
        (b"Content-Length: 99999999\r\n\r\n" + b"x" * 100, []),  # too big to look into
        (b"X" * 9000 + b"\r\n" + framed(INITIALIZE), []),  # a header line over the limit
        (b"Content-Length: 50\r\n\r\n{\"trunc", []),  # the client went away mid-message
        (b"", []),
    ],
)
def test_the_first_message_is_read_and_nothing_is_lost(data: bytes, folders: list[str]) -> None:
    stdin = io.BytesIO(data)
    head, message = read_first(stdin)
    assert folders_of(message) == folders
    assert data.startswith(head)
    replay = Replay(head, stdin)
    assert replay.read(-1) == data  # every byte comes back, in order


@pytest.mark.parametrize("limit", [-1, 1, 5, 17, 8192])
def test_replayed_lines_end_where_the_stream_says(limit: int) -> None:
    data = b"first line\r\nsecond\r\n\r\nbody"
    for split in range(len(data) + 1):
        replay = Replay(data[:split], io.BytesIO(data[split:]))
        plain = io.BytesIO(data)
        while True:
            got, want = replay.readline(limit), plain.readline(limit)
            assert got == want, (split, limit)
            if not want:
                break


class Collector:
    def __init__(self) -> None:
        self.bodies: list[bytes] = []

    def receive(self, body: bytes) -> None:
        self.bodies.append(body)


def test_the_reader_sees_the_replayed_message_then_the_rest() -> None:
    data = framed(INITIALIZE) + framed(INITIALIZED)
    stdin = io.BytesIO(data)
    head, _ = read_first(stdin)
    collector = Collector()
    asyncio.run(read_loop(Replay(head, stdin), collector))  # type: ignore[arg-type]
    assert [json.loads(body) for body in collector.bodies] == [INITIALIZE, INITIALIZED]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    write_tree(tmp_path, WORKSPACE)
    return tmp_path.resolve()


CHILD = """
import sys
import threading
from pathlib import Path
from brain.lsp.startup import prewalk
walking = prewalk.start([Path(sys.argv[1]).as_uri(), Path(sys.argv[2]).as_uri()])
walked = walking.take(Path(sys.argv[1]))
early = walked.early(Path(sys.argv[1]))
print(sorted((key, [e.id for e in entries]) for key, entries in early.names.items()))
print(sorted(e.id for entries in early.names.values() for e in entries if early.catalog.find(e.id)))
print(walking.take(Path(sys.argv[2])))
import os
try:
    os.waitpid(walking._pid, os.WNOHANG)
    print("not reaped")
except ChildProcessError:
    print("reaped")
"""


def test_the_child_walks_what_the_session_would(
    workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # In a fresh process, as the server does it: forking pytest (with its threads) is not.
    elsewhere = tmp_path_factory.mktemp("no-brain")
    out = subprocess.run([sys.executable, "-c", CHILD, str(workspace), str(elsewhere)],
                         capture_output=True, text=True, check=True, timeout=120).stdout.splitlines()
    early = walk_names(workspace, get_layout("latchai"))
    assert out[0] == str(sorted((key, [e.id for e in entries]) for key, entries in early.names.items()))
    found = sorted(e.id for entries in early.names.values() for e in entries if early.catalog.find(e.id))
    assert out[1] == str(found)
    assert found
    assert len(early.names) > 3
    assert out[2] == "None"  # no brain there: the child walked nothing for it
    assert out[3] == "reaped"  # no zombie left behind


def test_without_a_child_start_declines() -> None:
    assert prewalk.start([]) is None


class Canned(Prewalk):
    """A Prewalk whose child has answered these names (what its pipe held), without a fork."""

    def __init__(self, walked: dict[str, PackedNames]) -> None:
        super().__init__(0, -1, walked)  # no pipe: the names are there
        self._names = walked


def session_of(root: Path, walking: Prewalk | None = None) -> Session:
    return Session(root, "utf-16", lambda items: None, lambda event: None, lambda kind, text: None,
                   prewalk=walking)


def test_a_session_takes_the_childs_names(workspace: Path) -> None:
    walked = walk_parts(workspace, get_layout("latchai"))
    marked = WalkedNames([*walked.nodes], {**walked.names, "only-from-the-child": []})
    session = session_of(workspace, Canned({str(workspace): pack(marked)}))
    session.walk_now()
    assert session.named.wait(30)
    assert session.early is not None
    assert "only-from-the-child" in session.early.names
    session.stop()


def test_a_session_the_child_did_not_walk_walks_itself(workspace: Path) -> None:
    session = session_of(workspace, Canned({}))
    session.walk_now()
    assert session.named.wait(30)
    assert session.early is not None
    assert session.early.names == walk_names(workspace, get_layout("latchai")).names
    session.stop()


@pytest.fixture
def held(workspace: Path) -> Iterator[Session]:
    session = session_of(workspace)
    session.first_answers_wait = 600.0  # as long as the test holds the answer
    yield session
    session.stop()


def test_the_index_waits_for_the_answers_that_waited_for_the_walk(held: Session) -> None:
    answering = held.first_answer()
    answering.__enter__()
    held.walk_now()
    held.start()
    assert held.named.wait(30)
    # Still answering: the worker has neither built the Brain nor read anything.
    assert not held.ready.wait(0.5)
    assert held._brain is None
    assert held.early is not None
    assert held.early.names
    answering.__exit__(None, None, None)
    assert held.ready.wait(60)
    assert held.brain.stats().memories > 0


class StillWalking(Prewalk):
    """A child whose walk has not ended (a big workspace) until the test says so."""

    def __init__(self, root: Path) -> None:
        super().__init__(0, -1, [str(root)])
        self.done = threading.Event()

    def take(self, root: Path, unless: threading.Event | None = None) -> PackedNames | None:
        self.done.wait(60)
        return super().take(root, unless)


def test_the_index_does_not_wait_for_a_long_walk_in_the_child(workspace: Path) -> None:
    """At 100,000 notes the child walks for seconds: the index (a snapshot load, there) goes on
    beside it instead of after it, and completion is answered by whichever ends first."""
    walking = StillWalking(workspace)
    session = session_of(workspace, walking)
    try:
        session.walk_now()
        session.start()
        assert session.ready.wait(60)  # while the child still walks
        assert not walking.done.is_set()
        assert session.named.is_set()  # completion waits for names no more: the index answers
        walking.done.set()
        assert session._walker is not None
        session._walker.join(30)
        assert session.early is None  # the walk's names came too late to be built at all
        assert session.brain.stats().memories > 0
    finally:
        walking.done.set()
        session.stop()


UNPICKLED: list[str] = []


def _unpickled(root: str) -> dict[str, PackedNames]:
    UNPICKLED.append(root)
    return {}


class Tracked:
    """Unpickles by calling `_unpickled`: shows whether a child's names were unpickled."""

    def __init__(self, root: str) -> None:
        self.root = root

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return _unpickled, (self.root,)


@pytest.mark.parametrize("answered", [False, True])
def test_a_childs_names_are_unpickled_only_if_the_snapshot_has_not_answered(
    answered: bool, tmp_path: Path
) -> None:
    UNPICKLED.clear()
    walking = Prewalk(0, -1)
    walking._raw = pickle.dumps(Tracked("x"))  # what the child's pipe held
    ready = threading.Event()
    if answered:
        ready.set()
    assert walking.take(tmp_path, unless=ready) is None
    unpickled = UNPICKLED
    assert unpickled == ([] if answered else ["x"])


def test_the_brain_is_built_while_the_index_waits_for_the_childs_walk(workspace: Path) -> None:
    """The wait for a child still walking (a big workspace) was idle: the Brain's imports run in it."""
    walking = StillWalking(workspace)
    session = session_of(workspace, walking)
    session.walk_wait = 600.0  # longer than the test
    try:
        session.walk_now()
        session.start()
        for _ in range(300):
            if session._brain is not None:
                break
            threading.Event().wait(0.1)
        assert session._brain is not None  # built within the wait
        assert not session.ready.is_set()  # still waiting for the walk
    finally:
        walking.done.set()
        session.stop()


@pytest.mark.parametrize(
    ("snapshot_bytes", "snapshots", "walked"),
    [(None, True, True), (1 << 20, True, True), (prewalk.BIG_SNAPSHOT, True, False),
     (prewalk.BIG_SNAPSHOT, False, True)],
)
def test_the_child_walks_no_workspace_whose_snapshot_is_big(
    snapshot_bytes: int | None, snapshots: bool, walked: bool, workspace: Path,
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """At 100,000 notes the snapshot answers in 0.9 s and the walk in 3: a child walking
    meanwhile only took a core from the load (first completion 1.6 s against 1.2 s)."""
    from brain.snapshot.cachepaths import snapshot_path

    monkeypatch.setenv("BRAIN_SNAPSHOT_DIR", str(tmp_path / "snapshots"))
    if snapshot_bytes is not None:
        path = snapshot_path(workspace)
        path.parent.mkdir(parents=True)
        with path.open("wb") as f:
            f.truncate(snapshot_bytes)  # sparse: its size is what is asked
    roots = prewalk.walked_roots([workspace.as_uri()], snapshots)
    assert roots == ([str(workspace.resolve())] if walked else [])
