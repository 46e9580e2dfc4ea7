"""The memory tree over HTTP (seeds/000, "Reaching it from outside the UI").

    GET    /api/memory                  every scope (shared first) and its files
    GET    /api/memory/<scope>          one scope
    GET    /api/memory/<scope>/<file>   one note (JSON, or the markdown with Accept: text/markdown)
    PUT    /api/memory/<scope>/<file>   write a note: JSON {"content", "expectedHash"?} or a
                                        text/markdown body; If-Match / If-None-Match: * work too
    DELETE /api/memory/<scope>/<file>   remove a note
    GET    /api/memory-history          the write history, newest first (?agent ?scope ?path
                                        ?limit ?before)
    GET    /api/memory/search           search (?q ?agent ?scope ?type ?limit ?offset ?mode):
                                        brain/api/search.py

Thin handlers over `MemoryService`: the same checks, refusals and history as the agent's
tool, with paths and suggested calls in URL form. Errors are JSON
`{"error": {"code", "message", "suggestion", "text"}}` with the refusal's status (400, 403,
404, 409, 412, 413, 415, 422). The caller's principal decides what exists: an agent's token
reaches its own scope and shared; another agent's scope answers 404 like one that is not there.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any
from urllib.parse import quote

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from brain.api.graphql.loaders import in_thread
from brain.api.http.auth import Principal, actor_of
from brain.api.http.jsonbody import decode_json
from brain.api.http.preconditions import Precondition, read_preconditions
from brain.api.search import search_endpoint
from brain.ingest.memory_files import content_hash
from brain.model import SHARED_SCOPE
from brain.tool import memory_service
from brain.tool.access import Actor, visible_history
from brain.tool.calls.refusal import Call, Refusal, RefusalCode, shown
from brain.tool.catalog import NoteInfo, summarize
from brain.tool.files.names import MD, NameProblem, check_agent_name, check_filename, fold, nearest_filename
from brain.tool.history.log import DEFAULT_LIMIT
from brain.tool.prompt import human_age
from brain.tool.service import MemoryService, ScopeInfo

BASE = "/api/memory"
HISTORY = "/api/memory-history"
MARKDOWN = "text/markdown; charset=utf-8"


class HttpAddressing:
    """Notes as URLs, and the calls that read or list them as HTTP requests."""

    def path(self, scope: str, name: str) -> str:
        return f"{BASE}/{quote(scope)}/{quote(name)}"

    def listing(self, scope: str) -> Call:
        return Call("GET", {"path": f"{BASE}/{quote(scope)}"}, style="http")

    def reading(self, scope: str, name: str) -> Call:
        return Call("GET", {"path": self.path(scope, name)}, style="http")


ADDR = HttpAddressing()
# Files of one scope in one listing: the page bound of every list (brain/api/graphql/limits/extensions.py).
FILES_PAGE = 100


def routes() -> list[BaseRoute]:
    return [
        Route(BASE, list_scopes, methods=["GET"]),
        Route(HISTORY, history, methods=["GET"]),
        Route(BASE + "/search", search_endpoint, methods=["GET"]),  # before /{scope}: see brain/api/search.py
        Route(BASE + "/{scope}", list_scope, methods=["GET"]),
        Route(BASE + "/{scope}/{file:path}", note, methods=["GET", "PUT", "DELETE"]),
    ]


# ---------------------------------------------------------------------- handlers


async def list_scopes(request: Request) -> Response:
    service, actor = _service(request), _actor(request)
    try:
        first, _ = _page(request)
    except Refusal as refusal:
        return refusal_response(refusal)
    scopes = await in_thread(service.scopes, actor)
    now = service.clock()
    return JSONResponse({"scopes": [_scope_json(s, now, first) for s in scopes]})


async def list_scope(request: Request) -> Response:
    service, actor = _service(request), _actor(request)
    try:
        first, after = _page(request)
        scope = _scope(request.path_params["scope"])
        if "asOf" in request.query_params:  # the scope as it was then (brain/api/asof_rest.py)
            from brain.api.asof_rest import scope_as_of_response

            url = f"{BASE}/{quote(scope)}"
            return await scope_as_of_response(request, service, actor, scope, ADDR, url, first, after)
        found = [s for s in await in_thread(service.scopes, actor) if s.scope == scope]
        if not found:
            raise Refusal(
                RefusalCode.NOT_FOUND, f"there is no memory scope `{shown(scope)}`",
                Call("GET", {"path": BASE}, style="http"),
            )
    except Refusal as refusal:
        return refusal_response(refusal)
    return JSONResponse(_scope_json(found[0], service.clock(), first, after))


async def note(request: Request) -> Response:
    service, actor = _service(request), _actor(request)
    try:
        scope, name = _scope(request.path_params["scope"]), request.path_params["file"]
        name = _file(scope, name, request.method)
        if request.method == "GET":
            return await _get(request, service, actor, scope, name)
        if request.method == "PUT":
            return await _put(request, service, actor, scope, name)
        return await _delete(request, service, actor, scope, name)
    except Refusal as refusal:
        return refusal_response(refusal)


async def history(request: Request) -> Response:
    service, actor = _service(request), _actor(request)
    params = request.query_params
    try:
        limit = int(params.get("limit", DEFAULT_LIMIT))
        before = int(params["before"]) if "before" in params else None
    except ValueError:
        return refusal_response(Refusal(
            RefusalCode.INVALID_ARGUMENT, "`limit` and `before` are whole numbers",
            Call("GET", {"path": f"{HISTORY}?limit={DEFAULT_LIMIT}"}, style="http"),
        ))
    records = await in_thread(
        visible_history, service.history, actor, params.get("agent"), params.get("scope"),
        params.get("path"), before, limit,
    )
    more = len(records) > limit
    records = records[:limit]
    return JSONResponse({
        "records": [r.to_json() for r in records],
        "nextBefore": records[-1].id if more and records else None,
    })


# ---------------------------------------------------------------------- one note


async def _get(request: Request, service: MemoryService, actor: Actor, scope: str, name: str) -> Response:
    url = ADDR.path(scope, name)
    if "asOf" in request.query_params:  # the note as it was then (brain/api/asof_rest.py)
        from brain.api.asof_rest import note_as_of_response

        markdown = _wants_markdown(request)
        return await note_as_of_response(request, service, actor, scope, name, ADDR, url, markdown)
    call = Call("GET", {"path": url}, style="http")
    found = await in_thread(service.read, actor, scope, name, call=call, addr=ADDR)
    digest = content_hash(found.data)
    headers = {"ETag": f'"{digest}"'}
    if _wants_markdown(request):
        return Response(found.data, media_type=MARKDOWN, headers=headers)
    description, kind = summarize(found.data, f"memory/{scope}/{name}")
    return JSONResponse({
        "scope": scope,
        "file": name,
        "name": name[: -len(MD)],
        "path": f"memory/{scope}/{name}",
        "url": url,
        "content": found.data.decode("utf-8", errors="replace"),
        "hash": digest,
        "size": found.size,
        "modifiedAt": _iso(found.mtime_ns / 1e9),
        "type": kind,
        "description": description,
    }, headers=headers)


async def _put(request: Request, service: MemoryService, actor: Actor, scope: str, name: str) -> Response:
    url = ADDR.path(scope, name)
    pre = read_preconditions(request.headers)
    content, hashed = await _body(request, service, url)
    call = Call("PUT", {"path": url, "content": content}, style="http")
    current = await _current_hash(service, actor, scope, name) if len(pre.tags) > 1 else None
    expected = pre.expected(current) if pre.present else hashed

    def produce(_old: str | None) -> str:
        return content

    try:
        outcome = await in_thread(
            service.write, actor, scope, name, produce, command="put", call=call, addr=ADDR,
            expected=expected, create=not pre.must_exist, content_arg="content",
        )
    except Refusal as refusal:
        return refusal_response(refusal, status=_precondition_status(refusal, pre))
    body = {
        "scope": scope, "file": name, "path": outcome.rel, "url": url, "hash": outcome.after,
        "previousHash": outcome.before, "created": outcome.created, "changed": outcome.changed,
    }
    return JSONResponse(body, status_code=201 if outcome.created else 200,
                        headers={"ETag": f'"{outcome.after}"'})


async def _delete(request: Request, service: MemoryService, actor: Actor, scope: str, name: str) -> Response:
    url = ADDR.path(scope, name)
    pre = read_preconditions(request.headers)
    current = await _current_hash(service, actor, scope, name) if len(pre.tags) > 1 else None
    expected = pre.expected(current) if pre.present else request.query_params.get("expectedHash")
    call = Call("DELETE", {"path": url}, style="http")
    try:
        outcome = await in_thread(service.delete, actor, scope, name, call=call, addr=ADDR, expected=expected)
    except Refusal as refusal:
        return refusal_response(refusal, status=_precondition_status(refusal, pre))
    return JSONResponse({"deleted": True, "path": outcome.rel, "url": url, "previousHash": outcome.before})


def _precondition_status(refusal: Refusal, pre: Precondition) -> int | None:
    """A conflict found by a header's condition is 412 (409 for `expectedHash` in the body);
    `If-Match: *` on a note that does not exist is 412 too."""
    if pre.present and refusal.code is RefusalCode.CONFLICT:
        return 412
    if pre.must_exist and refusal.code is RefusalCode.NOT_FOUND:
        return 412
    return None


async def _current_hash(service: MemoryService, actor: Actor, scope: str, name: str) -> str | None:
    """The note's hash now, to pick the matching tag of a list (the service re-checks it)."""
    call = Call("GET", {"path": ADDR.path(scope, name)}, style="http")
    try:
        found = await in_thread(service.read, actor, scope, name, call=call, addr=ADDR)
    except Refusal:
        return None
    return content_hash(found.data)


