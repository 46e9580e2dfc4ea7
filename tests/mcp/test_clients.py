"""The MCP server through the official MCP client, over stdio and over streamable HTTP.

Each test runs on both transports: `python -m brain mcp` started as a desktop client
starts it, and `/mcp` of the real app under uvicorn with an agent's bearer token.

The calls that change no file (listing, reading, the graph tools, and every refusal) share one
session a transport, each a subtest of its own: a stdio start is a whole interpreter, the MCP
SDK and a first read of the workspace (about 2.5 s of a core), and twelve such starts were
most of this module's time. The tests that write (every command, the notifications) keep a
session and a workspace of their own.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from brain.mcp.tools.schemas import MEMORY_INPUT_SCHEMA
from tests.mcp.conftest import Session, http_session, stdio_session

Opener = Callable[[], AbstractAsyncContextManager[Session]]
ANTHROPIC_PROPERTIES = {
    "command", "path", "file_text", "old_str", "new_str", "insert_line", "insert_text",
    "old_path", "new_path", "view_range",
}
AWS_KEY = "AKIA" + "Z7QWERTYUIOPASDF"


@pytest.fixture(params=["stdio", "http"])
def open_session(request: pytest.FixtureRequest, workspace: Path) -> Opener:
    if request.param == "stdio":
        return lambda: stdio_session(workspace)
    server = request.getfixturevalue("server")
    return lambda: http_session(server.base, "writer-token")


async def ready(session: Session) -> None:
    """Wait until the server has read the workspace (the graph tools answer)."""
    for _ in range(300):
        ok, text, _ = await session.tool("memory_problems", {})
        if ok:
            return
        assert "still being read" in text
        await anyio.sleep(0.05)
    raise AssertionError("the workspace was never read")


async def lists_the_memory_tool_with_the_anthropic_schema(session: Session, workspace: Path) -> None:
    listed = {t.name: t for t in (await session.client.list_tools()).tools}
    assert set(listed) == {
        "memory", "memory_links", "memory_backlinks", "memory_neighborhood", "memory_problems",
        "memory_search", "memory_related", "memory_changes", "memory_as_of",
    }
    schema = listed["memory"].input_schema
    assert set(schema["properties"]) == ANTHROPIC_PROPERTIES
    assert schema["required"] == ["command"]
    assert schema["properties"]["command"]["enum"] == [
        "view", "create", "str_replace", "insert", "delete", "rename",
    ]
    assert schema == MEMORY_INPUT_SCHEMA
    for name in ("memory_links", "memory_backlinks", "memory_neighborhood", "memory_problems",
                 "memory_search", "memory_related", "memory_changes", "memory_as_of"):
        annotations = listed[name].annotations
        assert annotations is not None
        assert annotations.read_only_hint is True


async def test_every_command(open_session: Opener, workspace: Path) -> None:
    note = workspace / "memory" / "writer" / "tone.md"
    async with open_session() as session:
        ok, text = await session.memory(command="view", path="/memories")
        assert ok
        assert "/memories/house-style.md — House style" in text
        assert "/memories/shared/prefers-short-answers.md" in text
        assert "private-notes" not in text

        body = "---\ndescription: Tone of voice.\ntype: feedback\n---\n\nCalm.\nShort.\n"
        ok, text = await session.memory(command="create", path="/memories/tone.md", file_text=body)
        assert (ok, text) == (True, "Created /memories/tone.md (7 lines).")
        assert note.read_text() == body

        ok, text = await session.memory(command="view", path="/memories/tone.md", view_range=[6, -1])
        assert (ok, text) == (True, "/memories/tone.md (lines 6-7 of 7):\n     6\tCalm.\n     7\tShort.")

        ok, text = await session.memory(
            command="str_replace", path="/memories/tone.md", old_str="Calm.", new_str="Calm, $1 kept."
        )
        assert ok
        assert "Edited /memories/tone.md" in text
        assert "Calm, $1 kept." in note.read_text()

        ok, text = await session.memory(
            command="insert", path="/memories/tone.md", insert_line=0, insert_text="# Tone\n"
        )
        assert ok
        assert note.read_text().startswith("# Tone\n---")

        ok, text = await session.memory(
            command="rename", old_path="/memories/tone.md", new_path="/memories/shared/tone.md"
        )
        assert (ok, text) == (True, "Renamed /memories/tone.md to /memories/shared/tone.md.")
        shared = workspace / "memory" / "shared" / "tone.md"
        assert shared.exists()
        assert not note.exists()

        ok, text = await session.memory(command="delete", path="/memories/shared/tone.md")
        assert (ok, text) == (True, "Deleted /memories/shared/tone.md.")
        assert not shared.exists()

    history = workspace / ".brain" / "history.jsonl"
    records = [json.loads(line) for line in history.read_text().splitlines()]
    assert [r["command"] for r in records] == ["create", "str_replace", "insert", "rename", "delete"]
    assert {r["via"] for r in records} == {"mcp"}
    assert {r["agent"] for r in records} == {"writer"}


HOSTILE = [
    ({"command": "view", "path": "/memories/../agents/writer.md"}, "segment"),
    ({"command": "view", "path": "/etc/passwd"}, "/memories"),
    ({"command": "create", "path": "/memories/notes/x.md", "file_text": "x\n"}, "folder"),
    ({"command": "create", "path": "/memories/x.txt", "file_text": "x\n"}, ".md"),
    ({"command": "view", "path": "/memories/..%2f..%2fagents/writer.md"}, "Refused"),
    ({"command": "delete", "path": "/memories/\u202eevil.md"}, "Refused"),
]


async def hostile_paths_are_tool_errors_that_teach(
    session: Session, workspace: Path, args: dict[str, object], code_hint: str
) -> None:
    before = _users_files(workspace)
    ok, text = await session.memory(**args)
    assert not ok
    assert text.startswith("Refused: ")
    assert code_hint in text
    assert "\nTry: {" in text
    assert _users_files(workspace) == before


def _users_files(workspace: Path) -> list[str]:
    """The workspace's files but brain's own state (.brain/: a first start keeps the notes'
    first versions there), each with its bytes: a refusal changes none of them."""
    files = (p for p in workspace.rglob("*")
             if p.is_file() and ".brain" not in p.relative_to(workspace).parts)
    return sorted(f"{p.relative_to(workspace).as_posix()} {hash(p.read_bytes())}" for p in files)


async def a_secret_is_refused_without_echoing_it(session: Session, workspace: Path) -> None:
    ok, text, data = await session.tool("memory", {
        "command": "create", "path": "/memories/aws.md",
        "file_text": f"---\ndescription: AWS.\ntype: reference\n---\nkey = {AWS_KEY}\n",
    })
    assert not ok
    assert text.startswith("Refused: ")
    assert "line 5" in text
    assert "AWS" in text
    assert AWS_KEY not in text
    assert data["refusal"]["code"] == "secret"
    assert not (workspace / "memory" / "writer" / "aws.md").exists()


async def graph_tools_see_what_the_agent_may_see(session: Session, workspace: Path) -> None:
    await ready(session)
    ok, text, data = await session.tool("memory_links", {"path": "/memories/sources.md"})
    assert ok
    by_text = {link["text"]: link for link in data["links"]}
    assert by_text["[[house-style]]"]["target"] == "/memories/house-style.md"
    assert by_text["[[prefers-short-answers]]"]["target"] == "/memories/shared/prefers-short-answers.md"
    # reviewer's private note is out of reach, and not even named as a candidate
    assert by_text["[[private-notes]]"]["status"] == "broken"
    assert by_text["[[private-notes]]"]["candidates"] == []
    assert by_text["[[nowhere]]"]["status"] == "broken"
    assert "line 6: [[house-style]] -> /memories/house-style.md" in text
    assert "reviewer" not in text

    ok, text, data = await session.tool("memory_backlinks", {"path": "/memories/house-style.md"})
    assert ok
    assert [b["source"] for b in data["backlinks"]] == ["/memories/sources.md"]

    ok, _, data = await session.tool("memory_neighborhood", {"path": "/memories/sources.md", "depth": 2})
    assert ok
    ids = {n["id"] for n in data["nodes"]}
    assert {"memory:writer/sources", "memory:writer/house-style"} <= ids
    assert not any(i.startswith("memory:reviewer/") for i in ids)

    ok, text, data = await session.tool("memory_problems", {})
    assert ok
    assert {(p["path"], p["code"]) for p in data["problems"]} >= {
        ("/memories/sources.md", "broken-link"),
    }
    assert all(p["path"].startswith("/memories/") for p in data["problems"])

    ok, text, _ = await session.tool("memory_links", {"path": "/memories/../x.md"})
    assert not ok
    assert text.startswith("Refused: ")
    ok, text, _ = await session.tool("memory_neighborhood", {"path": "/memories/sources.md", "depth": 99})
    assert not ok
    assert "`depth` must be a whole number from 1 to 3" in text


async def notes_are_resources_and_the_index_is_a_prompt(session: Session, workspace: Path) -> None:
    listed = await session.client.list_resources()
    uris = {str(r.uri) for r in listed.resources}
    assert uris == {
        "memory://writer/house-style.md", "memory://writer/sources.md",
        "memory://shared/prefers-short-answers.md",
    }
    read = await session.client.read_resource("memory://writer/house-style.md")
    content = read.contents[0]
    assert isinstance(content, types.TextResourceContents)
    assert content.text.startswith("---\ndescription: House style")
    with pytest.raises(MCPError, match="no memory scope `reviewer`"):
        await session.client.read_resource("memory://reviewer/private-notes.md")
    with pytest.raises(MCPError, match="does not exist"):
        await session.client.read_resource("memory://writer/missing.md")

    prompts = await session.client.list_prompts()
    assert [p.name for p in prompts.prompts] == ["your-memory"]
    got = await session.client.get_prompt("your-memory")
    block = got.messages[0].content
    assert isinstance(block, types.TextContent)
    assert block.text.startswith("## Your memory\n")
    assert "/memories/house-style.md — House style" in block.text
    assert "private-notes" not in block.text


ReadOnly = Callable[[Session, Path], Awaitable[None]]
READ_ONLY: list[ReadOnly] = [
    lists_the_memory_tool_with_the_anthropic_schema,
    a_secret_is_refused_without_echoing_it,
    graph_tools_see_what_the_agent_may_see,
    notes_are_resources_and_the_index_is_a_prompt,
]


async def test_calls_that_change_nothing_in_one_session(
    open_session: Opener, workspace: Path, subtests: pytest.Subtests
) -> None:
    """Each check a subtest: a failure names its check, and the others still run. None of
    them writes (each refusal checks it), so one's answer does not depend on another's."""
    async with open_session() as session:
        for check in READ_ONLY:
            with subtests.test(check.__name__):
                await check(session, workspace)
        for args, code_hint in HOSTILE:
            with subtests.test("hostile_paths_are_tool_errors_that_teach", args=args):
                await hostile_paths_are_tool_errors_that_teach(session, workspace, args, code_hint)


def _updated(uri: str) -> Callable[[object], bool]:
    return lambda n: isinstance(n, types.ResourceUpdatedNotification) and str(n.params.uri) == uri


def _list_changed(n: object) -> bool:
    return isinstance(n, types.ResourceListChangedNotification)


async def test_changes_are_notified(open_session: Opener, workspace: Path) -> None:
    async with open_session() as session:
        await ready(session)
        await session.client.subscribe_resource("memory://writer/house-style.md")
        # a person edits the file: the watcher applies it, subscribers hear of it
        style = workspace / "memory" / "writer" / "house-style.md"
        style.write_text(style.read_text() + "- Dates in ISO 8601.\n")
        await session.wait_for(_updated("memory://writer/house-style.md"), "updated after an edit")
        # a new note (through the tool itself) changes the list
        ok, _ = await session.memory(command="create", path="/memories/new.md", file_text="New.\n")
        assert ok
        await session.wait_for(_list_changed, "list_changed after a create")


