"""The GraphStore interface every backend implements, and the records it trades in.

A store holds nodes and edges and answers queries; it does not decide where a link points.
Resolution happens once, in `brain.store.linking`, which turns file changes into one
`WriteBatch`. That keeps both backends equal by construction, and lets the Neo4j store
write each batch as a few `UNWIND` statements in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from brain.model import (
    AgentNode,
    Anchors,
    Edge,
    EntityNode,
    FileNode,
    JSONValue,
    Kind,
    Link,
    LinkStatus,
    MemoryNode,
    Node,
    Problem,
    Severity,
    Stats,
    name_key,
)
from brain.resolve import NameEntry
from brain.store.visibility import EVERYTHING, Reach

if TYPE_CHECKING:  # numpy is not imported for a type (the language server starts without it)
    from brain.index.postings import KeywordRow


class StoreUnavailable(Exception):
    """The chosen store cannot be used (or went away): one clear line for the user, no traceback.

    It lives with the interface, not with a backend or `open_store`, so every layer that
    raises or catches it imports downwards.
    """


class StoreReadOnly(StoreUnavailable):
    """A write reached a read-only replica: the message names the writer to send it to."""


@dataclass(slots=True)
class WriteBatch:
    """One atomic change of the graph.

    `links` replaces the whole outgoing link list of each source named; `relinks` updates
    single existing links of other sources (same source and ordinal) whose resolution changed.
    Unresolved nodes are the store's business: it creates the ones links point to and drops
    the ones nothing points to any more.
    """

    memories: list[MemoryNode] = field(default_factory=list)
    agents: list[AgentNode] = field(default_factory=list)
    entities: list[EntityNode] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    links: dict[str, list[Link]] = field(default_factory=dict)
    relinks: list[Link] = field(default_factory=list)
    files: list[FileNode] = field(default_factory=list)  # layouts with plain files (space)
    # Memories' keyword counts made by a parse helper, by id: the embedded store's keyword
    # index takes them instead of counting the words again (brain/index/postings.py).
    keywords: dict[str, KeywordRow] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(
            self.memories or self.agents or self.entities or self.deletes or self.links
            or self.relinks or self.files
        )

    def changed_ids(self) -> list[str]:
        ids = self.node_ids()
        ids += [link.source for link in self.relinks if link.source not in self.links]
        return sorted(set(ids))

    def node_ids(self) -> list[str]:
        """The nodes upserted or deleted (not the sources whose links were only re-resolved):
        what a change event compares with the node before."""
        ids = [m.id for m in self.memories] + [a.id for a in self.agents]
        return ids + [e.id for e in self.entities] + [f.id for f in self.files] + list(self.deletes)


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    scope: str | None = None
    agent: str | None = None
    type: str | None = None
    text: str | None = None
    has_problems: bool | None = None


@dataclass(frozen=True, slots=True)
class Subgraph:
    nodes: Sequence[Node]
    edges: Sequence[Edge]
    truncated: bool = False


NodeRow = tuple[str, str, tuple[tuple[str, JSONValue], ...]]
EdgeRow = tuple[str, str, str, tuple[tuple[str, JSONValue], ...]]


@dataclass(frozen=True, slots=True)
class GraphExport:
    """The whole graph as plain sets, to prove two stores hold the same graph."""

    nodes: frozenset[NodeRow]
    edges: frozenset[EdgeRow]


class BodySource(Protocol):
    """Where a store can read a note's body back (the workspace's files: brain/ingest/note_bodies.py),
    so that it need not hold it: the embedded store keeps a mark instead of the text, and a
    first sync into Neo4j sends each body as it builds the note's row."""

    def on_disk(self, memory: MemoryNode) -> bool:
        """True if its body is its file's on disk now (nobody need hold it)."""
        ...

    def read(self, memory: MemoryNode) -> str:
        """Its body, read from its file again."""
        ...


