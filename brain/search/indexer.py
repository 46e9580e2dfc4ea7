"""The background worker that keeps every memory's vector in step with its content.

Ingest never waits for the model: changed notes are queued here, a daemon thread looks
their vectors up in the cache, embeds only the misses, and hands them to the store. Until
the first catch-up is done, search answers with keywords only and says how far along the
embeddings are; after that a note edited a moment ago is found by keyword until its new
vector lands (a few hundred milliseconds).
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from brain.model import MemoryNode
from brain.search.embedding import (
    Embedder,
    EmbedderFailed,
    Encoder,
    LocalEmbedder,
    VectorCache,
    embedding_text,
    text_key,
)
from brain.store.base import GraphStore, MemoryFilter, SearchIndex

log = logging.getLogger(__name__)
QUERY_CACHE = 256  # query vectors kept: a type-ahead box and paging ask the same query again


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
    """Notes' vectors through an `embedder` (a helper process in a server, else in process);
    queries through `encoder`, in this process (a query is a few tokens: ~10 ms)."""

    def __init__(self, store: GraphStore, index: SearchIndex, encoder: Encoder | None,
                 reason: str = "", cache: VectorCache | None = None, batch: int = 32,
                 embedder: Embedder | None = None) -> None:
        self._store = store
        self._index = index
        self.encoder = encoder
        self.reason = reason
        if embedder is None and encoder is not None:
            embedder = LocalEmbedder(encoder, cache if cache is not None else VectorCache(encoder.name))
        self.embedder = embedder
        self._queries: OrderedDict[str, Sequence[float]] = OrderedDict()
        self._batch = batch
        self._pending: dict[str, MemoryNode] = {}
        self._busy = 0
        self._done = 0
        self._caught_up = False
        self._cond = threading.Condition()
        self._stop = False
        self._failed = ""  # why embedding stopped for good (the helper died): keyword only
        self._thread: threading.Thread | None = None
        self._recheck = False  # `recheck`: the worker looks for missing vectors again
        self.embedded_now = 0  # notes the model encoded (cache misses), for benchmarks
        self._lookup: VectorCache | None = None  # note_vector's reader of the helper's cache

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

    def recheck(self) -> None:
        """Look again for every memory without a current vector (the graph was replaced at
        once, by a first sync written onto a staged generation)."""
        if self.encoder is None or self._thread is None:
            return  # not started: its start looks anyway
        with self._cond:
            self._recheck = True
            self._caught_up = False
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
            if self._failed:
                return SemanticStatus("off", self._done, 0, self._failed, model=model)
            pending = len(self._pending) + self._busy
            state = "ready" if self._caught_up else "indexing"
            return SemanticStatus(state, self._done, pending, model=model)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until nothing is queued (True) or `timeout` seconds passed (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self.encoder is not None and not self._failed and (
                self._pending or self._busy or not self._caught_up
            ):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify_all()
        if self.embedder is not None:
            self.embedder.close()
        if self._lookup is not None:
            self._lookup.close()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def note_vector(self, memory: MemoryNode) -> Sequence[float] | None:
        """The vector `memory` is ranked by (of `embedding_text`, with its body), from the
        vectors' cache: None if it is not there (not embedded yet, or since changed). Related
        notes ask this first: the note's own meaning, without a run of the encoder (~100 ms a
        note on this machine's loaded cores, most of a related query's time)."""
        if self.encoder is None:
            return None
        cache = getattr(self.embedder, "cache", None)
        if not isinstance(cache, VectorCache):  # the helper's cache: the same file, read here
            with self._cond:
                if self._lookup is None:
                    self._lookup = VectorCache(self.encoder.name)
                cache = self._lookup
        key = text_key(embedding_text(memory))
        return cache.get_many([key]).get(key)

    def query_vector(self, query: str) -> Sequence[float] | None:
        """The query's vector (cached: the same query costs nothing the second time)."""
        if self.encoder is None:
            return None
        with self._cond:
            vector = self._queries.get(query)
            if vector is not None:
                self._queries.move_to_end(query)
                return vector
        vector = self.encoder.encode_texts([query])[0]
        with self._cond:
            self._queries[query] = vector
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        return vector

    # ---------------------------------------------------------------- the worker

    def _run(self) -> None:
        try:
            self._catch_up()
        except Exception:  # the store went away: keyword search still answers
            log.exception("embedding catch-up failed")
        while True:
            with self._cond:
                while not self._pending and not self._stop and not self._recheck:
                    if not self._caught_up:
                        self._caught_up = True
                    self._cond.notify_all()
                    self._cond.wait()
                if self._stop:
                    return
                recheck, self._recheck = self._recheck, False
                if not recheck:
                    # Oldest first; no sort of the whole queue per batch (10,000 queued at start).
                    ids = list(itertools.islice(self._pending, self._batch))
                    work = [self._pending.pop(i) for i in ids]
                    self._busy = len(work)
            if recheck:
                try:
                    self._catch_up()
                except Exception:
                    log.exception("embedding catch-up failed")
                continue
            try:
                self._embed(work)
            except EmbedderFailed as exc:
                with self._cond:
                    if self._stop:
                        return
                    self._failed = f"{exc}: search is keyword only until brain restarts"
                    self._pending.clear()
                    self._busy = 0
                    self._cond.notify_all()
                log.error("embedding stopped: %s", exc)
                return
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
        assert self.embedder is not None
        memories = self._with_bodies(memories)
        vectors, computed = self.embedder.embed([embedding_text(m) for m in memories])
        self.embedded_now += computed
        self._index.put_vectors([(m.id, m.hash, v) for m, v in zip(memories, vectors, strict=True)])

    def _with_bodies(self, memories: list[MemoryNode]) -> list[MemoryNode]:
        """A first sync hands its notes over with no body (memory_files.shipped): the store
        reads them back from the files."""
        bare = [m.id for m in memories if not m.body]
        if not bare:
            return memories
        stored = self._store.get_nodes(bare)
        return [
            found if not m.body and isinstance(found := stored.get(m.id), MemoryNode) else m
            for m in memories
        ]
