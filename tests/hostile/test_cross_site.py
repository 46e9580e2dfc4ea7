"""A web page on another site changes nothing, on any route (brain/api/http/crosssite.py), and the
workspace cannot point brain's model runs anywhere (brain/config/operator.py): against a real
`brain serve` on an open server (no tokens: the worst case), with the operator's endpoint set,
so a request that got through would start a model run the scripted endpoint would see.

The routes are read from the app itself, so a route added later is tested without a word here.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from starlette.routing import Route
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus
from websockets.typing import Origin, Subprotocol

from brain.api.graphql.context import ApiSettings, Services
from brain.api.http.app import create_app
from brain.api.http.auth import TokenRegistry
from brain.api.http.events import ChangeHub
from brain.service.brain import Brain
from tests.api.client import PROTOCOL
from tests.hostile.api_server import HostileServer, hostile_server
from tests.maintain.chat_server import ChatServer, calls, chat_server, final
from tests.maintain.conftest import note, workspace_with

STYLE = note("House style for release notes.", "# House style\n\n- Headline first.")
FILES: dict[str, str | tuple[str, float]] = {
    "memory/writer/style-a.md": (STYLE, 5),
    "memory/writer/style-b.md": (STYLE, 1),
    "memory/shared/tone.md": note("Tone.", "Plain words.", "user"),
}
EVIL = "http://evil.example"
ALLOWED = "http://dashboard.example:3000"
FILL = {"scope": "shared", "file": "planted.md", "agent": "writer", "path": "planted.md"}


def state_changing_routes(root: Path) -> list[tuple[str, str]]:
    """(method, path) of every route of the app that takes more than GET, parameters filled."""
    brain = Brain(root)
    services = Services(brain=brain, hub=ChangeHub(brain), tokens=TokenRegistry(), settings=ApiSettings())
    found = []
    for route in create_app(services).routes:
        if not isinstance(route, Route):
            continue
        for method in sorted((route.methods or set()) - {"GET", "HEAD"}):
            path = re.sub(r"{(\w+)(?::\w+)?}", lambda m: FILL[m.group(1)], route.path)
            found.append((method, path))
    brain.close()
    return found


@pytest.fixture(scope="module")
def chat() -> Iterator[ChatServer]:
    script = [calls({"command": "delete", "path": "/memories/style-a.md"}), final("Changed: a duplicate")]
    with chat_server(script) as server:
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, chat: ChatServer) -> Iterator[HostileServer]:
    root = tmp_path_factory.mktemp("cross-site")
    workspace = workspace_with(root / "ws", FILES)
    env = {
        "BRAIN_CONSOLIDATE_URL": chat.url, "BRAIN_CONSOLIDATE_MODEL": "m",
        "BRAIN_ALLOWED_ORIGINS": ALLOWED, "BRAIN_TOKEN": "", "BRAIN_TOKENS_FILE": "",
    }
    with hostile_server(workspace, env=env) as live:
        yield live


def snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in root.rglob("*.md")}


def test_the_routes_are_all_there(tmp_path: Path) -> None:
    """The list below is read from the app: if it shrank to nothing the next test would pass."""
    routes = state_changing_routes(workspace_with(tmp_path / "ws", FILES))
    assert {
        ("POST", "/graphql"), ("POST", "/api/memory/consolidate"), ("PUT", "/api/memory/shared/planted.md"),
        ("DELETE", "/api/memory/shared/planted.md"), ("POST", "/mcp"), ("DELETE", "/mcp"),
        ("PUT", "/api/space/writer/planted.md"), ("DELETE", "/api/mindlink/writer/planted.md"),
    } <= set(routes)


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "application/json"]
)
@pytest.mark.parametrize("origin", [EVIL, "null", "http://127.0.0.1:1"])
def test_every_state_changing_route_refuses_another_sites_page(
    server: HostileServer, chat: ChatServer, tmp_path: Path, origin: str, content_type: str
) -> None:
    root = Path(server.log).parent / "ws"
    before = snapshot(root)
    for method, path in state_changing_routes(root):
        body = (
            '{"scope": "writer"}' if path.endswith("/consolidate")
            else '{"query": "mutation { __typename }"}' if path == "/graphql"
            else "---\ndescription: planted\ntype: user\n---\nplanted"
        )
        response = httpx.request(
            method, server.base + path, content=body, timeout=10,
            headers={"Origin": origin, "Content-Type": content_type},
        )
        assert response.status_code == 403, (method, path, response.text)
        assert "only this server's own pages may change anything" in response.text
    assert chat.requests == []  # no model run started
    assert snapshot(root) == before  # nothing written, nothing deleted


@pytest.mark.parametrize("content_type", [None, "text/plain", "multipart/form-data; boundary=x"])
def test_a_post_a_page_could_send_without_a_preflight_is_refused(
    server: HostileServer, chat: ChatServer, content_type: str | None
) -> None:
    """No Origin at all (an old browser, a plain form): a POST must still say it is JSON."""
    root = Path(server.log).parent / "ws"
    before = snapshot(root)
    headers = {"Content-Type": content_type} if content_type else {}
    for method, path in state_changing_routes(root):
        if method != "POST":
            continue
        response = httpx.post(server.base + path, content=b'{"scope": "writer"}', headers=headers, timeout=10)
        assert response.status_code == 415, (path, response.text)
        assert "Content-Type: application/json" in response.text
    headers = {"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}
    response = httpx.post(server.base + "/api/memory/consolidate", json={"scope": "writer"}, headers=headers)
    assert response.status_code == 403
    assert chat.requests == []
    assert snapshot(root) == before


def test_a_consolidation_over_another_sites_websocket_is_refused(
    server: HostileServer, chat: ChatServer
) -> None:
    """Browsers apply no CORS to WebSockets: the GraphQL socket (where `memoryConsolidation`
    runs a model pass) refuses another site's handshake itself."""

    async def attempt() -> int | None:
        try:
            async with connect(server.ws, origin=Origin(EVIL), subprotocols=[Subprotocol(PROTOCOL)]):
                return None
        except InvalidStatus as exc:
            return exc.response.status_code

    assert asyncio.run(attempt()) == 403
    assert chat.requests == []


