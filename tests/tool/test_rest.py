"""The memory tree over real HTTP: a uvicorn server on a loopback port, httpx and raw sockets."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from brain.api.http.auth import TokenRegistry
from brain.store.memory.store import MemoryStore
from brain.tool import attach_memory_service
from brain.tool.history.log import History
from brain.tool.service import MemoryService
from tests.api.live import LiveServer, live_server, wait_for
from tests.tool.conftest import NOW, make_workspace
from tests.tool.test_attacks import OUTSIDE_SECRET, PRIVATE, snapshot

TOKENS = {
    "writer-token": "writer", "reviewer-token": "reviewer", "old-bot-token": "old-bot", "root-token": "*",
}


def serve(root: Path, history: Path, tokens: TokenRegistry | None = None) -> Any:
    class Served:
        def __enter__(self) -> LiveServer:
            self.cm = live_server(root, MemoryStore(), tokens=tokens)
            live = self.cm.__enter__()
            attach_memory_service(
                live.brain, MemoryService(root, live.brain, history=History(history), clock=lambda: NOW)
            )
            return live

        def __exit__(self, *exc: object) -> None:
            self.cm.__exit__(None, None, None)

    return Served()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    root = make_workspace(tmp_path / "ws")
    with serve(root, tmp_path / "history.jsonl") as server:
        yield server


@pytest.fixture
def secured(tmp_path: Path) -> Iterator[LiveServer]:
    root = make_workspace(tmp_path / "ws")
    tokens_file = tmp_path / "tokens.json"
    tokens_file.write_text(json.dumps(TOKENS))
    with serve(root, tmp_path / "history.jsonl", TokenRegistry(None, tokens_file)) as server:
        yield server


def client(live: LiveServer, token: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(base_url=live.base, headers=headers, timeout=10)


def test_every_scope_and_its_files(live: LiveServer) -> None:
    body = client(live).get("/api/memory").json()
    assert [(s["scope"], s["kind"], s["memoryOff"]) for s in body["scopes"]] == [
        ("shared", "shared", False), ("old-bot", "agent", True), ("reviewer", "agent", False),
        ("writer", "agent", False),
    ]
    writer = body["scopes"][3]
    assert writer["files"] == [{
        "file": "house-style.md", "name": "house-style", "path": "memory/writer/house-style.md",
        "url": "/api/memory/writer/house-style.md", "type": "feedback",
        "description": "House style for release notes — headline first, no exclamation marks.",
        "size": len((live.brain.root / "memory/writer/house-style.md").read_bytes()),
        "modifiedAt": "2026-10-29T00:00:00Z", "age": "3 days ago",
    }]
    one = client(live).get("/api/memory/old-bot").json()
    assert (one["memoryOff"], [f["file"] for f in one["files"]]) == (True, ["leftover.md"])


def test_a_scope_listing_is_paged(live: LiveServer) -> None:
    # A listing answered every file of every scope at once: 10,000 notes, one answer.
    shared = live.brain.root / "memory" / "shared"
    for n in range(130):
        (shared / f"page{n:03}.md").write_text(f"---\ndescription: page {n}\n---\n")
    http = client(live)
    seen: list[str] = []
    url: str | None = "/api/memory/shared"
    pages = []
    while url is not None:
        body = http.get(url).json()
        pages.append(len(body["files"]))
        seen += [f["file"] for f in body["files"]]
        url = body["next"]
    assert pages == [100, 31]  # 130 and prefers-short-answers.md
    assert body["fileCount"] == 131
    assert len(seen) == len(set(seen)) == 131
    top = http.get("/api/memory").json()["scopes"][0]
    assert (len(top["files"]), top["fileCount"], top["next"] is not None) == (100, 131, True)
    assert [f["file"] for f in http.get("/api/memory/shared?first=2").json()["files"]] == seen[:2]
    for bad in ("101", "-1", "x", "١"):
        refused = http.get("/api/memory/shared", params={"first": bad})
        assert refused.status_code == 400, bad
        assert "at most 100 files" in refused.json()["error"]["message"]


def test_read_write_delete_one_note(live: LiveServer) -> None:
    http = client(live)
    got = http.get("/api/memory/writer/house-style.md")
    assert got.status_code == 200
    note = got.json()
    assert note["content"].startswith("---\ndescription: House style")
    assert got.headers["etag"] == f'"{note["hash"]}"'
    raw = http.get("/api/memory/writer/house-style.md", headers={"Accept": "text/markdown"})
    assert raw.headers["content-type"] == "text/markdown; charset=utf-8"
    assert raw.text == note["content"]

    created = http.put("/api/memory/shared/tone.md", json={"content": "Calm.\n"})
    assert created.status_code == 201
    assert created.json()["created"] is True
    updated = http.put("/api/memory/shared/tone.md", content="Calmer.\n",
                       headers={"Content-Type": "text/markdown", "If-Match": created.headers["etag"]})
    assert updated.status_code == 200
    assert updated.json()["previousHash"] == created.json()["hash"]
    # The graph has it at once: the next query sees the new text, without waiting for the watcher.
    node = live.brain.store.find_memory("shared", "tone")
    assert node is not None
    assert node.body == "Calmer.\n"
    deleted = http.delete("/api/memory/shared/tone.md")
    assert (deleted.status_code, deleted.json()["deleted"]) == (200, True)
    assert live.brain.store.find_memory("shared", "tone") is None
    history = http.get("/api/memory-history").json()["records"]
    assert [(r["command"], r["via"], r["actor"]) for r in history] == [
        ("delete", "rest", "anonymous"), ("put", "rest", "anonymous"), ("put", "rest", "anonymous"),
    ]


STATUSES = [
    # (method, url, body or None, headers, status, code)
    ("GET", "/api/memory/writer/missing.md", None, {}, 404, "not-found"),
    ("GET", "/api/memory/nobody/x.md", None, {}, 404, "not-found"),
    ("GET", "/api/memory/nobody", None, {}, 404, "not-found"),
    ("GET", "/api/memory/writer/notes.txt", None, {}, 400, "not-markdown"),
    ("GET", "/api/memory/writer/sub/x.md", None, {}, 400, "nested-directory"),
    ("PUT", "/api/memory/writer/.hidden.md", {"content": "x"}, {}, 400, "invalid-path"),
    ("PUT", "/api/memory/writer/x.md", {"text": "x"}, {}, 400, "invalid-argument"),
    ("PUT", "/api/memory/writer/x.md", "{not json", {"Content-Type": "application/json"}, 400,
     "invalid-argument"),
    ("PUT", "/api/memory/nobody/x.md", {"content": "x"}, {}, 404, "unknown-agent"),
    ("PUT", "/api/memory/writer/House-Style.md", {"content": "x"}, {}, 409, "case-conflict"),
    ("PUT", "/api/memory/writer/house-style.md", {"content": "x", "expectedHash": "0" * 64}, {}, 409,
     "conflict"),
    ("PUT", "/api/memory/writer/house-style.md", {"content": "x"}, {"If-Match": '"' + "0" * 64 + '"'},
     412, "conflict"),
    ("PUT", "/api/memory/writer/house-style.md", {"content": "x"}, {"If-None-Match": "*"}, 412,
     "conflict"),
    ("PUT", "/api/memory/writer/big.md", {"content": "x" * 70_000}, {}, 413, "too-large"),
    ("PUT", "/api/memory/writer/huge.md", "x" * 500_000, {"Content-Type": "text/markdown"}, 413,
     "too-large"),
    ("PUT", "/api/memory/writer/x.md", "x", {"Content-Type": "image/png"}, 415, "invalid-argument"),
    ("PUT", "/api/memory/writer/x.md", {"content": "ghp_" + "A1b2" * 9}, {}, 422, "secret"),
    ("PUT", "/api/memory/writer/x.md", b"caf\xe9", {"Content-Type": "text/markdown"}, 422, "not-text"),
    ("DELETE", "/api/memory/writer/missing.md", None, {}, 404, "not-found"),
    ("DELETE", "/api/memory/writer/house-style.md", None, {"If-Match": '"abc"'}, 412, "conflict"),
]


@pytest.mark.parametrize(("method", "url", "body", "headers", "status", "code"), STATUSES)
def test_refusals_have_json_errors_and_proper_statuses(
    live: LiveServer, method: str, url: str, body: object, headers: dict[str, str], status: int, code: str
) -> None:
    before = snapshot(live.brain.root)
    kwargs: dict[str, Any] = {"headers": headers}
    if isinstance(body, dict):
        kwargs["json"] = body
    elif body is not None:
        kwargs["content"] = body
    response = client(live).request(method, url, **kwargs)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert error["text"].startswith("Refused: " + error["message"])
    assert snapshot(live.brain.root) == before


def test_refusal_messages_match_the_tool(live: LiveServer) -> None:
    error = client(live).put("/api/memory/writer/notes.txt", json={"content": "x"}).json()["error"]
    assert error == {
        "code": "not-markdown",
        "message": "`notes.txt` is not a .md file: only .md files are memories",
        "suggestion": {"command": "PUT", "arguments": {"path": "/api/memory/writer/notes.md"},
                       "text": "PUT /api/memory/writer/notes.md"},
        "text": "Refused: `notes.txt` is not a .md file: only .md files are memories\n"
                "Try: PUT /api/memory/writer/notes.md",
    }


def test_tokens_decide_what_exists(secured: LiveServer) -> None:
    assert client(secured).get("/api/memory").status_code == 401
    assert client(secured, "wrong").get("/api/memory").status_code == 401
    writer = client(secured, "writer-token")
    assert [s["scope"] for s in writer.get("/api/memory").json()["scopes"]] == ["shared", "writer"]
    # Another agent's private notes are invisible: the same 404 as for a scope that does not exist.
    hidden = writer.get("/api/memory/reviewer/private-notes.md")
    absent = writer.get("/api/memory/nobody/private-notes.md")
    assert hidden.status_code == absent.status_code == 404
    assert hidden.json()["error"]["message"] == "there is no memory scope `reviewer`"
    assert absent.json()["error"]["message"] == "there is no memory scope `nobody`"
    assert writer.get("/api/memory/reviewer").status_code == 404
    assert writer.put("/api/memory/reviewer/x.md", json={"content": "x"}).status_code == 404
    assert writer.delete("/api/memory/reviewer/private-notes.md").status_code == 404
    assert PRIVATE not in hidden.text
    assert writer.put("/api/memory/writer/x.md", json={"content": "mine\n"}).status_code == 201
    assert writer.put("/api/memory/shared/y.md", json={"content": "ours\n"}).status_code == 201
    # An agent whose memory is off reads its notes but cannot write.
    old_bot = client(secured, "old-bot-token")
    assert old_bot.get("/api/memory/old-bot/leftover.md").status_code == 200
    refused = old_bot.put("/api/memory/old-bot/x.md", json={"content": "x"})
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "memory-off")
    # The admin reaches everything, and may clear a memory-off scope.
    admin = client(secured, "root-token")
    assert [s["scope"] for s in admin.get("/api/memory").json()["scopes"]] == [
        "shared", "old-bot", "reviewer", "writer",
    ]
    assert admin.get("/api/memory/reviewer/private-notes.md").status_code == 200
    assert admin.delete("/api/memory/old-bot/leftover.md").status_code == 200
    # History follows visibility too.
    admin.put("/api/memory/reviewer/plan.md", json={"content": "plan\n"})
    seen = {r["path"] for r in writer.get("/api/memory-history").json()["records"]}
    assert seen == {"memory/writer/x.md", "memory/shared/y.md"}
    actors = {r["actor"] for r in admin.get("/api/memory-history").json()["records"]}
    assert actors == {"agent:writer", "admin"}


HOSTILE_URLS = [
    "/api/memory/shared/../../agents/writer.md", "/api/memory/shared/%2e%2e/%2e%2e/agents/writer.md",
    "/api/memory/shared/..%2f..%2fagents%2fwriter.md", "/api/memory/shared/%252e%252e%252fx.md",
    "/api/memory/..%2fagents/writer.md", "/api/memory/%2e%2e/agents.md", "/api/memory/shared/x.md%00.txt",
    "/api/memory/shared/x%00.md", "/api/memory/shared/%5c..%5c..%5cagents%5cwriter.md",
    "/api/memory/shared/..\\..\\agents\\writer.md", "/api/memory/shared/%EF%BC%8E%EF%BC%8E/x.md",
    "/api/memory/shared/cafe%CC%81.md", "/api/memory/shared/x%E2%80%8B.md", "/api/memory/Shared/x.md",
    "/api/memory/SHARED/x.md", "/api/memory/shared/X.MD", "/api/memory/shared/.x.md",
    "/api/memory/shared/link-out.md", "/api/memory/reviewer/private-notes.md",
    "/api/memory/reviewer/../reviewer/private-notes.md", "/api/memory/reviewer%2fprivate-notes.md",
    "/api/memory/./writer/house-style.md", "/api/memory/shared//x.md", "/api/memory/shared/x.md/",
    "/api/memoryX/shared/x.md", "/api/memory/linked/secret.md",
]


def raw_request(live: LiveServer, method: str, target: str, body: bytes = b"", token: str = "") -> int:
    """Send exactly these bytes (no client-side path normalisation) and return the status."""
    host, port = live.base.removeprefix("http://").split(":")
    head = f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    if body:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head.encode("latin-1") + b"\r\n" + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert OUTSIDE_SECRET.encode() not in data
    assert PRIVATE.encode() not in data
    return int(data.split(b" ", 2)[1])


def test_hostile_urls_over_raw_http(secured: LiveServer, tmp_path: Path) -> None:
    root = secured.brain.root
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(OUTSIDE_SECRET)
    (root / "memory/shared/link-out.md").symlink_to(outside / "secret.md")
    (root / "agents/linked.md").write_text("---\nmemory: true\n---\n")
    (root / "memory/linked").symlink_to(outside, target_is_directory=True)
    # The watcher records the agent file made outside brain (origin external): once it has,
    # nothing else may change, the history included.
    history = History(tmp_path / "history.jsonl")
    wait_for(lambda: any(r.path == "agents/linked.md" for r in history.all()), "the outside change's record")
    # And the first versions a full sync keeps of the notes no record names (on a thread; the
    # file is written once its blobs are): brain's own, before any hostile request.
    wait_for(lambda: (tmp_path / "history" / "baseline-v1.jsonl").exists(), "the notes' first versions")
    before = snapshot(tmp_path)
    attempts = 0
    body = json.dumps({"content": "pwned"}).encode()
    for url in HOSTILE_URLS:
        for method in ("GET", "PUT", "DELETE"):
            status = raw_request(secured, method, url, body if method == "PUT" else b"", "writer-token")
            attempts += 1
            assert 400 <= status < 500, (method, url, status)
    assert snapshot(tmp_path) == before
    assert attempts == len(HOSTILE_URLS) * 3
    print(f"REST attack matrix: {attempts} raw requests, all refused")
