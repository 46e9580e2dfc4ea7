"""The `lab` layout (seeds/004): MEMORY.md files, daily logs, skills, tools and project notes.

    MEMORY.md                      Memory `MEMORY` of agent `main` (the Coordinator)
    agents/<agent>/MEMORY.md       Memory `MEMORY` of that agent
    memory/YYYY-MM-DD.md           DailyNote of `main` (the lab's raw log, one per UTC day)
    skills/<name>/SKILL.md         Skill `<name>` (name, description, trigger phrases)
    tools/<name>/TOOL.md           Tool `<name>`
    projects/<project>/*.md        Memory of scope `project:<project>` (owned by no agent)

Only these files are read: a skill's scripts or a project's code next to its notes are not
the memory layer, and a project folder is never walked below its notes. A bare link looks at
the notes of the linking note's own scope, then at what the lab shares (skills, tools and
project notes, by name), then at workflows, chats, work items and agents.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import ClassVar

from brain.layouts.base import Layout, RuleContext
from brain.model import ENTITY_KINDS, Kind, Problem, leaf_key, name_key
from brain.parse.note import ParsedNote
from brain.resolve import Level, NameEntry, Target, parse_target
from brain.rules.dates import daily_name_date
from brain.rules.lab import daily_log_name, incomplete_skill, triggers, undated_entries
from brain.safefs import BAD_NAME, escaped, is_utf8
from brain.workspace import IGNORED, FileRole, FileStat, RoleMemo, refused_names, walk_dir

MAIN_AGENT = "main"
MEMORY_FILE = "MEMORY.md"
MEMORY_NAME = "MEMORY"
LOG_DIR = "memory"
AGENTS_DIR = "agents"
PROJECTS_DIR = "projects"
PROJECT_SCOPE = "project:"
#: folder -> (the one file each of its folders holds, node kind, scope of the nodes)
ARTIFACTS: dict[str, tuple[str, Kind, str]] = {
    "skills": ("SKILL.md", Kind.SKILL, "skills"),
    "tools": ("TOOL.md", Kind.TOOL, "tools"),
}
_OWN_KINDS = (Kind.MEMORY, Kind.DAILY_NOTE)
_LEVEL3_KINDS = (*ENTITY_KINDS, Kind.AGENT)
_LAB_PREFIXES: tuple[tuple[str, Kind], ...] = (
    ("skill:", Kind.SKILL), ("tool:", Kind.TOOL), ("daily-note:", Kind.DAILY_NOTE),
)
_MAX_LOOK = 10_000  # folders looked into under skills/, tools/, agents/, projects/


@RoleMemo  # every rescan asks again for every file
def classify(rel: str) -> FileRole:
    parts = rel.split("/")
    if any(p.startswith(".") or p == "" for p in parts):
        return IGNORED
    top, name = parts[0], parts[-1]
    if rel == MEMORY_FILE:
        return FileRole("memory", scope=MAIN_AGENT, name=MEMORY_NAME)
    if top == LOG_DIR and len(parts) >= 2:
        if len(parts) == 2 and daily_name_date(name) is not None:
            return FileRole("memory", scope=MAIN_AGENT, name=name[:-3], node_kind=Kind.DAILY_NOTE)
        return FileRole("problem", problem=daily_log_name(rel))
    if len(parts) != 3:
        return IGNORED
    if top == AGENTS_DIR and name == MEMORY_FILE:
        return FileRole("memory", scope=parts[1], name=MEMORY_NAME)
    artifact = ARTIFACTS.get(top)
    if artifact is not None and name == artifact[0]:
        return FileRole("memory", scope=artifact[2], name=parts[1], node_kind=artifact[1])
    if top == PROJECTS_DIR and name.lower().endswith(".md") and len(name) > 3:
        return FileRole("memory", scope=PROJECT_SCOPE + parts[1], name=name[:-3])
    return IGNORED


def _shared(entry: NameEntry) -> bool:
    """What every note of the lab may name: skills, tools and project notes."""
    return entry.kind in (Kind.SKILL, Kind.TOOL) or (
        entry.kind is Kind.MEMORY and (entry.scope or "").startswith(PROJECT_SCOPE)
    )


class LabLinks:
    """Own scope, then skills, tools and project notes, then entities and agents.

    `[[researcher/MEMORY]]` and `[[project:atlas/architecture]]` name a scope explicitly;
    `skill:`, `tool:` and `daily-note:` look only at that kind.
    """

    def parse(self, target: str) -> Target:
        text = target.strip()
        lowered = text.casefold()
        for prefix, kind in _LAB_PREFIXES:
            if lowered.startswith(prefix):
                rest = text[len(prefix):].strip()
                return Target(kind, None, leaf_key(rest), name_key(target))
        return parse_target(target)

    def levels(self, target: Target, source_scope: str) -> list[Level]:
        if target.scope is not None:
            wanted = name_key(target.scope)
            return [lambda e: e.kind in (*_OWN_KINDS, Kind.SKILL, Kind.TOOL)
                    and name_key(e.scope or "") == wanted]
        if target.kind is Kind.MEMORY:
            return [
                lambda e: e.kind is Kind.MEMORY and e.scope == source_scope,
                lambda e: e.kind is Kind.MEMORY and _shared(e),
            ]
        if target.kind is not None:
            kind = target.kind
            return [lambda e: e.kind is kind]
        return [
            lambda e: e.kind in _OWN_KINDS and e.scope == source_scope,
            _shared,
            lambda e: e.kind in _LEVEL3_KINDS,
        ]

    def out_of_reach(
        self, target: Target, entries: Sequence[NameEntry], source_scope: str
    ) -> tuple[str, ...]:
        """An agent's private notes (its MEMORY.md; main's daily logs) another note named."""
        if target.scope is not None or target.kind not in (None, Kind.MEMORY):
            return ()
        kinds = _OWN_KINDS if target.kind is None else (Kind.MEMORY,)
        return tuple(sorted(
            e.id for e in entries if e.kind in kinds and not _shared(e) and e.scope != source_scope
        ))


class LabLayout(Layout):
    name: ClassVar[str] = "lab"
    links: ClassVar[LabLinks] = LabLinks()

    def classify(self, rel: str) -> FileRole:
        return classify(rel)

    def walk(self, root: Path) -> Iterator[FileStat]:
        yield from _files(root, [MEMORY_FILE])
        yield from walk_dir(root / LOG_DIR, LOG_DIR)  # every file: misnamed logs are reported
        yield from _files(root, [f"{AGENTS_DIR}/{a}/{MEMORY_FILE}" for a in _folders(root / AGENTS_DIR)])
        for top, (file, _, _) in sorted(ARTIFACTS.items()):
            yield from _files(root, [f"{top}/{n}/{file}" for n in _folders(root / top)])
        for project in _folders(root / PROJECTS_DIR):
            yield from _markdown_in(root, f"{PROJECTS_DIR}/{project}")
        for top in (AGENTS_DIR, PROJECTS_DIR, *sorted(ARTIFACTS)):  # the names it cannot say
            yield from refused_names(root / top, top, _folder)

    def scope_folders(self, root: Path) -> set[str]:
        found = set(_folders(root / AGENTS_DIR))
        if (root / MEMORY_FILE).is_file() or (root / LOG_DIR).is_dir():
            found.add(MAIN_AGENT)
        return found

    def scope_folder(self, rel: str) -> tuple[str, str] | None:
        """An agent's folder under agents/. `main` has none: MEMORY.md or memory/ makes it
        (a full rescan sees either), so a deleted memory/ never removes it from under its
        MEMORY.md."""
        parts = rel.split("/")
        if parts[0] == AGENTS_DIR and len(parts) >= 2 and parts[1] and not parts[1].startswith("."):
            return parts[1], f"{AGENTS_DIR}/{parts[1]}"
        return None

    def note_rules(
        self, rel: str, role: FileRole, text: str, note: ParsedNote, context: RuleContext
    ) -> list[Problem]:
        if role.node_kind is Kind.SKILL or role.node_kind is Kind.TOOL:
            kind = "skill" if role.node_kind is Kind.SKILL else "tool"
            found = incomplete_skill(rel, text, kind)
            return [found] if found is not None else []
        if role.node_kind is Kind.MEMORY and role.name == MEMORY_NAME and rel.endswith(MEMORY_FILE):
            return undated_entries(rel, text)
        return []

    def note_triggers(self, rel: str, role: FileRole, note: ParsedNote) -> tuple[str, ...]:
        if role.node_kind not in (Kind.SKILL, Kind.TOOL):
            return ()
        return triggers(note.body, note.properties.get("triggers"))


def _folders(folder: Path) -> list[str]:
    """The visible sub-folders of `folder` (never through a symlink), sorted."""
    try:
        names = [
            e.name for e in os.scandir(folder)
            if not e.name.startswith(".") and e.is_dir(follow_symlinks=False) and is_utf8(e.name)
        ]
    except OSError:
        return []
    return sorted(names)[:_MAX_LOOK]


def _folder(entry: os.DirEntry[str]) -> bool:
    return entry.is_dir(follow_symlinks=False)


def _files(root: Path, rels: list[str]) -> Iterator[FileStat]:
    """FileStats of these files where they exist (a symlink is reported, never followed)."""
    for rel in rels:
        try:
            st = (root / rel).lstat()
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode):
            yield FileStat(rel, 0, 0, is_link=True)
        elif stat.S_ISREG(st.st_mode):
            yield FileStat(rel, st.st_size, st.st_mtime_ns)


def _markdown_in(root: Path, rel: str) -> Iterator[FileStat]:
    """The `.md` files directly in a project folder: its notes, not its code."""
    try:
        entries = sorted(os.scandir(root / rel), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or not entry.name.lower().endswith(".md"):
            continue
        child = f"{rel}/{entry.name}"
        if not is_utf8(entry.name):
            yield FileStat(escaped(child), 0, 0, is_link=True, refused=BAD_NAME)
            continue
        if entry.is_symlink():
            yield FileStat(child, 0, 0, is_link=True)
        elif entry.is_file(follow_symlinks=False):
            st = entry.stat(follow_symlinks=False)
            yield FileStat(child, st.st_size, st.st_mtime_ns)


LAB = LabLayout()
