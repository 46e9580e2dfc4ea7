"""The memory block of an agent's system prompt (seeds/000, "What reaches the prompt").

Only the index, never the bodies: a `## Your memory` section listing every own and shared
file as `path — description (age)`, then the house rules. The text depends only on the files
and the clock it is given, so the same inputs give the same bytes and prompts cache well.
Ages are whole days or coarser ("today", "3 days ago"), so the block changes at most once a
day per note rather than every minute.
"""

from __future__ import annotations

from collections.abc import Sequence

from brain.model import clip_description
from brain.tool.catalog import NoteInfo
from brain.tool.files.paths import ROOT, SHARED_ROOT, virtual_path

HEADING = "## Your memory"
NO_DESCRIPTION = "(no description)"
DAY = 86_400

HOUSE_RULES: tuple[str, ...] = (
    "View the memories relevant to the task before you start working.",
    "Treat memories as point-in-time notes: they were true when written, so check anything "
    "that may have changed since.",
    "Update a note with str_replace rather than writing a duplicate.",
    "Delete a note that proves wrong.",
    "One topic per file, with a kebab-case name such as /memories/release-checklist.md.",
    "Start each file with its frontmatter: a `---` line, `description: <one line>`, "
    "`type: user | feedback | project | reference`, and a closing `---` line.",
    "Link related notes with [[wikilinks]], e.g. [[release-checklist]].",
    f"Put user-level facts, true for every agent, in {SHARED_ROOT}/.",
    "Never store secrets: no passwords, API keys, tokens or private keys.",
)


def human_age(seconds: float) -> str:
    """A note's age in words, at day granularity: "today", "1 day ago", "3 weeks ago"."""
    days = int(max(seconds, 0) // DAY)
    if days < 1:
        return "today"
    if days < 14:
        return _ago(days, "day")
    if days < 60:
        return _ago(days // 7, "week")
    if days < 730:
        return _ago(days // 30, "month")
    return _ago(days // 365, "year")


def _ago(n: int, unit: str) -> str:
    return f"{n} {unit} ago" if n == 1 else f"{n} {unit}s ago"


def index_line(note: NoteInfo, shared: bool, now: float) -> str:
    """`path — description (age)`: one line of the index."""
    description = clip_description(note.description) or NO_DESCRIPTION
    age = human_age(now - note.modified_at)
    return f"{virtual_path(shared, note.name)} — {description} ({age})"


def index_lines(own: Sequence[NoteInfo], shared: Sequence[NoteInfo], now: float) -> list[str]:
    lines = [index_line(n, False, now) for n in own]
    lines += [index_line(n, True, now) for n in shared]
    return lines


def render_prompt(own: Sequence[NoteInfo], shared: Sequence[NoteInfo], now: float) -> str:
    """The whole block, ending with a newline."""
    parts = [
        HEADING,
        "",
        f"Your memory is markdown files you reach with the memory tool: {ROOT}/<file>.md is "
        f"your own folder, {SHARED_ROOT}/<file>.md is shared with every agent that has memory. "
        "Below is the index of every file (path — description (age)); read a file with view "
        "when you need it.",
        "",
    ]
    lines = index_lines(own, shared, now)
    parts.extend(lines or [f"(no memories yet: create one with create {ROOT}/<topic>.md)"])
    parts.extend(["", "House rules:"])
    parts.extend(f"- {rule}" for rule in HOUSE_RULES)
    return "\n".join(parts) + "\n"