def test_tools_same_origin_pages_and_listed_origins_still_work(
    server: HostileServer, chat: ChatServer
) -> None:
    url = server.base + "/api/memory/shared/kept.md"
    text = "---\ndescription: A note a tool wrote.\ntype: user\n---\nKept."
    # A tool (no Origin) writes markdown as before; a page of this server, and a listed origin, too.
    assert httpx.put(url, content=text, headers={"Content-Type": "text/markdown"}).status_code in (200, 201)
    own = server.base  # http://127.0.0.1:<port>
    for origin in (own, ALLOWED):
        answer = httpx.post(server.url, json={"query": "{ stats { memories } }"}, headers={"Origin": origin})
        assert answer.status_code == 200, answer.text
    done = httpx.post(
        server.base + "/api/memory/consolidate", json={"scope": "writer"}, headers={"Origin": own}, timeout=60
    )
    assert done.status_code == 200, done.text
    assert done.json()["status"] == "done"
    assert len(chat.requests) == 2  # the model run happened, for this one request only
    assert "refused POST /api/memory/consolidate" in server.stderr_tail()  # one log line each


def test_the_workspace_cannot_name_the_endpoint_or_its_key(tmp_path: Path) -> None:
    """brain.toml pointing consolidation at a collector with the admin token as its key: `brain
    serve` refuses to start, in one line that says where the setting belongs; nothing is sent."""
    with chat_server([final("never asked")]) as collector:
        root = workspace_with(tmp_path / "ws", FILES)
        (root / "brain.toml").write_text(
            f'[consolidate]\nurl = "{collector.url}"\nmodel = "m"\napi_key_env = "BRAIN_TOKEN"\n'
        )
        done = subprocess.run(
            [sys.executable, "-m", "brain", "serve", str(root), "--port", "0"], capture_output=True,
            text=True, timeout=60, check=False, env={**os.environ, "BRAIN_TOKEN": "admin-secret"},
        )
        assert collector.requests == []
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1, done.stderr
    assert "brain.toml line 2: [consolidate] url is an operator setting" in done.stderr
    assert "(--config FILE or BRAIN_CONFIG), or BRAIN_CONSOLIDATE_URL" in done.stderr
