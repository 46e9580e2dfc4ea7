"""GraphQL's `asOf: DateTime`: the graph at a moment, for one field and everything under it.

`memory`, `memories`, `stats`, `memoryHealth`, `graphOverview`, `neighborhood`, `problems` and
`linkReport` take `asOf`; each asks the one service function (brain/tool/asof/service.py) for
the moment's graph, a `Brain` of its own, and answers from it with the code that answers from
the live graph. The nodes it returns carry that graph (a private `moment`), so their `links`,
`backlinks`, `owner` and `problems` answer as of the moment too. A moment the history cannot
show (in the future, before it began, past retention) is a UserError that says which moments
it can show; a time without a zone is UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime

from brain.api.graphql.context import Info
from brain.api.graphql.errors import UserError
from brain.api.graphql.loaders import Loaders, in_thread
from brain.model import Stats
from brain.service.brain import Brain
from brain.tool import memory_service
from brain.tool.asof.service import graph_at, stats_as_of
from brain.tool.calls.refusal import Refusal

AS_OF = (
    "The graph as it was at this moment (from the history: notes, links and problems then, "
    "links resolved by today's rules); null: now."
)


async def moment_at(info: Info, as_of: datetime | None) -> Brain | None:
    """The graph at `as_of`, or None for now."""
    if as_of is None:
        return None
    when = as_of if as_of.tzinfo is not None else as_of.replace(tzinfo=UTC)
    service = memory_service(info.context.brain)
    try:
        return await in_thread(graph_at, service, when.isoformat())
    except Refusal as refusal:
        raise UserError(f"asOf: {refusal.message}") from None


async def stats_at(info: Info, as_of: datetime) -> Stats:
    """The graph's counts at `as_of`: the counts kept after each record (brain/tool/asof/series.py),
    without building the moment's graph."""
    when = as_of if as_of.tzinfo is not None else as_of.replace(tzinfo=UTC)
    service = memory_service(info.context.brain)
    try:
        _, found = await in_thread(stats_as_of, service, when.isoformat())
    except Refusal as refusal:
        raise UserError(f"asOf: {refusal.message}") from None
    return found


def brain_at(info: Info, moment: Brain | None) -> Brain:
    return info.context.brain if moment is None else moment


def loaders_at(info: Info, moment: Brain | None) -> Loaders:
    return info.context.loaders_of(moment)
