"""The rules of mindlink agent memory (seeds/003; design.md section 8). Pure.

An agent's memory is `<agent>/memory/entries/*.md` (long-term entries with frontmatter
`name`, `description`, `type`) and `<agent>/memory/YYYY-MM-DD.md` (daily notes). The seed's
rules become problems: a feedback entry says why and how to apply it; daily notes expire
after `daily_note_retain_days`; an exact copy of an entry is redundant; anything else under
`memory/` is not a memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from brain.model import Problem, Severity
from brain.parse.note import ParsedNote
from brain.rules.dates import daily_name_date, looks_dated
from brain.rules.lines import prose_lines

DEFAULT_RETAIN_DAYS = 30
ENTRIES_DIR = "entries"
# `Why:`, `- Why:`, `**Why:**`, `> _How to apply:_`: a line starts with the label once list,
# quote and emphasis marks are set aside.
# At most 8 marks: a line of a hundred thousand `*` costs one short look, not a backtrack.
_LEAD = r"^[ \t]*(?:(?:[-*+>]|\d{1,9}[.)])[ \t]*){0,8}[*_]{0,3}"
_LABEL_RES = {
    "Why:": re.compile(_LEAD + r"why[*_]{0,3}[ \t]*:", re.IGNORECASE),
    "How to apply:": re.compile(_LEAD + r"how[ \t]+to[ \t]+apply[*_]{0,3}[ \t]*:", re.IGNORECASE),
}
FEEDBACK_LABELS = ("Why:", "How to apply:")


def labelled_lines(body: str) -> set[str]:
    """Which of FEEDBACK_LABELS start a line of body (case-insensitive; never inside code)."""
    found: set[str] = set()
    for _, line in prose_lines(body):
        for label, pattern in _LABEL_RES.items():
            if pattern.match(line):  # `**Why:**` and `**Why**:` both count
                found.add(label)
    return found


def feedback_incomplete(path: str, note: ParsedNote) -> Problem | None:
    """Error: a `type: feedback` entry whose body lacks a `Why:` or a `How to apply:` line."""
    if note.type != "feedback":
        return None
    missing = [label for label in FEEDBACK_LABELS if label not in labelled_lines(note.body)]
    if not missing:
        return None
    line = note.frontmatter_keys.get("type", 1)
    named = " and ".join(f"`{label}`" for label in missing)
    return Problem(
        "feedback-incomplete", Severity.ERROR, path,
        f"a feedback entry must say why and how to apply it: no line starts with {named}",
        line=line, column=1,
        fix="add " + " and ".join(f"a line `{label} ...`" for label in missing) + " to the body",
    )


def expired_daily_note(
    path: str, day: date, today: date, retain_days: int = DEFAULT_RETAIN_DAYS
) -> Problem | None:
    """Warning: a daily note dated more than `retain_days` days before `today` (UTC)."""
    age = (today - day).days
    if age <= retain_days:
        return None
    return Problem(
        "expired-daily-note", Severity.WARNING, path,
        f"daily note of {day.isoformat()} is {age} days old; daily notes are kept "
        f"{retain_days} days (`daily_note_retain_days`)",
        fix="move what still matters into an entry under memory/entries/, then delete the note "
        "(`brain maintain --apply` deletes expired notes nothing links to)",
    )


@dataclass(frozen=True, slots=True)
class Entry:
    """What duplicate-entry compares: an entry's agent, body and modification time."""

    path: str
    agent: str
    body: str
    modified_at: float
    body_line: int = 1


def duplicate_entries(entries: Iterable[Entry]) -> list[Problem]:
    """Warnings on every copy but the newest of entries of one agent with the same body.

    Bodies are compared whitespace-trimmed; an empty body copies nothing. The newest is the
    latest modification time (equal times: the last path, so the answer never depends on
    the order entries are given in).
    """
    groups: dict[tuple[str, str], list[Entry]] = {}
    for entry in entries:
        body = entry.body.strip()
        if body:
            groups.setdefault((entry.agent, body), []).append(entry)
    problems: list[Problem] = []
    for copies in groups.values():
        if len(copies) < 2:
            continue
        ordered = sorted(copies, key=lambda e: (e.modified_at, e.path))
        newest = ordered[-1]
        for older in ordered[:-1]:
            problems.append(Problem(
                "duplicate-entry", Severity.WARNING, older.path,
                f"same body as {newest.path}, which is newer: this copy adds nothing",
                line=older.body_line, column=1, candidates=(newest.path,),
                fix=f"delete this entry, or make it say something {newest.path} does not",
            ))
    return sorted(problems, key=Problem.sort_key)


def not_a_memory(rel: str, under: Sequence[str]) -> Problem:
    """Warning for a file under `<agent>/memory/` that is neither an entry nor a daily note.

    `under` is the file's path below `memory/` in parts (`["entries", "x.txt"]`).
    """
    agent_memory = rel[: len(rel) - len("/".join(under))].rstrip("/")
    name = under[-1]
    stem = name.rsplit(".", 1)[0] if "." in name else name
    if len(under) == 1 and looks_dated(name) and daily_name_date(name) is None:
        message = f"named like a daily note, but {stem} is not a real date"
        fix = f"rename it to the day it was written, as {agent_memory}/YYYY-MM-DD.md"
    elif len(under) == 2 and under[0] == ENTRIES_DIR:
        message = "not markdown: entries are .md files"
        fix = (
            f"rename it to {agent_memory}/{ENTRIES_DIR}/{stem}.md if it is an entry, "
            "else move it out of memory/"
        )
    elif under[0] == ENTRIES_DIR:
        message = f"in a nested folder: entries live directly in {agent_memory}/{ENTRIES_DIR}/"
        fix = f"move it to {agent_memory}/{ENTRIES_DIR}/{name}"
    else:
        message = (
            "not a memory: memory/ holds entries (memory/entries/<name>.md) and daily notes "
            "(memory/YYYY-MM-DD.md)"
        )
        fix = f"move it to {agent_memory}/{ENTRIES_DIR}/{stem}.md if it is a memory, else out of memory/"
    return Problem("not-a-memory", Severity.WARNING, rel, message, fix=fix)