@runtime_checkable
class GraphStore(Protocol):
    """Storage and queries of the graph. Every write is one `WriteBatch`."""

    # writes
    def write(self, batch: WriteBatch) -> None: ...
    def clear(self) -> None: ...
    def close(self) -> None: ...
    def read_bodies_from(self, source: BodySource) -> None:
        """Hold no body `source` has on disk: a note written with an empty body that `source`
        has on disk gets its body from there (so a first sync's parsers need not send them)."""
        ...
    def body_source(self) -> BodySource | None: ...

    # what resolution needs
    def name_entries(self, keys: Collection[str]) -> dict[str, list[NameEntry]]: ...
    def links_with_keys(self, keys: Collection[str]) -> list[Link]: ...
    def anchors(self, ids: Collection[str]) -> dict[str, Anchors]:
        """Headings and block ids of these memories (ids that are not memories are left out)."""
        ...

    # reads
    def get_nodes(self, ids: Collection[str], *, bodies: bool = True) -> dict[str, Node]:
        """The nodes among `ids` that exist. `bodies=False`: each note's body is "" (the
        dashboard's entities document names 1,650 backlink sources by id and path: reading
        each body back from its file, or shipping it from Neo4j, took seconds a request)."""
        ...
    def find_memory(self, scope: str, name: str) -> MemoryNode | None: ...
    def memory_by_path(self, path: str) -> MemoryNode | None: ...
    def list_memories(
        self, where: MemoryFilter, after: str | None = None, limit: int | None = None,
        *, bodies: bool = True,
    ) -> list[MemoryNode]:
        """Memories in id order. `bodies=False`: each body is "" (a listing that shows no text,
        such as the graph overview, neither unpacks nor ships 10,000 bodies)."""
        ...
    def count_memories(self, where: MemoryFilter) -> int: ...
    def memory_type_counts(self, scopes: Collection[str]) -> dict[str, dict[str | None, int]]:
        """For each scope asked for, its memories counted by `type` (None: untyped); {} if none."""
        ...
    def memory_scopes(self) -> dict[str, int]:
        """Every scope that holds a memory, with how many it holds."""
        ...
    def list_agents(self) -> list[AgentNode]: ...
    def list_entities(self, kind: Kind) -> list[EntityNode]: ...
    def links_from(self, ids: Collection[str]) -> dict[str, list[Link]]: ...
    def links_to(self, ids: Collection[str]) -> dict[str, list[Link]]: ...
    def link_targets(self, ids: Collection[str]) -> dict[str, set[str]]:
        """For each of `ids`, the target ids of its stored links (`links_from`'s, without
        building a link: a mention sweep asks only what a note links already)."""
        ...
    def backlinks(
        self, ids: Collection[str], first: int, after: tuple[str, int, int] | None = None,
        reach: Reach = EVERYTHING,
    ) -> dict[str, list[Link]]:
        """For each of `ids`, at most `first` stored links into it whose source `reach` sees,
        in (source id, line, column) order after `after` (brain/store/backlink_pages.py): the
        store's work is the page's, not the node's every backlink; one call for many nodes."""
        ...
    def backlink_counts(self, ids: Collection[str], reach: Reach = EVERYTHING) -> dict[str, int]:
        """How many stored links land on each of `ids` from sources `reach` sees."""
        ...
    def neighborhood(self, node_id: str, depth: int, limit: int, reach: Reach = EVERYTHING) -> Subgraph:
        """The nodes within `depth` links, walking only what `reach` sees (brain/store/visibility.py);
        notes without their bodies (as get_nodes(bodies=False): a graph view shows none)."""
        ...
    def problems(self, paths: Collection[str] | None = None, reach: Reach = EVERYTHING) -> list[Problem]:
        """Every problem, or only those whose `path` is one of `paths` (an editor's open files);
        of the notes in `reach`, their links seen as it sees them."""
        ...
    def stats(self) -> Stats: ...
    def export(self) -> GraphExport: ...


@dataclass(frozen=True, slots=True)
class LogPosition:
    """Where a reader is in a shared store's change log (a replaced graph starts a new log)."""

    log_id: str | None
    seq: int


@runtime_checkable
class SharedStore(Protocol):
    """A store that outlives the process and may be shared by several (Neo4j).

    Its first sync does not start from empty: the ingester `claim`s it for the workspace,
    asks for the `difference` between the whole graph and what it holds, and writes that
    with `write_all` (all at once); a database that holds no graph yet is written in parts
    into a `staging` store instead and switched in at once. Every batch carries its changes
    into the change log (`write_all`, `write_logged`: in the batch's transaction), which
    read-only replicas follow.
    """

    read_only: bool
    replace_foreign: bool  # claim() may replace another workspace's graph (--neo4j-replace)

    def describe(self) -> str: ...
    def workspace(self) -> dict[str, JSONValue] | None:
        """Whose graph it holds (`root`, the claiming `host`, the writer's URL); None: nobody's."""
        ...
    def claim(self, root: str) -> None: ...
    def take_lease(self, root: str) -> None:
        """Become the database's one writer, or raise StoreUnavailable naming the writer there is."""
        ...
    def difference(self, graph: WriteBatch) -> WriteBatch: ...
    def write_all(
        self, batch: WriteBatch, changes: Sequence[Mapping[str, object]] = (), whole: WriteBatch | None = None
    ) -> None:
        """A first sync's difference, all at once, with its change-log entry; `whole`: the
        graph it was computed from (rewritten whole as a new generation if it is too big)."""
        ...
    def write_logged(self, batch: WriteBatch, changes: Sequence[Mapping[str, object]]) -> None:
        """An incremental batch and its change-log entry, in one transaction."""
        ...
    def staging(self) -> GraphStore | None:
        """For the first sync of a database that holds no graph yet: a store that no reader
        sees, which the sync writes in parts, then `switch_in`; None: it holds a graph."""
        ...
    def switch_in(self, staged: GraphStore, changes: Sequence[str]) -> None:
        """What `staged` holds becomes the graph at once, with the change-log entries
        `changes` (each a JSON list of one part's changes)."""
        ...
    def check_writable(self) -> None:
        """Raise StoreReadOnly, naming the writer, if this is a read-only replica."""
        ...
    def log_position(self) -> LogPosition:
        """The end of the change log now."""
        ...
    def changes_after(
        self, position: LogPosition, limit: int = 100
    ) -> tuple[LogPosition, list[dict[str, JSONValue]]]:
        """The changes logged after `position` (at most `limit` batches), and the new position."""
        ...
    def record_writer(self, url: str) -> None: ...
    def writer_url(self) -> str | None: ...


