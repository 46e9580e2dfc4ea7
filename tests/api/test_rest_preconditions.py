"""RFC 9110 preconditions and hostile bodies on the memory REST API, over real HTTP."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.live import LiveServer
from tests.tool.conftest import make_workspace
from tests.tool.test_attacks import snapshot
from tests.tool.test_rest import serve

NOTE = "/api/memory/writer/house-style.md"
NEW = "---\ndescription: House style, revised\ntype: feedback\n---\nShorter.\n"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    root = make_workspace(tmp_path / "ws")
    with serve(root, tmp_path / "history.jsonl") as server:
        yield server


def put(live: LiveServer, url: str, headers: dict[str, str], content: str = NEW) -> httpx.Response:
    return httpx.put(live.base + url, json={"content": content}, headers=headers, timeout=10)


def etag(live: LiveServer, url: str = NOTE) -> str:
    return httpx.get(live.base + url, timeout=10).headers["etag"]


def test_if_match_star_passes_when_the_note_exists(live: LiveServer) -> None:
    response = put(live, NOTE, {"If-Match": "*"})
    assert response.status_code == 200, response.text
    assert response.json()["changed"] is True


def test_if_match_star_fails_when_the_note_does_not_exist(live: LiveServer) -> None:
    before = snapshot(live.brain.root)
    response = put(live, "/api/memory/writer/not-there.md", {"If-Match": "*"})
    assert response.status_code == 412, response.text
    assert snapshot(live.brain.root) == before


def test_an_empty_if_match_matches_nothing(live: LiveServer) -> None:
    before = snapshot(live.brain.root)
    response = put(live, NOTE, {"If-Match": ""})
    assert response.status_code == 412
    assert "If-Match header is empty" in response.json()["error"]["message"]
    assert snapshot(live.brain.root) == before


def test_if_match_passes_when_any_listed_tag_matches(live: LiveServer) -> None:
    response = put(live, NOTE, {"If-Match": f'"{"0" * 64}", {etag(live)}'})
    assert response.status_code == 200, response.text


def test_a_weak_tag_never_matches(live: LiveServer) -> None:
    response = put(live, NOTE, {"If-Match": f"W/{etag(live)}"})
    assert response.status_code == 412


def test_delete_with_if_match_star(live: LiveServer) -> None:
    gone = httpx.delete(live.base + NOTE, headers={"If-Match": "*"}, timeout=10)
    missing = httpx.delete(live.base + NOTE, headers={"If-Match": "*"}, timeout=10)
    assert gone.status_code == 200
    assert missing.status_code == 412


@pytest.mark.parametrize(("body", "message"), [
    (b"[" * 100_000 + b"]" * 100_000, "nested more than 32 levels"),
    (b'{"content": "' + b"\xff\xfe" + b'"}', "not valid UTF-8"),
    (b'{"content": ' + b'{"a": ' * 40 + b"1" + b"}" * 40 + b"}", "nested more than 32 levels"),
])
def test_hostile_json_bodies_are_400s(live: LiveServer, body: bytes, message: str) -> None:
    response = httpx.put(live.base + "/api/memory/writer/x.md", content=body,
                         headers={"Content-Type": "application/json"}, timeout=10)
    assert response.status_code == 400, response.text
    assert message in response.json()["error"]["message"]


def test_a_body_over_the_server_cap_is_refused_before_reading(live: LiveServer) -> None:
    response = httpx.put(live.base + NOTE, content=b"x" * (2 * 1024 * 1024),
                         headers={"Content-Type": "text/markdown"}, timeout=10)
    assert response.status_code == 413
    assert json.loads(response.text)["error"]["code"] == "too-large"
