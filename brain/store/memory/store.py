"""The embedded in-process store: the default backend, and the fake other tests use.

Plain dicts with the indexes the queries need: outgoing and incoming links, links by the name
key they ask for, names by key, memories by path. Bodies are most of a graph's bytes and few
queries read them, so a memory is held without its body, which is read back from its file or
kept zlib-compressed beside it (brain/store/memory/bodies.py) and put back into every node a
query returns. Links are held as columns (brain/store/memory/links/table.py) and memories
restored from a snapshot as rows (brain/store/memory/rows.py), built into objects on their way
out; after a restore the indexes wait for their first use. One lock makes each batch atomic
for readers on other threads (the server answers queries while the watcher writes).
"""

from __future__ import annotations

import bisect
import threading
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence

from brain.gcpause import gc_paused, weakly
from brain.model import (
    AgentNode,
    Anchors,
    EntityNode,
    FileNode,
    Kind,
    Link,
    LinkStatus,
    MemoryNode,
    Node,
    Problem,
    Stats,
    UnresolvedNode,
    agent_id,
    name_key,
    sorted_problems,
)
from brain.resolve import NameEntry
from brain.store.base import (
    BodySource,
    EdgeRow,
    GraphExport,
    MemoryFilter,
    NodeRow,
    Subgraph,
    WriteBatch,
    link_problem,
    memory_matches,
    memory_off_problem,
    node_row,
    remembers_row,
)
from brain.store.base import link_row as base_link_row
from brain.store.linking import entry_of
from brain.store.memory.bodies import Bodies
from brain.store.memory.health import HealthIndex, HealthQueries
from brain.store.memory.links.backlinks import MemoryBacklinks
from brain.store.memory.links.index import LinkIndex
from brain.store.memory.links.table import LinkTable
from brain.store.memory.names import NameIndex
from brain.store.memory.rows import (
    LinkRow,
    MemoryOrder,
    MemoryRow,
    anchors_of,
    as_link,
    facts_of,
    held_memory,
    link_row,
    memory_of,
    packed_row,
    scope_of,
)
from brain.store.memory.search import KeywordIndex, MemorySearch, VectorIndex
from brain.store.memory.snapshotting import MemorySnapshotting
from brain.store.visibility import EVERYTHING, Reach, asked_key, projected_targets, walk


