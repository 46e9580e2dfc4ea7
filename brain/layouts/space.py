"""The `space` layout (seeds/001): each agent's `~/memory/` tree, `<agent>/memory/**`.

Any file, any nesting: `.md` files are Memory notes named by their path under the memory root
(`drafts/plan`), every other file (and a `.md` file that is binary) is a File node with its
size, media type and binary flag.
The scope is the agent; there is no shared scope. The seed bounds paths, not sizes: a path
under `memory/` longer than 512 bytes (UTF-8) or deeper than 16 levels is an error, and the
file is still a node, so nothing an agent saved disappears from view.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import ClassVar

from brain.layouts.base import Layout
from brain.layouts.files import is_binary
from brain.model import ENTITY_KINDS, Kind, Problem, Severity, leaf_key, name_key
from brain.resolve import KIND_PREFIXES, Level, LinkRules, NameEntry, Target
from brain.safefs import is_utf8
from brain.workspace import IGNORED, FileRole, FileStat, RoleMemo, refused_names, walk_dir

MEMORY_DIR = "memory"
MAX_PATH_BYTES = 512
MAX_DEPTH = 16
_TREE_KINDS = (Kind.MEMORY, Kind.FILE)
_LEVEL3_KINDS = (*ENTITY_KINDS, Kind.AGENT)
_HOME = "~/memory/"


@RoleMemo  # every rescan asks again for every file
def classify(rel: str) -> FileRole:
    parts = rel.split("/")
    if any(p.startswith(".") or p == "" for p in parts):
        return IGNORED
    if len(parts) < 3 or parts[1] != MEMORY_DIR:
        return IGNORED
    agent = parts[0]
    under = "/".join(parts[2:])
    problems = path_problems(rel, under)
    if under.lower().endswith(".md") and len(parts[-1]) > 3:
        return FileRole("memory", scope=agent, name=under[:-3], problems=problems)
    return FileRole("file", scope=agent, name=under, problems=problems)


def path_problems(rel: str, under: str) -> tuple[Problem, ...]:
    """The seed's bounds on a path under `memory/`: 512 bytes of UTF-8, 16 levels."""
    out: list[Problem] = []
    size = len(under.encode("utf-8"))
    if size > MAX_PATH_BYTES:
        out.append(Problem(
            "path-too-long", Severity.ERROR, rel,
            f"its path under memory/ is {size} bytes long: the limit is {MAX_PATH_BYTES} bytes (UTF-8)",
            fix="give it a shorter name or move it to a shallower folder",
        ))
    depth = under.count("/") + 1
    if depth > MAX_DEPTH:
        out.append(Problem(
            "path-too-deep", Severity.ERROR, rel,
            f"it is {depth} levels deep under memory/: the limit is {MAX_DEPTH} levels",
            fix=f"move it up to at most {MAX_DEPTH} levels under memory/",
        ))
    return tuple(out)


class SpaceLinks:
    """`[[drafts/plan]]`: a path from the agent's memory root (`.md` optional, `~/memory/` too);
    `[[plan]]`: any note (or file, by its full file name) of the agent's tree; then workflows,
    chats, work items and agents. Nothing reaches into another agent's tree."""

    def parse(self, target: str) -> Target:
        text = target.strip()
        kind: Kind | None = None
        lowered = text.casefold()
        for prefix, prefix_kind in KIND_PREFIXES:
            if lowered.startswith(prefix):
                kind = prefix_kind
                text = text[len(prefix) :].strip()
                break
        path: str | None = None
        if kind in (None, Kind.MEMORY):
            rooted = text.startswith(("/", _HOME))  # `[[/plan]]`: the root's plan, not any plan
            text = text.removeprefix(_HOME).lstrip("/")
            if rooted or "/" in text:
                path = name_key(text)
        return Target(kind, None, leaf_key(text), name_key(target), path)

    def levels(self, target: Target, source_scope: str) -> list[Level]:
        if target.path is not None:
            wanted = target.path
            return [lambda e: e.kind in _TREE_KINDS and e.scope == source_scope
                    and _path_key(e) == wanted]
        if target.kind not in (None, Kind.MEMORY):
            kind = target.kind
            return [lambda e: e.kind is kind]
        levels: list[Level] = [lambda e: e.kind in _TREE_KINDS and e.scope == source_scope]
        if target.kind is None:
            levels.append(lambda e: e.kind in _LEVEL3_KINDS)
        return levels

    def out_of_reach(
        self, target: Target, entries: Sequence[NameEntry], source_scope: str
    ) -> tuple[str, ...]:
        return ()  # another agent's tree is simply elsewhere: no shared scope to move it to


def _path_key(entry: NameEntry) -> str:
    return name_key(entry.id.split(":", 1)[1].split("/", 1)[1])


class SpaceLayout(Layout):
    name: ClassVar[str] = "space"
    links: ClassVar[LinkRules] = SpaceLinks()
    content_decides_role: ClassVar[bool] = True

    def classify(self, rel: str) -> FileRole:
        return classify(rel)

    def content_role(self, rel: str, role: FileRole, raw: bytes) -> FileRole:
        """A `.md` file that is binary (a NUL byte, or not UTF-8) is a File with metadata,
        named with its `.md` like any file (seeds/001; design.md 8: never an encoding error)."""
        if role.kind != "memory" or not is_binary(raw):
            return role
        return FileRole("file", scope=role.scope, name=rel.split("/", 2)[2], problems=role.problems)

    def walk(self, root: Path) -> Iterator[FileStat]:
        for agent in sorted(self.scope_folders(root)):
            yield from walk_dir(root / agent / MEMORY_DIR, f"{agent}/{MEMORY_DIR}")
        yield from refused_names(root, "", _holds_memory)  # an agent folder brain cannot name

    def scope_folders(self, root: Path) -> set[str]:
        found: set[str] = set()
        try:
            entries = list(os.scandir(root))
        except OSError:
            return found
        for entry in entries:
            if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                continue
            if not is_utf8(entry.name):
                continue  # the walk reports it: no scope can be named after it
            memory = Path(entry.path) / MEMORY_DIR
            if memory.is_dir() and not memory.is_symlink():
                found.add(entry.name)
        return found

    def scope_folder(self, rel: str) -> tuple[str, str] | None:
        agent = rel.split("/", 1)[0]
        if not agent or agent.startswith("."):
            return None
        return agent, f"{agent}/{MEMORY_DIR}"


def _holds_memory(entry: os.DirEntry[str]) -> bool:
    return entry.is_dir(follow_symlinks=False) and os.path.isdir(os.path.join(entry.path, MEMORY_DIR))


SPACE = SpaceLayout()
