"""A note with what its page shows, in one store call (a store that can answer it so).

The dashboard's memory document asks for a note, then its links and the first page of its
backlinks, then the nodes those name: three rounds of reads one after another, each a round
trip on Neo4j (issue 43: 28 ms p95 at 10,000 notes against 7 ms embedded). A store that can
answer all of it in one read says so by having `memory_view`; the GraphQL layer then primes
its loaders with the answer, and the fields it serves read nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from brain.model import Link, MemoryNode, Node


@dataclass(frozen=True, slots=True)
class MemoryView:
    memory: MemoryNode
    links: list[Link]  # every link the note holds, in order (links_from)
    backlinks: list[Link]  # the first `first` links into it, as backlinks(first) pages them
    first: int
    nodes: dict[str, Node]  # the nodes those links name (targets and sources) that exist


@runtime_checkable
class MemoryViews(Protocol):
    def memory_view(self, path: str, first: int) -> MemoryView | None:
        """The note at `path` with its links, first backlinks and their nodes; None if none."""
        ...
