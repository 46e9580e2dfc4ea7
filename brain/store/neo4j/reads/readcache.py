"""Answers of brain's graph reads on Neo4j, kept until the graph changes.

A dashboard asks the same questions again and again (the agents and their counts, the link
report, the problems, a page of memories), and on Neo4j each read is a round trip plus the
query's own work: at 10,000 notes the agents overview took 470 ms p95 where nothing had
changed since the last answer (issue 43). So answers are kept, and the question is only
when they stop being true.

Every transaction that writes brain's graph sets a new `graph` token on the workspace node
(brain/store/neo4j/write.py `mark_graph`, the switch of a generation too), whoever writes it:
this process, the writer a replica answers beside, a first sync in parts. A kept answer is
good while the token is the one it was read under. The token is read at most once per
`window` (one index seek; once a GraphQL request, however long, up to 1 s:
brain/store/request_look.py; one reader of it at a time), and this process's own commits
drop every answer at once: a writer reads its own writes at once, and a replica answers at
most `window` (a request: its one look) behind the database (its graphChanged events, from
the change log, come no earlier). The token a writer's commit stamped is taken as read then
(`wrote`): reading it back cost the next read a round trip, after every write.

An answer read while the graph changed is not kept (its epoch is checked when it is put), so
a kept answer is always one state of the graph, never a mix of two. Not kept: search (the
indexer writes vectors without a new token, and a replica hears of none), the shared
database's own nodes (identity, lease, change log: brain/store/neo4j/sharing/), and a
database with no workspace node (nothing would tell of a change). Bounded by count and by
size (docs/security.md, budgets): the least recently used answers go first.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from neo4j import Driver, Record

from brain.store.neo4j.errors import runtime_errors
from brain.store.neo4j.generations import staged as generation
from brain.store.neo4j.generations.live import LiveSet
from brain.store.neo4j.reads import autocommit
from brain.store.request_look import MAX_SECONDS as LOOK_SECONDS
from brain.store.request_look import Look, current_look

T = TypeVar("T")

WINDOW = 0.025  # seconds a read of the graph token is trusted for
MAX_ANSWERS = 4096
MAX_CHARS = 64 * 1024 * 1024  # every kept answer's text, counted roughly (its strings)
MAX_ANSWER_CHARS = 8 * 1024 * 1024  # a bigger answer is not kept (a whole-graph export)

# Reads that are never kept: their answers change without a new graph token, or are the
# token's own machinery. (Search queries are matched by what they call: a new one is covered.)
_NEVER = ("db.index.", "embeddingHash", "BrainWorkspace", "BrainChange", "BrainLease", "BrainLive")

Key = tuple[str, str]
GRAPH_TOKEN = "MATCH (w:BrainWorkspace {key: 'brain'}) RETURN w.graph AS graph"


def keepable(query: str) -> bool:
    return not any(word in query for word in _NEVER)


def chars(value: Any, depth: int = 0) -> int:
    """Roughly how much text `value` holds: its strings' lengths, a few levels down."""
    if isinstance(value, str | bytes):
        return len(value)
    if depth > 3:
        return 8
    if isinstance(value, dict):
        return sum(chars(v, depth + 1) for v in value.values()) + 8 * len(value)
    if isinstance(value, list | tuple | Record):
        return sum(chars(v, depth + 1) for v in value) + 8
    return 8


@dataclass(slots=True)
class _Kept:
    records: list[Record]
    size: int  # counted roughly: see chars
    built: dict[str, Any] = field(default_factory=dict)  # what callers built of them, by builder


