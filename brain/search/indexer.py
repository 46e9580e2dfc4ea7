"""The background worker that keeps every memory's vector in step with its content.

Ingest never waits for the model: changed notes are queued here, a daemon thread looks
their vectors up in the cache, embeds only the misses, and hands them to the store. Until
the first catch-up is done, search answers with keywords only and says how far along the
embeddings are; after that a note edited a moment ago is found by keyword until its new
vector lands (a few hundred milliseconds).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

from brain.model import MemoryNode
from brain.search.embedding import Encoder, VectorCache, embedding_text, text_key
from brain.store.base import GraphStore, MemoryFilter, SearchIndex

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SemanticStatus:
    state: str  # "ready" | "indexing" | "off"
    done: int  # notes embedded (or found in the cache) since start
    pending: int  # notes waiting for a vector
    reason: str = ""
    model: str = ""

    @property
    def ready(self) -> bool:
        return self.state == "ready"

    def describe(self) -> str:
        if self.state == "ready":
            return f"semantic search ready ({self.model})"
        if self.state == "off":
            return f"keyword only: {self.reason}"
        total = self.done + self.pending
        return f"keyword only until embeddings are ready: {self.done}/{total} notes embedded"


class EmbeddingIndexer:
    def __init__(self, store: GraphStore, index: SearchIndex, encoder: Encoder | None,
                 reason: str = "", cache: VectorCache | None = None, batch: int = 32) -> None:
        self._store = store
        self._index = index
        self.encoder = encoder
        self.reason = reason
        self.cache = cache if cache is not None or encoder is None else VectorCache(encoder.name)
        self._batch = batch
        self._pending: dict[str, MemoryNode] = {}
        self._busy = 0
        self._done = 0
        self._caught_up = False
        self._cond = threading.Condition()
        self._stop = False
        self._thread: threading.Thread | None = None
        self.embedded_now = 0  # notes the model encoded (cache misses), for benchmarks

    def start(self) -> None:
        """Queue every memory without a current vector, then keep up with `schedule`."""
        if self.encoder is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="brain-embeddings", daemon=True)
        self._thread.start()

    def schedule(self, memories: Iterable[MemoryNode]) -> None:
        if self.encoder is None:
            return
        with self._cond:
            for memory in memories:
                self._pending[memory.id] = memory
            self._cond.notify_all()

    def forget(self, ids: Iterable[str]) -> None:
        with self._cond:
            for node_id in ids:
                self._pending.pop(node_id, None)

    def status(self) -> SemanticStatus:
        model = self.encoder.name if self.encoder is not None else ""
        with self._cond:
            if self.encoder is None:
                return SemanticStatus("off", 0, 0, self.reason)
            pending = len(self._pending) + self._busy
            state = "ready" if self._caught_up else "indexing"
            return SemanticStatus(state, self._done, pending, model=model)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until nothing is queued (True) or `timeout` seconds passed (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self.encoder is not None and (self._pending or self._busy or not self._caught_up):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.cache is not None:
            self.cache.close()

    # ---------------------------------------------------------------- the worker

    def _run(self) -> None:
        try:
            self._catch_up()
        except Exception:  # the store went away: keyword search still answers
            log.exception("embedding catch-up failed")
        while True:
            with self._cond:
                while not self._pending and not self._stop:
                    if not self._caught_up:
                        self._caught_up = True
                    self._cond.notify_all()
                    self._cond.wait()
                if self._stop:
                    return
                ids = sorted(self._pending)[: self._batch]
                work = [self._pending.pop(i) for i in ids]
                self._busy = len(work)
            try:
                self._embed(work)
            except Exception:
                log.exception("embedding %d notes failed", len(work))
            finally:
                with self._cond:
                    self._busy = 0
                    self._done += len(work)
                    self._cond.notify_all()

    def _catch_up(self) -> None:
        have = self._index.vector_hashes()
        missing = [
            m for m in self._store.list_memories(MemoryFilter()) if have.get(m.id) != m.hash
        ]
        with self._cond:
            for memory in missing:
                self._pending.setdefault(memory.id, memory)

    def _embed(self, memories: list[MemoryNode]) -> None:
        assert self.encoder is not None
        assert self.cache is not None
        texts = [embedding_text(m) for m in memories]
        keys = [text_key(t) for t in texts]
        known = self.cache.get_many(keys)
        misses = [i for i, key in enumerate(keys) if key not in known]
        if misses:
            vectors = self.encoder.encode_texts([texts[i] for i in misses])
            fresh = [(keys[i], vector) for i, vector in zip(misses, vectors, strict=True)]
            self.cache.put_many(fresh)
            known.update(fresh)
            self.embedded_now += len(misses)
        self._index.put_vectors([(m.id, m.hash, known[k]) for m, k in zip(memories, keys, strict=True)])