def link_problem(source_path: str, link: Link) -> Problem | None:
    """The problem a stored link stands for, if any: one wording for every front end."""
    if link.status is LinkStatus.RESOLVED:
        return None
    if link.status is LinkStatus.BROKEN:
        code = "broken-link"
        if link.candidates:
            owners = ", ".join(_explicit(c) for c in link.candidates)
            message = (
                f"`{link.raw}` is out of reach: memories are private to their agent, and "
                f"`{link.target}` is only in another agent's folder ({owners})"
            )
            scoped = _explicit(link.candidates[0])
            fix = f"link it with its scope, e.g. `[[{scoped}]]`, or move it to memory/shared/"
        else:
            message = (
                f"`{link.raw}` points to nothing: no memory, workflow, chat or work item "
                f"is named `{link.target}`"
            )
            fix = f"create the note `{link.target}` or fix the link's spelling"
    elif link.status is LinkStatus.AMBIGUOUS:
        code = "ambiguous-link"
        names = ", ".join(link.candidates)
        message = f"`{link.raw}` could mean any of: {names}"
        explicit = {name_key(_explicit(c)) for c in link.candidates}
        if len(explicit) < len(link.candidates):
            # Names that differ only in case or Unicode form: no link can tell them apart.
            fix = f"rename one of {names}: their names differ only in case or accents"
        else:
            example = next((c for c in link.candidates if _nested(c)), link.candidates[0])
            fix = "name one explicitly, e.g. `[[" + _explicit(example) + "]]`"
    else:
        code = "missing-anchor"
        message, fix = missing_anchor_words(link)
    return Problem(
        code=code,
        severity=Severity.ERROR,
        path=source_path,
        message=message,
        line=link.line,
        column=link.column,
        length=len(link.raw),
        target=link.target,
        candidates=link.candidates,
        fix=fix,
    )


def missing_anchor_words(link: Link) -> tuple[str, str]:
    """Message and fix of a `missing-anchor`: a block id and a heading are told apart."""
    anchor = (link.anchor or "").strip()
    if anchor.startswith("^"):
        block = anchor[1:].strip()
        return (
            f"`{link.raw}`: the target has no block `^{block}`",
            f"end a paragraph, list item or quote of the target with ` ^{block}`, "
            "or link to an existing block id",
        )
    if "#" in anchor:
        path = " > ".join(part.strip() for part in anchor.split("#") if part.strip())
        return (
            f"`{link.raw}`: the target has no heading path `{path}`",
            "link to an existing heading (each `#` part a heading inside the one before) "
            "or add the heading to the target",
        )
    return (
        f"`{link.raw}`: the target has no heading `{anchor}`",
        "link to an existing heading or add that heading to the target",
    )


def _explicit(node_id: str) -> str:
    """How a link names this node without doubt: `scope/name` for a memory; for a note or
    file in a folder (space), its path from the agent's memory root."""
    kind, rest = node_id.split(":", 1)
    if _nested(node_id):
        return rest.split("/", 1)[1]
    return rest if kind == "memory" else node_id


def _nested(node_id: str) -> bool:
    kind, rest = node_id.split(":", 1)
    return kind in ("memory", "file") and rest.count("/") > 1


def memory_off_problem(agent: AgentNode) -> Problem:
    reason = (
        "has no definition in agents/" if agent.path is None
        else f"is defined in {agent.path} without `memory: true`"
    )
    return Problem(
        code="memory-off",
        severity=Severity.WARNING,
        path=f"memory/{agent.name}",
        message=f"agent `{agent.name}` {reason}: its notes are kept but it cannot remember",
        fix=(
            f"add `memory: true` to the frontmatter of agents/{agent.name}.md"
            if agent.path is not None
            else f"create agents/{agent.name}.md with `memory: true`, or read and clear the folder"
        ),
    )


