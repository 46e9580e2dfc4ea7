"""Markdown note -> ParsedNote: frontmatter, description, type, and the body's headings and
wikilinks (brain/parse/body.py) and blocks. Pure."""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from brain.budgets import note_budget
from brain.model import (
    MEMORY_TYPES,
    Block,
    Heading,
    JSONValue,
    Problem,
    Severity,
    WikiLink,
)
from brain.parse.body import headings_and_links
from brain.parse.frontmatter import MAX_FRONTMATTER_BYTES, key_lines, load_frontmatter, split_frontmatter
from brain.parse.note_budget import capped_links, depth_of, text_bytes, too_deep, too_large
from brain.parse.spans.blocks import scan_blocks
from brain.parse.spans.empty_links import empty_link_problems

HEADING_MARKS_RE = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+|$)")
CLOSING_HASHES_RE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")


@dataclass(frozen=True, slots=True)
class ParsedNote:
    description: str
    type: str | None
    properties: Mapping[str, JSONValue]
    headings: tuple[Heading, ...]
    links: tuple[WikiLink, ...]
    body: str
    body_line: int
    has_frontmatter: bool
    frontmatter_keys: Mapping[str, int] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    blocks: tuple[Block, ...] = ()


def decode(raw: bytes, path: str) -> tuple[str, list[Problem]]:
    """Bytes -> text with `\\n` line ends and no BOM; undecodable bytes become a problem."""
    problems: list[Problem] = []
    if b"\x00" in raw:
        line, column = _byte_position(raw, raw.index(b"\x00"))
        problems.append(
            Problem(
                "invalid-encoding", Severity.ERROR, path,
                "binary content (a NUL byte): a memory must be UTF-8 markdown text",
                line=line, column=column, fix="replace the file with a UTF-8 text version",
            )
        )
        return "", problems
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _byte_position(raw, exc.start)
        problems.append(
            Problem(
                "invalid-encoding", Severity.ERROR, path,
                f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} on line {line}); "
                "undecodable bytes are shown as \ufffd",
                line=line, column=column, fix="re-save the file as UTF-8",
            )
        )
        text = raw.decode("utf-8", errors="replace")
    return normalize_text(text), problems


def _byte_position(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based line and character column of a byte offset, as the decoded text counts them."""
    before = normalize_text(raw[:offset].decode("utf-8", errors="replace"))
    return before.count("\n") + 1, len(before) - before.rfind("\n")


def normalize_text(text: str) -> str:
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def body_of(raw: bytes, path: str = "") -> str:
    """The body `parse_note` gives for a file's bytes, nothing else parsed (a body read back
    from its file: brain/ingest/note_bodies.py)."""
    return split_frontmatter(normalize_text(decode(raw, path)[0]), path, [])[1]


def parse_note(text: str, path: str = "") -> ParsedNote:
    """Parse one note. Never raises: what is wrong becomes a Problem on the result.

    Within the note's budget only (brain/parse/note_budget.py): past its size nothing is read."""
    budget = note_budget()
    size = text_bytes(text, budget.max_bytes)
    if size > budget.max_bytes:  # the text as given: a file's size on disk, a buffer's length
        return unread_note(too_large(path, size, budget))
    text = normalize_text(text)
    problems: list[Problem] = []
    fm_text, body, body_line, fm_present = split_frontmatter(text, path, problems)
    data: dict[str, Any] = {}
    keys: dict[str, int] = {}
    if fm_text is not None:
        data = load_frontmatter(fm_text, path, problems)
        keys = key_lines(fm_text) if len(fm_text) <= MAX_FRONTMATTER_BYTES else {}
    description = _description(data, body, path, keys, problems)
    note_type = _type(data, path, keys, problems)
    properties = {
        str(k): to_json(v) for k, v in data.items() if k not in ("description", "type")
    }
    deep = depth_of(body, budget)
    headings: tuple[Heading, ...] = ()
    links: tuple[WikiLink, ...] = ()
    blocks: tuple[Block, ...] = ()
    if deep is not None:  # neither scanner sees a body nested past the budget
        problems.append(too_deep(path, body_line + deep[0], deep[1], budget))
    else:
        headings, links = headings_and_links(body, body_line)
        links, dropped = capped_links(links, path, budget)
        problems += [dropped] if dropped is not None else []
        # Anchors and empty links: brain.parse.spans (anchors, blocks, empty_links).
        problems += empty_link_problems(body, body_line, path)
        blocks = scan_blocks(body, body_line)
    return ParsedNote(
        description=description,
        type=note_type,
        properties=properties,
        headings=headings,
        links=links,
        body=body,
        body_line=body_line,
        has_frontmatter=fm_present,
        frontmatter_keys=keys,
        problems=tuple(problems),
        blocks=blocks,
    )


def unread_note(problem: Problem) -> ParsedNote:
    """A note over its size budget: nothing read, only the problem that says so."""
    return ParsedNote("", None, {}, (), (), "", 1, False, problems=(problem,))


def _description(
    data: Mapping[str, Any], body: str, path: str, keys: Mapping[str, int],
    problems: list[Problem],
) -> str:
    value = data.get("description")
    if isinstance(value, str) and value.strip():
        return " ".join(value.split())
    if value is not None and not isinstance(value, str):
        problems.append(
            Problem(
                "invalid-frontmatter", Severity.ERROR, path,
                "`description` must be one line of text",
                line=keys.get("description"), column=_column(keys, "description"),
                length=len("description"),
                fix="write `description: <one line>` (quote it if it contains `: `)",
            )
        )
    return first_line(body)


def _column(keys: Mapping[str, int], key: str) -> int | None:
    """Column 1 of a key's line; no column where the line is unknown (`{type: x}`)."""
    return 1 if key in keys else None


def first_line(body: str) -> str:
    """The first non-empty line, without heading marks (`#tag` and `####### x` are text)."""
    for line in body.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        heading = HEADING_MARKS_RE.match(line)
        if heading is None:
            return stripped
        text = CLOSING_HASHES_RE.sub("", line[heading.end() :]).strip()
        if text:
            return text
    return ""


def _type(
    data: Mapping[str, Any], path: str, keys: Mapping[str, int], problems: list[Problem]
) -> str | None:
    value = data.get("type")
    if value is None:
        return None
    if isinstance(value, str) and value in MEMORY_TYPES:
        return value
    hint = ""
    if isinstance(value, str) and value.strip().lower() in MEMORY_TYPES:
        hint = f" (did you mean `{value.strip().lower()}`?)"
    problems.append(
        Problem(
            "invalid-frontmatter", Severity.ERROR, path,
            f"type `{value}` is not one of {', '.join(MEMORY_TYPES)}{hint}",
            line=keys.get("type"), column=_column(keys, "type"), length=len("type"),
            target=str(value),
            fix="set `type:` to one of " + ", ".join(MEMORY_TYPES),
        )
    )
    return None


def to_json(value: Any) -> JSONValue:
    """Frontmatter values as JSON values, deterministically (dates become ISO strings)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [to_json(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


# ---------------------------------------------------------------- body: links, headings


def note_description(text: str, path: str = "") -> str:
    """The description `parse_note` gives a note, from its frontmatter or first line alone
    (what the language server shows before the first index is built)."""
    text = normalize_text(text)
    problems: list[Problem] = []
    fm_text, body, _, _ = split_frontmatter(text, path, problems)
    data = load_frontmatter(fm_text, path, problems) if fm_text is not None else {}
    return _description(data, body, path, {}, problems)
