"""Where things live in a workspace folder (design.md section 1), and how to read them."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from brain import safefs
from brain.model import SHARED_SCOPE, Kind, Problem, Severity
from brain.parse import safejson
from brain.parse.frontmatter import TOO_COSTLY, key_lines, load_frontmatter, split_frontmatter
from brain.parse.note import decode, first_line
from brain.safefs import special_kind

MEMORY_DIR = "memory"
AGENTS_DIR = "agents"
ENTITY_DIRS: dict[str, tuple[Kind, tuple[str, ...]]] = {
    "workflows": (Kind.WORKFLOW, (".yaml", ".yml", ".json", ".md")),
    "chats": (Kind.CHAT, (".json", ".jsonl", ".md")),
    "work-items": (Kind.WORK_ITEM, (".md", ".yaml", ".yml", ".json")),
}


@dataclass(frozen=True, slots=True)
class FileRole:
    """What a workspace file is: a note, a file, an agent definition, an entity, or a misplaced file.

    `kind` "memory" is any note (`node_kind`: a memory, daily note, skill or tool, all parsed
    as markdown); "file" a non-markdown file that is a node (space). `problems` are rule
    problems of its path (e.g. `path-too-deep`) for a file that is still a node; `problem`
    is the one problem of a file that is not a node (kind "problem").
    """

    kind: str  # "memory" | "file" | "agent" | "entity" | "problem" | "ignored"
    scope: str = ""
    name: str = ""
    entity_kind: Kind | None = None
    problem: Problem | None = None
    node_kind: Kind = Kind.MEMORY
    problems: tuple[Problem, ...] = ()

    def __post_init__(self) -> None:
        # The store's copies (it interns scopes and names): a role's own were 13 MB at
        # 100,000 notes, held by the memo of roles below.
        object.__setattr__(self, "scope", sys.intern(self.scope))
        object.__setattr__(self, "name", sys.intern(self.name))


IGNORED = FileRole("ignored")


class RoleMemo:
    """A layout's `classify` (pure), remembered by path: every rescan asks again for every
    file. A plain dict, not functools.lru_cache, whose bookkeeping (a list node per path) was
    9 MB at 100,000 notes. Past `limit` paths it starts over: a rescan that goes round more
    paths than an LRU holds finds none of them in it either."""

    __slots__ = ("_classify", "_found", "limit")

    def __init__(self, classify: Callable[[str], FileRole], limit: int = 1 << 17) -> None:
        self._classify = classify
        self._found: dict[str, FileRole] = {}
        self.limit = limit

    def __call__(self, rel: str) -> FileRole:
        role = self._found.get(rel)
        if role is None:
            if len(self._found) >= self.limit:
                self._found.clear()
            role = self._found[rel] = self._classify(rel)
        return role

    def __len__(self) -> int:
        return len(self._found)

    def cache_clear(self) -> None:
        self._found.clear()


@RoleMemo
def classify(rel: str) -> FileRole:
    """The role of a file from its path relative to the root (with `/`). Pure."""
    parts = rel.split("/")
    if any(p.startswith(".") or p == "" for p in parts):
        return IGNORED
    top = parts[0]
    stem, dot, ext = parts[-1].rpartition(".")
    if not dot:
        stem, ext = parts[-1], ""
    ext = "." + ext.lower() if dot else ""
    if top == MEMORY_DIR:
        if len(parts) == 2:
            return FileRole("problem", problem=Problem(
                "outside-scope", Severity.WARNING, rel,
                "not inside a scope folder, so no agent remembers it",
                fix=f"move it to memory/{SHARED_SCOPE}/{parts[1]} or into an agent's folder",
            ))
        scope = parts[1]
        if len(parts) > 3:
            return FileRole("problem", problem=Problem(
                "nested-directory", Severity.WARNING, rel,
                f"in a nested folder: memories live directly in memory/{scope}/",
                fix=f"move it to memory/{scope}/{parts[-1]}",
            ))
        if ext != ".md":
            return FileRole("problem", problem=Problem(
                "not-markdown", Severity.WARNING, rel,
                "not a memory: only .md files are memories",
                fix=f"rename it to memory/{scope}/{stem}.md if it is a note, else move it out of memory/",
            ))
        return FileRole("memory", scope=scope, name=stem)
    if top == AGENTS_DIR and len(parts) == 2 and ext == ".md":
        return FileRole("agent", name=stem)
    spec = ENTITY_DIRS.get(top)
    if spec is not None and len(parts) == 2 and ext in spec[1]:
        return FileRole("entity", name=stem, entity_kind=spec[0])
    return IGNORED


class FileStat(NamedTuple):
    """A file the walk found. A named tuple, built in one C call: a walk builds one a file
    (10,000 before a first sync's first note goes to a helper), and the frozen dataclass it
    was took three times as long."""

    rel: str
    size: int
    mtime_ns: int
    is_link: bool = False  # a symlink, or another file that is never read (see `special`)
    special: str | None = None  # what a FIFO, socket or device is: reading one can block
    refused: str | None = None  # safefs.BAD_NAME or TOO_DEEP: never read, `rel` is escaped


def unread_problem(st: FileStat) -> Problem:
    """The problem of a file that is never read: a symlink, a FIFO, a socket or a device (a
    warning), a name that is not UTF-8 or a folder too deep (an error)."""
    if st.refused == safefs.BAD_NAME:
        return safefs.bad_name_problem(st.rel)
    if st.refused == safefs.TOO_DEEP:
        return safefs.too_deep_problem(st.rel)
    if st.special is None:
        return Problem(
            "symlink", Severity.WARNING, st.rel, "a symbolic link: brain does not follow links",
            fix="replace the link with the file itself",
        )
    return Problem(
        "special-file", Severity.WARNING, st.rel,
        f"{st.special}: brain reads only regular files, so it is skipped",
        fix="remove it, or replace it with a regular file",
    )


def unreadable_problem(rel: str, reason: str) -> Problem:
    """The error for a file that could not be read (the graph keeps what it had of it)."""
    return Problem(
        "unreadable-file", Severity.ERROR, rel, f"cannot be read: {reason}",
        fix="make the file readable by the user that runs brain",
    )


def walk(root: Path) -> Iterator[FileStat]:
    """Every file of interest under root, without following symlinked folders."""
    for top in (MEMORY_DIR, AGENTS_DIR, *ENTITY_DIRS):
        yield from walk_dir(root / top, top)


def walk_dir(folder: Path, rel: str) -> Iterator[FileStat]:
    """Every file under `folder` (named `rel`), through the one bounded walk (brain.safefs):
    a name that is not UTF-8 and a folder too deep come out refused, never read or entered."""
    for child, entry, refusal in safefs.walk(folder, rel):
        try:
            if refusal is not None:
                yield FileStat(child, 0, 0, is_link=True, refused=refusal)
            elif entry.is_dir(follow_symlinks=False):
                continue
            elif entry.is_symlink():
                yield FileStat(child, 0, 0, is_link=True)
            elif entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                yield FileStat(child, st.st_size, st.st_mtime_ns)
            else:  # a FIFO, socket or device: reported, never opened
                kind = special_kind(entry.stat(follow_symlinks=False).st_mode)
                yield FileStat(child, 0, 0, is_link=True, special=kind)
        except OSError:
            continue


def scope_folders(root: Path) -> set[str]:
    """The scope folders under memory/ (one whose name is not UTF-8 is the walk's to report)."""
    try:
        return {
            e.name for e in os.scandir(root / MEMORY_DIR)
            if e.is_dir(follow_symlinks=False) and not e.name.startswith(".") and safefs.is_utf8(e.name)
        }
    except OSError:
        return set()


def refused_names(
    folder: Path, rel: str, keep: Callable[[os.DirEntry[str]], bool] | None = None,
) -> Iterator[FileStat]:
    """A refused FileStat for each entry of `folder` (that `keep` keeps) whose name is not
    UTF-8: for a layout that picks names out of a folder (agents, skills, projects) instead of
    walking it, so what it cannot name is still reported."""
    try:
        with os.scandir(folder) as it:
            names = [
                e.name for e in it
                if not e.name.startswith(".") and not safefs.is_utf8(e.name) and (keep is None or keep(e))
            ]
    except OSError:
        return
    for name in sorted(names):
        child = f"{rel}/{name}" if rel else name
        yield FileStat(safefs.escaped(child), 0, 0, is_link=True, refused=safefs.BAD_NAME)


# ------------------------------------------------------------------ agents and entities


@dataclass(frozen=True, slots=True)
class AgentDefinition:
    name: str
    path: str
    description: str
    memory: bool
    problems: tuple[Problem, ...] = ()


def read_agent_definition(rel: str, name: str, raw: bytes) -> AgentDefinition:
    """An agent file; what is wrong with it is kept, since it decides whether memory is on."""
    text, problems = decode(raw, rel)
    fm, body, _, _ = split_frontmatter(text, rel, problems)
    data = load_frontmatter(fm, rel, problems) if fm is not None else {}
    description = data.get("description")
    if not isinstance(description, str) or not description.strip():
        description = first_line(body)
    memory = data.get("memory")
    if memory is not None and not isinstance(memory, bool):
        fm_text = fm or ""
        lines = key_lines(fm_text)
        problems.append(Problem(
            "invalid-frontmatter", Severity.ERROR, rel,
            f"`memory` must be true or false, not {memory!r}: memory stays off",
            line=lines.get("memory"), column=1 if "memory" in lines else None,
            fix="write `memory: true` (no quotes) to turn memory on",
        ))
    return AgentDefinition(
        name, rel, " ".join(description.split()), memory is True, tuple(problems)
    )


def read_entity_title(rel: str, raw: bytes) -> str | None:
    """The `title` (or `name`) of a workflow, chat or work item file, if it has one."""
    return read_entity(rel, raw)[0]


def read_entity(rel: str, raw: bytes) -> tuple[str | None, Problem | None]:
    """(title, problem) of a workflow, chat or work item file.

    Only the title is used, but the whole file is parsed: a document over the JSON or YAML
    budget (nesting, alias expansion, size) is an `invalid-content` error on this file, never
    an exception; plain syntax errors stay silent, as these files are not brain's own.
    """
    text, _ = decode(raw, rel)
    data: Any = None
    try:
        if rel.endswith(".jsonl"):
            first = next((line for line in text.splitlines() if line.strip()), "")
            data = safejson.loads(first) if first else None
        elif rel.endswith(".json"):
            data = safejson.loads(text)
        elif rel.endswith((".yaml", ".yml")):
            return _yaml_title(rel, text)
        else:
            problems: list[Problem] = []
            fm, _, _, _ = split_frontmatter(text, rel, problems)
            data = load_frontmatter(fm, rel, problems) if fm is not None else None
            costly = next((p for p in problems if p.message.startswith(TOO_COSTLY)), None)
            if costly is not None:
                return None, _content_problem(rel, costly.message, costly.line, costly.fix)
    except safejson.JSONBudgetError as exc:
        return None, _content_problem(rel, exc.message, exc.line, exc.fix)
    except ValueError:
        return None, None
    return _title(data), None


def _yaml_title(rel: str, text: str) -> tuple[str | None, Problem | None]:
    # Imported here, for a YAML file only: a parse helper reads notes only, and a first sync
    # reads a workspace's JSON files (sorted first) before its notes go to the helpers.
    import yaml

    from brain.parse.safeyaml import YAMLBudgetError, safe_load

    try:
        data = safe_load(text)
    except YAMLBudgetError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else None
        return None, _content_problem(rel, f"YAML too costly to read: {exc.problem}", line, exc.fix)
    except (ValueError, yaml.YAMLError):
        return None, None
    return _title(data), None


def _title(data: Any) -> str | None:
    if isinstance(data, dict):
        for key in ("title", "name"):
            value = data.get(key)
            if isinstance(value, str | int | float) and str(value).strip():
                return str(value).strip()
    return None


def _content_problem(rel: str, message: str, line: int | None, fix: str | None) -> Problem:
    return Problem(
        "invalid-content", Severity.ERROR, rel, f"{message}; its title is not read",
        line=line, column=1 if line is not None else None, fix=fix,
    )


def read_bytes(path: Path | str) -> bytes | OSError:
    """A file's bytes, or the error that kept them (the caller reports it and goes on).
    By the descriptor, from a str as well: a first ingest reads every file once, and pathlib's
    objects and buffered reader were a tenth of the cost of parsing a note; a file object and
    its fstat were still a quarter of reading one (12 -> 9 us). Opened by safefs.open_regular
    all the same: a FIFO put where the walk saw a file is refused (an OSError), not waited on."""
    try:
        fd = safefs.open_regular(path)
    except OSError as exc:
        return exc
    try:
        pieces = []
        while piece := os.read(fd, _READ_BYTES):  # to the end: a short read ends only a file
            pieces.append(piece)
        return pieces[0] if len(pieces) == 1 else b"".join(pieces)  # b"" when empty
    except OSError as exc:
        return exc
    finally:
        os.close(fd)


_READ_BYTES = 1 << 16  # a read: most notes whole