def memory_matches(memory: MemoryNode, where: MemoryFilter, problem_ids: Mapping[str, bool]) -> bool:
    if where.scope is not None and memory.scope != where.scope:
        return False
    if where.agent is not None and memory.scope != where.agent:
        return False
    if where.type is not None and memory.type != where.type:
        return False
    if where.text:
        needle = where.text.casefold()
        if needle not in memory.name.casefold() and needle not in memory.description.casefold():
            return False
    if where.has_problems is not None:
        has = bool(memory.problems) or problem_ids.get(memory.id, False)
        if has != where.has_problems:
            return False
    return True


def node_row(node: Node) -> NodeRow:
    """A node as a plain row, for export: both stores must give identical rows."""
    props: dict[str, JSONValue]
    if isinstance(node, MemoryNode):
        props = {
            "scope": node.scope, "name": node.name, "path": node.path,
            "description": node.description, "type": node.type, "hash": node.hash,
            "size": node.size, "modifiedAt": node.modified_at, "body": node.body,
            "headings": [[h.text, h.level, h.line, h.source] for h in node.headings],
            "blocks": [[b.id, b.line, b.column, b.start_line] for b in node.blocks],
            "properties": dict(node.properties),
            "problems": [[p.code, p.message, p.line, p.column] for p in node.problems],
        }
        if node.note_kind is not Kind.MEMORY:
            props["triggers"] = list(node.triggers)
        label = node.note_kind.label
    elif isinstance(node, AgentNode):
        props = {
            "name": node.name, "description": node.description,
            "memoryEnabled": node.memory_enabled, "memoryOff": node.memory_off, "path": node.path,
        }
        label = "Agent"
    elif isinstance(node, EntityNode):
        props = {"id": node.ident, "title": node.title, "path": node.path}
        label = node.entity_kind.label
    elif isinstance(node, FileNode):
        props = {
            "scope": node.scope, "name": node.name, "path": node.path, "size": node.size,
            "mediaType": node.media_type, "binary": node.binary, "hash": node.hash,
            "modifiedAt": node.modified_at,
        }
        label = "File"
    else:
        props = {"target": node.target}
        label = "Unresolved"
    return node.id, label, tuple(sorted((k, _freeze(v)) for k, v in props.items()))


def link_row(link: Link) -> EdgeRow:
    props: dict[str, JSONValue] = {
        "ordinal": link.ordinal, "status": link.status.value, "raw": link.raw,
        "target": link.target, "key": link.key, "label": link.label, "anchor": link.anchor,
        "embed": link.embed, "line": link.line, "column": link.column,
        "candidates": list(link.candidates),
    }
    frozen = tuple(sorted((k, _freeze(v)) for k, v in props.items()))
    return "LINKS_TO", link.source, link.target_id, frozen


def remembers_row(memory: MemoryNode) -> EdgeRow | None:
    owner = memory.owner
    return None if owner is None else ("REMEMBERS", f"agent:{owner}", memory.id, ())


def _freeze(value: JSONValue) -> JSONValue:
    # Rows must be hashable: lists and maps become canonical JSON text.
    if isinstance(value, list | dict):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return value


# ------------------------------------------------------------------ search (brain/search)


@dataclass(frozen=True, slots=True)
class SearchWhere:
    """Which memories a search may reach: `scopes` None is every scope (an admin).

    `common`: a keyword search leaves out the terms found in more than this share of the
    notes in reach, once those are thousands (related notes' "more like this" query: BM25
    weighs a word in half the notes or more at nothing, and those words' postings were most
    of its cost). The embedded index applies it (brain/index/bm25_search.py COMMON_FROM);
    Neo4j's Lucene query leaves such terms to Lucene.
    """

    scopes: frozenset[str] | None = None
    type: str | None = None
    common: float | None = None


Ranked = list[tuple[str, float]]  # (memory id, score), best first


@runtime_checkable
class SearchIndex(Protocol):
    """The search indexes a store keeps in step with its writes (both stores implement it).

    Keyword: BM25 over name, description and body, any of the terms. Vectors: one unit
    vector per memory, computed from the memory's content `hash`; a write that changes a
    memory's hash drops its vector until `put_vectors` brings the new one.
    """

    def keyword_search(self, terms: Sequence[str], where: SearchWhere, limit: int) -> Ranked: ...
    def vector_search(self, vector: Sequence[float], where: SearchWhere, limit: int) -> Ranked: ...
    def put_vectors(self, rows: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        """(memory id, content hash, vector): ignored where the memory's hash moved on."""
        ...
    def vector_hashes(self) -> dict[str, str]:
        """memory id -> the hash its stored vector was computed from."""
        ...
