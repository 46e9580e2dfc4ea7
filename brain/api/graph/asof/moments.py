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

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from strawberry.types.nodes import SelectedField

from brain.api.graphql.context import Info
from brain.api.graphql.errors import UserError
from brain.api.graphql.loaders import Loaders, in_thread
from brain.model import Stats
from brain.service.brain import Brain
from brain.tool import memory_service
from brain.tool.asof.service import around_as_of, graph_at, stats_as_of
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
    """The graph's counts at `as_of`: the counts kept after each record (brain/tool/asof/counts/series.py),
    without building the moment's graph."""
    when = as_of if as_of.tzinfo is not None else as_of.replace(tzinfo=UTC)
    service = memory_service(info.context.brain)
    try:
        _, found = await in_thread(stats_as_of, service, when.isoformat())
    except Refusal as refusal:
        raise UserError(f"asOf: {refusal.message}") from None
    return found


# What GraphQL `memory(path:, asOf:)` may ask for and still be answered from the note's
# neighbourhood then (brain/tool/asof/around.py) rather than the whole moment: the note's own
# fields, its links, backlinks, problems and owner, and of the nodes at either end of a link
# only what names them. Anything else (a target's own backlinks, related notes...) needs the
# whole moment.
_ENDS = frozenset({"__typename", "id", "name", "scope", "path"})
_LINK = frozenset({"__typename", "targetId", "label", "anchor", "embed", "line", "column", "status", "text"})
# A level of the query: the leaf fields it may ask, and the fields it may open (each a level).
Level = tuple[frozenset[str], dict[str, Any]]
_ENDS_LEVEL: Level = (_ENDS, {})
_LINKS_LEVEL: Level = (_LINK, {"source": _ENDS_LEVEL, "target": _ENDS_LEVEL})
_NOTE: Level = (
    frozenset({"__typename", "id", "scope", "name", "path", "virtualPath", "description", "type", "body",
               "hash", "linkCount", "backlinkCount", "problemCount"}),
    {"links": _LINKS_LEVEL, "backlinks": _LINKS_LEVEL,
     "problems": (frozenset({"__typename", "path", "line", "column", "length", "code", "severity",
                             "message", "fix", "target"}), {}),
     "owner": (frozenset({"__typename", "id", "name", "description", "path", "memoryEnabled"}), {})},
)


def _only(selections: Sequence[Any], level: Level) -> bool:
    """Every field asked is one of the level's leaves, or one it may open, asked by its rules
    (a fragment's fields by the same rules)."""
    leaves, opens = level
    for selection in selections:
        if not isinstance(selection, SelectedField):  # `... on Memory { id }`
            if not _only(selection.selections, level):
                return False
        elif selection.name in opens:
            if not _only(selection.selections, opens[selection.name]):
                return False
        elif selection.name not in leaves or selection.selections:
            return False
    return True


def asks_only(info: Info, level: Level) -> bool:
    """The field resolved asks only what `level` allows (its leaves, and what it opens)."""
    fields = info.selected_fields
    return len(fields) == 1 and _only(fields[0].selections, level)


def around_only(info: Info) -> bool:
    """The query asks of the note only what its neighbourhood then answers."""
    return asks_only(info, _NOTE)


async def note_moment_at(info: Info, as_of: datetime, path: str) -> Brain:
    """The graph that answers `memory(path:, asOf:)`: the note's neighbourhood then when the
    query asks no more of it (first asks in tens of ms, not the moment's seconds), else the
    whole moment."""
    if not around_only(info):
        found = await moment_at(info, as_of)
        assert found is not None
        return found
    when = as_of if as_of.tzinfo is not None else as_of.replace(tzinfo=UTC)
    service = memory_service(info.context.brain)
    try:
        return await in_thread(around_as_of, service, path, when.isoformat())
    except Refusal as refusal:
        raise UserError(f"asOf: {refusal.message}") from None


def brain_at(info: Info, moment: Brain | None) -> Brain:
    return info.context.brain if moment is None else moment


def loaders_at(info: Info, moment: Brain | None) -> Loaders:
    return info.context.loaders_of(moment)