class ReadCache:
    """Kept answers of one store, keyed by query and parameters, valid for one graph token."""

    def __init__(
        self,
        token: Callable[[], str | None],
        *,
        window: float = WINDOW,
        max_answers: int = MAX_ANSWERS,
        max_chars: int = MAX_CHARS,
        max_answer_chars: int = MAX_ANSWER_CHARS,
    ) -> None:
        self._token = token  # reads the graph token (a round trip)
        self.window = window
        self.max_answers = max_answers
        self.max_chars = max_chars
        self.max_answer_chars = max_answer_chars
        self._lock = threading.Lock()
        self._token_lock = threading.Lock()  # one read of the token at a time
        self._answers: OrderedDict[Key, _Kept] = OrderedDict()
        self._chars = 0
        self._seen: str | None = None  # the token the kept answers were read under
        self._checked = float("-inf")  # when the token was last read (monotonic)
        self.epoch = 0  # bumped whenever the kept answers are dropped
        self.hits = 0
        self.misses = 0
        self.token_reads = 0

    def drop(self) -> None:
        """The graph changed (this process committed a write): forget every answer."""
        with self._lock:
            self._drop_locked()
            self._checked = float("-inf")  # and read the token again before trusting one

    def wrote(self, token: str) -> None:
        """This process committed a write that stamped `token`: forget every answer, and take
        `token` as read now (the commit is the newest state; a writer holds the lease, so no
        other process writes between the commit and this). Trusted for `window`, as a read."""
        with self._lock:
            self._drop_locked()
            self._seen = token
            self._checked = time.monotonic()

    def current(self) -> int | None:
        """The epoch answers may be kept under now (None: keep none), after reading the
        graph token if the last read of it is older than `window`. Every answer kept under
        it is read after this check, so it shows the graph as it was then or later."""
        started = time.monotonic()
        look = current_look()  # one look a request (brain/store/request_look.py)
        if not self._trusted(look, started):
            # One reader at a time: the reads a request runs side by side (the entities
            # document's three lists) waited on one token read, not each its own.
            with self._token_lock:
                if not self._trusted(look, started):
                    token = self._token()
                    self.token_reads += 1
                    with self._lock:
                        if token is None or token != self._seen:
                            self._drop_locked()
                            self._seen = token
                        self._checked = started
                if look is not None:  # the state this request reads is no older than that check
                    look.seen[id(self)] = (self.epoch, self._checked)
        elif look is not None:
            look.seen[id(self)] = (self.epoch, self._checked)
        return None if self._seen is None else self.epoch

    def _trusted(self, look: Look | None, started: float) -> bool:
        """Whether the last read of the token serves a read begun at `started`: this
        request looked already (and nothing was dropped since), or it is within `window`."""
        if self._checked == float("-inf"):
            return False
        seen = look.seen.get(id(self)) if look is not None else None
        if seen is not None and seen[0] == self.epoch and started - seen[1] < LOOK_SECONDS:
            return True
        return started - self._checked < self.window

    def get(self, query: str, params: dict[str, Any]) -> tuple[Key, int | None, list[Record] | None]:
        """(key, epoch to put under, kept answer or None). The token is read (at most once a
        `window`) only to serve a kept answer: a read that finds none goes to the database
        anyway, and its answer is as fresh as any (a note opened once costs no extra trip)."""
        key = (query, json.dumps(params, sort_keys=True, default=repr))
        with self._lock:
            found = key in self._answers
        if found or self._checked == float("-inf"):
            epoch = self.current()
        else:
            epoch = None if self._seen is None else self.epoch
        if epoch is None:
            return key, None, None
        with self._lock:
            kept = self._answers.get(key)
            if kept is not None and self.epoch == epoch:
                self._answers.move_to_end(key)
                self.hits += 1
                return key, epoch, list(kept.records)
        self.misses += 1
        return key, epoch, None

    def put(self, key: Key, epoch: int | None, records: list[Record]) -> None:
        """Keep `records`, read under `epoch`, unless the graph changed since."""
        if epoch is None:
            return
        size = sum(chars(r) for r in records) + len(key[0]) + len(key[1])
        if size > self.max_answer_chars:
            return
        with self._lock:
            if epoch != self.epoch:
                return
            old = self._answers.pop(key, None)
            if old is not None:
                self._chars -= old.size
            self._answers[key] = _Kept(list(records), size)
            self._chars += size
            while self._answers and (len(self._answers) > self.max_answers or self._chars > self.max_chars):
                self._chars -= self._answers.popitem(last=False)[1].size

    def built(self, key: Key, name: str) -> Any | None:
        """What `name` built of the kept answer `key`, if it did since the answer was kept."""
        with self._lock:
            kept = self._answers.get(key)
            return None if kept is None else kept.built.get(name)

    def keep_built(self, key: Key, epoch: int | None, name: str, value: Any) -> None:
        """Keep `value`, built of the answer `key` read under `epoch`, beside it (it goes with
        it). Counted in the size once more: a built answer holds what its records hold."""
        with self._lock:
            kept = self._answers.get(key)
            if epoch is None or epoch != self.epoch or kept is None or name in kept.built:
                return
            kept.built[name] = value
            self._chars += kept.size  # now held twice, roughly
            kept.size *= 2

    def _drop_locked(self) -> None:
        self._answers.clear()
        self._chars = 0
        self.epoch += 1


class KeptReads:
    """Mixed into Neo4jStore first: its `_read` answers from the kept answers, else from the
    database (`_read_database`) and keeps the answer. A staged store's reads are not kept."""

    _reads: ReadCache
    _live: LiveSet
    _driver: Driver
    database: str
    uri: str
    staged_reads: bool

    def _graph_token(self) -> str | None:
        """The token the last write of brain's graph set (None: no workspace node)."""
        with runtime_errors(self.uri):
            found = autocommit.read(self._driver, self.database, GRAPH_TOKEN, {})
        return found[0]["graph"] if found else None

    def _read_database(self, query: str, params: dict[str, Any]) -> list[Record]:
        """One read, routed to a reader (auto-commit: one round trip, reads/autocommit.py); a
        query on brain's labels runs on the live set."""
        with runtime_errors(self.uri):
            varies = generation.varies(query)
            live = generation.STAGED_PREFIX if varies and self.staged_reads else None
            if varies and not self.staged_reads:  # (a query on no documented label runs as it is)
                seen = self._live.fresh()  # brain/store/neo4j/generations/live.py
                if seen is None:
                    return self._live.read(self._driver, self.database, query, params)
                live = seen[1]
            return autocommit.read(self._driver, self.database, generation.on(query, live), params)

    def _read_built(self, query: str, build: Callable[[list[Record]], T], **params: Any) -> T:
        """`build(records)` of a read, kept beside its kept answer: a dashboard's repeated
        question (every entity's backlinks) was built again from kept records each time."""
        if self.staged_reads or not keepable(query):
            return build(self._read_database(query, params))
        key, epoch, kept = self._reads.get(query, params)
        name = build.__qualname__
        if kept is not None:
            found = self._reads.built(key, name)
            if found is not None:
                return cast(T, found)
            records = kept
        else:
            records = self._read_database(query, params)
            self._reads.put(key, epoch, records)
        value = build(records)
        self._reads.keep_built(key, epoch, name, value)
        return value

    def _read(self, query: str, **params: Any) -> list[Record]:
        if self.staged_reads or not keepable(query):
            return self._read_database(query, params)
        key, epoch, kept = self._reads.get(query, params)
        if kept is not None:
            return kept
        records = self._read_database(query, params)
        self._reads.put(key, epoch, records)
        return records
