"""Bearer tokens: required on HTTP and on WebSocket `connection_init` once any is configured."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from brain.api.http.auth import ADMIN, ANONYMOUS, Principal, TokenRegistry, TokensFileError, bearer_token
from tests.api.client import PROTOCOL, post, ws_session
from tests.api.conftest import ServerFactory

ADMIN_TOKEN = "admin-secret-0123456789"
AGENT_TOKEN = "bot-secret-0123456789"


@pytest.fixture
def tokens(tmp_path: Path) -> TokenRegistry:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps({AGENT_TOKEN: "bot", "ops-secret": "*"}), encoding="utf-8")
    return TokenRegistry(ADMIN_TOKEN, file)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, None),
        ("", None),
        ("Basic abc", None),
        ("Bearer", None),
        ("Bearer wrong", None),
        (f"Bearer {ADMIN_TOKEN}", ADMIN),
        (f"bearer   {ADMIN_TOKEN}  ", ADMIN),
        (f"Bearer {AGENT_TOKEN}", Principal("agent:bot", agent="bot")),
        ("Bearer ops-secret", Principal("admin")),
    ],
)
def test_header_to_principal(tokens: TokenRegistry, header: str | None, expected: Principal | None) -> None:
    assert tokens.principal_for_header(header) == expected


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        (None, None),
        ({}, None),
        ({"Authorization": f"Bearer {AGENT_TOKEN}"}, "bot"),
        ({"authorization": f"Bearer {AGENT_TOKEN}"}, "bot"),
        ({"token": AGENT_TOKEN}, "bot"),
        ({"token": "nope"}, None),
        ({"token": 42}, None),
    ],
)
def test_connection_params_to_principal(
    tokens: TokenRegistry, params: object, expected: str | None
) -> None:
    principal = tokens.principal_for_connection_params(params)
    assert (principal.agent if principal else None) == expected


def test_no_token_configured_means_open() -> None:
    open_registry = TokenRegistry()
    assert not open_registry.required
    assert open_registry.principal_for(None) is ANONYMOUS
    assert open_registry.principal_for("anything") is ANONYMOUS


def test_agent_scope_visibility() -> None:
    bot = Principal("agent:bot", agent="bot")
    assert bot.can_read_scope("bot")
    assert bot.can_read_scope("shared")
    assert not bot.can_read_scope("writer")
    assert ADMIN.can_read_scope("writer")


def test_tokens_file_is_reread_when_it_changes(tmp_path: Path) -> None:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps({"first": "bot"}), encoding="utf-8")
    registry = TokenRegistry(None, file)
    assert registry.principal_for("first") is not None
    file.write_text(json.dumps({"second-token": "writer"}), encoding="utf-8")
    assert registry.principal_for("first") is None
    assert registry.principal_for("second-token") == Principal("agent:writer", agent="writer")
    file.write_text("{not json", encoding="utf-8")
    assert registry.principal_for("second-token") is not None  # keeps the last good tokens


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "must hold a JSON object"),
        ("{oops", "not valid JSON"),
        ('{"t": 3}', "the entry for a token is 3"),
    ],
)
def test_bad_tokens_file_names_the_file_and_the_fix(tmp_path: Path, content: str, message: str) -> None:
    file = tmp_path / "tokens.json"
    file.write_text(content, encoding="utf-8")
    with pytest.raises(TokensFileError, match=message) as raised:
        TokenRegistry(None, file)
    assert str(file) in str(raised.value)


def test_bearer_token_parsing() -> None:
    assert bearer_token("Bearer  abc ") == "abc"
    assert bearer_token("Token abc") is None


async def test_http_requires_a_token(serve: ServerFactory, workspace: Path, tokens: TokenRegistry) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    query = "{ stats { memories } }"
    async with httpx.AsyncClient() as client:
        missing = await client.post(live.graphql, json={"query": query})
        wrong = await client.post(live.graphql, json={"query": query}, headers={"Authorization": "Bearer x"})
        as_admin = await post(client, live.graphql, query, token=ADMIN_TOKEN)
        as_agent = await post(client, live.graphql, query, token=AGENT_TOKEN)
        health = await client.get(f"{live.base}/healthz")
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert "a bearer token is required" in missing.json()["errors"][0]["message"]
    assert wrong.status_code == 401
    assert "not valid" in wrong.json()["errors"][0]["message"]
    assert as_admin["data"] == {"stats": {"memories": 4}}
    assert as_agent["status"] == 200  # authenticated; the field itself is for admins
    assert "needs an admin token" in as_agent["errors"][0]["message"]
    assert health.status_code == 200


async def test_websocket_requires_a_token_in_connection_init(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry
) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    async with connect(live.ws, subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": {"token": "wrong"}}))
        with pytest.raises(ConnectionClosed):
            await ws.recv()
    assert ws.close_code == 4403
    async with connect(live.ws, subprotocols=[PROTOCOL]) as ws:  # type: ignore[list-item]
        early = {"type": "subscribe", "id": "1", "payload": {"query": "{ stats { agents } }"}}
        await ws.send(json.dumps(early))
        with pytest.raises(ConnectionClosed):
            await ws.recv()
    assert ws.close_code == 4401  # no connection_init, no operations
    params = {"Authorization": f"Bearer {AGENT_TOKEN}"}
    async with ws_session(live.ws, connection_params=params) as session:
        stream = await session.subscribe('query { agent(name: "bot") { name } }')
        assert (await stream.payload())["data"] == {"agent": {"name": "bot"}}


async def test_websocket_handshake_with_a_wrong_token_is_refused(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry
) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    with pytest.raises(InvalidStatus) as refused:
        async with connect(live.ws, subprotocols=[PROTOCOL],  # type: ignore[list-item]
                           additional_headers={"Authorization": "Bearer wrong"}):
            pass
    assert refused.value.response.status_code == 403
    good = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    async with ws_session(live.ws, connection_params={}, headers=good) as session:
        stream = await session.subscribe("query { stats { agents } }")
        assert (await stream.payload())["data"] == {"stats": {"agents": 3}}


ADMIN_FIELDS = [
    "{ stats { memories } }",
    "{ memories { edges { cursor } } }",
    '{ memory(path: "memory/writer/style.md") { body } }',
    '{ node(id: "memory:writer/style") { id } }',
    "{ agents { name } }",
    "{ problems { totalCount } }",
    "{ linkReport { total } }",
    '{ neighborhood(id: "agent:writer") { truncated } }',
    "{ workflows { id } chats { id } workItems { id } }",
    '{ agent(name: "bot") { memories { edges { node { body } } } } }',
    '{ agent(name: "bot") { memoryCounts { total } } }',
    '{ agent(name: "bot") { backlinks { text } } }',
]


@pytest.mark.parametrize("query", ADMIN_FIELDS)
async def test_dashboard_fields_need_an_admin_token(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry, query: str
) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    async with httpx.AsyncClient() as client:
        as_agent = await post(client, live.graphql, query, token=AGENT_TOKEN)
        as_admin = await post(client, live.graphql, query, token=ADMIN_TOKEN)
    assert "needs an admin token" in as_agent["errors"][0]["message"]
    assert "House style" not in str(as_agent)
    assert "errors" not in as_admin


async def test_an_agent_token_may_name_an_agent(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry
) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    async with httpx.AsyncClient() as client:
        body = await post(client, live.graphql, '{ agent(name: "bot") { name memoryEnabled } }',
                          token=AGENT_TOKEN)
    assert body["data"] == {"agent": {"name": "bot", "memoryEnabled": True}}


async def test_an_agent_token_cannot_follow_every_change(
    serve: ServerFactory, workspace: Path, tokens: TokenRegistry
) -> None:
    live = serve(workspace, watch=False, tokens=tokens)
    async with ws_session(live.ws, connection_params={"token": AGENT_TOKEN}) as session:
        stream = await session.subscribe("subscription { graphChanged { id } }")
        message = await stream.next()
    refusal = message["payload"]["errors"][0]["message"] if message["type"] == "next" else (
        message["payload"][0]["message"]
    )
    assert "needs an admin token" in refusal
