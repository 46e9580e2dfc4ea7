"""What an ingester knows between two syncs, as plain data: per file, per node id, and
what a snapshot keeps of it (brain/snapshot/image.py). Kept apart from the sync logic in ingest.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from brain.ingest.memory_files import PENDING_HASH, Unread
from brain.model import AgentNode, MemoryNode, Problem, Severity, agent_id, entity_id, file_id, note_id
from brain.store.base import WriteBatch
from brain.store.linking import NoteChange
from brain.workspace import AgentDefinition, FileRole, unreadable_problem


class FileState(NamedTuple):
    """What a sync knew of a file. Immutable, so a copy of the states (a snapshot's, taken
    under the lock and written outside it) shares them: 6 MB at 100,000 notes. A named
    tuple, built in one C call: a first sync builds two a note (one as it hands the note
    over, one with the hash the helper sends back), and the frozen dataclass it was took
    three times as long."""

    size: int
    mtime_ns: int
    hash: str
    node_id: str | None


@dataclass(slots=True)
class SyncResult:
    batch: WriteBatch
    files: int = 0
    read: int = 0
    parsed: int = 0
    seconds: float = 0.0
    changed_ids: list[str] = field(default_factory=list)


@dataclass(slots=True)
class IngestState:
    """What an Ingester knows besides the store, as a snapshot keeps it (brain/snapshot/image.py)."""

    files: dict[str, FileState]
    file_problems: dict[str, Problem]
    definitions: dict[str, AgentDefinition]
    claims: dict[str, tuple[str, ...]]  # sorted; immutable, so a copy of the state shares them
    agents: dict[str, AgentNode]
    scopes: set[str]
    path_problems: dict[str, tuple[Problem, ...]]
    content_problems: dict[str, list[Problem]]
    scope_problems: dict[str, list[Problem]]


# Everything an Ingester has: what IngestState keeps, and what a snapshot must not keep.
_STATE_ATTRIBUTES = {
    "files", "file_problems", "definitions", "claims", "_agents", "_scopes",
    "path_problems", "content_problems", "scope_problems",
    # Not kept: given to the constructor again, or transient (the day rules last ran).
    "root", "store", "overlays", "_synced", "_rebuild", "listeners", "layout", "config", "today",
    "_rule_day", "change_log", "switched",
    # A first sync's mention seeds (brain/ingest/mention_seeds.py): a snapshot's load parses
    # nothing, and its sweep reads the notes as before.
    "seed_mentions", "mention_seeds",
}


def defined_id(role: FileRole) -> str | None:
    """The id of the node a file defines, from its path alone (None: it defines none)."""
    if role.kind == "memory":
        return note_id(role.node_kind, role.scope, role.name)
    if role.kind == "file":
        return file_id(role.scope, role.name)
    if role.kind == "entity":
        assert role.entity_kind is not None
        return entity_id(role.entity_kind, role.name)
    if role.kind == "agent":
        return agent_id(role.name)
    return None


def duplicate_problem(rel: str, node_id: str, winner: str) -> Problem:
    kind, name = node_id.split(":", 1)
    return Problem(
        "duplicate-file", Severity.WARNING, rel,
        f"defines {kind} `{name}` again: brain reads it from {winner} and ignores this file",
        fix=f"merge it into {winner} and delete it, or give it another name",
    )


def agent_nodes(
    definitions: Mapping[str, AgentDefinition], scopes: set[str], need_definition: bool
) -> dict[str, AgentNode]:
    """The agents: every definition plus every scope folder (a folder outlives its agent).
    `need_definition` (latchai): memory is on only where a definition says `memory: true`;
    otherwise an agent folder is an agent that remembers."""
    wanted: dict[str, AgentNode] = {}
    for name in set(definitions) | scopes:
        definition = definitions.get(name)
        if need_definition:
            enabled = definition is not None and definition.memory
        else:
            enabled = definition.memory if definition is not None else True
        wanted[name] = AgentNode(
            name=name,
            description=definition.description if definition else "",
            memory_enabled=enabled,
            memory_off=name in scopes and not enabled,
            path=definition.path if definition else None,
        )
    return wanted


def parsed_notes(
    files: dict[str, FileState], file_problems: dict[str, Problem],
    results: list[NoteChange | Unread], later: list[MemoryNode], unread: list[str],
) -> list[NoteChange]:
    """The notes among parse results. Their file states hold their memory's hash string,
    not an equal copy (the helper hashed the bytes again): 11 MB at 100,000 notes; a note
    handed over by path gets its hash so. A note parsed before its file state was kept (the
    serial parse of a chunk's last file) goes into `later`. A file handed over by path that
    could not be read is reported (its name added to `unread`), as one read here would be."""
    notes: list[NoteChange] = []
    for result in results:
        if isinstance(result, Unread):
            files.pop(result.rel, None)
            file_problems[result.rel] = unreadable_problem(result.rel, result.reason)
            unread.append(result.rel)
            continue
        share_hash(files, result.memory, later)
        notes.append(result)
    return notes


def share_hash(files: dict[str, FileState], memory: MemoryNode, later: list[MemoryNode] | None) -> None:
    state = files.get(memory.path)
    if state is not None and state.hash in (memory.hash, PENDING_HASH):
        if state.hash is not memory.hash:
            # Built, not `replace`d: dataclasses.replace is ten times the cost, once a note.
            files[memory.path] = FileState(state.size, state.mtime_ns, memory.hash, state.node_id)
    elif later is not None:
        later.append(memory)

class KnownState:
    """What an Ingester knows besides the store, taken and given back (a snapshot's side of
    it, brain/snapshot/image.py), and forgotten after a failed sync. Mixed into Ingester."""

    files: dict[str, FileState]
    file_problems: dict[str, Problem]
    definitions: dict[str, AgentDefinition]
    claims: dict[str, tuple[str, ...]]
    _agents: dict[str, AgentNode]
    _scopes: set[str]
    path_problems: dict[str, tuple[Problem, ...]]
    content_problems: dict[str, list[Problem]]
    scope_problems: dict[str, list[Problem]]
    _synced: bool
    _rebuild: bool

    def state(self) -> IngestState:
        """A copy of what this ingester knows (the store holds the rest)."""
        unknown = set(vars(self)) - _STATE_ATTRIBUTES
        if unknown:  # new state without a line in IngestState: a snapshot would lose it
            raise TypeError(f"IngestState does not hold Ingester.{', '.join(sorted(unknown))}")
        files = dict(self.files)  # frozen states: shared
        return IngestState(
            files, dict(self.file_problems), dict(self.definitions),
            dict(self.claims),
            dict(self._agents), set(self._scopes),
            dict(self.path_problems), dict(self.content_problems), dict(self.scope_problems),
        )

    def restore(self, state: IngestState) -> None:
        """Know what `state` says, as if it had been synced (the store was restored with it):
        the next `sync` is then a rescan that reads only what changed since."""
        self.files, self.file_problems = state.files, state.file_problems
        self.definitions, self.claims = state.definitions, state.claims
        self._agents, self._scopes = state.agents, state.scopes
        self.path_problems, self.content_problems = state.path_problems, state.content_problems
        self.scope_problems = state.scope_problems
        self._synced, self._rebuild = True, False

    def _forget(self) -> None:
        """A sync failed midway (e.g. the store went away): the store may hold part of it.

        Forget what was read, so the next sync clears the store and ingests everything:
        the same graph as if the failed sync had never started.
        """
        self.files.clear()
        self.file_problems.clear()
        self.path_problems.clear()
        self.content_problems.clear()
        self.scope_problems.clear()
        self.definitions.clear()
        self.claims.clear()
        self._agents = {}
        self._scopes = set()
        self._synced = False
        self._rebuild = True