async def _body(request: Request, service: MemoryService, url: str) -> tuple[str, str | None]:
    """(content, the `expectedHash` of a JSON body)."""
    limit = service.max_file_bytes
    raw = await _read_capped(request, limit * 6 + 4096, url, limit)
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    example = Call("PUT", {"path": url, "content": "---\ndescription: …\ntype: project\n---\n…"}, "http")
    if media == "application/json" or (not media and raw.lstrip().startswith(b"{")):
        try:
            data = decode_json(raw)
        except ValueError as exc:
            message = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise Refusal(RefusalCode.INVALID_ARGUMENT, message, example) from None
        if not isinstance(data, dict) or not isinstance(data.get("content"), str):
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT,
                'a JSON body must be an object with "content" (a string) and optionally "expectedHash"',
                example,
            )
        hashed = data.get("expectedHash")
        if hashed is not None and not isinstance(hashed, str):
            raise Refusal(RefusalCode.INVALID_ARGUMENT, '"expectedHash" must be a string', example)
        return data["content"], hashed
    if media in ("text/markdown", "text/plain", "text/x-markdown", ""):
        if len(raw) > limit:
            raise _too_large(url, len(raw), limit)
        try:
            return raw.decode("utf-8"), None
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            raise Refusal(
                RefusalCode.NOT_TEXT, f"the body is not valid UTF-8 (line {line}): memories are text",
                None,
            ) from None
    raise Refusal(
        RefusalCode.INVALID_ARGUMENT,
        f"cannot store a body of type `{media}`: send application/json or text/markdown",
        example, status=415,
    )


