"""The embedded in-process store: the default backend, and the fake other tests use.

Plain dicts with the indexes the queries need: outgoing and incoming links, links by the
name key they ask for, names by key, memories by path. Bodies are most of a graph's bytes and
few queries read them, so a memory is held without its body, which is kept zlib-compressed
beside it (about a third of the size) and put back into every node a query returns. One
lock makes each batch atomic for readers on other threads (the server answers queries while
the watcher writes).
"""

from __future__ import annotations

import bisect
import threading
import zlib
from collections import defaultdict, deque
from collections.abc import Collection, Sequence
from dataclasses import fields, replace

from brain.model import (
    AgentNode,
    Anchors,
    Edge,
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
    EdgeRow,
    GraphExport,
    MemoryFilter,
    NodeRow,
    Ranked,
    SearchWhere,
    Subgraph,
    WriteBatch,
    link_problem,
    link_row,
    memory_matches,
    memory_off_problem,
    node_row,
    remembers_row,
)
from brain.store.linking import entry_of
from brain.store.memory_search import KeywordIndex, VectorIndex

LinkKey = tuple[str, int]
_SNAPSHOT_FIELDS = {"memories", "agents", "entities", "files", "links", "deletes", "relinks"}


def pack_body(body: str) -> bytes:
    # Level 1: a third of the size at a fifth of level 6's time; a lone surrogate survives.
    return zlib.compress(body.encode("utf-8", "surrogatepass"), 1)


def unpack_body(packed: bytes) -> str:
    return zlib.decompress(packed).decode("utf-8", "surrogatepass")


