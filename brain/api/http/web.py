"""The web UI's files, and what a browser gets at `/` and `/graphql`.

The UI (web/, TypeScript bundled by esbuild) is built into `brain/api/web_dist/`, package
data that `brain serve` answers as static files: nothing is fetched from elsewhere, so it
works behind a firewall. The pages hold no data (the app asks the GraphQL API with the
user's token), so they are served without a token. A checkout whose UI was never built
gets a page at `/` that says how to build it, not a 404.
"""

from __future__ import annotations

import html
import mimetypes

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from brain.api.http.uisession import mark_ui_session
from brain.api.web_files import web_dist

ASSETS = "/assets"
SCHEMA_PATH = "/schema.graphql"
FAVICON_PATH = "/favicon.ico"
OPEN_PATHS = ("/", SCHEMA_PATH, FAVICON_PATH)
# Three linked nodes: browsers ask for /favicon.ico on every page, the UI's and the API's.
FAVICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><g stroke="#4e79a7" stroke-width="2.5">'
    '<path d="M9 22 16 8l7 14z" fill="none"/></g><g fill="#f28e2b"><circle cx="16" cy="8" r="4.5"/>'
    '<circle cx="9" cy="22" r="4.5"/><circle cx="23" cy="22" r="4.5"/></g></svg>'
)
OPEN_PREFIXES = (ASSETS + "/",)
# Everything the page loads comes from here; the API is same-origin (fetch and WebSocket).
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}

NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>brain: the web UI is not built</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem}
code,pre{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px}</style></head>
<body><main><h1>The web UI is not built</h1>
<p>This brain server has no web UI files in <code>%(dist)s</code>. brain's released wheel has
them inside (<code>make dist</code> builds it). In a checkout of the repository, build them once
(needs Node.js 18 or newer and npm; packages come from the npm registry):</p>
<pre>make web</pre>
<p>(or <code>bash web/build.sh</code>), then reload this page. <code>make serve</code> builds it
for you.</p>
<p>The API works without it: <a href="/graphql">/graphql</a> (GraphQL over POST and WebSocket),
<a href="%(schema)s">the schema</a>, <a href="/healthz">/healthz</a>.</p></main></body></html>
"""

GRAPHQL_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>brain GraphQL API</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:42rem;margin:3rem auto;padding:0 1rem}
code{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px}</style></head>
<body><main><h1>brain GraphQL API</h1>
<p>This is the GraphQL endpoint: send queries as <code>POST %(path)s</code> with a JSON body
<code>{"query": "…"}</code>, subscriptions (<code>graphChanged</code>) over the
<code>graphql-transport-ws</code> WebSocket protocol at the same address.</p>
<ul>
<li><a href="/">Open the web UI</a>: memory review, graph explorer, link integrity.</li>
<li><a href="%(schema)s">The schema</a> (SDL).</li>
<li>An interactive GraphiQL runs with <code>brain serve --dev</code>.</li>
</ul></main></body></html>
"""


def is_open_path(path: str) -> bool:
    """Paths that hold no data, answered without a token (the app's own requests carry one)."""
    return path in OPEN_PATHS or path.startswith(OPEN_PREFIXES)


def wants_html_page(scope_headers_accept: str, query_string: bytes, method: str) -> bool:
    """A browser opening `/graphql` (not a client sending a query by GET)."""
    return method == "GET" and "text/html" in scope_headers_accept and b"query=" not in query_string


async def index(request: Request) -> Response:
    dist = web_dist()
    page = dist / "index.html"
    response: Response
    if not page.is_file():
        body = NOT_BUILT % {"dist": html.escape(str(dist)), "schema": SCHEMA_PATH}
        response = HTMLResponse(body, status_code=503, headers={**HEADERS, "Retry-After": "60"})
    else:
        response = FileResponse(page, media_type="text/html; charset=utf-8",
                                headers={**HEADERS, "Cache-Control": "no-cache"})
    mark_ui_session(response, secure=request.url.scheme == "https")  # its edits: origin `ui`
    return response


async def asset(request: Request) -> Response:
    name = request.path_params["name"]
    root = (web_dist() / "assets").resolve()
    target = (root / name).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        return PlainTextResponse(f"no such UI file: {ASSETS}/{name}", status_code=404)
    media, _ = mimetypes.guess_type(target.name)
    # index.html names app.js and app.css with `?v=<content hash>` and chunks carry their hash
    # in their name, so a new build is a new URL.
    cache = (
        "public, max-age=31536000, immutable"
        if "v" in request.query_params or name.startswith("chunk-") else "no-cache"
    )
    return FileResponse(target, media_type=media or "application/octet-stream",
                        headers={**HEADERS, "Cache-Control": cache})


def graphql_page() -> HTMLResponse:
    return HTMLResponse(GRAPHQL_PAGE % {"path": "/graphql", "schema": SCHEMA_PATH}, headers=HEADERS)


def schema_route(sdl: str) -> Route:
    async def schema(request: Request) -> Response:
        return PlainTextResponse(sdl + "\n", headers={"Cache-Control": "no-cache"})

    return Route(SCHEMA_PATH, schema, methods=["GET"])


async def favicon(request: Request) -> Response:
    return Response(FAVICON, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=86400"})


def routes() -> list[BaseRoute]:
    return [
        Route("/", index, methods=["GET"]),
        Route(FAVICON_PATH, favicon, methods=["GET"]),
        Route(ASSETS + "/{name:path}", asset, methods=["GET"]),
    ]
