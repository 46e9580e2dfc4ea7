"""A lone surrogate (`"\\ud800"` in a caller's JSON, a YAML escape in a note) is not Unicode:
search treats it as a separator, on both stores and in every mode, never an internal error.

Before: the encoder's tokenizer refused the whole batch (a TypeError), so a semantic or hybrid
search for "friday \\ud800" was a 500 on REST, a masked error on GraphQL, and a note whose
description held one stopped the embedding of every note batched with it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from brain.search.service import Mode, SearchError
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from tests.api.live import live_server
from tests.search.helpers import needs_model
from tests.search.workspace import private_workspace

QUERIES = ["\ud800", "friday \ud800", "\udcff friday", "fri\udfffday"]


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BRAIN_CACHE_DIR", str(tmp_path / "vector-cache"))  # vectors computed here


@pytest.fixture
def brain(tmp_path: Path, store_factory: Callable[[], GraphStore]) -> Brain:
    needs_model()
    ws = private_workspace(tmp_path / "ws")
    ws.write(  # "\ud83d" in YAML: a lone surrogate in the stored description
        "memory/shared/broken-emoji.md",
        '---\ndescription: "Half an emoji \\ud83d on friday"\ntype: reference\n---\nFriday notes.\n',
    )
    brain = Brain(ws.root, store_factory())
    brain.sync()
    assert brain.search.indexer.wait(timeout=600), "the notes were never all embedded"
    return brain


@pytest.mark.parametrize("mode", list(Mode))
def test_a_lone_surrogate_is_a_separator_in_every_mode(brain: Brain, mode: Mode) -> None:
    try:
        status = brain.search.status()
        assert status.ready, status.describe()  # the note with a surrogate was embedded too
        for query in QUERIES:
            for agent in (None, "bob"):
                answer = brain.search.search(query, mode=mode, agent=agent)
                assert answer.mode is mode
                if "friday" in query and mode is not Mode.SEMANTIC:
                    assert "memory:shared/release-calendar" in [h.id for h in answer.hits]
        # A name with one names nothing, and Neo4j's driver cannot send it: a usage error.
        with pytest.raises(SearchError, match=r"`scope` holds a lone surrogate \(U\+D800 at character 2\)"):
            brain.search.search("friday", mode=mode, scope="s\ud800")
        with pytest.raises(SearchError, match="`agent` holds a lone surrogate"):
            brain.search.search("friday", mode=mode, agent="\udc80")
    finally:
        brain.close()


SEARCH = "query($q: String!, $scope: String) { search(query: $q, scope: $scope) { edges { node { id } } } }"


def graphql(url: str, variables: dict[str, str]) -> httpx.Response:
    body = json.dumps({"query": SEARCH, "variables": variables})  # "\\ud800", as JSON says it
    return httpx.post(url, content=body, headers={"Content-Type": "application/json"})


def test_graphql_and_rest_answer_it(tmp_path: Path) -> None:
    needs_model()
    ws = private_workspace(tmp_path / "ws")
    with live_server(ws.root, MemoryStore()) as live:
        assert live.brain.search.indexer.wait(timeout=600)
        found = graphql(live.graphql, {"q": "friday \ud800"}).json()
        refused = graphql(live.graphql, {"q": "x", "scope": "\ud800"})
        # A URL cannot carry one: %ED%A0%80 (its UTF-8-like bytes) decodes as U+FFFD.
        rest = httpx.get(f"{live.base}/api/memory/search?q=friday%20%ED%A0%80")
    ids = [e["node"]["id"] for e in found["data"]["search"]["edges"]]
    assert "memory:shared/release-calendar" in ids
    (error,) = refused.json()["errors"]
    assert "`scope` holds a lone surrogate" in error["message"], "the caller's mistake, not masked"
    assert rest.status_code == 200
    assert "memory/shared/release-calendar.md" in [r["path"] for r in rest.json()["results"]]


def test_the_cli_answers_it(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 in argv reach Python as lone surrogates (surrogateescape)."""
    needs_model()
    ws = private_workspace(tmp_path / "ws")
    env = {**os.environ, "BRAIN_STORE": "memory", "BRAIN_CACHE_DIR": str(tmp_path / "vectors")}

    def search(*args: bytes) -> subprocess.CompletedProcess[bytes]:
        argv = [sys.executable.encode(), b"-m", b"brain", b"search", os.fsencode(ws.root), *args]
        return subprocess.run(argv, capture_output=True, env=env, timeout=600, check=False)

    found = search(b"friday \xed\xa0\x80", b"--format", b"json")
    assert found.returncode == 0, found.stderr
    paths = [r["path"] for r in json.loads(found.stdout)["results"]]
    assert "memory/shared/release-calendar.md" in paths
    refused = search(b"friday", b"--agent", b"b\xffb")
    assert refused.returncode == 2
    assert b"`agent` holds a lone surrogate" in refused.stderr
    assert b"Traceback" not in refused.stderr
