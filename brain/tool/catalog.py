"""The notes of a scope with their one-line summaries, for listings and the prompt index.

Read from the folder itself (the file system is the truth, and the CLI has no graph), with
each file's description and type cached by size and modification time, so a listing after
the first costs one directory scan. The description follows design.md section 2 exactly as
the ingester does: the frontmatter `description`, else the first non-empty body line.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from brain.model import MEMORY_TYPES, Problem
from brain.parse.frontmatter import load_frontmatter, split_frontmatter
from brain.parse.note import decode, first_line
from brain.tool.files.confined import FileEntry, FileTooLarge, MemoryFolders, ScopeFolder, UnsafeEntry

READ_LIMIT = 4 << 20


@dataclass(frozen=True, slots=True)
class NoteInfo:
    scope: str
    name: str
    size: int
    mtime_ns: int
    description: str
    type: str | None

    @property
    def modified_at(self) -> float:
        return self.mtime_ns / 1e9

    @property
    def rel(self) -> str:
        return f"memory/{self.scope}/{self.name}"


def summarize(raw: bytes, rel: str = "") -> tuple[str, str | None]:
    """(description, type) of a note's bytes, as the graph has them."""
    text, _ = decode(raw, rel)
    problems: list[Problem] = []
    fm, body, _, _ = split_frontmatter(text, rel, problems)
    data = load_frontmatter(fm, rel, problems) if fm is not None else {}
    value = data.get("description")
    description = " ".join(value.split()) if isinstance(value, str) and value.strip() else first_line(body)
    kind = data.get("type")
    return description, kind if isinstance(kind, str) and kind in MEMORY_TYPES else None


class Catalog:
    def __init__(self, folders: MemoryFolders) -> None:
        self.folders = folders
        self._cache: dict[tuple[str, str], tuple[int, int, str, str | None]] = {}
        self._lock = threading.Lock()

    def notes(self, scope: str, *, strict: bool = False) -> list[NoteInfo]:
        """The scope's notes by name; [] when the folder does not exist or is not a real folder
        (`strict`: UnsafeEntry then, so a listing can say why instead of showing nothing)."""
        try:
            with self.folders.open(scope) as folder:
                if folder is None:
                    return []
                return [self._info(folder, entry) for entry in folder.entries()]
        except UnsafeEntry:
            if strict:
                raise
            return []

    def _info(self, folder: ScopeFolder, entry: FileEntry) -> NoteInfo:
        key = (folder.scope, entry.name)
        with self._lock:
            cached = self._cache.get(key)
        if cached is None or cached[:2] != (entry.size, entry.mtime_ns):
            description, kind = "", None
            try:
                found = folder.read(entry.name, limit=READ_LIMIT)
            except (OSError, UnsafeEntry, FileTooLarge):
                found = None  # listed without a description rather than read whole
            if found is not None:
                description, kind = summarize(found.data, folder.rel_of(entry.name))
            cached = (entry.size, entry.mtime_ns, description, kind)
            with self._lock:
                self._cache[key] = cached
        return NoteInfo(folder.scope, entry.name, entry.size, entry.mtime_ns, cached[2], cached[3])
