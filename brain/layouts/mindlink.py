"""The `mindlink` layout (seeds/003): `<agent>/memory/entries/*.md` and daily notes.

Each agent folder with a `memory/` folder is an agent that remembers. Its long-term entries
(`memory/entries/<name>.md`, frontmatter `name`, `description`, `type`) are Memory nodes and
its daily notes (`memory/YYYY-MM-DD.md`) DailyNote nodes, both owned by the agent. A bare
link looks at the agent's own entries and daily notes, then at workflows, chats, work items
and agents: one user's agent never reaches another's memory. The seed's rules are in
brain.rules.mindlink.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import ClassVar

from brain.layouts.base import Layout, RuleContext
from brain.layouts.space import SPACE
from brain.model import ENTITY_KINDS, Kind, MemoryNode, Problem
from brain.parse.note import ParsedNote
from brain.resolve import Level, NameEntry, Target, parse_target
from brain.rules.dates import daily_name_date
from brain.rules.mindlink import (
    ENTRIES_DIR,
    Entry,
    duplicate_entries,
    expired_daily_note,
    feedback_incomplete,
    not_a_memory,
)
from brain.workspace import IGNORED, FileRole, FileStat, RoleMemo

MEMORY_DIR = "memory"
_OWN_KINDS = (Kind.MEMORY, Kind.DAILY_NOTE)
_LEVEL3_KINDS = (*ENTITY_KINDS, Kind.AGENT)


@RoleMemo  # every rescan asks again for every file
def classify(rel: str) -> FileRole:
    parts = rel.split("/")
    if any(p.startswith(".") or p == "" for p in parts):
        return IGNORED
    if len(parts) < 3 or parts[1] != MEMORY_DIR:
        return IGNORED
    agent, under = parts[0], parts[2:]
    name = under[-1]
    if len(under) == 2 and under[0] == ENTRIES_DIR and name.lower().endswith(".md") and len(name) > 3:
        return FileRole("memory", scope=agent, name=name[:-3])
    if len(under) == 1 and daily_name_date(name) is not None:
        return FileRole("memory", scope=agent, name=name[:-3], node_kind=Kind.DAILY_NOTE)
    return FileRole("problem", problem=not_a_memory(rel, under))


class MindlinkLinks:
    """design.md section 8: the agent's entries and daily notes, then entities and agents.

    `[[<agent>/x]]` names a note of that agent explicitly (as `shared/x` does in latchai);
    `memory:` looks only at entries.
    """

    def parse(self, target: str) -> Target:
        return parse_target(target)

    def levels(self, target: Target, source_scope: str) -> list[Level]:
        if target.scope is not None:
            wanted = target.scope.casefold()
            return [lambda e: e.kind in _OWN_KINDS and (e.scope or "").casefold() == wanted]
        if target.kind is Kind.MEMORY:
            return [lambda e: e.kind is Kind.MEMORY and e.scope == source_scope]
        if target.kind is not None:
            kind = target.kind
            return [lambda e: e.kind is kind]
        return [
            lambda e: e.kind in _OWN_KINDS and e.scope == source_scope,
            lambda e: e.kind in _LEVEL3_KINDS,
        ]

    def out_of_reach(
        self, target: Target, entries: Sequence[NameEntry], source_scope: str
    ) -> tuple[str, ...]:
        """Another agent's note of that name: private, but worth naming in the message."""
        if target.scope is not None or target.kind not in (None, Kind.MEMORY):
            return ()
        kinds = _OWN_KINDS if target.kind is None else (Kind.MEMORY,)
        return tuple(sorted(e.id for e in entries if e.kind in kinds and e.scope != source_scope))


class MindlinkLayout(Layout):
    name: ClassVar[str] = "mindlink"
    links: ClassVar[MindlinkLinks] = MindlinkLinks()
    has_scope_rules: ClassVar[bool] = True
    dated_rules: ClassVar[bool] = True

    def classify(self, rel: str) -> FileRole:
        return classify(rel)

    # The same folders as space: every `<agent>/memory/` tree (what is in it differs).
    def walk(self, root: Path) -> Iterator[FileStat]:
        return SPACE.walk(root)

    def scope_folders(self, root: Path) -> set[str]:
        return SPACE.scope_folders(root)

    def scope_folder(self, rel: str) -> tuple[str, str] | None:
        return SPACE.scope_folder(rel)

    def note_rules(
        self, rel: str, role: FileRole, text: str, note: ParsedNote, context: RuleContext
    ) -> list[Problem]:
        if role.node_kind is Kind.DAILY_NOTE:
            day = daily_name_date(rel.rsplit("/", 1)[-1])
            retain = context.config.mindlink.daily_note_retain_days
            found = expired_daily_note(rel, day, context.today, retain) if day else None
        else:
            found = feedback_incomplete(rel, note)
        return [found] if found is not None else []

    def scope_rules(self, notes: Sequence[MemoryNode], context: RuleContext) -> list[Problem]:
        return duplicate_entries(
            Entry(n.path, n.scope, n.body, n.modified_at) for n in notes if n.note_kind is Kind.MEMORY
        )


MINDLINK = MindlinkLayout()
