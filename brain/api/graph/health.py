"""`memoryHealth`: what a dashboard shows of the notes' health, in one query (brain/store/health.py).

Open to agents' tokens: the answer is the graph as the caller sees it (its own notes and the
shared ones; brain/store/visibility.py), so no count betrays another agent's private notes.
Each part is its own resolver, so a dashboard pays only for what it selects; the lists are
Relay connections paged by a cursor that names the last note seen.
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from typing import Annotated

import strawberry

from brain import model
from brain.api.graph.asof.counted import counted_health
from brain.api.graph.asof.moments import AS_OF, moment_at
from brain.api.graph.nodes import Node, Unresolved, graph_node
from brain.api.graph.paging.cursors import PageInfo, decode_cursor, encode_cursor, quoted
from brain.api.graphql.context import Info
from brain.api.graphql.errors import UserError
from brain.api.graphql.fields import field
from brain.api.graphql.loaders import in_thread
from brain.api.graphql.view import reach_of
from brain.parse import safejson
from brain.service import health as service
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.store.health import HealthAsk, HealthList, PageKey, ScopeHealth, total_of


@strawberry.type(name="ScopeHealth", description="A scope's notes and links, as the caller sees them.")
class ScopeHealthCounts:
    scope: str | None = strawberry.field(description="The scope; null for the total of every scope in view.")
    notes: int
    links: int = strawberry.field(description="Wikilinks written in the scope's notes.")
    broken: int
    ambiguous: int
    missing_anchor: int
    orphans: int = strawberry.field(description="Notes with no link in or out.")
    stale: int = strawberry.field(description="Notes not changed for `staleDays` that nothing links to.")
    without_description: int = strawberry.field(
        description="Notes with an empty description (none written, and no text to take one from)."
    )
    without_type: int

    @classmethod
    def of(cls, row: ScopeHealth) -> ScopeHealthCounts:
        return cls(
            scope=row.scope or None, notes=row.notes, links=row.links, broken=row.broken,
            ambiguous=row.ambiguous, missing_anchor=row.missing_anchor, orphans=row.orphans,
            stale=row.stale, without_description=row.without_description, without_type=row.without_type,
        )


@strawberry.type(description="A note many links point to.")
class HubNote:
    node: Node
    links: int = strawberry.field(description="Links into it (from notes the caller sees).")


@strawberry.type(description="A note that does not exist yet, and how many notes link to it.")
class WantedNote:
    target: Unresolved
    notes: int = strawberry.field(description="Notes with a broken link to it.")


@strawberry.type
class HealthNoteEdge:
    cursor: str
    node: Node


@strawberry.type
class HealthNoteConnection:
    edges: list[HealthNoteEdge]
    page_info: PageInfo
    total_count: int = strawberry.field(description="The whole list's length.")

    @field(description="The page's notes, without cursors.")
    def nodes(self) -> list[Node]:
        return [edge.node for edge in self.edges]


def _cursor(which: HealthList, key: PageKey) -> str:
    return encode_cursor(f"health-{which.value}", json.dumps([key[0], key[1]]))


def _after(which: HealthList, cursor: str | None) -> PageKey | None:
    if not cursor:
        return None
    text = decode_cursor(f"health-{which.value}", cursor)
    try:
        at, node_id = safejson.loads(text, max_depth=2)
        if not isinstance(node_id, str):
            raise TypeError(node_id)
        return (float(at), node_id)
    except (ValueError, TypeError) as exc:
        raise UserError(
            f"`after: {quoted(cursor)}` is not a cursor of this list: pass the `endCursor` of the "
            "previous page"
        ) from exc


async def _nodes(info: Info, ids: list[str], moment: Brain | None = None) -> dict[str, Node]:
    found = await info.context.loaders_of(moment).nodes.load_many(ids)
    return {i: graph_node(n, moment) for i, n in zip(ids, found, strict=True) if n is not None}


@strawberry.type(description="The notes' health as the caller sees them: counts, top lists and pages.")
class MemoryHealth:
    scope: str | None = strawberry.field(description="The scope asked for; null: every scope in view.")
    stale_days: int
    ask: strawberry.Private[HealthAsk]
    # The counts, asked once per query: the lists' totalCount come from them, resolved side by side.
    counted: strawberry.Private[list[asyncio.Task[list[ScopeHealth]]]]
    moment: strawberry.Private[Brain | None] = None  # the graph of an `asOf:` query

    def _store(self, info: Info) -> GraphStore:
        return (info.context.brain if self.moment is None else self.moment).store

    async def _counts(self, info: Info) -> list[ScopeHealth]:
        if not self.counted:
            health = service.reader(self._store(info))
            self.counted.append(asyncio.ensure_future(in_thread(health.health_counts, self.ask)))
        return await self.counted[0]

    @field(description="Every scope in view, added up.")
    async def total(self, info: Info) -> ScopeHealthCounts:
        return ScopeHealthCounts.of(total_of(await self._counts(info)))

    @field(description="One entry per scope in view that holds a note, by scope.")
    async def scopes(self, info: Info) -> list[ScopeHealthCounts]:
        return [ScopeHealthCounts.of(row) for row in await self._counts(info)]

    @field(description="The `first` notes most links point to, most first.")
    async def hubs(self, info: Info, first: int = 10) -> list[HubNote]:
        found = await in_thread(service.reader(self._store(info)).health_hubs, self.ask, first)
        nodes = await _nodes(info, [i for i, _ in found], self.moment)
        return [HubNote(node=nodes[i], links=n) for i, n in found if i in nodes]

    @field(description="The `first` missing notes most notes link to, most first.")
    async def most_wanted(self, info: Info, first: int = 10) -> list[WantedNote]:
        found = await in_thread(service.reader(self._store(info)).health_wanted, self.ask, first)
        prefix = model.Kind.UNRESOLVED.value + ":"
        return [
            WantedNote(target=Unresolved.of(model.UnresolvedNode(i.removeprefix(prefix))), notes=n)
            for i, n in found
        ]

    async def _page(
        self, info: Info, which: HealthList, first: int, after: str | None
    ) -> HealthNoteConnection:
        key = _after(which, after)
        total = total_of(await self._counts(info))
        page = await in_thread(service.page_of, self._store(info), self.ask, which, key, first, total)
        nodes = await _nodes(info, [k[1] for k in page.keys], self.moment)
        edges = [
            HealthNoteEdge(cursor=_cursor(which, k), node=nodes[k[1]]) for k in page.keys if k[1] in nodes
        ]
        end = _cursor(which, page.keys[-1]) if page.keys else None
        return HealthNoteConnection(
            edges=edges, page_info=PageInfo(has_next_page=page.has_next, end_cursor=end),
            total_count=page.count,
        )

    @field(description="Notes with no link in or out, by id.")
    async def orphans(self, info: Info, first: int = 20, after: str | None = None) -> HealthNoteConnection:
        return await self._page(info, HealthList.ORPHANS, first, after)

    @field(description="Notes not changed for `staleDays` that nothing links to, oldest first.")
    async def stale(self, info: Info, first: int = 20, after: str | None = None) -> HealthNoteConnection:
        return await self._page(info, HealthList.STALE, first, after)

    @field(description="Notes with an empty description, by id.")
    async def without_description(
        self, info: Info, first: int = 20, after: str | None = None
    ) -> HealthNoteConnection:
        return await self._page(info, HealthList.WITHOUT_DESCRIPTION, first, after)

    @field(description="Notes without a type, by id.")
    async def without_type(
        self, info: Info, first: int = 20, after: str | None = None
    ) -> HealthNoteConnection:
        return await self._page(info, HealthList.WITHOUT_TYPE, first, after)


@strawberry.type
class HealthQuery:
    @field(
        description=(
            "Memory health for dashboards: per scope and overall, notes, links by status, orphans, "
            "stale notes, notes without description or type; the hubs and the most wanted missing "
            "notes. An agent's token sees its own notes and the shared ones."
        )
    )
    async def memory_health(
        self, info: Info, scope: str | None = None, stale_days: int = 30,
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
    ) -> MemoryHealth:
        reach = reach_of(info.context.principal)
        try:
            ask = service.health_ask(reach, scope, stale_days)
        except service.HealthRefused as exc:
            raise UserError(str(exc)) from exc
        rows = await counted_health(info, ask, as_of)
        if rows is not None:  # the totals then, kept (no moment built: api/graph/counted.py)
            return MemoryHealth(scope=ask.scope, stale_days=stale_days, ask=ask,
                                counted=[asyncio.ensure_future(_ready(rows))])
        moment = await moment_at(info, as_of)
        if moment is not None:  # stale as of the moment: not changed for `staleDays` before it
            ask = service.health_ask(reach, scope, stale_days, float(getattr(moment, "at", 0.0)) or None)
        return MemoryHealth(scope=ask.scope, stale_days=stale_days, ask=ask, counted=[], moment=moment)


async def _ready(rows: list[ScopeHealth]) -> list[ScopeHealth]:
    return rows
