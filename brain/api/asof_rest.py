"""REST's `?asOf=`: `GET /api/memory/{scope}/{file}?asOf=TIME`, the note as it was then.

The JSON of the note's GET (scope, file, name, path, content, hash, size, type,
description), as the history says it was at TIME (ISO 8601 or an age: 7d, 24h), with
`asOf` and the note's `links` (their statuses then) and `problems`; `Accept: text/markdown`
gives its text then. The caller is authorized for the scope exactly as for today's note,
and reads it through the one service function every front end uses
(brain/tool/asof/service.py). Not a conditional request: a moment's note has no ETag to match.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from brain.api.graphql.loaders import in_thread
from brain.tool.access import Actor
from brain.tool.asof.service import note_as_of
from brain.tool.files.names import MD
from brain.tool.gate import Addressing
from brain.tool.service import MemoryService

MARKDOWN = "text/markdown; charset=utf-8"


async def note_as_of_response(
    request: Request, service: MemoryService, actor: Actor, scope: str, name: str, addr: Addressing,
    url: str, markdown: bool,
) -> Response:
    service.authorize(actor, scope, addr, write=False)
    rel = f"memory/{scope}/{name}"
    found = await in_thread(note_as_of, service, actor, rel, request.query_params["asOf"])
    if markdown:
        return Response(found["text"].encode("utf-8"), media_type=MARKDOWN)
    return JSONResponse({
        "scope": scope,
        "file": name,
        "name": name[: -len(MD)],
        "path": rel,
        "url": url,
        "asOf": found["at"],
        "content": found["text"],
        "hash": found["hash"],
        "size": len(found["text"].encode("utf-8")),
        "type": found["type"],
        "description": found["description"],
        "links": found["links"],
        "problems": found["problems"],
    })