class MemoryStore(HealthQueries, MemoryBacklinks, MemorySnapshotting, MemorySearch):
    """A complete GraphStore held in this process (and a HealthReader: brain/store/health.py)."""

    keyword_counts = True  # a big ingest's parse helpers count keywords for it (WriteBatch.keywords)

    def __init__(self, health_ahead: bool = True) -> None:
        # Memory health's counters kept from the first batch on, so a dashboard's first
        # question finds them ready; False (a one-shot `brain ingest`, `brain check`, which
        # never ask): counted on the first question, if one comes. Kept batch by batch they
        # were a third of a first sync's CPU in this process.
        self.health_ahead = health_ahead
        self._lock = threading.RLock()
        self._bodies = Bodies()  # each memory's body, compressed or read from its file
        self.clear()

    def read_bodies_from(self, source: BodySource) -> None:
        """Keep no body that `source` can read back (a workspace's files: brain/ingest/note_bodies.py)."""
        self._bodies.source = source

    def body_source(self) -> BodySource | None:
        return self._bodies.source

    # ------------------------------------------------------------------ writes

    def clear(self) -> None:
        with self._lock:
            # Memories without bodies (see _full); a snapshot's stay rows until read (_memory).
            self._memories: dict[str, MemoryNode | MemoryRow] = {}
            self._bodies.clear()
            self._agents: dict[str, AgentNode] = {}
            self._entities: dict[str, EntityNode] = {}
            self._files: dict[str, FileNode] = {}
            self._out = LinkTable()
            self._by_path: dict[str, str] = {}
            self._order: MemoryOrder | None = None  # built on the first listing
            # Indexes over the above. The names are kept as nodes are written. The links'
            # index is built on its first use (_ensure_indexes), by numpy from the columns,
            # and kept from then on: a first sync never reads it, and keeping it link by link
            # was a tenth of a 100,000-note sync's CPU; a snapshot's restore waits the same way.
            self._links = LinkIndex()
            self._names = NameIndex()
            self._indexed, self._names_indexed = False, True
            self.writes = 0
            self._keywords, self._vectors = KeywordIndex(), VectorIndex(weakly(self._memory_facts))
            self._health = HealthIndex(valid=self.health_ahead)  # see __init__ (memory/health.py)

    def close(self) -> None:
        """Nothing to release."""

    def write(self, batch: WriteBatch) -> None:
        with self._lock:
            self._ensure_names()
            indexed = self._indexed  # else the link index is built from the columns when asked
            self.writes += 1
            health = self._health_begin(batch)
            touched_targets: set[str] = set()
            for node_id in batch.deletes:
                self._delete(node_id, touched_targets)
            for memory in batch.memories:
                node_id = memory.id  # interned: one copy for every index (see linking.entry_of)
                old = self._memory(node_id)
                if old is not None and old.path != memory.path:
                    self._by_path.pop(old.path, None)
                self._bodies.put(node_id, memory)
                memory = held_memory(memory)
                # Held packed until read (brain/store/memory/packed.py): a node a note was
                # most of a 1,000,000-note store.
                self._memories[node_id] = packed_row(memory)
                self._by_path[memory.path] = node_id
                self._names.put(entry_of(memory))
            for agent in batch.agents:
                self._agents[agent.id] = agent
                self._names.put(entry_of(agent))
            for entity in batch.entities:
                self._entities[entity.id] = entity
                self._names.put(entry_of(entity))
            for plain in batch.files:
                self._files[plain.id] = plain
                self._names.put(entry_of(plain))
            if indexed:
                written: dict[str, list[LinkRow]] = {}
                for source, links in batch.links.items():
                    rows = written[source] = list(map(link_row, links))
                    # (put_many replaces a source's rows in the columns)
                    self._links.remove_all(source, self._out.pop(source), touched_targets)
                    self._links.add_all(source, rows)
                self._out.put_many(written.items())
            else:  # nothing but the columns takes them: no row built a link (a first sync's)
                self._out.put_many(batch.links.items(), links=True)
            self._relink(batch.relinks, touched_targets)
            for target in touched_targets if indexed else ():
                if target.startswith("unresolved:") and not self._links.has_incoming(target):
                    self._links.forget(target)
            if batch.memories or batch.deletes:
                self._order = None
                self._keywords.apply(batch)
                self._vectors.apply(batch)
            self._health_finish(health)

    def _relink(self, relinks: Sequence[Link], touched: set[str]) -> None:
        """Links given again in place (their ordinals kept): a link whose status alone
        changed is set where it is; each other source's rows are rewritten once."""
        changed: dict[str, list[LinkRow]] = {}
        statuses: list[tuple[str, int, LinkStatus]] = []
        for link in relinks:
            row = link_row(link)
            if link.source not in changed and self._out.status_only(row):
                statuses.append((link.source, link.ordinal, link.status))
                continue
            current = changed.get(link.source)
            if current is None:
                current = changed[link.source] = self._out.get(link.source)
            if link.ordinal >= len(current):
                continue
            if self._indexed:
                self._links.remove(current[link.ordinal], touched)
                self._links.add(row)
            current[link.ordinal] = row
        self._out.put_many((source, rows) for source, rows in changed.items() if rows)
        self._out.set_statuses(statuses)  # after: a source rewritten above is found at its new block

    def _delete(self, node_id: str, touched: set[str]) -> None:
        node: Node | None = (
            self._memory(node_id)
            or self._agents.pop(node_id, None)
            or self._entities.pop(node_id, None)
            or self._files.pop(node_id, None)
        )
        if node is None or isinstance(node, UnresolvedNode):
            return
        if isinstance(node, MemoryNode):
            del self._memories[node_id]
            self._bodies.drop(node_id)
            self._by_path.pop(node.path, None)
            rows = self._out.pop(node_id)
            if self._indexed:
                self._links.remove_all(node_id, rows, touched)
        self._names.drop(entry_of(node).key, node_id)

    def _ensure_names(self) -> None:
        """The name index, once after a restore (a completion's first lookup needs no more):
        the memories' ids grouped by key, each key's entries built when first asked for."""
        if not self._names_indexed:
            with gc_paused():  # many small acyclic objects: no collector passes over them
                self._names.index_lazily(self._memories, (self._agents, self._entities, self._files))
            self._names_indexed = True

    def _ensure_indexes(self) -> None:
        """Build the name and link indexes, once after a restore or a first sync: a start
        from a snapshot is ready without them, and the first lookup that needs them pays
        (the link index: 1.4 to 2 s of CPU at 100,000 notes, 3 to 4 s before grouped_into),
        unless a server builds them before its ready line (`build_indexes`); writes keep
        them from then on."""
        self._ensure_names()
        if not self._indexed:
            with gc_paused():
                self._out.index_into(self._links)
            self._indexed = True

    def build_indexes(self) -> None:
        """`_ensure_indexes` now, not on the first read (a server, before its ready line)."""
        with self._lock:
            self._ensure_indexes()

    # ------------------------------------------------------------------ resolution support

    def name_entries(self, keys: Collection[str]) -> dict[str, list[NameEntry]]:
        with self._lock:
            self._ensure_names()
            found = {k: self._names.entries(k) for k in keys}
            return {k: entries for k, entries in found.items() if entries}

    def links_with_keys(self, keys: Collection[str]) -> list[Link]:
        if not keys:  # a first sync's parts ask for none: the index is not built for that
            return []
        with self._lock:
            self._ensure_indexes()
            return [
                as_link(self._out.row(source, ordinal))
                for key in keys
                for source, ordinal in self._links.asking(key)
            ]

    def anchors(self, ids: Collection[str]) -> dict[str, Anchors]:
        with self._lock:
            # From the held rows, none built into a node: a first sync asks this of every
            # target of an anchored link, and nothing else there reads them.
            held = self._memories
            return {i: anchors_of(m) for i in ids if (m := held.get(i)) is not None}

    # ------------------------------------------------------------------ reads

    def _memory(self, node_id: str) -> MemoryNode | None:
        """The memory of that id (without its body), built from its row on first read."""
        held = self._memories.get(node_id)
        if type(held) is tuple:
            held = self._memories[node_id] = memory_of(held)
        return held  # type: ignore[return-value]

    def _memory_facts(self, node_id: str) -> tuple[str, str, str | None] | None:
        held = self._memories.get(node_id)
        return None if held is None else facts_of(held)

    def _all_memories(self) -> Collection[MemoryNode]:
        for node_id, held in self._memories.items():
            if type(held) is tuple:
                self._memories[node_id] = memory_of(held)
        return self._memories.values()  # type: ignore[return-value]

    def _full(self, memory: MemoryNode) -> MemoryNode:
        """The memory as written: its body put back (nodes leave the store only this way)."""
        return self._bodies.full(memory)

    def _public(self, node: Node | None) -> Node | None:
        return self._full(node) if isinstance(node, MemoryNode) else node

    def _node(self, node_id: str) -> Node | None:
        self._ensure_indexes()
        return (
            self._memory(node_id)
            or self._agents.get(node_id)
            or self._entities.get(node_id)
            or self._files.get(node_id)
            or self._links.unresolved.get(node_id)
        )

    def get_nodes(self, ids: Collection[str], *, bodies: bool = True) -> dict[str, Node]:
        with self._lock:
            found = {i: self._public(self._node(i)) if bodies else self._node(i) for i in ids}
            return {i: n for i, n in found.items() if n is not None}

    def _bare_nodes(self, ids: Collection[str]) -> dict[str, Node]:
        return self.get_nodes(ids, bodies=False)

    def find_memory(self, scope: str, name: str) -> MemoryNode | None:
        with self._lock:
            exact = self._memory(f"memory:{scope}/{name}")
            if exact is not None:
                return self._full(exact)
            self._ensure_names()
            matches = [
                self._memory(e.id)
                for e in self._names.entries(name_key(name))
                if e.kind is Kind.MEMORY and name_key(e.scope or "") == name_key(scope)
            ]
            found = matches[0] if len(matches) == 1 else None
            return None if found is None else self._full(found)

    def memory_by_path(self, path: str) -> MemoryNode | None:
        with self._lock:
            node_id = self._by_path.get(path)
            memory = None if node_id is None else self._memory(node_id)
            return None if memory is None else self._full(memory)

    def _has_link_problems(self) -> dict[str, bool]:
        return dict.fromkeys(self._out.with_problems(), True)

    def list_memories(
        self, where: MemoryFilter, after: str | None = None, limit: int | None = None,
        *, bodies: bool = True,
    ) -> list[MemoryNode]:
        with self._lock:
            order = self._order = self._order or MemoryOrder(self._memories)
            scope = where.scope if where.scope is not None else where.agent
            ids = order.ids if scope is None else order.of_scope(scope)  # only those are built
            start = 0 if after is None else bisect.bisect_right(ids, after)
            flags = self._has_link_problems() if where.has_problems is not None else {}
            out: list[MemoryNode] = []
            for node_id in ids[start:]:
                memory = self._memory(node_id)
                assert memory is not None
                if memory_matches(memory, where, flags):
                    out.append(self._full(memory) if bodies else memory)  # held without it
                    if limit is not None and len(out) >= limit:
                        break
            return out

    def count_memories(self, where: MemoryFilter) -> int:
        with self._lock:
            flags = self._has_link_problems() if where.has_problems is not None else {}
            return sum(1 for m in self._all_memories() if memory_matches(m, where, flags))

    def memory_scopes(self) -> dict[str, int]:
        with self._lock:  # from the rows as held: no memory is built for this
            return dict(Counter(map(scope_of, self._memories.values())))

    def memory_type_counts(self, scopes: Collection[str]) -> dict[str, dict[str | None, int]]:
        with self._lock:
            counts: dict[str, dict[str | None, int]] = {scope: {} for scope in scopes}
            for memory in self._all_memories():
                bucket = counts.get(memory.scope)
                if bucket is not None:
                    bucket[memory.type] = bucket.get(memory.type, 0) + 1
            return counts

    def list_agents(self) -> list[AgentNode]:
        with self._lock:
            return sorted(self._agents.values(), key=lambda a: a.name)

    def list_entities(self, kind: Kind) -> list[EntityNode]:
        with self._lock:
            return sorted(
                (e for e in self._entities.values() if e.entity_kind is kind), key=lambda e: e.id
            )

    def links_from(self, ids: Collection[str]) -> dict[str, list[Link]]:
        with self._lock:
            return {i: list(map(as_link, self._out.get(i))) for i in ids}

    def link_targets(self, ids: Collection[str]) -> dict[str, set[str]]:
        with self._lock:
            return self._out.targets(ids)

    def links_to(self, ids: Collection[str]) -> dict[str, list[Link]]:
        with self._lock:
            self._ensure_indexes()
            return {
                i: [as_link(self._out.row(s, o)) for s, o in self._links.to(i)] for i in ids
            }

    def neighborhood(self, node_id: str, depth: int, limit: int, reach: Reach = EVERYTHING) -> Subgraph:
        with self._lock:
            if self._node(node_id) is None:
                return Subgraph((), ())
            def level(ids: list[str]) -> dict[str, set[str]]:
                return {i: self._neighbours(i, reach) for i in ids}
            found = walk(node_id, depth, limit, reach, level, self._bare_nodes, self.links_from)
            return Subgraph(found.nodes, found.edges, found.truncated)

    def _neighbours(self, node_id: str, reach: Reach) -> set[str]:
        """`node_id`'s neighbours as `reach` sees them (brain/store/visibility.py)."""
        self._ensure_indexes()
        out = projected_targets(reach, map(as_link, self._out.get(node_id)))
        out |= {source for source, _ in self._links.to(node_id) if reach.sees(source)}
        key = None if reach.everything else asked_key(node_id)
        if key is not None:  # links that point here only as the caller sees them
            out |= {link.source for link in self.links_with_keys([key]) if reach.asks_for(link, node_id)}
        memory = self._memory(node_id)
        if memory is not None and memory.owner is not None:
            out.add(agent_id(memory.owner))
        if node_id.startswith("agent:"):
            name = node_id.split(":", 1)[1]
            out |= {m.id for m in self._all_memories() if m.scope == name and reach.sees(m.id)}
        return out

    def problems(self, paths: Collection[str] | None = None, reach: Reach = EVERYTHING) -> list[Problem]:
        with self._lock:
            found: list[Problem] = []
            memories: Collection[MemoryNode]
            if paths is None:
                memories = self._all_memories()
            else:
                ids = (self._by_path.get(path) for path in set(paths))
                memories = [m for i in ids if i is not None and (m := self._memory(i)) is not None]
            for memory in memories:
                if not reach.sees(memory.id):
                    continue
                found.extend(memory.problems)
                # A caller with a reach sees a resolved link into a note out of it as broken.
                rows = self._out.problem_rows(memory.id) if reach.everything else self._out.get(memory.id)
                for row in rows:
                    problem = link_problem(memory.path, reach.link(as_link(row)))
                    if problem is not None:
                        found.append(problem)
            agents = self._agents.values()
            off = (memory_off_problem(a) for a in agents if a.memory_off and reach.sees_agent(a.name))
            found.extend(p for p in off if paths is None or p.path in paths)
            return sorted_problems(found)

    def stats(self) -> Stats:
        with self._lock:
            # Counted as the links come and go; before a restore's first index, from the columns.
            counts = self._out.counts()
            unresolved = len(self._links.unresolved) if self._indexed else self._out.unresolved_count()
            kinds: dict[Kind, int] = defaultdict(int)
            for entity in self._entities.values():
                kinds[entity.entity_kind] += 1
            return Stats(
                agents=len(self._agents),
                memories=len(self._memories),
                links=sum(counts.values()),
                broken=counts[LinkStatus.BROKEN],
                ambiguous=counts[LinkStatus.AMBIGUOUS],
                missing_anchor=counts[LinkStatus.MISSING_ANCHOR],
                unresolved=unresolved,
                workflows=kinds[Kind.WORKFLOW],
                chats=kinds[Kind.CHAT],
                work_items=kinds[Kind.WORK_ITEM],
            )

    def export(self) -> GraphExport:
        with self._lock:
            self._ensure_indexes()
            nodes: set[NodeRow] = set()
            nodes.update(node_row(self._full(m)) for m in self._all_memories())
            for group in (self._agents, self._entities, self._files, self._links.unresolved):
                nodes.update(node_row(n) for n in group.values())
            edges: set[EdgeRow] = {
                base_link_row(as_link(row)) for _, rows in self._out.items() for row in rows
            }
            for memory in self._all_memories():
                edge = remembers_row(memory)
                if edge is not None:
                    edges.add(edge)
            return GraphExport(frozenset(nodes), frozenset(edges))
