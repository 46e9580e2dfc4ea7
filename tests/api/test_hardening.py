"""Hostile documents are refused before any resolver runs; errors say only what callers may know."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import strawberry
from websockets.asyncio.client import connect

from brain.api.graphql.context import ApiSettings
from brain.api.graphql.errors import MASKED_MESSAGE
from brain.api.graphql.schema import QUERY_PARTS, build_schema
from brain.model import Stats
from brain.store.memory.store import MemoryStore
from tests.api.client import PROTOCOL, post, ws_session
from tests.api.conftest import ServerFactory
from tests.api.counting import CountingStore
from tests.api.files import make_workspace
from tests.api.live import LiveServer, live_server


async def ask(live: LiveServer, query: str, variables: dict[str, Any] | None = None) -> Any:
    async with httpx.AsyncClient(timeout=10) as client:
        return await post(client, live.graphql, query, variables)


# The tests that only ask (and change no file, watch off) share two servers a module: the
# default one, on a store that counts its reads (each test resets the count before it asks),
# and one in development mode. Tests that need a store or schema of their own start theirs.
Production = tuple[LiveServer, CountingStore]


@pytest.fixture(scope="module")
def production(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Production]:
    store = CountingStore()
    with live_server(make_workspace(tmp_path_factory.mktemp("hardening") / "ws"), store, watch=False) as live:
        yield live, store


@pytest.fixture(scope="module")
def development(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    root = make_workspace(tmp_path_factory.mktemp("hardening-dev") / "ws")
    with live_server(root, MemoryStore(), watch=False, settings=ApiSettings(dev=True)) as live:
        yield live


def fan_out(levels: int, leaf: str = "__typename") -> str:
    """Each fragment spreads the next one twice: 2**levels fields from a few hundred bytes."""
    fragments = [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(levels)]
    return "\n".join(["query { ...F0 }", *fragments, f"fragment F{levels} on Query {{ {leaf} }}"])


def nested_links(levels: int) -> str:
    inner = "id"
    for _ in range(levels):
        inner = f"links {{ target {{ ... on Memory {{ {inner} }} }} }}"
    return f'{{ memory(path: "memory/bot/notes.md") {{ {inner} }} }}'


HOSTILE = [
    pytest.param(nested_links(6), None, "exceeds maximum operation depth of 10", id="depth"),
    pytest.param(
        "{ " + " ".join(f"a{i}: stats {{ agents }}" for i in range(31)) + " }", None,
        "uses 31 aliases once its fragments are expanded; the limit is 30 (max_aliases)", id="aliases",
    ),
    pytest.param(
        fan_out(12), None,
        "the operation selects 4,096 fields once its fragments are expanded; the limit is 300 "
        "(max_fields)", id="fragment-fan-out",
    ),
    pytest.param(
        "{ " + "stats { agents } " * 151 + "}", None,
        "selects 302 fields once its fragments are expanded", id="fields",
    ),
    pytest.param(
        "fragment A on Query { a: stats { agents } } { " + "...A " * 31 + "}", None,
        "uses 31 aliases once its fragments are expanded", id="aliases-in-fragments",
    ),
    pytest.param(
        "fragment A on Memory { links { target { ... on Memory { id } } } }"
        + nested_links(4).replace("{ id }", "{ ...A }"), None,
        "exceeds maximum operation depth of 10", id="depth-through-fragments",
    ),
    pytest.param(
        " ".join(f"query Q{i} {{ __typename }}" for i in range(21)), None,
        "the document holds 21 operations; at most 20 are allowed", id="operations",
    ),
    pytest.param(
        " ".join(f"fragment F{i} on Query {{ __typename }}" for i in range(101)) + " { ...F0 }", None,
        "the document holds 101 fragments; at most 100 are allowed", id="fragments",
    ),
    pytest.param(
        "{ " + "__typename @include(if: true) " * 101 + "}", None,
        "the document holds 101 directives; at most 100 are allowed", id="directives",
    ),
    pytest.param(
        "fragment A on Query { ...B } fragment B on Query { ...A } { ...A }", None,
        'Cannot spread fragment', id="fragment-cycle",
    ),
    pytest.param(
        "{ " + "...Missing " * 3 + "}", None, "Unknown fragment 'Missing'", id="unknown-fragment",
    ),
    pytest.param(
        "{ stats { " + "agents " * 2100 + "} }", None,
        "Document contains more than 2000 tokens", id="tokens",
    ),
    pytest.param(
        "{ memories(first: 1000) { edges { cursor } } }", None,
        "Query.memories(first:): 1000 is out of range 0..100; a page holds at most 100 items",
        id="page-size-literal",
    ),
    pytest.param(
        "query($n: Int!) { memories(first: $n) { edges { cursor } } }", {"n": 101},
        "Query.memories(first:): 101 is out of range 0..100", id="page-size-variable",
    ),
    pytest.param(
        "query($n: Int! = 5000) { problems(first: $n) { totalCount } }", None,
        "Query.problems(first:): 5000 is out of range", id="page-size-variable-default",
    ),
    pytest.param(
        "query($n: Int!) { memories(first: $n) { edges { cursor } } }", {"n": -1},
        "Query.memories(first:): -1 is out of range 0..100", id="page-size-negative",
    ),
    pytest.param(
        '{ agent(name: "bot") { memories(first: 101) { totalCount } } }', None,
        "Agent.memories(first:): 101 is out of range", id="page-size-nested",
    ),
    pytest.param(
        "fragment F on LinkReport { mostWanted(first: 1000) { count } } { linkReport { ...F } }", None,
        "LinkReport.mostWanted(first:): 1000 is out of range", id="page-size-in-fragment",
    ),
    pytest.param(
        '{ neighborhood(id: "agent:bot", depth: 4) { truncated } }', None,
        "Query.neighborhood(depth:): 4 is out of range 0..3", id="neighborhood-depth",
    ),
    pytest.param(
        '{ neighborhood(id: "agent:bot", limit: 100000) { truncated } }', None,
        "Query.neighborhood(limit:): 100000 is out of range 1..500", id="neighborhood-limit",
    ),
]


@pytest.mark.parametrize(("query", "variables", "message"), HOSTILE)
async def test_hostile_query_is_refused_before_any_resolver(
    production: Production, query: str, variables: dict[str, Any] | None, message: str
) -> None:
    live, store = production
    store.reset()
    body = await ask(live, query, variables)
    assert body.get("data") is None
    assert any(message in error["message"] for error in body["errors"]), body["errors"]
    assert store.calls == {}, "no resolver may run for a refused document"


async def test_hostile_subscription_is_refused_too(production: Production) -> None:
    live, _ = production
    async with ws_session(live.ws) as session:
        stream = await session.subscribe(
            "subscription { graphChanged { node { ... on Memory { " + nested_links(6)[2:-2] + " } } } }"
        )
        message = await stream.next()
    assert message["type"] == "error"
    assert "exceeds maximum operation depth" in message["payload"][0]["message"]


async def test_limits_leave_ordinary_queries_alone(production: Production) -> None:
    live, _ = production
    body = await ask(live, nested_links(3))
    assert "errors" not in body


async def test_field_suggestions_only_in_development(production: Production, development: LiveServer) -> None:
    (quiet,) = (await ask(production[0], "{ stat { agents } }"))["errors"]
    (helpful,) = (await ask(development, "{ stat { agents } }"))["errors"]
    assert "Cannot query field 'stat' on type 'Query'" in quiet["message"]
    assert "Did you mean" not in quiet["message"]
    assert "Did you mean 'stats'?" in helpful["message"]


class FailingStore(MemoryStore):
    def stats(self) -> Stats:
        raise RuntimeError("connection to db-7.internal:7687 refused (password=hunter2)")


async def test_internal_errors_are_masked_but_user_errors_are_not(
    serve: ServerFactory, workspace: Path
) -> None:
    live = serve(workspace, FailingStore(), watch=False)
    body = await ask(live, "{ stats { agents } }")
    (error,) = body["errors"]
    assert error["message"] == MASKED_MESSAGE
    assert error["path"] == ["stats"]
    assert "hunter2" not in json.dumps(body)
    assert len((await ask(live, "{ agents { name } }"))["data"]["agents"]) == 3
    (user_error,) = (await ask(live, '{ memory(name: "x") { id } }'))["errors"]
    assert "either `path`" in user_error["message"]


async def test_batched_requests_are_refused(production: Production) -> None:
    live, _ = production
    async with httpx.AsyncClient() as client:
        response = await client.post(live.graphql, json=[{"query": "{ stats { agents } }"}] * 2)
    assert response.status_code == 400
    assert "Batching is not enabled" in response.text


@strawberry.type
class TouchMutation:
    @strawberry.mutation
    def touch(self) -> bool:
        TOUCHED.append("touch")
        return True


TOUCHED: list[str] = []


async def test_mutations_never_run_over_get(serve: ServerFactory, workspace: Path) -> None:
    schema = build_schema(query_parts=QUERY_PARTS, mutation_parts=(TouchMutation,))
    live = serve(workspace, watch=False, app_options={"schema": schema})
    TOUCHED.clear()
    async with httpx.AsyncClient() as client:
        over_get = await client.get(live.graphql, params={"query": "mutation { touch }"})
        query_over_get = await client.get(live.graphql, params={"query": "{ stats { agents } }"})
        over_post = await client.post(live.graphql, json={"query": "mutation { touch }"})
    assert over_get.status_code == 400
    assert "mutations are not allowed when using GET" in over_get.text
    assert query_over_get.json() == {"data": {"stats": {"agents": 3}}}
    assert over_post.json() == {"data": {"touch": True}}
    assert TOUCHED == ["touch"]


async def test_unknown_host_headers_are_refused(production: Production) -> None:
    live, _ = production
    async with httpx.AsyncClient() as client:
        rebound = await client.post(
            live.graphql, json={"query": "{ stats { agents } }"}, headers={"Host": "evil.example"}
        )
        local = await client.post(
            live.graphql, json={"query": "{ stats { agents } }"}, headers={"Host": "localhost:1"}
        )
    assert rebound.status_code == 400
    assert local.status_code == 200


async def test_graphiql_only_in_development(production: Production, development: LiveServer) -> None:
    html = {"Accept": "text/html"}
    async with httpx.AsyncClient() as client:
        landing = await client.get(production[0].graphql, headers=html)
        page = await client.get(development.graphql, headers=html)
    # Without --dev a browser gets a short page of links (the UI, the schema), not GraphiQL.
    assert landing.status_code == 200
    assert "graphiql" not in landing.text.lower().replace("an interactive graphiql runs with", "")
    assert 'href="/"' in landing.text
    assert 'href="/schema.graphql"' in landing.text
    assert page.status_code == 200
    # (The landing page names GraphiQL too: only the page past that sentence counts.)
    assert "graphiql" in page.text.lower().replace("an interactive graphiql runs with", "")


async def test_only_graphql_transport_ws_is_spoken(production: Production) -> None:
    live, _ = production
    async with connect(live.ws, subprotocols=["graphql-ws"]) as ws:  # type: ignore[list-item]
        await ws.wait_closed()
    assert ws.close_code == 4406
    async with ws_session(live.ws) as session:
        assert session.ws.subprotocol == PROTOCOL
