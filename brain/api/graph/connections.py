"""Paged lists: memories and problems as Relay connections (forward paging with `first`/`after`).

`totalCount` is a resolver, so the count query runs only when a client selects it.
"""

from __future__ import annotations

import bisect

import strawberry

from brain import model
from brain.api.graph.nodes import Memory
from brain.api.graph.paging.cursors import (
    PageInfo,
    decode_cursor,
    encode_cursor,
    problem_after,
    problem_cursor,
    problem_key,
)
from brain.api.graph.problems import Problem
from brain.api.graphql.context import Info
from brain.api.graphql.enums import MemoryType, Severity
from brain.api.graphql.fields import field
from brain.api.graphql.loaders import in_thread
from brain.service.brain import Brain
from brain.store.base import MemoryFilter


@strawberry.input(description="Every field narrows the list; leave it out to not filter on it.")
class MemoryFilterInput:
    scope: str | None = strawberry.UNSET
    agent: str | None = strawberry.field(
        default=strawberry.UNSET, description="Same as scope, named for people."
    )
    type: MemoryType | None = strawberry.UNSET
    text: str | None = strawberry.field(
        default=strawberry.UNSET, description="Case-insensitive substring of the name or description."
    )
    has_problems: bool | None = strawberry.UNSET

    def to_model(self) -> MemoryFilter:
        return MemoryFilter(
            scope=self.scope or None,
            agent=self.agent or None,
            type=self.type.value if self.type else None,
            text=self.text or None,
            has_problems=self.has_problems if isinstance(self.has_problems, bool) else None,
        )


@strawberry.type
class MemoryEdge:
    cursor: str
    node: Memory


@strawberry.type
class MemoryConnection:
    edges: list[MemoryEdge]
    page_info: PageInfo
    where: strawberry.Private[MemoryFilter]
    moment: strawberry.Private[Brain | None] = None  # the graph of an `asOf:` query
    known_total: strawberry.Private[int | None] = None  # counted already (api/graph/counted.py)

    @field(description="The page's memories, without cursors.")
    def nodes(self) -> list[Memory]:
        return [edge.node for edge in self.edges]

    @field(description="How many memories match the filter in all (one more query).")
    async def total_count(self, info: Info) -> int:
        if self.known_total is not None:
            return self.known_total
        store = (info.context.brain if self.moment is None else self.moment).store
        return await in_thread(store.count_memories, self.where)


async def memory_page(
    info: Info, where: MemoryFilter, first: int, after: str | None, moment: Brain | None = None,
) -> MemoryConnection:
    after_id = decode_cursor("memory", after) if after else None
    store = (info.context.brain if moment is None else moment).store
    # Without bodies: a table of memories shows none, and at 10,000 notes a page of a hundred
    # bodies was most of what Neo4j shipped for the dashboard's memories page (issue 43). A
    # `body` asked on the page is read for the page at once (Memory.body, the bodies loader).
    rows = await in_thread(store.list_memories, where, after_id, first + 1, bodies=False)
    page = rows[:first]
    info.context.loaders_of(moment).prime_nodes(page, bodies=False)
    edges = [MemoryEdge(cursor=encode_cursor("memory", m.id), node=Memory.of(m, moment)) for m in page]
    return MemoryConnection(
        edges=edges,
        page_info=PageInfo(
            has_next_page=len(rows) > first, end_cursor=edges[-1].cursor if edges else None
        ),
        where=where,
        moment=moment,
    )


@strawberry.type
class ProblemEdge:
    cursor: str
    node: Problem


@strawberry.type
class ProblemConnection:
    edges: list[ProblemEdge]
    page_info: PageInfo
    matching: strawberry.Private[int]

    @strawberry.field
    def nodes(self) -> list[Problem]:
        return [edge.node for edge in self.edges]

    @field(description="How many problems match the filter in all.")
    def total_count(self) -> int:
        return self.matching


async def problem_page(
    info: Info,
    severity: Severity | None,
    code: str | None,
    path: str | None,
    first: int,
    after: str | None,
    moment: Brain | None = None,
) -> ProblemConnection:
    start_after = problem_after(after) if after else None
    found = await in_thread((info.context.brain if moment is None else moment).problems)
    wanted = sorted(
        (
            p for p in found
            if (severity is None or p.severity is severity.to_model())
            and (code is None or p.code == code)
            and (path is None or p.path == path)
        ),
        key=problem_key,
    )
    start = 0 if start_after is None else bisect.bisect_right(wanted, start_after, key=problem_key)
    page: list[model.Problem] = wanted[start : start + first]
    edges = [ProblemEdge(cursor=problem_cursor(p), node=Problem.of(p)) for p in page]
    return ProblemConnection(
        edges=edges,
        page_info=PageInfo(
            has_next_page=start + first < len(wanted),
            end_cursor=edges[-1].cursor if edges else None,
        ),
        matching=len(wanted),
    )
