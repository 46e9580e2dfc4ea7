"""The space and mindlink verbs over real HTTP: a uvicorn server on a loopback port, httpx, the
memory API's bearer tokens (an agent's token reaches only its own tree)."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from brain.api.http.auth import TokenRegistry
from brain.store.memory.store import MemoryStore
from tests.api.live import LiveServer, live_server
from tests.tool.test_mindlink_verbs import ENTRY, FEEDBACK
from tests.tool.test_space_verbs import PLAN, PNG
from tests.tool.test_space_verbs import build as build_space

TOKENS = {"alice-token": "alice", "bob-token": "bob", "admin-token": "*"}


def build_mindlink(root: Path) -> Path:
    (root / "alice/memory/entries").mkdir(parents=True)
    (root / "alice/memory/entries/prefers-short-answers.md").write_text(ENTRY)
    (root / "alice/memory/2026-11-30.md").write_text("Worked on the release notes.\n")
    (root / "bob/memory/entries").mkdir(parents=True)
    (root / "bob/memory/entries/bobs.md").write_text(ENTRY.replace("Maya", "Bob"))
    (root / "brain.toml").write_text('layout = "mindlink"\n')
    return root


def _serve(root: Path, tmp_path: Path) -> Iterator[LiveServer]:
    tokens_file = tmp_path / "tokens.json"
    tokens_file.write_text(json.dumps(TOKENS))
    with live_server(root, MemoryStore(), tokens=TokenRegistry(tokens_file=tokens_file)) as live:
        yield live


@pytest.fixture
def space(tmp_path: Path) -> Iterator[LiveServer]:
    yield from _serve(build_space(tmp_path / "ws"), tmp_path)


@pytest.fixture
def mindlink(tmp_path: Path) -> Iterator[LiveServer]:
    yield from _serve(build_mindlink(tmp_path / "ws"), tmp_path)


def client(live: LiveServer, token: str) -> httpx.Client:
    return httpx.Client(base_url=live.base, headers={"Authorization": f"Bearer {token}"}, timeout=10)


# ---------------------------------------------------------------------- space


def test_space_read_write_delete(space: LiveServer) -> None:
    root = space.brain.root
    with client(space, "alice-token") as http:
        listing = http.get("/api/space/alice")
        assert listing.status_code == 200
        assert [e["name"] for e in listing.json()["entries"]] == ["drafts", "latin1.txt", "photo.png"]
        text = http.get("/api/space/alice/drafts/plan.md").json()
        assert (text["content"], text["binary"]) == (PLAN, False)
        photo = http.get("/api/space/alice/photo.png").json()
        assert (photo["binary"], photo["mediaType"], photo["size"], "content" in photo) == (
            True, "image/png", len(PNG), False,
        )
        made = http.put("/api/space/alice/notes/today/todo.md", json={"content": "- ship\n"})
        assert made.status_code == 201
        assert made.json()["created"] is True
        assert (root / "alice/memory/notes/today/todo.md").read_text() == "- ship\n"
        raw = http.put("/api/space/alice/data/blob.bin", content=bytes(range(256)),
                       headers={"Content-Type": "application/octet-stream"})
        assert raw.status_code == 201
        assert (root / "alice/memory/data/blob.bin").read_bytes() == bytes(range(256))
        packed = http.put("/api/space/alice/data/b64.bin",
                          json={"contentBase64": base64.b64encode(PNG).decode()})
        assert packed.status_code == 201
        gone = http.delete("/api/space/alice/notes")
        assert gone.json() == {"path": "~/memory/notes/", "deleted": "folder",
                               "files": ["~/memory/notes/today/todo.md"]}
        assert not (root / "alice/memory/notes").exists()
        history = http.get("/api/memory-history").json()["records"]
        assert [(r["command"], r["path"], r["via"]) for r in history[:2]] == [
            ("delete", "alice/memory/notes/today/todo.md", "rest"),
            ("write", "alice/memory/data/b64.bin", "rest"),
        ]


def test_space_refusals_over_http(space: LiveServer) -> None:
    root = space.brain.root
    deep = "/".join(["d"] * 17) + "/x.md"
    with client(space, "alice-token") as http:
        too_deep = http.put(f"/api/space/alice/{deep}", json={"content": "x"})
        assert too_deep.status_code == 400
        error = too_deep.json()["error"]
        assert error["code"] == "path-too-deep"
        assert error["suggestion"]["command"] == "PUT"  # the request that would have worked
        assert error["suggestion"]["arguments"]["path"].startswith("/api/space/alice/d/d/")
        secret = http.put("/api/space/alice/keys.md", content="aws AKIAABCDEFGHIJKLMNOP\n",
                          headers={"Content-Type": "text/markdown"})
        assert (secret.status_code, secret.json()["error"]["code"]) == (422, "secret")
        assert "AKIAABCDEFGHIJKLMNOP" not in secret.text
        stale = http.put("/api/space/alice/drafts/plan.md", content="x",
                         headers={"If-Match": '"' + "0" * 64 + '"', "Content-Type": "text/plain"})
        assert (stale.status_code, stale.json()["error"]["code"]) == (409, "conflict")
        for method in ("GET", "PUT", "DELETE"):
            other = http.request(method, "/api/space/bob/secret-plans.md", json={"content": "mine"})
            assert other.status_code == 404, method
            assert "there is no agent `bob`" in other.json()["error"]["message"]
    assert (root / "bob/memory/secret-plans.md").read_text() == "bob's own\n"
    assert (root / "alice/memory/drafts/plan.md").read_text() == PLAN
    assert not (root / "alice/memory/keys.md").exists()
    with client(space, "admin-token") as admin:
        assert admin.get("/api/space/bob/secret-plans.md").json()["content"] == "bob's own\n"
        wrong_layout = admin.get("/api/mindlink/alice")
        assert wrong_layout.status_code == 404
        assert "layout is `space`" in wrong_layout.json()["error"]["message"]
    assert httpx.get(f"{space.base}/api/space/alice").status_code == 401


# ---------------------------------------------------------------------- mindlink


def test_mindlink_get_write_delete_search(mindlink: LiveServer) -> None:
    root = mindlink.brain.root
    with client(mindlink, "alice-token") as http:
        listing = http.get("/api/mindlink/alice").json()
        assert [e["path"] for e in listing["entries"]] == ["2026-11-30.md", "entries/"]
        entry = http.get("/api/mindlink/alice/entries/prefers-short-answers.md")
        assert (entry.json()["kind"], entry.json()["content"]) == ("entry", ENTRY)
        made = http.put("/api/mindlink/alice/entries/no-emoji.md", json={"content": FEEDBACK})
        assert (made.status_code, made.json()["kind"]) == (201, "entry")
        updated = http.put("/api/mindlink/alice/entries/no-emoji.md", content=FEEDBACK + "More.\n",
                           headers={"Content-Type": "text/markdown", "If-Match": made.headers["ETag"]})
        assert (updated.status_code, updated.json()["previousHash"]) == (200, made.json()["hash"])
        refused = http.put("/api/mindlink/alice/notes/x.md", json={"content": ENTRY})
        assert (refused.status_code, refused.json()["error"]["code"]) == (400, "not-a-memory")
        assert refused.json()["error"]["suggestion"]["arguments"]["path"] == (
            "/api/mindlink/alice/entries/x.md"
        )
        found = http.get("/api/mindlink/alice/search", params={"query": "answers sentences"})
        assert found.status_code == 200
        paths = [h["path"] for h in found.json()["hits"]]
        assert paths[0] == "entries/prefers-short-answers.md"  # brain's search, keyword and semantic
        assert all("bobs" not in p for p in paths)  # bob's entry says the same: never found for alice
        deleted = http.delete("/api/mindlink/alice/2026-11-30.md")
        assert deleted.json()["deleted"] == "file"
        assert http.get("/api/mindlink/bob/entries/bobs.md").status_code == 404
        assert http.delete("/api/mindlink/bob/entries/bobs.md").status_code == 404
    assert not (root / "alice/memory/2026-11-30.md").exists()
    assert (root / "bob/memory/entries/bobs.md").exists()
    assert (root / "alice/memory/entries/no-emoji.md").read_text() == FEEDBACK + "More.\n"
