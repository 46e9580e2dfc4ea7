"""The verbs of the space and mindlink layouts over HTTP (brain.tool.layouts.verbs), one agent's tree each.

    GET    /api/space/<agent>[/<path>]        read: a text file, a binary file's metadata, or a
                                              folder's listing with sizes
    PUT    /api/space/<agent>/<path>          write the whole file, parent folders made: a JSON
                                              body {"content" | "contentBase64", "expectedHash"?},
                                              or the raw bytes under any other content type
    DELETE /api/space/<agent>/<path>          delete a file, or a folder recursively
    GET    /api/mindlink/<agent>[/<path>]     memory_get (no path: the listing)
    PUT    /api/mindlink/<agent>/<path>       memory_write: JSON {"content", "expectedHash"?} or text
    DELETE /api/mindlink/<agent>/<path>       memory_delete
    GET    /api/mindlink/<agent>/search?query=…&limit=…   memory_search

Thin handlers over the same `call` as MCP and the CLI: the same checks, refusals and history,
with each suggested call turned into its HTTP request. Token rules are the memory API's
(brain/api/rest.py): an agent's token reaches only its own tree, and another agent's answers
404 like one that is not there. `If-Match: "<hash>"` and `If-None-Match: *` work as
`expectedHash` does. A workspace of another layout answers 404 saying which API it has.
"""

from __future__ import annotations

import base64
import json
from typing import Any
from urllib.parse import quote

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from brain.api.graphql.loaders import in_thread
from brain.api.http.auth import Principal, actor_of
from brain.api.http.jsonbody import decode_json
from brain.api.rest import refusal_response
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.layouts.verbs import LayoutVerbs, layout_verbs, workspace_layout

SPACE = "/api/space"
MINDLINK = "/api/mindlink"
_HTTP = {"read": "GET", "memory_get": "GET", "write": "PUT", "memory_write": "PUT",
         "delete": "DELETE", "memory_delete": "DELETE"}


def routes() -> list[BaseRoute]:
    return [
        Route(MINDLINK + "/{agent}/search", mindlink_search, methods=["GET"]),
        Route(SPACE + "/{agent}", space, methods=["GET"]),
        Route(SPACE + "/{agent}/{path:path}", space, methods=["GET", "PUT", "DELETE"]),
        Route(MINDLINK + "/{agent}", mindlink, methods=["GET"]),
        Route(MINDLINK + "/{agent}/{path:path}", mindlink, methods=["GET", "PUT", "DELETE"]),
    ]


async def space(request: Request) -> Response:
    return await _file_request(request, "space", ("read", "write", "delete"))


async def mindlink(request: Request) -> Response:
    return await _file_request(request, "mindlink", ("memory_get", "memory_write", "memory_delete"))


async def mindlink_search(request: Request) -> Response:
    agent = request.path_params["agent"]
    try:
        verbs = await _verbs(request, "mindlink")
        params = request.query_params
        limit_text = params.get("limit", "10")
        limit: object = int(limit_text) if limit_text.isdigit() else limit_text
        args = {"query": params.get("query", params.get("q")), "limit": limit}
        answer = await in_thread(verbs.call, _actor(request), agent, "memory_search", args)
    except Refusal as refusal:
        return refusal_response(_in_http(refusal, "mindlink", agent))
    return JSONResponse(answer)


async def _file_request(request: Request, layout: str, names: tuple[str, str, str]) -> Response:
    agent, path = request.path_params["agent"], request.path_params.get("path", "")
    read, write, delete = names
    try:
        verbs = await _verbs(request, layout)
        actor = _actor(request)
        if request.method == "GET":
            answer = await in_thread(verbs.call, actor, agent, read, {"path": path})
            headers = {"ETag": f'"{answer["hash"]}"'} if answer.get("hash") else None
            return JSONResponse(answer, headers=headers)
        expected = _expected(request)
        if request.method == "DELETE":
            args: dict[str, Any] = {"path": path}
            if expected is not None:
                args["expectedHash"] = expected
            answer = await in_thread(verbs.call, actor, agent, delete, args)
            return JSONResponse(answer)
        args = {"path": path, **await _body(request, layout)}
        if expected is not None:
            args["expectedHash"] = expected
        answer = await in_thread(verbs.call, actor, agent, write, args)
        return JSONResponse(answer, status_code=201 if answer.get("created") else 200,
                            headers={"ETag": f'"{answer["hash"]}"'})
    except Refusal as refusal:
        return refusal_response(_in_http(refusal, layout, agent))


