"""The memory service: safe reads and writes of notes by scope and name, for every front end.

The agent's memory tool (`brain.tool.calls.tool`), the HTTP API and the CLI all end here. A write
takes the scope folder's lock, checks who may write, the expected hash, the text, its size
and secrets, replaces the file atomically, applies it to the graph at once (`Brain.sync`,
so the watcher later finds nothing new), and appends a history record. The cap's check, the
note's change and its record are one step under the history's lock (brain/tool/history/service.py):
a change whose record cannot be written is put back, so every change is recorded.

Paths in messages and suggested calls come from an `Addressing`: agents see virtual paths
(`/memories/x.md`), HTTP clients see URLs (`/api/memory/shared/x.md`).
"""

from __future__ import annotations

import difflib
import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from brain.ingest.memory_files import content_hash
from brain.model import SHARED_SCOPE
from brain.tool.access import Actor
from brain.tool.agents import AgentDirectory, AgentState
from brain.tool.calls.refusal import Call, Refusal, RefusalCode
from brain.tool.catalog import Catalog, NoteInfo
from brain.tool.counting import counted_write
from brain.tool.files.confined import FileData, FileTooLarge, MemoryFolders, ScopeFolder, UnsafeEntry
from brain.tool.files.content import check_content
from brain.tool.files.names import MD, fold
from brain.tool.files.requirements import Required, check_required
from brain.tool.gate import Addressing, Gate
from brain.tool.history.baseline import Baselines, default_baseline_path
from brain.tool.history.blobs import BlobStore, default_blob_dir
from brain.tool.history.cap import HistoryMeter
from brain.tool.history.log import History, HistoryRecord
from brain.tool.history.parsed import ParsedVersions, default_parsed_path
from brain.tool.history.retention import Retention
from brain.tool.history.service import HistoryKeeping
from brain.tool.prompt import render_prompt

if TYPE_CHECKING:
    from brain.service.brain import Brain

Clock = Callable[[], float]
HISTORY_ENV = "BRAIN_MEMORY_HISTORY"
DEFAULT_MAX_FILE_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class WriteOutcome:
    scope: str
    name: str
    rel: str
    before: str | None
    after: str | None
    text: str | None  # the file's text after the write (None after a delete)
    record: HistoryRecord | None  # None when nothing changed

    @property
    def created(self) -> bool:
        return self.before is None and self.after is not None

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass(frozen=True, slots=True)
class ScopeInfo:
    scope: str
    agent: AgentState | None  # None for the shared scope
    notes: list[NoteInfo]

    @property
    def memory_off(self) -> bool:
        return self.agent is not None and not self.agent.memory_enabled


Produce = Callable[[str | None], str]


log = logging.getLogger(__name__)


