"""Answers are gzip-compressed for clients that ask (browsers always do), never for others."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import httpx

from tests.api.conftest import ServerFactory

OVERVIEW = "{ graphOverview { columns } }"


async def test_a_big_answer_is_compressed_when_asked_and_plain_otherwise(
    serve: ServerFactory, workspace: Path
) -> None:
    for n in range(60):  # an overview of some kilobytes
        (workspace / "memory" / "shared" / f"note-{n}.md").write_text(
            f"---\ndescription: note {n}\ntype: project\n---\nSee [[note-{(n + 1) % 60}]].\n"
        )
    live = serve(workspace)
    async with httpx.AsyncClient() as client:
        # httpx decodes what it asked for; the raw stream shows what went over the wire.
        async with client.stream("POST", live.graphql, json={"query": OVERVIEW},
                                 headers={"accept-encoding": "gzip"}) as packed:
            wire = b"".join([chunk async for chunk in packed.aiter_raw()])
        plain = await client.post(live.graphql, json={"query": OVERVIEW},
                                  headers={"accept-encoding": "identity"})
    assert packed.headers["content-encoding"] == "gzip"
    assert "content-encoding" not in plain.headers
    assert len(wire) < len(plain.content)
    assert json.loads(gzip.decompress(wire)) == plain.json()
    assert plain.json()["data"]["graphOverview"]["columns"]


async def test_a_small_answer_is_sent_as_it_is(serve: ServerFactory, workspace: Path) -> None:
    live = serve(workspace)
    async with httpx.AsyncClient() as client:
        answer = await client.get(f"{live.base}/healthz", headers={"accept-encoding": "gzip"})
    assert answer.status_code == 200
    assert "content-encoding" not in answer.headers
