"""The versions kept beside the history (brain/tool/history/blobs.py) and their text over GraphQL."""

from __future__ import annotations

import hashlib
from pathlib import Path

from brain.tool.history.blobs import BlobStore, default_blob_dir
from tests.api.live import LiveServer
from tests.tool.test_graphql import gql, live, secured  # noqa: F401  (fixtures)


def test_blobs_are_content_addressed_deduplicated_and_capped(tmp_path: Path) -> None:
    store = BlobStore(tmp_path / "blobs", max_bytes=10)
    digest = store.put(b"hello\n")
    assert digest == hashlib.sha256(b"hello\n").hexdigest()
    path = tmp_path / "blobs" / digest[:2] / digest
    assert path.read_bytes() == b"hello\n"
    assert store.put(b"hello\n") == digest  # the same version is kept once
    names = [p.name for p in (tmp_path / "blobs").rglob("*") if p.is_file() and p.name != ".lock"]
    assert names == [digest]  # no temp left
    assert store.text(digest) == "hello\n"
    assert store.put(b"x" * 11) is None  # over the cap: not kept
    assert store.get(hashlib.sha256(b"x" * 11).hexdigest()) is None


def test_a_damaged_or_foreign_blob_is_never_shown(tmp_path: Path) -> None:
    store = BlobStore(tmp_path / "blobs", max_bytes=100)
    digest = store.put(b"original")
    assert digest is not None
    (tmp_path / "blobs" / digest[:2] / digest).write_bytes(b"tampered")
    assert store.get(digest) is None
    for bad in (None, "", "../../etc/passwd", "ab", digest.upper(), digest + "0"):
        assert store.get(bad) is None


def test_the_blob_dir_sits_beside_the_history() -> None:
    assert default_blob_dir(Path("/w/.brain/history.jsonl")) == Path("/w/.brain/history/blobs")


HISTORY = """query($p: String) { memoryHistory(path: $p) {
  records { command origin before after beforeText afterText } } }"""


async def test_each_write_keeps_its_before_and_after_text(live: LiveServer) -> None:  # noqa: F811
    await gql(live, """mutation { memoryCreate(agent: "writer", path: "/memories/tone.md",
        fileText: "one\\n") { ok } }""")
    await gql(live, """mutation { memoryStrReplace(agent: "writer", path: "/memories/tone.md",
        oldStr: "one", newStr: "two") { ok } }""")
    await gql(live, """mutation { memoryTool(agent: "writer",
        input: {command: "delete", path: "/memories/tone.md"}) { ok } }""")
    records = (await gql(live, HISTORY, p="memory/writer/tone.md"))["memoryHistory"]["records"]
    assert [(r["command"], r["beforeText"], r["afterText"]) for r in records] == [
        ("delete", "two\n", None),
        ("str_replace", "one\n", "two\n"),
        ("create", None, "one\n"),
    ]


async def test_a_file_first_made_on_disk_has_its_before_text(live: LiveServer) -> None:  # noqa: F811
    note = live.brain.root / "memory/writer/by-hand.md"
    note.write_text("made by hand\n")
    await gql(live, """mutation { memoryCreate(agent: "writer", path: "/memories/by-hand.md",
        fileText: "rewritten\\n") { ok } }""")
    # The watcher may record the hand-made file first (origin external): the tool's write is
    # the newest record either way.
    record, *seen = (await gql(live, HISTORY, p="memory/writer/by-hand.md"))["memoryHistory"]["records"]
    assert (record["beforeText"], record["afterText"]) == ("made by hand\n", "rewritten\n")
    assert [(r["origin"], r["afterText"]) for r in seen] in ([], [("external", "made by hand\n")])


async def test_another_agent_never_reads_the_text(secured: LiveServer) -> None:  # noqa: F811
    await gql(secured, """mutation { memoryCreate(path: "/memories/plan.md", fileText: "secret plan\\n")
        { ok } }""", "reviewer-token")
    other = (await gql(secured, HISTORY, "writer-token", p="memory/reviewer/plan.md"))["memoryHistory"]
    assert other["records"] == []
    own = (await gql(secured, HISTORY, "reviewer-token", p="memory/reviewer/plan.md"))["memoryHistory"]
    assert own["records"][0]["afterText"] == "secret plan\n"
