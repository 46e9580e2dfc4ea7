"""Memory health's first count on Neo4j: what the counters need of every note, read lean.

The counters (brain/store/health_counts.py) are counted from the whole graph once per
process (its first question) and again when the graph changed in a way they cannot follow
(brain/store/neo4j/health/counters.py). They need of a note only its scope, its change time and
whether it has a description and a type, and of each of its links four fields (`Kept`).
Reading them as brain's reads do (`list_memories` and `links_from`: every property of every
note and link, made into MemoryNode and Link objects) cost 46-67 s at 10,000 notes on a
loaded machine. Here one query per page of notes returns those fields alone, the links
already gathered per note by the database, in id order (an index seek on Memory(id)).

The description test is the database's: `trim(description) = ''`. The parser writes a
description whitespace-normalised (brain/parse/note.py `_description`), so this is the
Python side's `not description.strip()` for every stored note.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

from neo4j import Record

from brain.model import LinkStatus
from brain.store.health_counts import Facts, vis_of

# A kept link: (target id, status, the target as written if the target is private, candidates).
Kept = tuple[str, LinkStatus, str, tuple[str, ...]]

# One page of notes after `$after` in id order, each with the fields the counters read.
COUNT_PAGE = """
MATCH (m:Memory) WHERE m.id > $after
WITH m ORDER BY m.id LIMIT $limit
OPTIONAL MATCH (m)-[r:LINKS_TO]->(t)
WITH m, collect([t.id, r.status, r.target, r.candidates]) AS links
RETURN m.id AS id, m.scope AS scope, m.modifiedAt AS at,
       trim(coalesce(m.description, '')) = '' AS noDesc,
       coalesce(m.type, '') = '' AS noType, links
"""
PAGE = 10_000  # notes per read: a page's links are ~5x that, a few MB of records

_STATUS = {status.value: status for status in LinkStatus}


def kept_link(target: str, status: LinkStatus, written: str, candidates: tuple[str, ...]) -> Kept:
    """What the counters keep of a link (`Row` positions 2, 3, 5, 12): the target as
    written only where it matters (a private target not broken)."""
    return (sys.intern(target), status,
            written if status is not LinkStatus.BROKEN and vis_of(target) else "", candidates)


def count_pages(
    read: Callable[[str, dict[str, Any]], list[Record]],
) -> Iterator[tuple[str, Facts, tuple[Kept, ...]]]:
    """Every note's id, facts and kept links, a page of notes per read."""
    after, page = "", PAGE
    while True:
        records = read(COUNT_PAGE, {"after": after, "limit": page})
        for r in records:
            links = tuple(
                kept_link(t, _STATUS[s], w or "", tuple(c or ()))
                for t, s, w, c in r["links"] if t is not None
            )
            yield r["id"], (r["scope"], float(r["at"]), bool(r["noDesc"]), bool(r["noType"])), links
        if len(records) < page:
            return
        after = records[-1]["id"]
