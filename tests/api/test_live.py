"""The served graph follows the disk: edits, adds, renames and deletes, seen in queries and events."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from tests.api.client import Stream, post, ws_session
from tests.api.conftest import ServerFactory
from tests.api.files import make_workspace, write, write_atomically
from tests.api.live import LiveServer, until_subscribed

EVENTS = (Path(__file__).parents[2] / "graphql" / "graph-changed.graphql").read_text()
MEMORY = "query($path: String!) { memory(path: $path) { description backlinks { source { id } } } }"
LINKS = "query($path: String!) { memory(path: $path) { links { status target { ... on Node { id } } } } }"


async def ask(live: LiveServer, query: str, **variables: Any) -> Any:
    async with httpx.AsyncClient(timeout=10) as client:
        body = await post(client, live.graphql, query, variables)
    assert "errors" not in body, body
    return body["data"]


async def eventually(
    live: LiveServer, query: str, check: Callable[[Any], bool], timeout: float = 10.0, **variables: Any
) -> Any:
    """Ask until the answer passes `check` (the watcher applies changes a moment after the write)."""
    deadline = time.monotonic() + timeout
    while True:
        answer = await ask(live, query, **variables)
        if check(answer):
            return answer
        if time.monotonic() > deadline:
            raise AssertionError(f"the answer never passed the check; last answer: {answer}")
        await asyncio.sleep(0.02)


async def events_until(stream: Stream, done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    while not done(seen):
        payload = await stream.payload(timeout=10)
        assert "errors" not in payload, payload
        seen.append(payload["data"]["graphChanged"])
    return seen


async def quiet(stream: Stream, root: Path) -> None:
    """No further event comes of the change: the next event is a later change's, a fence note
    written now. The watcher applies changes in order and this one's events have arrived, so
    whatever it still had to say would come before the fence's. (A fixed wait for silence
    passed on a slow machine whatever came after it, and cost its length on a fast one.)"""
    write(root, "memory/bot/zz-fence.md", "A later change.\n")
    event = (await stream.payload(timeout=10))["data"]["graphChanged"]
    assert (event["kind"], event["id"]) == ("ADDED", "memory:bot/zz-fence"), f"an unexpected event: {event}"


def has(kind: str, node_id: str) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda seen: any(e["kind"] == kind and e["id"] == node_id for e in seen)


async def equal_to_disk(live: LiveServer, timeout: float = 10.0) -> None:
    """The served graph ends equal to a fresh ingest of the same folder."""
    deadline = time.monotonic() + timeout
    while True:
        fresh = Brain(live.brain.root, MemoryStore())
        fresh.sync()
        same_graph = live.brain.store.export() == fresh.store.export()
        if same_graph and live.brain.problems() == fresh.problems():
            return
        if time.monotonic() > deadline:
            raise AssertionError("the served graph did not come back to the disk's state")
        await asyncio.sleep(0.05)


async def test_edit_is_visible_in_queries_and_as_an_event(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    async with ws_session(live.ws) as session:
        stream = await session.subscribe(EVENTS)
        await until_subscribed(live.base)  # before the write
        write(workspace, "memory/bot/notes.md", "---\ndescription: Edited\ntype: project\n---\n# Top\n")
        events = await events_until(stream, has("CHANGED", "memory:bot/notes"))
        await quiet(stream, workspace)
    assert [(e["kind"], e["id"]) for e in events] == [("CHANGED", "memory:bot/notes")]
    changed = events[0]
    assert "description" in changed["fields"]
    assert changed["scope"] == "bot"
    assert changed["node"] == {
        "__typename": "Memory", "id": "memory:bot/notes", "path": "memory/bot/notes.md",
        "description": "Edited", "type": "PROJECT",
    }
    answer = await ask(live, MEMORY, path="memory/bot/notes.md")
    assert answer["memory"]["description"] == "Edited"
    await equal_to_disk(live)


async def test_new_note_resolves_the_links_waiting_for_it(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    async with ws_session(live.ws) as session:
        stream = await session.subscribe(EVENTS, {"scope": "bot"})
        await until_subscribed(live.base)
        write(workspace, "memory/writer/elsewhere.md", "Another scope's news.\n")
        write(workspace, "memory/bot/missing-thing.md", "Now it exists.\n")
        events = await events_until(stream, has("RELINKED", "memory:bot/notes"))
    assert has("ADDED", "memory:bot/missing-thing")(events)
    assert {e["scope"] for e in events} == {"bot"}
    links = await ask(live, LINKS, path="memory/bot/notes.md")
    assert links["memory"]["links"][1] == {"status": "RESOLVED", "target": {"id": "memory:bot/missing-thing"}}
    await equal_to_disk(live)


async def test_rename_moves_the_note_and_its_backlinks_follow(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    async with ws_session(live.ws) as session:
        stream = await session.subscribe(EVENTS)
        await until_subscribed(live.base)
        os.rename(workspace / "memory/writer/style.md", workspace / "memory/writer/tone.md")
        events = await events_until(
            stream,
            lambda s: all(has(kind, node)(s) for kind, node in (
                ("DELETED", "memory:writer/style"), ("ADDED", "memory:writer/tone"),
                ("RELINKED", "memory:bot/notes"), ("RELINKED", "memory:shared/glossary"),
            )),
        )
        await quiet(stream, workspace)
    # Exactly: the old node goes, the new one comes, the note linking to it breaks, and the
    # shared note whose broken [[style]] named it as unreachable candidate loses that hint.
    assert sorted((e["kind"], e["id"]) for e in events) == [
        ("ADDED", "memory:writer/tone"), ("DELETED", "memory:writer/style"),
        ("RELINKED", "memory:bot/notes"), ("RELINKED", "memory:shared/glossary"),
    ]
    deleted = next(e for e in events if e["kind"] == "DELETED")
    assert deleted["node"] is None
    links = await ask(live, LINKS, path="memory/bot/notes.md")
    assert links["memory"]["links"][2]["status"] == "BROKEN"
    assert await ask(live, MEMORY, path="memory/writer/style.md") == {"memory": None}
    await equal_to_disk(live)


async def test_delete_breaks_links_and_removes_the_node(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    (workspace / "memory/shared/glossary.md").unlink()
    await eventually(live, MEMORY, lambda a: a["memory"] is None, path="memory/shared/glossary.md")
    links = await ask(live, LINKS, path="memory/bot/notes.md")
    assert links["memory"]["links"][0] == {"status": "BROKEN", "target": {"id": "unresolved:glossary"}}
    await equal_to_disk(live)


async def test_atomic_saves_end_equal_to_the_disk(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    for i in range(5):
        write_atomically(workspace, "memory/bot/notes.md", f"---\ndescription: save {i}\n---\n[[glossary]]\n")
    await eventually(
        live, MEMORY, lambda a: a["memory"]["description"] == "save 4", path="memory/bot/notes.md"
    )
    # A visible temp file in the folder is a (temporary) misplaced file, gone with the rename.
    temp = workspace / "memory/bot/notes.md.tmp"
    temp.write_text("---\ndescription: via temp\n---\n", encoding="utf-8")
    os.replace(temp, workspace / "memory/bot/notes.md")
    await eventually(
        live, MEMORY, lambda a: a["memory"]["description"] == "via temp", path="memory/bot/notes.md"
    )
    await equal_to_disk(live)


async def test_a_burst_of_hundreds_of_files(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    for i in range(300):
        text = f"---\ndescription: burst {i}\n---\n[[n{(i + 1) % 300:03}]]\n"
        write(workspace, f"memory/burst/n{i:03}.md", text)
    count = "{ memories(filter: {scope: \"burst\"}) { totalCount } }"
    await eventually(live, count, lambda a: a["memories"]["totalCount"] == 300)
    await equal_to_disk(live)
    shutil.rmtree(workspace / "memory/burst")
    await eventually(live, count, lambda a: a["memories"]["totalCount"] == 0)
    await equal_to_disk(live)
    agents = await ask(live, "{ agents { name } }")
    assert "burst" not in {a["name"] for a in agents["agents"]}


async def test_created_and_deleted_within_one_debounce_leaves_no_trace(
    serve: ServerFactory, workspace: Path
) -> None:
    live = serve(workspace, watcher_options={"debounce_ms": 800, "step_ms": 200})
    for i in range(20):
        path = write(workspace, f"memory/bot/flash-{i}.md", "here and gone\n")
        path.unlink()
    write(workspace, "memory/bot/marker.md", "the last change\n")
    await eventually(live, MEMORY, lambda a: a["memory"] is not None, path="memory/bot/marker.md")
    answer = await ask(live, "{ memories(filter: {text: \"flash\"}) { totalCount } }")
    assert answer["memories"]["totalCount"] == 0
    await equal_to_disk(live)


async def test_a_new_scope_folder_and_agent_definition(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    write(workspace, "memory/newbie/first.md", "---\ndescription: first\ntype: user\n---\n[[glossary]]\n")
    write(workspace, "agents/newbie.md", "---\ndescription: New agent\nmemory: true\n---\n")
    query = '{ agent(name: "newbie") { memoryEnabled memoryOff memoryCounts { total } } }'
    await eventually(
        live, query, lambda a: a["agent"] == {
            "memoryEnabled": True, "memoryOff": False, "memoryCounts": {"total": 1},
        },
    )
    await equal_to_disk(live)


async def test_the_rescan_catches_what_the_events_missed(serve: ServerFactory, workspace: Path) -> None:
    # A filter that drops every event: only the periodic rescan can notice the change.
    deaf = {"rescan_seconds": 0.3, "watch_filter": lambda change, path: False}
    live = serve(workspace, watcher_options=deaf)
    write(workspace, "memory/bot/notes.md", "---\ndescription: unseen by events\n---\n")
    await eventually(
        live, MEMORY, lambda a: a["memory"]["description"] == "unseen by events", path="memory/bot/notes.md"
    )
    await equal_to_disk(live)


async def test_healthz_reports_the_watcher(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    async with httpx.AsyncClient() as client:
        before = (await client.get(f"{live.base}/healthz")).json()
        write(workspace, "memory/bot/another.md", "hello\n")
        await eventually(live, MEMORY, lambda a: a["memory"] is not None, path="memory/bot/another.md")
        after = (await client.get(f"{live.base}/healthz")).json()
    assert before["status"] == "ready"
    assert before["watcher"]["running"] is True
    assert before["watcher"]["lastEventAt"] is None
    assert after["watcher"]["lastEventAt"] is not None
    assert after["watcher"]["events"] >= 1


async def test_the_workspace_folder_replaced_under_the_server(serve: ServerFactory, workspace: Path) -> None:
    # Deleting the folder ends its file events; the periodic rescan still follows the new one.
    live = serve(workspace, watcher_options={"rescan_seconds": 0.3})
    count = "{ stats { memories } }"
    shutil.rmtree(workspace)
    await eventually(live, count, lambda a: a["stats"]["memories"] == 0)
    make_workspace(workspace)
    write(workspace, "memory/bot/later.md", "after the move\n")
    await eventually(live, count, lambda a: a["stats"]["memories"] == 5)
    await equal_to_disk(live)
