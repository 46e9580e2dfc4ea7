"""Workspace -> store: a full ingest, and cheap rescans that touch only what changed.

Both are one code path, `Ingester.sync`: stat every file (or just the named ones), read
only files whose size or mtime changed, parse only those whose content hash changed, and
hand the result to `linking.plan` as one batch. A first sync is a full ingest (its notes
read by the parse helpers that parse them); a later one is a rescan. The file system is the
truth; watcher events only say where to look.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path
from sys import intern

from brain.budgets import note_budget
from brain.config.workspace import BrainConfig
from brain.gcpause import gc_paused
from brain.ingest.claims import claim
from brain.ingest.memory_files import PENDING_HASH, content_hash
from brain.ingest.mention_seeds import MentionSeeds, walk_vocabulary
from brain.ingest.parse_helpers import MemoryBuilder, walk_starting
from brain.ingest.parts import KEEP, ChangeLogger, PartWriter, StagedChanges, walk_names
from brain.ingest.paths import stat_paths
from brain.ingest.state import (
    FileState,
    IngestState,
    KnownState,
    SyncResult,
    agent_nodes,
    defined_id,
    duplicate_problem,
    parsed_notes,
    share_hash,
)
from brain.ingest.unchanged import drop_unchanged
from brain.layouts import LATCHAI, Layout, RuleContext
from brain.layouts.files import SECRET_SCAN_MAX_BYTES, file_node
from brain.layouts.secrets import secret_problems
from brain.model import (
    AgentNode,
    EntityNode,
    FileNode,
    Kind,
    MemoryNode,
    Node,
    Problem,
    agent_id,
    is_note_id,
    note_id,
)
from brain.store.base import GraphStore, MemoryFilter, SharedStore, WriteBatch
from brain.store.linking import NoteChange, plan
from brain.store.memory.store import MemoryStore
from brain.workspace import (
    AgentDefinition,
    FileStat,
    read_agent_definition,
    read_bytes,
    read_entity,
    unread_problem,
    unreadable_problem,
)

__all__ = ["FileState", "IngestState", "Ingester", "Progress", "SyncResult"]

Progress = Callable[[int, int], None]
BatchListener = Callable[[WriteBatch, dict[str, Node]], None]
MEMORY_PART = 1024  # notes a part of a first sync into the embedded store


class Ingester(KnownState):
    """Keeps one store equal to one workspace folder, read as `layout` says (brain.layouts)."""

    def __init__(
        self, root: Path, store: GraphStore, layout: Layout = LATCHAI,
        config: BrainConfig | None = None,
    ) -> None:
        self.root = root.resolve()
        self.store = store
        self.layout = layout
        self.config = config if config is not None else BrainConfig()
        self.files: dict[str, FileState] = {}
        self.file_problems: dict[str, Problem] = {}
        # The layout's rule problems kept outside the store: of a path (space's bounds), of
        # a plain file's content (`secret`), and across the notes of a scope.
        self.path_problems: dict[str, tuple[Problem, ...]] = {}
        self.content_problems: dict[str, list[Problem]] = {}
        self.scope_problems: dict[str, list[Problem]] = {}
        self.definitions: dict[str, AgentDefinition] = {}
        # node id -> the files that define it; the first in sorted order wins (`x.json` and
        # `x.yaml` both define workflow `x`), so the graph never depends on sync order.
        # Sorted tuples: nearly every id has one file, and a set was 216 bytes of it
        # (22 MB at 100,000 notes, and as much again in each snapshot's copy).
        self.claims: dict[str, tuple[str, ...]] = {}
        self.overlays: dict[str, bytes] = {}
        self._agents: dict[str, AgentNode] = {}
        self._scopes: set[str] = set()
        self._synced = False
        self._rebuild = False
        self.listeners: list[BatchListener] = []
        self.change_log: ChangeLogger | None = None
        # Told the changes of a first sync written in parts onto a staged generation once it
        # is switched in (the listeners were not told part by part: readers saw none of it).
        self.switched: Callable[[Sequence[str]], None] | None = None
        # Set before a first sync that a mention sweep follows (`brain check --mentions`):
        # its parse seeds each note's mentions (brain/ingest/mention_seeds.py).
        self.seed_mentions = False
        self.mention_seeds: MentionSeeds | None = None
        # Rules about dates (mindlink's expired-daily-note) ask what day it is (UTC).
        self.today: Callable[[], date] = lambda: datetime.now(UTC).date()
        self._rule_day: date | None = None

    @property
    def synced(self) -> bool:
        return self._synced

    # ---------------------------------------------------------------- public

    def sync(self, paths: Iterable[str] | None = None, progress: Progress | None = None) -> SyncResult:
        """Bring the store up to date: everything (`paths=None`) or just these files."""
        started = time.perf_counter()
        fresh = not self._synced
        if fresh:
            if self._rebuild:
                paths = None  # after a failed sync: the whole workspace again
            if isinstance(self.store, SharedStore):
                self.store.claim(str(self.root))  # not cleared: only the difference is written
            else:
                self.store.clear()
        builder = None
        if paths is None:
            stats, builder = walk_starting(self.layout.walk(self.root), self._builder if fresh else None)
            gone = [rel for rel in self.files if rel not in stats]
            gone += [rel for rel in self.file_problems if rel not in stats and rel not in self.files]
            gone += [rel for rel in self.path_problems if rel not in stats and rel not in self.files]
            self._scopes = self.layout.scope_folders(self.root)
            self._new_day()
        else:
            stats, gone = self._stat_paths(paths)
        # Named paths are always read (the hash decides): a rewrite within the file
        # system's timestamp granularity keeps size and mtime, and the watcher saw it.
        try:
            with gc_paused(settle=fresh):
                result = self._apply(stats, gone, fresh, progress, paths is not None, builder)
        except BaseException:
            self._forget()
            raise
        self._synced = True
        self._rebuild = False
        result.seconds = time.perf_counter() - started
        return result

    def set_overlay(self, rel: str, text: str | None) -> SyncResult:
        """Use this text for `rel` instead of the disk (an editor's unsaved buffer); None drops it."""
        if text is None:
            self.overlays.pop(rel, None)
            state = self.files.get(rel)
            if state is not None:  # force a re-read of the disk; the hash still says what is stored
                self.files[rel] = state._replace(size=-2)
        else:
            self.overlays[rel] = text.encode("utf-8")
        return self.sync([rel])

    def problems(self) -> list[Problem]:
        """File-level problems the store cannot know: misplaced and unreadable files, and
        the layout's rules of paths, plain files and scopes."""
        found = list(self.file_problems.values())
        for group in (self.path_problems, self.content_problems, self.scope_problems):
            for problems in group.values():
                found.extend(problems)
        return sorted(found, key=Problem.sort_key)

    def rules_identity(self) -> str:
        """What, besides the files and brain.toml, decides the problems a sync finds: the
        layout, and today's date where a rule reads it. A snapshot keeps it (brain/snapshot/image.py)."""
        if self.layout.dated_rules:
            return f"{self.layout.name}@{self.rule_context().today.isoformat()}"
        return self.layout.name

    def rule_context(self) -> RuleContext:
        return RuleContext(self.config, self.today())

    def _new_day(self) -> None:
        """A full rescan on a new UTC day reads daily notes again: date rules say what holds
        today, not what held when the note was read (the watcher's periodic rescan is full)."""
        today = self.today()
        if self._rule_day is not None and today != self._rule_day:
            for rel, state in self.files.items():  # re-read and rebuilt, whatever its stat says
                if self.layout.classify(rel).node_kind is Kind.DAILY_NOTE:
                    self.files[rel] = state._replace(size=-2, hash="")
        self._rule_day = today

    # ---------------------------------------------------------------- internals

    def _stat_paths(self, paths: Iterable[str]) -> tuple[dict[str, FileStat], list[str]]:
        stats, gone = stat_paths(self.root, paths, self.overlays, (self.files, self.file_problems))
        # The scopes as a full walk finds them (one folder listing): a layout may make a scope
        # of more than one folder (lab's `main`: MEMORY.md or memory/), and a named empty
        # folder is a scope too.
        self._scopes = self.layout.scope_folders(self.root)
        return stats, gone

    def _builder(self, expected: int) -> MemoryBuilder:
        """What builds a sync's notes; its helpers start now if `expected` notes are many.
        The embedded store's keyword index takes words counted by the parse helpers; a note
        comes back without its body where the store reads bodies from the files (a Brain's)."""
        counted = isinstance(self.store, MemoryStore) and self.store.keyword_counts
        return MemoryBuilder((self.layout.name, self.rule_context()), keywords=counted,
                             bare=self.store.body_source() is not None, expected=expected)

    def _apply(
        self, stats: dict[str, FileStat], gone: Iterable[str], fresh: bool,
        progress: Progress | None, recheck: bool = False, to_build: MemoryBuilder | None = None,
    ) -> SyncResult:
        """`stats` is the sync's own, taken here: each entry is dropped once its file is done
        (at 100,000 notes the walk's stats and a sorted copy of them were 20 MB held to the
        end of a first sync)."""
        notes: list[NoteChange] = []
        # Notes are parsed while files are read: on helper processes once there are many.
        context = self.rule_context()
        if to_build is None:  # a first sync of many notes starts its helpers before it reads
            to_build = self._builder(sum(rel.endswith(".md") for rel in stats) if fresh else 0)
        seeds = None
        if fresh and self.seed_mentions:  # before the first file goes to a parser
            seeds = MentionSeeds(walk_vocabulary(stats, self.layout.classify))
            to_build.seed_mentions(seeds.vocabulary)
        entities: list[EntityNode] = []
        plain_files: list[FileNode] = []
        deletes: list[str] = []
        classify = self.layout.classify
        definitions_changed = False
        read = 0
        unshared: list[MemoryNode] = []  # notes back before their file's state was kept
        gone = set(gone)
        claim(self, stats, gone)
        # Notes handed over by path (their bytes read where they are parsed): only where no
        # byte of them is needed here, in a first sync of a layout whose roles need none.
        by_path = fresh and not self.layout.content_decides_role
        folder = os.path.join(self.root, "")  # a file's path is this and its rel (no Path a file)
        unread: list[str] = []  # files handed over by path that could not be read
        # A first sync into this process's own store is written in parts as notes are parsed
        # (brain/ingest/parts.py): the workspace is never held at once. Its links resolve
        # against the names of the whole walk, which the claimed paths already tell.
        # So is a first sync into a shared store (Neo4j) that holds no graph yet: onto its
        # staged generation, which no reader sees until `switch_in`.
        shared_store = self.store if isinstance(self.store, SharedStore) else None
        staging = shared_store.staging() if fresh and shared_store is not None else None
        staged_changes = StagedChanges(self.change_log)  # told the switch, not the listeners
        parts = None if not fresh or (shared_store is not None and staging is None) else PartWriter(
            staging or self.store, self.layout.links,
            [staged_changes] if staging is not None else self.listeners,
            partial(walk_names, self.layout, self.claims, self._scopes),
            # In this process a part's notes and links are the sync's peak above what the
            # store keeps: 1,024 instead of 4,096 lowered a 100,000-note sync's by 22 MB and
            # a 10,000-note one's by 28, no slower.
            MEMORY_PART if isinstance(self.store, MemoryStore) else None)

        for rel in sorted(gone):
            self.file_problems.pop(rel, None)
            self.path_problems.pop(rel, None)
            self.content_problems.pop(rel, None)
            state = self.files.pop(rel, None)
            if state is None:
                continue
            role = classify(rel)
            defined = defined_id(role)
            if defined is not None and self.claims.get(defined):
                continue  # another file still defines it, and is read if it now wins
            if role.kind == "agent":
                self.definitions.pop(role.name, None)
                definitions_changed = True
            elif state.node_id is not None:
                deletes.append(state.node_id)

        total = len(stats)
        # A rescan's unchanged files, passed over unsorted and unclassified (ingest/unchanged.py).
        skipped = 0 if recheck or not self.files else drop_unchanged(stats, self.files, self.overlays)
        if progress is not None and skipped:
            progress(skipped, total)
        for done, rel in enumerate(sorted(stats), skipped + 1):
            st = stats.pop(rel)
            if progress is not None and (done % 256 == 0 or done == total):
                progress(done, total)
            if st.refused is not None:  # whatever its place: brain did not look inside it
                self.file_problems[rel] = unread_problem(st)
                continue
            role = classify(rel)
            if role.kind == "ignored":
                continue
            if st.is_link:
                # Before the role's own problems: a linked scope folder is a link, not a
                # stray file at the top of memory/.
                self.file_problems[rel] = unread_problem(st)
                continue
            if role.kind == "problem":
                assert role.problem is not None
                self.file_problems[rel] = role.problem
                continue
            if role.problems:
                self.path_problems[rel] = role.problems
            defined = defined_id(role)
            winner = min(self.claims.get(defined) or (rel,)) if defined is not None else rel
            if defined is not None and winner != rel:
                self.file_problems[rel] = duplicate_problem(rel, defined, winner)
                continue
            known = self.files.get(rel)
            overlay = self.overlays.get(rel)
            unchanged = known is not None and (known.size, known.mtime_ns) == (st.size, st.mtime_ns)
            if overlay is None and unchanged and not recheck:
                continue
            over = st.size > note_budget().max_bytes and not self.layout.content_decides_role
            if role.kind == "memory" and overlay is None and ((by_path and known is None) or over):
                # A first sync (no bytes to compare) or a note past its budget (a stat, a hash in
                # pieces): whoever builds it reads it, on its own core; its hash comes back with it.
                read += 1
                self.file_problems.pop(rel, None)
                self.files[rel] = FileState(st.size, st.mtime_ns, PENDING_HASH,
                                            intern(note_id(role.node_kind, role.scope, role.name)))
                to_build.add((rel, role.scope, role.name, folder + rel, _seconds(st.mtime_ns)))
                notes = self._write_parsed(to_build, parts, notes, unshared, unread)
                continue
            raw = overlay if overlay is not None else read_bytes(self.root / rel)
            if isinstance(raw, OSError):
                # Keep what the graph had: a file that cannot be read now is not gone.
                self.file_problems[rel] = unreadable_problem(rel, str(raw.strerror or raw))
                continue
            read += 1
            stale = self.file_problems.get(rel)
            if stale is not None and stale.code == "unreadable-file":
                del self.file_problems[rel]
            digest = content_hash(raw)
            if known is not None and known.hash == digest:
                touched = known.mtime_ns != st.mtime_ns
                self.files[rel] = known._replace(size=st.size, mtime_ns=st.mtime_ns)
                if overlay is not None or role.kind not in ("memory", "file") or not touched:
                    continue
                # Same bytes, new modification time: the memory's age changed.
            self.file_problems.pop(rel, None)  # read anew: its own problems are decided below
            mtime = _seconds(st.mtime_ns)
            role = self.layout.content_role(rel, role, raw)  # space: a binary `.md` is a File
            node_id: str | None = None
            if role.kind == "memory":
                to_build.add((rel, role.scope, role.name, raw, mtime))
                node_id = intern(note_id(role.node_kind, role.scope, role.name))  # the store's copy
                notes = self._write_parsed(to_build, parts, notes, unshared, unread)
            elif role.kind == "file":
                node = file_node(role, rel, raw, digest, mtime)
                plain_files.append(node)
                node_id = node.id
                found = secret_problems(rel, raw.decode("utf-8")) if (
                    not node.binary and len(raw) <= SECRET_SCAN_MAX_BYTES) else []
                if found:
                    self.content_problems[rel] = found
                else:
                    self.content_problems.pop(rel, None)
            elif role.kind == "entity":
                assert role.entity_kind is not None
                title, content_problem = read_entity(rel, raw)
                title = title or role.name
                if content_problem is not None:
                    self.file_problems[rel] = content_problem
                entity = EntityNode(role.entity_kind, role.name, title, rel)
                entities.append(entity)
                node_id = entity.id
            else:
                definition = read_agent_definition(rel, role.name, raw)
                self.definitions[role.name] = definition
                if definition.problems:
                    self.file_problems[rel] = definition.problems[0]
                definitions_changed = True
            if known is not None and known.node_id not in (None, node_id):
                deletes.append(known.node_id)  # it changed kind (space: binary <-> text `.md`)
            self.files[rel] = FileState(st.size, st.mtime_ns, digest, node_id)

        notes.extend(parsed_notes(self.files, self.file_problems, to_build.finish(), unshared, unread))
        if seeds is not None:
            seeds.by_id = to_build.seeds
            self.mention_seeds = seeds
        for memory in unshared:
            share_hash(self.files, memory, None)
        del unshared
        if parts is not None:
            parts.note(notes)
            owners = parts.owners  # (not worked out again from the notes: it was thrown away)
        else:
            owners = {owner for n in notes if (owner := n.memory.owner) is not None}
        agents, agent_deletes = self._agent_changes(owners, definitions_changed or fresh)
        if parts is not None:
            parts.finish(notes, agents, entities, deletes + agent_deletes, plain_files)
            if staging is not None and shared_store is not None and parts.written:
                shared_store.switch_in(staging, staged_changes.parts)
                if self.switched is not None:
                    self.switched(staged_changes.parts)
            if self.layout.has_scope_rules:
                self._check_scopes(parts.scopes, context, fresh)
            return SyncResult(
                parts.last, files=total, read=read - len(unread), parsed=parts.parsed,
                changed_ids=sorted(parts.changed_ids),
            )
        # A shared store (Neo4j) keeps its graph between runs: a first sync writes only the
        # difference, in one transaction, and nothing at all on an unchanged workspace.
        batch = plan(self.store, notes, agents, entities, deletes + agent_deletes, fresh=fresh,
                     files=plain_files, rules=self.layout.links)
        # Their wikilinks are the batch's links now: not held through the write as well
        # (550,000 of them in a first sync of 100,000 notes into Neo4j).
        parsed = len(notes)
        del notes
        shared = self.store if fresh and isinstance(self.store, SharedStore) else None
        planned = batch  # the scope rules look at every note a first sync read, written or not
        if shared is not None:
            batch = shared.difference(batch)
        logged = self.change_log if isinstance(self.store, SharedStore) else None
        wanted = batch and (self.listeners or logged)
        before = self.store.get_nodes(batch.node_ids()) if wanted else {}
        if batch:
            # A shared store commits the batch's change-log entry with the batch itself.
            changes = logged(batch, before) if logged is not None else []
            if shared is not None:
                shared.write_all(batch, changes, whole=planned)
            elif isinstance(self.store, SharedStore):
                self.store.write_logged(batch, changes)
            else:
                self.store.write(batch)
        if self.layout.has_scope_rules and (batch or fresh):
            self._check_scopes(_scopes_of(planned), context, fresh)
        if batch:
            for listener in self.listeners:
                listener(batch, before)
        return SyncResult(
            batch, files=total, read=read - len(unread), parsed=parsed, changed_ids=batch.changed_ids()
        )

    def _write_parsed(
        self, built: MemoryBuilder, parts: PartWriter | None, notes: list[NoteChange],
        unshared: list[MemoryNode], unread: list[str],
    ) -> list[NoteChange]:
        """A first sync in parts: take what the helpers parsed, and write a part once there
        is one (the notes not written yet are returned)."""
        if parts is None or not built.due(KEEP):
            return notes
        notes.extend(parsed_notes(self.files, self.file_problems, built.take(KEEP), unshared, unread))
        if len(notes) >= parts.size:
            parts.write(notes)
            return []
        return notes

    def _check_scopes(self, scopes: set[str], context: RuleContext, fresh: bool) -> None:
        """The layout's rules across notes, again for each scope a sync touched."""
        if fresh:
            self.scope_problems.clear()
        for scope in sorted(scopes):
            notes = self.store.list_memories(MemoryFilter(scope=scope))
            found = self.layout.scope_rules(notes, context)
            if found:
                self.scope_problems[scope] = found
            else:
                self.scope_problems.pop(scope, None)

    def _agent_changes(self, owners: set[str], recompute: bool) -> tuple[list[AgentNode], list[str]]:
        """Agents are the definitions plus every scope folder (a folder outlives its agent)."""
        scopes = self._scopes | owners
        wanted = agent_nodes(self.definitions, scopes, self.layout.agents_need_definition)
        upserts = [a for n, a in sorted(wanted.items()) if self._agents.get(n) != a]
        deletes = [agent_id(n) for n in sorted(self._agents) if n not in wanted]
        self._agents = wanted
        return upserts, deletes


def _seconds(mtime_ns: int) -> float:
    return mtime_ns / 1e9 if mtime_ns >= 0 else time.time()


def _scopes_of(batch: WriteBatch) -> set[str]:
    scopes = {m.scope for m in batch.memories}
    return scopes | {i.split(":", 1)[1].split("/", 1)[0] for i in batch.deletes if is_note_id(i)}