class MemoryStore:
    """A complete GraphStore held in this process."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self.clear()

    # ------------------------------------------------------------------ writes

    def clear(self) -> None:
        with self._lock:
            self._memories: dict[str, MemoryNode] = {}  # without bodies: see _full
            self._bodies: dict[str, bytes] = {}  # memory id -> its body, compressed
            self._agents: dict[str, AgentNode] = {}
            self._entities: dict[str, EntityNode] = {}
            self._files: dict[str, FileNode] = {}
            self._unresolved: dict[str, UnresolvedNode] = {}
            self._out: dict[str, list[Link]] = {}
            self._in: dict[str, dict[LinkKey, Link]] = defaultdict(dict)
            self._by_key: dict[str, set[LinkKey]] = defaultdict(set)
            self._names: dict[str, dict[str, NameEntry]] = defaultdict(dict)
            self._by_path: dict[str, str] = {}
            self._sorted_ids: list[str] | None = None
            self.writes = 0
            self._keywords = KeywordIndex()
            self._vectors = VectorIndex()

    def close(self) -> None:
        pass

    def write(self, batch: WriteBatch) -> None:
        self._write(batch, keywords=True)

    def _write(self, batch: WriteBatch, keywords: bool, bodies: dict[str, bytes] | None = None) -> None:
        """`bodies`: the batch's memories come without bodies, and these are theirs (a snapshot)."""
        with self._lock:
            self.writes += 1
            touched_targets: set[str] = set()
            replaced = {
                i: self._full(self._memories[i])
                for i in [*batch.deletes, *(m.id for m in batch.memories)]
                if keywords and i in self._memories
            }
            for node_id in batch.deletes:
                self._delete(node_id, touched_targets)
            for memory in batch.memories:
                old = self._memories.get(memory.id)
                if old is not None and old.path != memory.path:
                    self._by_path.pop(old.path, None)
                if bodies is not None:
                    packed = bodies.get(memory.id)
                else:
                    packed = pack_body(memory.body) if memory.body else None
                    memory = replace(memory, body="") if memory.body else memory
                if packed is None:
                    self._bodies.pop(memory.id, None)
                else:
                    self._bodies[memory.id] = packed
                self._memories[memory.id] = memory
                self._by_path[memory.path] = memory.id
                self._index_name(memory)
            for agent in batch.agents:
                self._agents[agent.id] = agent
                self._index_name(agent)
            for entity in batch.entities:
                self._entities[entity.id] = entity
                self._index_name(entity)
            for plain in batch.files:
                self._files[plain.id] = plain
                self._index_name(plain)
            for source, links in batch.links.items():
                for old_link in self._out.pop(source, []):
                    self._unindex_link(old_link, touched_targets)
                self._out[source] = list(links)
                for link in links:
                    self._index_link(link)
            for link in batch.relinks:
                current = self._out.get(link.source)
                if current is None or link.ordinal >= len(current):
                    continue
                self._unindex_link(current[link.ordinal], touched_targets)
                current[link.ordinal] = link
                self._index_link(link)
            for target in touched_targets:
                if target.startswith("unresolved:") and not self._in.get(target):
                    self._unresolved.pop(target, None)
                    self._in.pop(target, None)
            if batch.memories or batch.deletes:
                self._sorted_ids = None
                if keywords:
                    self._keywords.apply(batch, replaced)
                self._vectors.apply(batch)

    def _delete(self, node_id: str, touched: set[str]) -> None:
        node: Node | None = (
            self._memories.pop(node_id, None)
            or self._agents.pop(node_id, None)
            or self._entities.pop(node_id, None)
            or self._files.pop(node_id, None)
        )
        if node is None or isinstance(node, UnresolvedNode):
            return
        if isinstance(node, MemoryNode):
            self._bodies.pop(node_id, None)
            self._by_path.pop(node.path, None)
            for link in self._out.pop(node_id, []):
                self._unindex_link(link, touched)
        entry = entry_of(node)
        self._names[entry.key].pop(node_id, None)

    def _index_name(self, node: MemoryNode | AgentNode | EntityNode | FileNode) -> None:
        entry = entry_of(node)
        self._names[entry.key][entry.id] = entry

    def _index_link(self, link: Link) -> None:
        ref = (link.source, link.ordinal)
        self._in[link.target_id][ref] = link
        self._by_key[link.key].add(ref)
        if link.target_id.startswith("unresolved:") and link.target_id not in self._unresolved:
            self._unresolved[link.target_id] = UnresolvedNode(link.target_id.split(":", 1)[1])

    def _unindex_link(self, link: Link, touched: set[str]) -> None:
        ref = (link.source, link.ordinal)
        incoming = self._in.get(link.target_id)
        if incoming is not None:
            incoming.pop(ref, None)
        self._by_key[link.key].discard(ref)
        touched.add(link.target_id)

    # ------------------------------------------------------------------ resolution support

    def name_entries(self, keys: Collection[str]) -> dict[str, list[NameEntry]]:
        with self._lock:
            return {k: list(self._names[k].values()) for k in keys if self._names.get(k)}

    def links_with_keys(self, keys: Collection[str]) -> list[Link]:
        with self._lock:
            return [
                self._out[source][ordinal]
                for key in keys
                for source, ordinal in sorted(self._by_key.get(key, ()))
            ]

    def anchors(self, ids: Collection[str]) -> dict[str, Anchors]:
        with self._lock:
            return {i: self._memories[i].anchors for i in ids if i in self._memories}

    # ------------------------------------------------------------------ reads

    def _full(self, memory: MemoryNode) -> MemoryNode:
        """The memory as written: its body put back (nodes leave the store only this way)."""
        packed = self._bodies.get(memory.id)
        return memory if packed is None else replace(memory, body=unpack_body(packed))

    def _public(self, node: Node | None) -> Node | None:
        return self._full(node) if isinstance(node, MemoryNode) else node

    def _node(self, node_id: str) -> Node | None:
        return (
            self._memories.get(node_id)
            or self._agents.get(node_id)
            or self._entities.get(node_id)
            or self._files.get(node_id)
            or self._unresolved.get(node_id)
        )

    def get_nodes(self, ids: Collection[str]) -> dict[str, Node]:
        with self._lock:
            found = {i: self._public(self._node(i)) for i in ids}
            return {i: n for i, n in found.items() if n is not None}

    def find_memory(self, scope: str, name: str) -> MemoryNode | None:
        with self._lock:
            exact = self._memories.get(f"memory:{scope}/{name}")
            if exact is not None:
                return self._full(exact)
            matches = [
                self._memories[e.id]
                for e in self._names.get(name_key(name), {}).values()
                if e.kind is Kind.MEMORY and name_key(e.scope or "") == name_key(scope)
            ]
            return self._full(matches[0]) if len(matches) == 1 else None

    def memory_by_path(self, path: str) -> MemoryNode | None:
        with self._lock:
            node_id = self._by_path.get(path)
            memory = None if node_id is None else self._memories.get(node_id)
            return None if memory is None else self._full(memory)

    def _has_link_problems(self) -> dict[str, bool]:
        return {
            source: any(link.status is not LinkStatus.RESOLVED for link in links)
            for source, links in self._out.items()
        }

    def list_memories(
        self, where: MemoryFilter, after: str | None = None, limit: int | None = None
    ) -> list[MemoryNode]:
        with self._lock:
            if self._sorted_ids is None:
                self._sorted_ids = sorted(self._memories)
            ids = self._sorted_ids
            start = 0 if after is None else bisect.bisect_right(ids, after)
            flags = self._has_link_problems() if where.has_problems is not None else {}
            out: list[MemoryNode] = []
            for node_id in ids[start:]:
                memory = self._memories[node_id]
                if memory_matches(memory, where, flags):
                    out.append(self._full(memory))
                    if limit is not None and len(out) >= limit:
                        break
            return out

    def count_memories(self, where: MemoryFilter) -> int:
        with self._lock:
            flags = self._has_link_problems() if where.has_problems is not None else {}
            return sum(1 for m in self._memories.values() if memory_matches(m, where, flags))

    def memory_type_counts(self, scopes: Collection[str]) -> dict[str, dict[str | None, int]]:
        with self._lock:
            counts: dict[str, dict[str | None, int]] = {scope: {} for scope in scopes}
            for memory in self._memories.values():
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
            return {i: list(self._out.get(i, ())) for i in ids}

    def links_to(self, ids: Collection[str]) -> dict[str, list[Link]]:
        with self._lock:
            return {
                i: sorted(self._in.get(i, {}).values(), key=lambda link: (link.source, link.ordinal))
                for i in ids
            }

    def neighborhood(self, node_id: str, depth: int, limit: int) -> Subgraph:
        with self._lock:
            if self._node(node_id) is None:
                return Subgraph((), ())
            seen = {node_id: 0}
            queue = deque([node_id])
            truncated = False
            while queue:
                current = queue.popleft()
                if seen[current] >= depth:
                    continue
                for neighbour in sorted(self._neighbours(current)):
                    if neighbour in seen:
                        continue
                    if len(seen) >= limit:
                        truncated = True
                        break
                    seen[neighbour] = seen[current] + 1
                    queue.append(neighbour)
            nodes = [n for n in (self._public(self._node(i)) for i in sorted(seen)) if n is not None]
            edges: list[Edge] = []
            for i in sorted(seen):
                for link in self._out.get(i, ()):
                    if link.target_id in seen:
                        edges.append(Edge("LINKS_TO", i, link.target_id, link))
                memory = self._memories.get(i)
                if memory is not None and memory.owner and agent_id(memory.owner) in seen:
                    edges.append(Edge("REMEMBERS", agent_id(memory.owner), i))
            return Subgraph(nodes, edges, truncated)

    def _neighbours(self, node_id: str) -> set[str]:
        out = {link.target_id for link in self._out.get(node_id, ())}
        out |= {source for source, _ in self._in.get(node_id, {})}
        memory = self._memories.get(node_id)
        if memory is not None and memory.owner is not None:
            out.add(agent_id(memory.owner))
        if node_id.startswith("agent:"):
            name = node_id.split(":", 1)[1]
            out |= {m.id for m in self._memories.values() if m.scope == name}
        return out

    def problems(self, paths: Collection[str] | None = None) -> list[Problem]:
        with self._lock:
            found: list[Problem] = []
            memories: Collection[MemoryNode] = self._memories.values()
            if paths is not None:
                ids = (self._by_path.get(path) for path in set(paths))
                memories = [self._memories[i] for i in ids if i is not None]
            for memory in memories:
                found.extend(memory.problems)
                for link in self._out.get(memory.id, ()):
                    problem = link_problem(memory.path, link)
                    if problem is not None:
                        found.append(problem)
            off = (memory_off_problem(a) for a in self._agents.values() if a.memory_off)
            found.extend(p for p in off if paths is None or p.path in paths)
            return sorted_problems(found)

    def stats(self) -> Stats:
        with self._lock:
            counts: dict[LinkStatus, int] = defaultdict(int)
            for links in self._out.values():
                for link in links:
                    counts[link.status] += 1
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
                unresolved=len(self._unresolved),
                workflows=kinds[Kind.WORKFLOW],
                chats=kinds[Kind.CHAT],
                work_items=kinds[Kind.WORK_ITEM],
            )

    def export(self) -> GraphExport:
        with self._lock:
            nodes: set[NodeRow] = set()
            nodes.update(node_row(self._full(m)) for m in self._memories.values())
            for group in (self._agents, self._entities, self._files, self._unresolved):
                nodes.update(node_row(n) for n in group.values())
            edges: set[EdgeRow] = {link_row(link) for links in self._out.values() for link in links}
            for memory in self._memories.values():
                row = remembers_row(memory)
                if row is not None:
                    edges.add(row)
            return GraphExport(frozenset(nodes), frozenset(edges))

    # ------------------------------------------------------------------ snapshot (brain/snapshot.py)

    def contents(self) -> tuple[WriteBatch, bytes, dict[str, bytes]]:
        """Everything held, as one batch that builds this graph in an empty store, the keyword
        index as an image (inserting 100,000 bodies again costs seconds), and the bodies as
        held (compressed; the batch's memories come without them)."""
        unknown = {f.name for f in fields(WriteBatch)} - _SNAPSHOT_FIELDS
        if unknown:  # a node kind added without a line here: refuse, never write part of the graph
            raise TypeError(f"MemoryStore.contents does not hold WriteBatch.{', '.join(sorted(unknown))}")
        with self._lock:
            batch = WriteBatch(
                memories=list(self._memories.values()),
                agents=list(self._agents.values()),
                entities=list(self._entities.values()),
                files=list(self._files.values()),
                links={source: list(links) for source, links in self._out.items()},
            )
            return batch, self._keywords.image(), dict(self._bodies)

    def restore(self, batch: WriteBatch, keyword_image: bytes, bodies: dict[str, bytes]) -> None:
        """Become the graph `contents()` gave (of this store or another process's)."""
        with self._lock:
            self.clear()
            self._keywords.load_image(keyword_image)
            self._write(batch, keywords=False, bodies=bodies)

    # ------------------------------------------------------------------ search (SearchIndex)

    def keyword_search(self, terms: Sequence[str], where: SearchWhere, limit: int) -> Ranked:
        with self._lock:
            return self._keywords.search(terms, where, limit)

    def vector_search(self, vector: Sequence[float], where: SearchWhere, limit: int) -> Ranked:
        with self._lock:
            return self._vectors.search(vector, where, limit)

    def put_vectors(self, rows: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        with self._lock:
            self._vectors.put(rows)

    def vector_hashes(self) -> dict[str, str]:
        with self._lock:
            return self._vectors.hashes()
