"""A real store that counts the calls made to it: to prove batching, not to fake anything."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from brain.store.memory.store import MemoryStore


class CountingStore(MemoryStore):
    """The embedded store, with a tally of every read call by method name."""

    READS = (
        "get_nodes", "find_memory", "memory_by_path", "list_memories", "count_memories",
        "memory_type_counts", "list_agents", "list_entities", "links_from", "links_to",
        "backlinks", "backlink_counts",
        "neighborhood", "problems", "stats",
    )

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self._count_lock = threading.Lock()
        super().__init__()
        for name in self.READS:
            setattr(self, name, self._counted(name, getattr(self, name)))

    def _counted(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            with self._count_lock:
                self.calls[name] += 1
            return method(*args, **kwargs)

        return call

    def reset(self) -> None:
        with self._count_lock:
            self.calls.clear()

    @property
    def total(self) -> int:
        return sum(self.calls.values())
