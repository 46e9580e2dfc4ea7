"""Reads and writes in an agent's own memory tree (`<agent>/memory/**`), on the memory tool's
safety: confinement, atomic writes, history and secret refusal.

The verbs of the space (read / write / delete) and mindlink (memory_get / memory_write /
memory_delete) layouts are thin layers over this: they decide which paths are allowed and how
answers read; this decides who may reach which tree and carries out the change. It shares the
workspace's `MemoryService` (its history, version blobs, clock and graph sync), so every write
lands in the same `/api/memory-history` as the memory tool's.

Confinement: an agent's credentials reach its own tree only; another agent's tree answers like
one that does not exist. Admins and an open server reach every agent's tree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from brain.ingest.memory_files import content_hash
from brain.layouts.files import is_binary, media_type
from brain.tool.access import Actor
from brain.tool.calls.refusal import Call, Refusal, RefusalCode, shown
from brain.tool.counting import counted_write
from brain.tool.files.confined import FileTooLarge, UnsafeEntry
from brain.tool.files.content import check_content, check_secrets
from brain.tool.files.names import NameProblem, check_agent_name
from brain.tool.history.log import HistoryRecord
from brain.tool.layouts.tree import MEMORY, AgentTree, NotAFolder, OpenTree, Removed, TreeEntry

if TYPE_CHECKING:
    from brain.service.brain import Brain
    from brain.tool.service import MemoryService

#: A read returns a file's content up to this size; past it, its metadata only.
READ_LIMIT = 8 << 20
#: A write's budget (the Space has no quota, seeds/001; a request still has a cost budget).
WRITE_LIMIT = 16 << 20
_BINARY_PROBE = 8192


@dataclass(frozen=True, slots=True)
class FileRead:
    path: str  # under memory/
    size: int
    modified_ns: int
    hash: str | None  # None when the file is past READ_LIMIT
    binary: bool  # holds a NUL byte or is not UTF-8
    media_type: str
    text: str | None  # None for binary files and files past READ_LIMIT


@dataclass(frozen=True, slots=True)
class FolderRead:
    path: str  # under memory/ ("" is the memory folder itself)
    entries: list[TreeEntry]


@dataclass(frozen=True, slots=True)
class TreeWrite:
    path: str  # under memory/
    rel: str  # in the workspace
    before: str | None
    after: str
    size: int
    record: HistoryRecord | None  # None when nothing changed

    @property
    def created(self) -> bool:
        return self.before is None

    @property
    def changed(self) -> bool:
        return self.before != self.after


@dataclass(frozen=True, slots=True)
class TreeDelete:
    path: str
    kind: str  # "file" | "folder"
    removed: list[Removed]


@dataclass(frozen=True, slots=True)
class Where:
    """How a front end names a path and the calls of a refusal's suggestion."""

    shown: str  # the path as the caller wrote it canonically: `~/memory/a.md`, `entries/a.md`
    listing: Call  # the call that lists the folder it is in
    prefix: str = ""  # what goes before a path under memory/ in messages: `~/memory/` or ""


