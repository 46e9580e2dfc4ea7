"""Search over HTTP and GraphQL: thin layers over `brain.search.service`.

    GET /api/memory/search?q=&agent=&scope=&type=&limit=&mode=
    query { search(query: "...", agent: "...", first: 10, after: "...") { edges { node { ... } } } }

Token rules are the memory API's: an agent's token is that agent (asking as another agent
is refused, 403 / FORBIDDEN); an admin token or an open server may search as any agent, or
as nobody in particular, which reaches every scope. Ranked lists page by position: a cursor
is the rank of the last result seen.
"""

from __future__ import annotations

import enum
from typing import Any

import strawberry
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from brain import model
from brain.api.graph.nodes import Memory
from brain.api.graph.paging.cursors import PageInfo, decode_cursor, encode_cursor
from brain.api.graphql.context import Info
from brain.api.graphql.enums import MemoryType
from brain.api.graphql.errors import Forbidden, UserError
from brain.api.graphql.fields import field
from brain.api.graphql.loaders import in_thread
from brain.api.http.auth import actor_of
from brain.search.service import MAX_LIMIT, Mode, SearchAnswer, SearchError, SearchHit, hit_json
from brain.tool.access import Actor


class NotYours(Exception):
    """An agent's credentials asked to search as another agent."""


def searching_as(actor: Actor, agent: str | None) -> str | None:
    """The agent a search runs as, under the memory API's token rules."""
    if actor.kind == "agent":
        if agent is not None and agent != actor.agent:
            raise NotYours(
                f"these credentials belong to agent `{actor.agent}`: search as it (leave `agent` out)"
            )
        return actor.agent
    return agent or None


# ---------------------------------------------------------------------- REST


async def search_endpoint(request: Request) -> Response:
    params = request.query_params
    try:
        agent = searching_as(actor_of(getattr(request.state, "principal", None), "rest"), params.get("agent"))
        limit = _int(params.get("limit"), "limit", 10)
        offset = _int(params.get("offset"), "offset", 0)
        mode = Mode(params.get("mode", Mode.HYBRID.value))
    except NotYours as exc:
        return _error(403, "forbidden", str(exc))
    except (SearchError, ValueError) as exc:
        return _error(400, "bad-request", str(exc))
    brain = request.app.state.services.brain
    try:
        answer: SearchAnswer = await in_thread(
            brain.search.search, params.get("q", ""), agent=agent, scope=params.get("scope") or None,
            type=params.get("type") or None, limit=limit, offset=offset, mode=mode,
        )
    except SearchError as exc:
        return _error(400, "bad-request", str(exc))
    body: dict[str, Any] = {
        "results": [hit_json(h) for h in answer.hits],
        "hasMore": answer.has_more,
        "mode": answer.mode.value,
        "semantic": {"state": answer.semantic.state, "done": answer.semantic.done,
                     "pending": answer.semantic.pending},
    }
    if answer.notice:
        body["notice"] = answer.notice
    return JSONResponse(body)


def _int(raw: str | None, name: str, default: int) -> int:
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise SearchError(f"`{name}` must be a whole number, not {raw!r}") from None


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


# ---------------------------------------------------------------------- GraphQL

@strawberry.enum(description="Which rankers run: both fused (default), keyword (BM25) or semantic only.")
class SearchMode(enum.Enum):
    HYBRID = "hybrid"
    KEYWORD = "keyword"
    SEMANTIC = "semantic"


@strawberry.type(description="One memory found by a search.")
class SearchResult:
    id: strawberry.ID
    path: str = strawberry.field(description="Relative to the workspace root.")
    scope: str
    name: str
    score: float = strawberry.field(description="Fused (RRF), BM25 or cosine score: higher is better.")
    snippet: str = strawberry.field(description="Text around the matched words, each marked `**word**`.")
    matched: list[str] = strawberry.field(description="The rankers that found it: keyword, semantic.")
    terms: list[str] = strawberry.field(description="The query words the memory contains.")

    @field(description="The memory itself.")
    async def memory(self, info: Info) -> Memory | None:
        node = await info.context.loaders.nodes.load(str(self.id))
        return Memory.of(node) if isinstance(node, model.MemoryNode) else None

    @classmethod
    def of(cls, hit: SearchHit) -> SearchResult:
        return cls(
            id=strawberry.ID(hit.id), path=hit.path, scope=hit.scope, name=hit.name, score=hit.score,
            snippet=hit.snippet, matched=list(hit.matched), terms=list(hit.terms),
        )


@strawberry.type
class SearchEdge:
    cursor: str
    node: SearchResult


@strawberry.type
class SearchConnection:
    edges: list[SearchEdge]
    page_info: PageInfo
    mode: SearchMode = strawberry.field(description="What ran: keyword only until embeddings are ready.")
    notice: str | None = strawberry.field(description="Why the answer is keyword only, when it is.")
    semantic_ready: bool

    @strawberry.field
    def nodes(self) -> list[SearchResult]:
        return [edge.node for edge in self.edges]


@strawberry.type
class SearchQuery:
    @field(description=(
        "Memories by words and by meaning, best first. An agent's token searches as that agent "
        "(its notes and shared ones); an admin may pass `agent`, or leave it out to search all."
    ))
    async def search(
        self,
        info: Info,
        query: str,
        agent: str | None = None,
        scope: str | None = None,
        type: MemoryType | None = None,
        first: int = 10,
        after: str | None = None,
        mode: SearchMode = SearchMode.HYBRID,
    ) -> SearchConnection:
        try:
            as_agent = searching_as(actor_of(info.context.principal, "graphql"), agent)
        except NotYours as exc:
            raise Forbidden(str(exc)) from None
        offset = 0
        if after:
            position = decode_cursor("search", after)
            offset = int(position) + 1 if position.isdigit() else 0
        if not 1 <= first <= MAX_LIMIT:
            raise UserError(f"first must be between 1 and {MAX_LIMIT}, not {first}")
        try:
            answer = await in_thread(
                info.context.brain.search.search, query, agent=as_agent, scope=scope,
                type=type.value if type else None, limit=first, offset=offset, mode=Mode(mode.value),
            )
        except SearchError as exc:
            raise UserError(str(exc)) from None
        edges = [
            SearchEdge(cursor=encode_cursor("search", str(offset + i)), node=SearchResult.of(hit))
            for i, hit in enumerate(answer.hits)
        ]
        return SearchConnection(
            edges=edges,
            page_info=PageInfo(has_next_page=answer.has_more, end_cursor=edges[-1].cursor if edges else None),
            mode=SearchMode(answer.mode.value),
            notice=answer.notice,
            semantic_ready=answer.semantic.ready,
        )