class MemoryService(HistoryKeeping):
    def __init__(
        self,
        root: Path,
        brain: Brain | None = None,
        *,
        history: History | None = None,
        clock: Clock = time.time,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> None:
        self.root = Path(root).resolve()
        self.brain = brain
        self.folders = MemoryFolders(self.root)
        self.agents = AgentDirectory(self.root)
        self.gate = Gate(self.agents)
        self.catalog = Catalog(self.folders)
        self.history = history if history is not None else History(default_history_path(self.root))
        self.clock = clock
        self.max_file_bytes = max_file_bytes
        # Each version written, for the history's diffs (capped like a write).
        self.blobs = BlobStore(default_blob_dir(self.history.path), max_file_bytes)
        self.parsed = ParsedVersions(default_parsed_path(self.blobs.directory))
        # The first version brain saw of each note no record names (history/baseline.py).
        self.baselines = Baselines(default_baseline_path(self.blobs.directory))
        self._retention: Retention | None = None  # the operator's [history], on the first write
        self.meter = HistoryMeter(self.history, self.blobs)  # against BRAIN_HISTORY_*_BYTES
        # Files people put there may be bigger than the tool writes; past this, not even read.
        self.read_limit = max(16 * max_file_bytes, 1 << 20)

    @property
    def counted_brain(self) -> Brain | None:
        """The brain whose metrics count this service's writes (brain/tool/counting.py)."""
        return self.brain

    # ------------------------------------------------------------------ who may do what

    def agent_state(self, name: str | None) -> AgentState:
        """The named agent, or a refusal: no name, a name that cannot be an agent, or unknown."""
        return self.gate.agent_state(name)

    def authorize(self, actor: Actor, scope: str, addr: Addressing, *, write: bool) -> None:
        """Refuse unless `actor` may read (or write) `scope`; other agents' scopes do not exist."""
        self.gate.authorize(actor, scope, addr, write=write)
        reason = self.brain.read_only_reason() if write and self.brain is not None else None
        if reason is not None:
            raise Refusal(RefusalCode.READ_ONLY, reason)

    # ------------------------------------------------------------------ reads

    def read(
        self, actor: Actor, scope: str, name: str, *, call: Call, addr: Addressing,
        path_arg: str = "path",
    ) -> FileData:
        self.authorize(actor, scope, addr, write=False)
        with self._folder(scope, addr, create=False, lock=False) as folder:
            found = None if folder is None else self._current(
                folder, name, call, path_arg, addr, creating=False
            )
            if found is None:
                raise self._not_found(folder, scope, name, call, path_arg, addr)
            return found

    def exists(self, scope: str, name: str) -> bool:
        """Whether the note is there as a regular file (no refusal, no permission check)."""
        try:
            with self.folders.open(scope) as folder:
                return folder is not None and folder.lookup(name) is not None
        except (OSError, UnsafeEntry):
            return False

    def notes(self, scope: str) -> list[NoteInfo]:
        return self.catalog.notes(scope)

    def listed_notes(self, scope: str) -> list[NoteInfo]:
        """The notes a `view` of a folder lists; a symlinked or unsafe folder is refused."""
        try:
            return self.catalog.notes(scope, strict=True)
        except UnsafeEntry as exc:
            raise _unsafe(exc) from None

    def scopes(self, actor: Actor) -> list[ScopeInfo]:
        """Shared first, then every agent with memory on or a folder, by name."""
        out = [ScopeInfo(SHARED_SCOPE, None, self.notes(SHARED_SCOPE))]
        for state in self.agents.all():
            if (state.memory_enabled or state.has_folder) and actor.can_see(state.name):
                out.append(ScopeInfo(state.name, state, self.notes(state.name)))
        return out

    def prompt(self, agent: str, now: float | None = None) -> str | None:
        """The `## Your memory` block, or None when the agent's memory is off."""
        state = self.agent_state(agent)
        if not state.memory_enabled:
            return None
        when = self.clock() if now is None else now
        return render_prompt(self.notes(agent), self.notes(SHARED_SCOPE), when)

    # ------------------------------------------------------------------ writes

    @counted_write("write")
    def write(
        self, actor: Actor, scope: str, name: str, produce: Produce, *, command: str, call: Call,
        addr: Addressing, expected: str | None = None, create: bool = False,
        path_arg: str = "path", content_arg: str | None = None, edit: bool = False,
        requires: Sequence[Required] = (),
    ) -> WriteOutcome:
        """Replace a note by `produce(old text)`.

        `edit`: `produce` changes the old text, which must then be UTF-8 (it gets None for a
        new file); otherwise it writes the whole file and gets None. `create`: the file may
        be new. Secrets are looked for only on lines that differ from the old file.
        """
        self.authorize(actor, scope, addr, write=True)
        with self._folder(scope, addr, create=create, lock=True) as folder:
            current = None if folder is None else self._current(
                folder, name, call, path_arg, addr, creating=create
            )
            before = content_hash(current.data) if current is not None else None
            self._check_expected(expected, before, scope, name, addr)
            check_required(self.root, requires, addr.listing(scope), self.links_sources)  # requirements.py
            if (current is None and not create) or folder is None:
                raise self._not_found(folder, scope, name, call, path_arg, addr)
            old_text = None
            if current is not None and edit:
                old_text = self._text_of(current, scope, name, addr)
            new_text = produce(old_text)
            seen = None if current is None else current.data.decode("utf-8", errors="replace")
            data = self._check_content(new_text, seen, scope, name, call, addr, content_arg)
            after = content_hash(data)
            if after == before:
                return WriteOutcome(scope, name, folder.rel_of(name), before, after, new_text, None)
            shown, rel = addr.path(scope, name), folder.rel_of(name)
            with self.history_step(shown):  # the cap's check through the record: one writer at a time
                self.check_history_room(actor, shown, current.data if current else None, data)
                self.keep_versions(current.data if current is not None else None, data)
                folder.write_atomic(name, data, mode=current.mode if current is not None else None)
                record = self.record_or_undo(
                    lambda: _put_back(folder, name, current), shown, actor, command, scope, rel, before, after
                )
            self._sync([rel])
            return WriteOutcome(scope, name, rel, before, after, new_text, record)

    @counted_write("delete")
    def delete(
        self, actor: Actor, scope: str, name: str, *, call: Call, addr: Addressing,
        expected: str | None = None, command: str = "delete", requires: Sequence[Required] = (),
    ) -> WriteOutcome:
        self.authorize(actor, scope, addr, write=True)
        with self._folder(scope, addr, create=False, lock=True) as folder:
            current = None if folder is None else self._current(
                folder, name, call, "path", addr, creating=False
            )
            before = content_hash(current.data) if current is not None else None
            self._check_expected(expected, before, scope, name, addr)
            check_required(self.root, requires, addr.listing(scope), self.links_sources)  # the kept copy
            if current is None or folder is None:
                raise self._not_found(folder, scope, name, call, "path", addr)
            shown, rel, kept = addr.path(scope, name), folder.rel_of(name), current
            with self.history_step(shown):
                self.keep_versions(current.data, None)
                folder.unlink(name)
                record = self.record_or_undo(
                    lambda: _put_back(folder, name, kept), shown, actor, command, scope, rel, before, None
                )
            self._sync([rel])
            return WriteOutcome(scope, name, rel, before, None, None, record)

    @counted_write("rename")
    def rename(
        self, actor: Actor, source: tuple[str, str], target: tuple[str, str], *, call: Call,
        addr: Addressing, expected: str | None = None,
    ) -> WriteOutcome:
        (scope, name), (new_scope, new_name) = source, target
        self.authorize(actor, scope, addr, write=True)
        self.authorize(actor, new_scope, addr, write=True)
        if (scope, name) == (new_scope, new_name):
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT,
                f"old_path and new_path are both {addr.path(scope, name)}: nothing to rename",
                addr.reading(scope, name),
            )
        self.history.refuse_unless_writable()
        try:
            opened = self.folders.open_many([scope, new_scope], create={new_scope})
            with opened as folders:
                src, dst = folders.get(scope), folders[new_scope]
                current = None if src is None else self._current(
                    src, name, call, "old_path", addr, creating=False
                )
                before = content_hash(current.data) if current is not None else None
                self._check_expected(expected, before, scope, name, addr)
                if current is None or src is None:
                    raise self._not_found(src, scope, name, call, "old_path", addr)
                self._check_free(dst, new_name, (scope, name), call, addr)
                rel, new_rel, shown = src.rel_of(name), dst.rel_of(new_name), addr.path(scope, name)
                with self.history_step(shown):
                    try:
                        src.move(name, dst, new_name)
                    except FileExistsError:
                        raise self._taken(dst, new_name, call, addr) from None
                    record = self.record_or_undo(
                        lambda: dst.move(new_name, src, name), shown, actor, "rename", scope, rel, before,
                        before, new_scope=new_scope, new_path=new_rel,
                    )
                self._sync([rel, new_rel])
                text = current.data.decode("utf-8", errors="replace")
                return WriteOutcome(new_scope, new_name, new_rel, before, before, text, record)
        except UnsafeEntry as exc:
            raise _unsafe(exc) from None

    # ------------------------------------------------------------------ internals

    def links_sources(self, ids: list[str]) -> dict[str, list[str]]:
        found = {} if self.brain is None else self.brain.store.links_to(ids)
        return {i: [link.source for link in found.get(i, [])] for i in ids}

    @contextmanager
    def _folder(
        self, scope: str, addr: Addressing, *, create: bool, lock: bool
    ) -> Iterator[ScopeFolder | None]:
        if lock:  # a write: refused before it changes anything if it could not be recorded
            self.history.refuse_unless_writable()
        try:
            with self.folders.open(scope, create=create, lock=lock) as folder:
                yield folder
        except UnsafeEntry as exc:
            raise _unsafe(exc) from None

    def _current(
        self, folder: ScopeFolder, name: str, call: Call, path_arg: str, addr: Addressing,
        *, creating: bool,
    ) -> FileData | None:
        """The file as it is now, or None; refuses a name that differs from one only in case."""
        entry = folder.lookup(name)
        if entry is not None:
            try:
                return folder.read(name, limit=self.read_limit)
            except FileTooLarge as exc:
                raise Refusal(
                    RefusalCode.TOO_LARGE,
                    f"{addr.path(folder.scope, name)} is {exc.size:,} bytes, more than the memory tool "
                    f"reads ({self.read_limit:,}): a person can split it into notes of one topic each",
                    addr.listing(folder.scope),
                ) from None
        other = folder.same_name(name)
        if other is None:
            return None
        here, there = addr.path(folder.scope, name), addr.path(folder.scope, other)
        fixed = call.with_args(**{path_arg: there})
        if creating:
            raise Refusal(
                RefusalCode.CASE_CONFLICT,
                f"{here} differs from the existing {there} only in case or accents: on many file "
                f"systems they are one file. Write to {there} instead",
                fixed,
            )
        raise Refusal(
            RefusalCode.NOT_FOUND,
            f"there is no {here}, but there is {there} (the names differ only in case or accents)",
            fixed,
        )

    def _not_found(
        self, folder: ScopeFolder | None, scope: str, name: str, call: Call, path_arg: str,
        addr: Addressing,
    ) -> Refusal:
        here = addr.path(scope, name)
        names = [e.name for e in folder.entries()] if folder is not None else []
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
        if close:
            return Refusal(
                RefusalCode.NOT_FOUND,
                f"{here} does not exist; the closest name is {addr.path(scope, close[0])}",
                call.with_args(**{path_arg: addr.path(scope, close[0])}),
            )
        listing = addr.listing(scope)
        return Refusal(
            RefusalCode.NOT_FOUND,
            f"{here} does not exist; {listing.short()} lists the files there are",
            listing,
        )

    def _taken(self, folder: ScopeFolder, name: str, call: Call, addr: Addressing) -> Refusal:
        free = self._free_name(folder, name)
        return Refusal(
            RefusalCode.ALREADY_EXISTS,
            f"{addr.path(folder.scope, name)} already exists: delete it first if it should go, "
            f"or rename to a free name",
            call.with_args(new_path=addr.path(folder.scope, free)),
        )

    def _check_free(
        self, folder: ScopeFolder, name: str, source: tuple[str, str], call: Call, addr: Addressing,
    ) -> None:
        if folder.lookup(name) is not None:
            raise self._taken(folder, name, call, addr)
        other = folder.same_name(name)
        if other is not None and (folder.scope, other) != source:
            free = self._free_name(folder, name)
            raise Refusal(
                RefusalCode.CASE_CONFLICT,
                f"{addr.path(folder.scope, name)} differs from the existing "
                f"{addr.path(folder.scope, other)} only in case or accents: on many file systems "
                "they are one file",
                call.with_args(new_path=addr.path(folder.scope, free)),
            )

    @staticmethod
    def _free_name(folder: ScopeFolder, name: str) -> str:
        taken = {fold(n) for n in os.listdir(folder.fd)}
        stem = name[: -len(MD)]
        n = 2
        while fold(f"{stem}-{n}{MD}") in taken:
            n += 1
        return f"{stem}-{n}{MD}"

    def _check_expected(
        self, expected: str | None, before: str | None, scope: str, name: str, addr: Addressing
    ) -> None:
        if expected is None or expected == before or (expected == "" and before is None):
            return
        here = addr.path(scope, name)
        if expected == "":
            message = f"{here} already exists (the call expected it not to): read it, then decide"
        elif before is None:
            message = f"{here} no longer exists: someone deleted or renamed it since you read it"
        else:
            message = (
                f"{here} changed since you read it (its hash is now {before[:12]}…, not "
                f"{expected[:12]}…): read it again and redo the edit on the current text"
            )
        raise Refusal(
            RefusalCode.CONFLICT, message,
            addr.reading(scope, name) if before is not None else addr.listing(scope),
        )

    def _text_of(self, current: FileData, scope: str, name: str, addr: Addressing) -> str:
        try:
            return current.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = current.data[: exc.start].count(b"\n") + 1
            raise Refusal(
                RefusalCode.NOT_TEXT,
                f"{addr.path(scope, name)} is not valid UTF-8 (line {line}), so it cannot be "
                "edited in place: overwrite it whole with create",
                Call("create", {"path": addr.path(scope, name)}),
            ) from None

    def _check_content(
        self, text: str, old: str | None, scope: str, name: str, call: Call, addr: Addressing,
        content_arg: str | None,
    ) -> bytes:
        second = addr.path(scope, name[: -len(MD)] + "-2" + MD)
        return check_content(
            text, old, addr.path(scope, name), call, content_arg, self.max_file_bytes, second
        )

    def _sync(self, rels: list[str]) -> None:
        brain = self.brain
        if brain is not None and brain.ready:
            external = self.external
            if external is not None:  # the tool's own write: it records it itself
                external.own(rels)
            try:
                brain.sync(rels)
            finally:
                if external is not None:
                    external.done(rels)


def _put_back(folder: ScopeFolder, name: str, old: FileData | None) -> None:
    """Undo a change whose history record could not be written: the old version, or no file."""
    if old is None:
        folder.unlink(name)
    else:
        folder.write_atomic(name, old.data, mode=old.mode)


def default_history_path(root: Path) -> Path:
    configured = os.environ.get(HISTORY_ENV)
    return Path(configured) if configured else root / ".brain" / "history.jsonl"


def _unsafe(exc: UnsafeEntry) -> Refusal:
    if exc.what == "a symbolic link":
        return Refusal(
            RefusalCode.SYMLINK,
            f"{exc.rel} is a symbolic link: brain never follows links out of the memory folders. "
            "A person can replace the link with the real file or folder",
            None,
        )
    return Refusal(
        RefusalCode.UNSAFE_FOLDER,
        f"{exc.rel} is {exc.what}: memories are regular files directly inside memory/<scope>/",
        None,
    )