async def _read_capped(request: Request, cap: int, url: str, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        raise _too_large(url, int(declared), limit)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > cap:
                raise _too_large(url, size, limit)
            chunks.append(chunk)
    except ClientDisconnect:
        raise Refusal(RefusalCode.INVALID_ARGUMENT, "the client went away mid-body", None) from None
    return b"".join(chunks)


def _too_large(url: str, size: int, limit: int) -> Refusal:
    return Refusal(
        RefusalCode.TOO_LARGE,
        f"the body of PUT {url} is at least {size:,} bytes; one memory file holds at most {limit:,} "
        "bytes. Keep one topic per file: split it into several notes",
        None,
    )


# ---------------------------------------------------------------------- shapes and checks


def refusal_response(refusal: Refusal, status: int | None = None) -> JSONResponse:
    return JSONResponse({"error": refusal.to_json()}, status_code=status or refusal.status)


def _scope(raw: str) -> str:
    if raw == SHARED_SCOPE:
        return raw
    try:
        return check_agent_name(raw)
    except NameProblem as problem:
        raise Refusal(
            RefusalCode.NOT_FOUND if problem.code is RefusalCode.NO_AGENT else problem.code,
            f"`{shown(raw)}` is not a memory scope: {problem.reason}",
            Call("GET", {"path": BASE}, style="http"),
        ) from None


def _file(scope: str, raw: str, method: str) -> str:
    parts = raw.split("/")
    if len(parts) > 1:
        flat = nearest_filename("-".join(p.removesuffix(MD) for p in parts if p not in ("", ".", "..")))
        raise Refusal(
            RefusalCode.NESTED_DIRECTORY if ".." not in parts else RefusalCode.INVALID_PATH,
            f"`{shown(raw)}` is not a file name: memories live directly in {BASE}/{scope}/, "
            "with no other directories",
            Call(method, {"path": ADDR.path(scope, flat)}, style="http") if flat else ADDR.listing(scope),
        )
    try:
        return check_filename(raw)
    except NameProblem as problem:
        fixed = ADDR.path(scope, problem.fixed) if problem.fixed else None
        raise Refusal(
            problem.code, problem.reason,
            Call(method, {"path": fixed}, style="http") if fixed else ADDR.listing(scope),
        ) from None


def _page(request: Request) -> tuple[int, str | None]:
    """`?first=` (0..100, default 100) and `?after=` (the last file name seen) of a listing."""
    raw = request.query_params.get("first")
    if raw is None:
        return FILES_PAGE, request.query_params.get("after")
    if not (raw.isascii() and raw.isdigit()) or int(raw) > FILES_PAGE:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            f"`first={shown(raw)}` is not a number from 0 to {FILES_PAGE}: a listing answers at most "
            f"{FILES_PAGE} files; follow its `next` URL for the rest",
            Call("GET", {"path": BASE}, style="http"),
        )
    return int(raw), request.query_params.get("after")


