"""The memory tool over GraphQL, on a live server: mutations, refusals, prompt, history, events."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.tool import memory_service
from tests.api.client import post, ws_session
from tests.api.files import write
from tests.api.live import LiveServer, until_subscribed
from tests.tool.test_prompt import EXPECTED
from tests.tool.test_rest import serve

RESULT = (
    "ok command output text path hash previousHash "
    "refusal { code message status text suggestion { command arguments text } }"
)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    from tests.tool.conftest import make_workspace

    root = make_workspace(tmp_path / "ws")
    with serve(root, tmp_path / "history.jsonl") as server:
        yield server


async def gql(live: LiveServer, query: str, token: str | None = None, **variables: Any) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=10) as http:
        body = await post(http, live.graphql, query, variables, token)
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


async def test_the_six_commands(live: LiveServer) -> None:
    created = (await gql(live, f"""mutation {{ memoryCreate(agent: "writer", path: "/memories/tone.md",
        fileText: "Costs $$ or $1.\\n") {{ {RESULT} }} }}"""))["memoryCreate"]
    assert created["ok"] is True
    assert created["text"].startswith("Created /memories/tone.md (1 line).")
    viewed = (await gql(live, f"""mutation {{ memoryView(agent: "writer", path: "/memories/tone.md")
        {{ {RESULT} }} }}"""))["memoryView"]
    assert viewed["text"] == "/memories/tone.md (1 line):\n     1\tCosts $$ or $1."
    assert viewed["hash"] == created["hash"]
    replace = f"""mutation($h: String) {{ memoryStrReplace(agent: "writer", path: "/memories/tone.md",
        oldStr: "$1", newStr: "\\\\1 or $2", expectedHash: $h) {{ {RESULT} }} }}"""
    replaced = (await gql(live, replace, h=viewed["hash"]))["memoryStrReplace"]
    assert replaced["ok"] is True
    assert (live.brain.root / "memory/writer/tone.md").read_text() == "Costs $$ or \\1 or $2.\n"
    inserted = (await gql(live, """mutation { memoryInsert(agent: "writer", path: "/memories/tone.md",
        insertLine: 0, insertText: "# Tone") { ok } }"""))["memoryInsert"]
    renamed = (await gql(live, """mutation { memoryRename(agent: "writer", oldPath: "/memories/tone.md",
        newPath: "/memories/shared/tone.md") { ok path } }"""))["memoryRename"]
    assert (inserted["ok"], renamed) == (True, {"ok": True, "path": "/memories/shared/tone.md"})
    raw = (await gql(live, """mutation { memoryTool(agent: "writer",
        input: {command: "delete", path: "/memories/shared/tone.md"}) { ok text } }"""))["memoryTool"]
    assert raw == {"ok": True, "text": "Deleted /memories/shared/tone.md."}


async def test_a_refusal_carries_its_fix(live: LiveServer) -> None:
    refused = (await gql(live, f"""mutation {{ memoryCreate(agent: "writer", path: "/memories/notes.txt",
        fileText: "x") {{ {RESULT} }} }}"""))["memoryCreate"]
    assert refused["ok"] is False
    assert refused["output"] is None
    assert refused["refusal"] == {
        "code": "NOT_MARKDOWN",
        "message": "`notes.txt` is not a .md file: only .md files are memories",
        "status": 400,
        "text": "Refused: `notes.txt` is not a .md file: only .md files are memories\n"
                'Try: {"command": "create", "path": "/memories/notes.md", "file_text": "x"}',
        "suggestion": {"command": "create", "arguments": {"path": "/memories/notes.md", "file_text": "x"},
                       "text": '{"command": "create", "path": "/memories/notes.md", "file_text": "x"}'},
    }
    no_agent = (await gql(live, """mutation { memoryView(path: "/memories") { refusal { code } } }"""))
    assert no_agent["memoryView"]["refusal"]["code"] == "NO_AGENT"


async def test_memory_prompt_and_history(live: LiveServer) -> None:
    data = await gql(live, """{ agent(name: "writer") { memoryPrompt } memoryPrompt(agent: "old-bot") }""")
    assert data == {"agent": {"memoryPrompt": EXPECTED}, "memoryPrompt": None}
    for n in range(3):
        await gql(live, f"""mutation {{ memoryCreate(agent: "writer", path: "/memories/n{n}.md",
            fileText: "{n}") {{ ok }} }}""")
    page = (await gql(live, """{ memoryHistory(agent: "writer", first: 2) { records { command path agent via }
        nextBefore } }"""))["memoryHistory"]
    assert page["records"] == [
        {"command": "create", "path": "memory/writer/n2.md", "agent": "writer", "via": "graphql"},
        {"command": "create", "path": "memory/writer/n1.md", "agent": "writer", "via": "graphql"},
    ]
    rest = (await gql(live, """query($b: ID) { memoryHistory(agent: "writer", before: $b) { records { path }
        nextBefore } }""", b=page["nextBefore"]))["memoryHistory"]
    assert rest == {"records": [{"path": "memory/writer/n0.md"}], "nextBefore": None}


async def test_a_write_is_announced_on_graph_changed(live: LiveServer) -> None:
    query = (
        'subscription { graphChanged(scope: "writer") { kind id node { ... on Memory { description } } } }'
    )
    async with ws_session(live.ws) as session:
        stream = await session.subscribe(query)
        await until_subscribed(live.base)
        await gql(live, """mutation { memoryCreate(agent: "writer", path: "/memories/fresh.md",
            fileText: "---\\ndescription: Fresh.\\n---\\n") { ok } }""")
        event = (await stream.payload())["data"]["graphChanged"]
        assert event == {"kind": "ADDED", "id": "memory:writer/fresh", "node": {"description": "Fresh."}}
        # The watcher sees the same file a moment later and finds nothing new: no second event.
        # The next event is a later change's, made on disk after it (the watcher applies
        # changes in order), not a fixed wait for silence.
        write(live.brain.root, "memory/writer/zz-fence.md", "---\ndescription: Later.\n---\n")
        fence = (await stream.payload(timeout=15))["data"]["graphChanged"]
        assert fence == {"kind": "ADDED", "id": "memory:writer/zz-fence", "node": {"description": "Later."}}
    # The tool's write is in the history once; the watcher's sight of the same file adds no
    # record of its own (the fence, made on disk, may be recorded as `external`).
    records = memory_service(live.brain).history.records()
    assert [r.path for r in records if r.origin != "external"] == ["memory/writer/fresh.md"]
    assert "memory/writer/fresh.md" not in [r.path for r in records if r.origin == "external"]


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[LiveServer]:
    import json

    from brain.api.http.auth import TokenRegistry
    from tests.tool.conftest import make_workspace
    from tests.tool.test_rest import TOKENS

    root = make_workspace(tmp_path / "ws")
    tokens_file = tmp_path / "tokens.json"
    tokens_file.write_text(json.dumps(TOKENS))
    with serve(root, tmp_path / "history.jsonl", TokenRegistry(None, tokens_file)) as server:
        yield server


async def test_an_agent_token_acts_only_as_its_agent(secured: LiveServer) -> None:
    view = "mutation($a: String) { memoryView(agent: $a, path: \"/memories\") { ok text refusal { code } } }"
    own = (await gql(secured, view, "writer-token"))["memoryView"]
    assert own["ok"] is True  # the agent defaults to the token's
    assert own["text"].startswith("/memories: 1 file of your own")
    other = (await gql(secured, view, "writer-token", a="reviewer"))["memoryView"]
    assert other["refusal"] == {"code": "FORBIDDEN"}
    assert "private-notes" not in other["text"]
    admin = (await gql(secured, view, "root-token", a="reviewer"))["memoryView"]
    assert admin["ok"] is True
    assert "private-notes" in admin["text"]
    async with httpx.AsyncClient(timeout=10) as http:
        body = await post(http, secured.graphql, '{ agent(name: "reviewer") { memoryPrompt } }', None,
                          "writer-token")
    assert body["errors"][0]["message"] == (
        "these credentials belong to agent `writer`: ask for its own prompt"
    )
    assert "secret plan" not in str(body)
