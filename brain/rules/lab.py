"""The rules of the lab's memory (seeds/004; design.md section 8). Pure.

The lab keeps `MEMORY.md` (curated, "every entry timestamped"), daily logs
`memory/YYYY-MM-DD.md` (UTC, one file per day), skills `skills/<name>/SKILL.md` and tools
`tools/<name>/TOOL.md` (a name, a description, and for a skill its trigger phrases). The
seed's hygiene rules become problems: a daily log is named after a real date, an entry of a
MEMORY.md carries its date, and a skill or tool says what it is and when to use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from brain.model import Problem, Severity
from brain.parse.frontmatter import key_lines, load_frontmatter, split_frontmatter
from brain.parse.note import normalize_text
from brain.rules.dates import first_date, looks_dated
from brain.rules.lines import prose_lines

_ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)")
_ITEM_RE = re.compile(r"^( {0,3})(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_TRIGGER_HEADING_RE = re.compile(r"^(?:triggers?\b|trigger phrases\b|when to use\b)", re.IGNORECASE)


def daily_log_name(rel: str) -> Problem:
    """Warning for a file under `memory/` that is not a daily log `memory/YYYY-MM-DD.md`."""
    parts = rel.split("/")
    name = parts[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if len(parts) > 2:
        message = "in a nested folder: daily logs live directly in memory/"
        fix = f"move it to memory/{name}" if looks_dated(name) else (
            "move it out of memory/ (project notes go in projects/<project>/)"
        )
    elif looks_dated(name):
        message = f"named like a daily log, but {stem} is not a real date"
        fix = "rename it to the UTC day it records, as memory/YYYY-MM-DD.md"
    else:
        message = "not a daily log: files in memory/ are named after their UTC day, YYYY-MM-DD.md"
        fix = (
            "rename it to memory/YYYY-MM-DD.md if it is a day's log; durable facts go in "
            "MEMORY.md, project notes in projects/<project>/"
        )
    return Problem("daily-log-name", Severity.WARNING, rel, message, fix=fix)


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """An entry of a MEMORY.md: a `##` section, or a top-level list item outside any."""

    line: int  # 1-based, in the whole file
    first_line: str
    kind: str  # "section" | "item"


def memory_entries(text: str) -> Iterator[MemoryEntry]:
    """The entries of a MEMORY.md, in order; never inside code blocks or the frontmatter."""
    text = normalize_text(text)
    _, body, body_line, _ = split_frontmatter(text, "", [])
    in_section = False
    item_indent = 0  # lines indented this far continue the open top-level item (0: none open)
    for offset, line in prose_lines(body):
        heading = _ATX_RE.match(line)
        if heading is not None:
            level = len(heading.group(1))
            if level == 2:
                in_section = True
                yield MemoryEntry(body_line + offset, line, "section")
            elif level == 1:
                in_section = False
            item_indent = 0
            continue
        indent = len(line) - len(line.lstrip(" "))
        if not line.strip() or (item_indent and indent >= item_indent):
            continue  # a blank line, or a line (or nested item) of the open item
        item = _ITEM_RE.match(line)
        # An item's content starts after its marker: nested items are indented that far.
        item_indent = item.end() if item is not None and item.end() > len(item.group(1)) else 0
        if item is not None and not in_section:
            yield MemoryEntry(body_line + offset, line, "item")


MAX_UNDATED_PER_FILE = 50  # a MEMORY.md of a million bullets need not flood the report


def undated_entries(path: str, text: str) -> list[Problem]:
    """Warnings for the entries of a MEMORY.md whose first line holds no `YYYY-MM-DD` date
    (the first MAX_UNDATED_PER_FILE of them)."""
    problems: list[Problem] = []
    for entry in memory_entries(text):
        if len(problems) >= MAX_UNDATED_PER_FILE:
            break
        day, unreal = first_date(entry.first_line)
        if day is not None:
            continue
        what = "section" if entry.kind == "section" else "list item"
        message = f"entry ({what}) without a date: every MEMORY.md entry is timestamped"
        if unreal is not None:
            message = f"entry ({what}) dated {unreal}, which is not a real date"
        where = "heading" if entry.kind == "section" else "first line"
        problems.append(Problem(
            "undated-entry", Severity.WARNING, path, message,
            line=entry.line, column=1, length=len(entry.first_line.rstrip()) or None,
            fix=f"add the day it was learned to the entry's {where}, as YYYY-MM-DD",
        ))
    return problems


def _frontmatter(text: str, path: str) -> tuple[dict[str, Any], Mapping[str, int], str, int]:
    text = normalize_text(text)
    fm, body, body_line, _ = split_frontmatter(text, path, [])
    data = load_frontmatter(fm, path, []) if fm is not None else {}
    return data, (key_lines(fm) if fm is not None else {}), body, body_line


def _filled(value: Any) -> bool:
    if isinstance(value, str):
        return bool(value.strip())
    if isinstance(value, list | tuple):
        return any(_filled(v) for v in value)
    return isinstance(value, int | float) and not isinstance(value, bool)


def trigger_section(body: str, body_line: int) -> tuple[int, bool] | None:
    """(line, has content) of the first heading that names the trigger phrases, if any."""
    found: tuple[int, int] | None = None  # (index, level) of the trigger heading
    for index, line in prose_lines(body):
        heading = _ATX_RE.match(line)
        if found is not None:
            if heading is not None and len(heading.group(1)) <= found[1]:
                break
            if line.strip():
                return body_line + found[0], True
        elif heading is not None and _TRIGGER_HEADING_RE.match(line[heading.end():].strip()):
            found = (index, len(heading.group(1)))
    return None if found is None else (body_line + found[0], False)


def incomplete_skill(path: str, text: str, kind: str) -> Problem | None:
    """Error: a SKILL.md or TOOL.md (`kind` "skill" / "tool") that does not say what it is.

    Both need frontmatter `name` and `description`; a skill also needs its trigger phrases:
    a `## Triggers` (or `## When to use`) section with content, or a `triggers:` key.
    """
    data, keys, body, body_line = _frontmatter(text, path)
    front = [key for key in ("name", "description") if not _filled(data.get(key))]
    # The line to point at: an empty key's own line, else an empty triggers heading, else 1.
    line = min((keys[m] for m in front if m in keys), default=1)
    triggers: str | None = None
    if kind == "skill" and not _filled(data.get("triggers")):
        section = trigger_section(body, body_line)
        if section is None:
            triggers = "add a `## Triggers` section listing the phrases that call for this skill"
        elif not section[1]:
            triggers = "list the phrases that call for this skill under its triggers heading"
            line = line if front else section[0]
    missing = front + (["triggers"] if triggers else [])
    if not missing:
        return None
    named = ", ".join(f"`{m}`" for m in missing)
    fixes = []
    if front:
        fixes.append("add " + " and ".join(f"`{m}: ...`" for m in front) + " to the frontmatter")
    if triggers:
        fixes.append(triggers)
    file = "SKILL.md" if kind == "skill" else "TOOL.md"
    return Problem(
        "incomplete-skill", Severity.ERROR, path,
        f"this {file} lacks {named}: the agent cannot tell what it is or when to use it",
        line=line, column=1, fix="; ".join(fixes),
    )


_ITEM_TEXT_RE = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$")
MAX_TRIGGERS = 50


def triggers(body: str, frontmatter_triggers: Any = None) -> tuple[str, ...]:
    """A skill's trigger phrases: frontmatter `triggers`, else the list under its triggers heading.

    Quotes around a phrase (`- "deploy <model>"`) are dropped; at most MAX_TRIGGERS.
    """
    found: list[str] = []
    if isinstance(frontmatter_triggers, str):
        found = [frontmatter_triggers]
    elif isinstance(frontmatter_triggers, list):
        found = [str(t) for t in frontmatter_triggers if isinstance(t, str | int | float)]
    else:
        level = 0
        for _, line in prose_lines(body):
            heading = _ATX_RE.match(line)
            if level:
                if heading is not None and len(heading.group(1)) <= level:
                    break
                item = _ITEM_TEXT_RE.match(line)
                if item is not None:
                    found.append(item.group(1))
            elif heading is not None and _TRIGGER_HEADING_RE.match(line[heading.end():].strip()):
                level = len(heading.group(1))
    phrases = (" ".join(t.split()).strip("\"'“”") for t in found)
    return tuple(p for p in phrases if p)[:MAX_TRIGGERS]