def _scope_json(
    info: ScopeInfo, now: float, first: int = FILES_PAGE, after: str | None = None
) -> dict[str, Any]:
    """A scope and one page of its files: `next` is the URL of the page after, or null."""
    agent = info.agent
    notes = info.notes
    if after is not None:  # a name, not an offset: the boundary stays put as notes come and go
        notes = [n for n in notes if (fold(n.name), n.name) > (fold(after), after)]
    page = notes[:first]
    more = len(notes) > len(page) and page
    return {
        "scope": info.scope,
        "kind": "shared" if agent is None else "agent",
        "url": f"{BASE}/{quote(info.scope)}",
        "memoryOff": info.memory_off,
        "defined": agent.defined if agent is not None else None,
        "description": agent.description if agent is not None else "",
        "fileCount": len(info.notes),
        "files": [_file_json(n, now) for n in page],
        "next": f"{BASE}/{quote(info.scope)}?after={quote(page[-1].name)}&first={first}" if more else None,
    }


def _file_json(note_info: NoteInfo, now: float) -> dict[str, Any]:
    return {
        "file": note_info.name,
        "name": note_info.name[: -len(MD)],
        "path": note_info.rel,
        "url": ADDR.path(note_info.scope, note_info.name),
        "type": note_info.type,
        "description": note_info.description,
        "size": note_info.size,
        "modifiedAt": _iso(note_info.modified_at),
        "age": human_age(now - note_info.modified_at),
    }


def _wants_markdown(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return "text/markdown" in accept and "application/json" not in accept


def _iso(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat().replace("+00:00", "Z")


def _service(request: Request) -> MemoryService:
    return memory_service(request.app.state.services.brain)


def _actor(request: Request) -> Actor:
    principal: Principal | None = getattr(request.state, "principal", None)
    return actor_of(principal, "rest", request)  # the web UI's mark: origin `ui`
