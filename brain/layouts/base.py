"""What a layout is: how one agent-memory system's folders become brain's graph (design.md 8).

A layout answers, for one workspace shape: which files to look at (`walk`), what each file is
(`classify`: a note of some kind, a plain file, an agent definition, an entity, a misplaced
file), how links resolve (`links`), and which of the seed's own rules a note breaks
(`note_rules`, per file and pure; `scope_rules`, across the notes of one scope). Everything
else (reading, hashing, parsing, linking, both stores, the watcher) is shared, so every
layout gets the same graph model, problem codes and front ends.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from brain.config.workspace import BrainConfig
from brain.model import MemoryNode, Problem
from brain.parse.note import ParsedNote
from brain.resolve import LinkRules
from brain.workspace import FileRole, FileStat


@dataclass(frozen=True, slots=True)
class RuleContext:
    """What a rule may depend on besides the file: the settings and today's date (UTC)."""

    config: BrainConfig = field(default_factory=BrainConfig)
    today: datetime.date = field(default_factory=lambda: datetime.datetime.now(datetime.UTC).date())


class Layout:
    """One workspace layout. Subclasses set `name` and `links` and implement the methods.

    Every method is pure but for reading the folder tree in `walk` and `scope_folders`.
    `classify` is asked for every file on every rescan: cache it (brain.workspace.RoleMemo on a
    module-level function). `note_rules` runs in ingest helper processes: it must depend
    only on its arguments.
    """

    name: ClassVar[str]
    links: ClassVar[LinkRules]
    #: True (latchai): an agent remembers only if its definition says `memory: true`, and
    #: a scope folder without one is reported `memory-off`. False: every agent folder is an
    #: agent with memory on.
    agents_need_definition: ClassVar[bool] = False
    #: True when `scope_rules` has anything to say (it costs a read of the changed scopes).
    has_scope_rules: ClassVar[bool] = False
    #: True when a rule's answer depends on today's date (expired daily notes): a snapshot
    #: written on another day is stale for such a layout (brain/snapshot/image.py).
    dated_rules: ClassVar[bool] = False
    #: True when `content_role` reads a file's bytes (space): a first sync then reads each
    #: note here instead of handing its path to the parse helpers.
    content_decides_role: ClassVar[bool] = False

    def classify(self, rel: str) -> FileRole:
        """The role of the file at `rel` (relative to the root, with `/`)."""
        raise NotImplementedError

    def walk(self, root: Path) -> Iterator[FileStat]:
        """Every file of interest under `root` (a full rescan), never following symlinks."""
        raise NotImplementedError

    def scope_folders(self, root: Path) -> set[str]:
        """The agents that exist as folders, even empty ones (they become Agent nodes)."""
        raise NotImplementedError

    def scope_folder(self, rel: str) -> tuple[str, str] | None:
        """(agent, folder relative to the root) of the agent folder `rel` is in or is."""
        raise NotImplementedError

    def content_role(self, rel: str, role: FileRole, raw: bytes) -> FileRole:
        """The role of `rel` once its bytes are read: `role` (from the path alone) unless the
        layout reads some content otherwise (space: a binary `.md` file is a File, not a note).
        A file whose role changes this way changes node id: the ingester drops the old node."""
        return role

    def note_rules(
        self, rel: str, role: FileRole, text: str, note: ParsedNote, context: RuleContext
    ) -> list[Problem]:
        """The seed's own rules about one note (its text as read, and as parsed)."""
        return []

    def note_triggers(self, rel: str, role: FileRole, note: ParsedNote) -> tuple[str, ...]:
        """A skill's or tool's trigger phrases (lab); () for every other note."""
        return ()

    def scope_rules(self, notes: Sequence[MemoryNode], context: RuleContext) -> list[Problem]:
        """Rules across the notes of one scope (e.g. mindlink's duplicate-entry)."""
        return []
