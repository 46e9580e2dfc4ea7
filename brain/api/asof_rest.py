"""REST's `?asOf=`: `GET /api/memory/{scope}/{file}?asOf=TIME`, the note as it was then, and
`GET /api/memory/{scope}?asOf=TIME`, the scope's notes then.

The JSON of the note's GET (scope, file, name, path, content, hash, size, type,
description), as the history says it was at TIME (ISO 8601 or an age: 7d, 24h), with
`asOf` and the note's `links` (their statuses then) and `problems`; `Accept: text/markdown`
gives its text then. The caller is authorized for the scope exactly as for today's note,
and reads it through the one service function every front end uses
(brain/tool/asof/service.py). Not a conditional request: a moment's note has no ETag to match.
A scope's listing then pages as today's does (`first`, `after` a file name).
"""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from brain.api.graphql.loaders import in_thread
from brain.store.base import MemoryFilter
from brain.tool.access import Actor
from brain.tool.asof.service import graph_at, note_as_of
from brain.tool.diff.changes import _iso
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


async def scope_as_of_response(
    request: Request, service: MemoryService, actor: Actor, scope: str, addr: Addressing, url: str,
    first: int, after: str | None,
) -> Response:
    """The files of `scope` as they were at `asOf`: name, path, type, description, size, when
    each last changed then; `next` pages on as today's listing does."""
    service.authorize(actor, scope, addr, write=False)
    moment = await in_thread(graph_at, service, request.query_params["asOf"])
    notes = await in_thread(moment.store.list_memories, MemoryFilter(scope=scope), None, None, bodies=False)
    mine = sorted((m for m in notes if m.path == f"memory/{scope}/{m.name}{MD}" and actor.reach.sees(m.id)),
                  key=lambda m: m.name)
    listed = [m for m in mine if after is None or m.name + MD > after]
    page = listed[:first]
    more = len(listed) > len(page) and page
    return JSONResponse({
        "scope": scope,
        "asOf": _iso(moment.at),
        "url": url,
        "fileCount": len(mine),
        "files": [{"file": m.name + MD, "name": m.name, "path": m.path, "url": addr.path(scope, m.name + MD),
                   "type": m.type, "description": m.description, "size": m.size,
                   "modifiedAt": _iso(m.modified_at)} for m in page],
        "next": (f"{url}?asOf={quote(request.query_params['asOf'])}&after={quote(page[-1].name + MD)}"
                 f"&first={first}" if more else None),
    })