async def _verbs(request: Request, layout: str) -> LayoutVerbs:
    brain = request.app.state.services.brain
    verbs = await in_thread(layout_verbs, brain)
    if verbs is None or verbs.layout != layout:
        have = await in_thread(workspace_layout, brain.root)
        other = {"space": SPACE, "mindlink": MINDLINK}.get(have, "/api/memory")
        raise Refusal(
            RefusalCode.NOT_FOUND,
            f"this workspace's layout is `{have}`, not `{layout}`: its memory API is {other}",
            Call("GET", {"path": other if other == "/api/memory" else other + "/<agent>"}, style="http"),
        )
    return verbs


def _expected(request: Request) -> str | None:
    """`If-Match: "<hash>"` (one tag) or `If-None-Match: *` (must not exist yet)."""
    if request.headers.get("if-none-match", "").strip() == "*":
        return ""
    tag = request.headers.get("if-match", "").strip()
    if tag and tag != "*":
        return tag.removeprefix("W/").strip('"')
    return None


async def _body(request: Request, layout: str) -> dict[str, Any]:
    raw = await _read(request)
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    example = Call("PUT", {"path": request.url.path, "content": "…"}, style="http")
    if media == "application/json" or (not media and raw.lstrip().startswith(b"{")):
        try:
            data = decode_json(raw)
        except ValueError as exc:
            message = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            raise Refusal(RefusalCode.INVALID_ARGUMENT, message, example) from None
        if not isinstance(data, dict):
            raise Refusal(RefusalCode.INVALID_ARGUMENT, 'a JSON body is an object: {"content": "…"}', example)
        allowed = {"content", "expectedHash", *(("contentBase64",) if layout == "space" else ())}
        return {k: v for k, v in data.items() if k in allowed}
    if media.startswith("text/") or not media:
        try:
            return {"content": raw.decode("utf-8")}
        except UnicodeDecodeError:
            if layout != "space":
                raise Refusal(RefusalCode.NOT_TEXT, "the body is not UTF-8 text: memories are text",
                              None) from None
    if layout != "space":
        raise Refusal(RefusalCode.INVALID_ARGUMENT,
                      f"cannot store a body of type `{media}`: send application/json or text/markdown",
                      example, status=415)
    return {"contentBase64": base64.b64encode(raw).decode("ascii")}


async def _read(request: Request) -> bytes:
    chunks: list[bytes] = []
    try:
        async for chunk in request.stream():
            chunks.append(chunk)  # the app's body limit (bodylimit.py) bounds the total
    except ClientDisconnect:
        raise Refusal(RefusalCode.INVALID_ARGUMENT, "the client went away mid-body", None) from None
    return b"".join(chunks)


def _in_http(refusal: Refusal, layout: str, agent: str) -> Refusal:
    """The refusal with its suggested tool call as the HTTP request that does the same."""
    call = refusal.suggestion
    if call is None or call.style == "http":
        return refusal
    base = f"{SPACE if layout == 'space' else MINDLINK}/{quote(agent)}"
    path = call.args.get("path")
    rel = path.removeprefix("~/memory").strip("/") if isinstance(path, str) else ""
    if call.command == "memory_search":
        query = call.args.get("query")
        url = f"{base}/search?query={quote(str(query or ''))}"
        http = Call("GET", {"path": url}, style="http")
    else:
        method = _HTTP.get(call.command, "GET")
        rest = {k: v for k, v in call.args.items() if k != "path"}
        http = Call(method, {"path": f"{base}/{quote(rel)}" if rel else base, **rest}, style="http")
    return Refusal(refusal.code, refusal.message, http, status=refusal.status)


def _actor(request: Request) -> Any:
    principal: Principal | None = getattr(request.state, "principal", None)
    return actor_of(principal, "rest", request)  # the web UI's mark: origin `ui`