class AgentMemory:
    def __init__(self, memory: MemoryService, max_write_bytes: int = WRITE_LIMIT) -> None:
        self.memory = memory
        self.root = memory.root
        self.max_write_bytes = max_write_bytes

    @property
    def counted_brain(self) -> Brain | None:
        """The brain whose metrics count these writes (brain/tool/counting.py)."""
        return self.memory.brain

    # ------------------------------------------------------------------ who

    def tree(self, actor: Actor, agent: object, *, write: bool) -> AgentTree:
        """The agent's tree if `actor` may reach it; another agent's is refused as missing."""
        if not isinstance(agent, str) or not agent.strip():
            raise Refusal(
                RefusalCode.NO_AGENT, "name the agent whose memory this is (`agent`)", None,
            )
        try:
            check_agent_name(agent)
        except NameProblem as problem:
            raise Refusal(RefusalCode.UNKNOWN_AGENT, problem.reason, None) from None
        missing = Refusal(
            RefusalCode.NOT_FOUND,
            f"there is no agent `{shown(agent)}` in this workspace (no {shown(agent)}/{MEMORY}/ folder)",
            None,
        )
        if actor.kind == "agent" and actor.agent != agent:
            raise missing
        if write:
            self.memory.history.refuse_unless_writable()
        tree = AgentTree(self.root, agent)
        if not tree.agent_exists():
            if write and actor.kind == "agent":
                return tree  # an agent's first write makes its own folder
            if write:
                raise Refusal(
                    RefusalCode.UNKNOWN_AGENT,
                    f"there is no agent `{shown(agent)}`: create the folder {shown(agent)}/ at the "
                    "workspace root first (brain never makes an agent from a typo)",
                    None,
                )
            raise missing
        return tree

    # ------------------------------------------------------------------ reads

    def read(self, actor: Actor, agent: str, parts: tuple[str, ...], where: Where) -> FileRead | FolderRead:
        tree = self.tree(actor, agent, write=False)
        try:
            with tree.open() as opened:
                kind = None if opened is None else opened.kind(parts)
                if opened is None or kind is None:
                    if not parts:
                        return FolderRead("", [])  # an agent with nothing saved yet
                    raise self._not_found(opened, parts, where)
                if kind == "folder":
                    return FolderRead("/".join(parts), opened.listing(parts))
                return self._read_file(opened, parts)
        except NotAFolder as exc:
            raise _not_a_folder(exc, agent, where) from None
        except UnsafeEntry as exc:
            raise _unsafe(exc) from None

    def _read_file(self, opened: OpenTree, parts: tuple[str, ...]) -> FileRead:
        path = "/".join(parts)
        try:
            found = opened.read(parts, limit=READ_LIMIT)
        except FileTooLarge as exc:
            head = opened.head(parts, _BINARY_PROBE)
            binary = b"\x00" in head or not _utf8_prefix(head)
            return FileRead(path, exc.size, 0, None, binary, media_type(parts[-1], head, binary), None)
        assert found is not None
        text = decoded(found.data)
        binary = text is None
        return FileRead(
            path, found.size, found.mtime_ns, content_hash(found.data), binary,
            media_type(parts[-1], found.data, binary), text,
        )

    # ------------------------------------------------------------------ writes

    @counted_write("write")
    def write(
        self, actor: Actor, agent: str, parts: tuple[str, ...], data: bytes, *, command: str,
        call: Call, where: Where, content_arg: str | None, expected: str | None = None,
    ) -> TreeWrite:
        """Replace (or create) the file with `data`, its folders made as needed."""
        if not parts:
            raise Refusal(RefusalCode.IS_DIRECTORY, f"{where.shown} is the memory folder itself: "
                          "name a file in it", where.listing)
        tree = self.tree(actor, agent, write=True)
        if len(data) > self.max_write_bytes:
            raise Refusal(
                RefusalCode.TOO_LARGE,
                f"{where.shown} would be {len(data):,} bytes; one write carries at most "
                f"{self.max_write_bytes:,} bytes. Split it into several files",
                None,
            )
        try:
            with tree.open(create=True, lock=True) as opened:
                assert opened is not None
                kind = opened.kind(parts)
                if kind == "folder":
                    raise Refusal(
                        RefusalCode.IS_DIRECTORY,
                        f"{where.shown} is a folder: a write replaces a file. Name a file inside it, "
                        "or delete the folder first",
                        where.listing,
                    )
                current = opened.read(parts, limit=self.max_write_bytes) if kind == "file" else None
                before = content_hash(current.data) if current is not None else None
                self._check_expected(expected, before, where)
                old = decoded(current.data) if current is not None else None
                text = decoded(data)
                if text is not None:
                    self._check_text(text, old, parts, call, where, content_arg)
                after = content_hash(data)
                path = "/".join(parts)
                if after == before:
                    return TreeWrite(path, opened.rel_of(parts), before, after, len(data), None)
                rel = opened.rel_of(parts)
                # The cap's check, the change and its record in one step (brain/tool/history/service.py).
                old_data = current.data if current is not None else None
                with self.memory.history_step(where.shown):
                    self.memory.check_history_room(actor, where.shown, old_data, data)
                    self._keep(old_data, data)
                    opened.write(parts, data, mode=current.mode if current is not None else None)

                    def undo() -> None:
                        if current is None:
                            opened.remove(parts, keep=0)
                        else:
                            opened.write(parts, current.data, mode=current.mode)

                    record = self.memory.record_or_undo(
                        undo, where.shown, actor, command, agent, rel, before, after
                    )
                self._sync([rel])
                return TreeWrite(path, rel, before, after, len(data), record)
        except FileTooLarge as exc:
            raise Refusal(
                RefusalCode.TOO_LARGE,
                f"{where.shown} is already {exc.size:,} bytes, more than a write replaces "
                f"({self.max_write_bytes:,}): a person can split it",
                None,
            ) from None
        except NotAFolder as exc:
            raise _not_a_folder(exc, agent, where) from None
        except UnsafeEntry as exc:
            raise _unsafe(exc) from None

    @counted_write("delete")
    def delete(
        self, actor: Actor, agent: str, parts: tuple[str, ...], *, command: str, where: Where,
        expected: str | None = None,
    ) -> TreeDelete:
        """Remove a file, or a folder and everything in it (one history record per file)."""
        if not parts:
            raise Refusal(
                RefusalCode.INVALID_ARGUMENT,
                f"{where.shown} is the memory folder itself and stays; delete what is inside it",
                where.listing,
            )
        tree = self.tree(actor, agent, write=True)
        try:
            with tree.open(lock=True) as opened:
                kind = None if opened is None else opened.kind(parts)
                if opened is None or kind is None:
                    raise self._not_found(opened, parts, where)
                if expected is not None:
                    if kind != "file":
                        raise Refusal(RefusalCode.INVALID_ARGUMENT,
                                      "an expected hash is for a file, not a folder", where.listing)
                    current = opened.read(parts)
                    self._check_expected(expected, content_hash(current.data) if current else None, where)
                with self.memory.history_step(where.shown):
                    removed = opened.remove(parts, keep=self.memory.blobs.max_bytes)
                    rels = [f"{opened.rel}/{r.path}" for r in removed]
                    for item, rel in zip(removed, rels, strict=True):
                        self._keep(item.data)
                        self.memory.record_or_undo(
                            _restore(opened, item), where.shown, actor, command, agent, rel, item.digest, None
                        )
                self._sync(rels or [opened.rel_of(parts)])
                return TreeDelete("/".join(parts), kind, removed)
        except NotAFolder as exc:
            raise _not_a_folder(exc, agent, where) from None
        except UnsafeEntry as exc:
            raise _unsafe(exc) from None

    # ------------------------------------------------------------------ internals

    def _check_text(
        self, text: str, old: str | None, parts: tuple[str, ...], call: Call, where: Where,
        content_arg: str | None,
    ) -> None:
        if parts[-1].endswith(".md"):
            stem = where.shown[: -len(".md")]
            check_content(text, old, where.shown, call, content_arg, self.max_write_bytes, f"{stem}-2.md")
        else:
            check_secrets(text, old, where.shown, call, content_arg)

    @staticmethod
    def _check_expected(expected: str | None, before: str | None, where: Where) -> None:
        if expected is None or expected == before or (expected == "" and before is None):
            return
        if expected == "":
            message = f"{where.shown} already exists (the call expected it not to): read it, then decide"
        elif before is None:
            message = f"{where.shown} no longer exists: someone deleted it since you read it"
        else:
            message = (
                f"{where.shown} changed since you read it (its hash is now {before[:12]}…, not "
                f"{expected[:12]}…): read it again and redo the change on the current content"
            )
        raise Refusal(RefusalCode.CONFLICT, message, where.listing)

    @staticmethod
    def _not_found(opened: OpenTree | None, parts: tuple[str, ...], where: Where) -> Refusal:
        return Refusal(
            RefusalCode.NOT_FOUND,
            f"{where.shown} does not exist; {where.listing.short()} lists what there is",
            where.listing,
        )

    def _sync(self, rels: list[str]) -> None:
        brain = self.memory.brain
        if brain is not None and brain.ready:
            brain.sync(rels)

    def _keep(self, *versions: bytes | None) -> None:
        self.memory.keep_versions(*versions)



