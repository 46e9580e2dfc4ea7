"""The embedded store's memory health: the shared counters (brain/store/health_counts.py) fed
from its own tables, in step with every write.

The counters are kept from the first batch on (an empty store is counted: nothing), so a
dashboard's first question finds them ready. A first sync written in parts counts them once,
when its last part is written (`pause_health`, `resume_health`): kept part by part, every
part took away and added again the links it relinked and re-filed every note its links
reach (728,000 re-filings for 100,000 notes), a third of the ingesting process's CPU. A
one-shot command that never asks (`brain ingest`, `brain check`) opens its store with
`health_ahead=False` and counts none. A snapshot's restore keeps no counters (the image
holds tables, not these): the first question after a warm start counts them once from the
restored tables, and every write from then on keeps them.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

from brain.model import MemoryNode
from brain.store.base import WriteBatch
from brain.store.health import HealthAnswers
from brain.store.health_counts import Facts, HealthIndex, batch_sources
from brain.store.memory.links.table import LinkTable
from brain.store.memory.rows import MemoryRow, health_facts_of

__all__ = ["HealthIndex", "HealthQueries"]  # the store builds its index from here


class HealthQueries(HealthAnswers):
    """The HealthReader half of MemoryStore (brain/store/memory/store.py)."""

    _health: HealthIndex
    _lock: Any
    _memories: Mapping[str, MemoryNode | MemoryRow]
    _out: LinkTable
    _health_resumes: bool

    def _memory(self, node_id: str) -> MemoryNode | None:
        raise NotImplementedError

    def _health_facts(self, node_id: str) -> Facts | None:
        held = self._memories.get(node_id)
        return None if held is None else health_facts_of(held)

    def _health_begin(self, batch: WriteBatch) -> tuple[set[str], set[str]] | None:
        """Under the store's lock, before the batch's tables change."""
        if not self._health.valid:
            return None
        sources = batch_sources(batch)
        return sources, self._health.begin(sources, self._out.get)

    def _health_finish(self, begun: tuple[set[str], set[str]] | None) -> None:
        if begun is not None:
            self._health.finish(*begun, self._out.get, self._health_facts)

    def pause_health(self) -> None:
        """Stop keeping the counters write by write (a first sync's parts): whatever asks
        first, or `resume_health`, counts them once from the tables."""
        with self._lock:
            # Counted again at the end only if they were kept: a store that keeps none
            # (`health_ahead=False`, a one-shot command) counts them on a first question.
            self._health_resumes = self._health.valid
            self._health.valid = False

    def resume_health(self) -> None:
        """Count them now if they were paused, and keep them from here on. One source's rows
        at a time: `LinkTable.items` builds every row first (550,000 at 100,000 notes)."""
        with self._lock:
            index = self._health
            if not index.valid and getattr(self, "_health_resumes", False):
                self._health_resumes = False
                out = self._out
                sources = list(self._memories)
                rows = ((s, found) for s in sources if (found := out.get(s)))
                index.build(sources, rows, self._health_facts)

    def _health_guard(self) -> AbstractContextManager[Any]:
        guard: AbstractContextManager[Any] = self._lock
        return guard

    def _health_counters(self) -> HealthIndex:
        return self._health

    def _health_kept(self) -> HealthIndex:
        index = self._health
        if not index.valid:
            index.build(list(self._memories), self._out.items(), self._health_facts)
        return index