def _restore(opened: OpenTree, item: Removed) -> Callable[[], None]:
    """Put a removed file back (its record could not be written): only with its bytes kept."""

    def undo() -> None:
        if item.data is None:
            raise OSError(f"{item.path} was larger than the history keeps")
        opened.write(tuple(item.path.split("/")), item.data)

    return undo


def decoded(data: bytes) -> str | None:
    """The text of `data`, or None when it is binary (a NUL byte, or not UTF-8)."""
    return None if is_binary(data) else data.decode("utf-8")


def _utf8_prefix(head: bytes) -> bool:
    """Whether a file's first bytes are UTF-8 (a character cut at the end does not count)."""
    for cut in range(4):
        try:
            head[: len(head) - cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return True
    return False


def _not_a_folder(exc: NotAFolder, agent: str, where: Where) -> Refusal:
    inside = exc.rel.removeprefix(f"{agent}/{MEMORY}/")
    return Refusal(
        RefusalCode.NOT_A_FOLDER,
        f"{where.prefix}{inside} is a file, so nothing can be inside it: choose another folder name, or "
        "delete the file first",
        Call(where.listing.command, {"path": where.prefix + inside}),
    )


def _unsafe(exc: UnsafeEntry) -> Refusal:
    if exc.what == "a symbolic link":
        return Refusal(
            RefusalCode.SYMLINK,
            f"{exc.rel} is a symbolic link: brain never follows links out of an agent's memory. "
            "A person can replace the link with the real file or folder",
            None,
        )
    return Refusal(
        RefusalCode.UNSAFE_FOLDER, f"{exc.rel} is {exc.what}: memory holds regular files and folders",
        None,
    )
