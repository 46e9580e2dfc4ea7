"""The finders of the deterministic pass: each one reads a `Snapshot` and yields findings.

A finder is a plain function, registered in `FINDERS` in the order they run (duplicates
first: what they delete, later finders leave alone). Layout-specific finders take what
they need from `Snapshot.layout`, so a new layout adds a hook there, not a new pass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator

import yaml

from brain.maintain.finders.links import fixable_links
from brain.maintain.finders.near_duplicates import copy_key, near_duplicates
from brain.maintain.finders.snapshot import Snapshot
from brain.maintain.findings import Finding, Proposal, vpath
from brain.model import DESCRIPTION_CLIP, MEMORY_TYPES, SHARED_SCOPE, MemoryNode, name_key
from brain.parse.note import first_line
from brain.tool.files.requirements import Required

Finder = Callable[[Snapshot], Iterable[Finding]]
_TYPES = "|".join(MEMORY_TYPES)


def _newest_first(group: list[MemoryNode]) -> list[MemoryNode]:
    return sorted(group, key=lambda m: (-m.modified_at, m.name))


def _incoming(snap: Snapshot, memory: MemoryNode, ignore: set[str]) -> list[str]:
    links = snap.brain.store.links_to([memory.id]).get(memory.id, [])
    return sorted({link.source.split(":", 1)[1] for link in links if link.source not in ignore})


def _unlinked(memory: MemoryNode, ignore: set[str]) -> Required:
    """A delete proposed because nothing links to the note: still so when it is made."""
    return Required(memory.path, None, "the note", unlinked=memory.id, linked_from=tuple(sorted(ignore)))


def duplicates(snap: Snapshot) -> Iterator[Finding]:
    """Notes of one scope with the same text (whitespace-trimmed): keep the newest."""
    for scope in snap.scopes():
        # Most notes have a description of their own: only notes sharing one are compared.
        same_head: dict[tuple[str, str | None], list[MemoryNode]] = {}
        for memory in snap.by_scope.get(scope, []):
            same_head.setdefault((memory.description, memory.type), []).append(memory)
        same: dict[tuple[str, str | None, str, str], list[MemoryNode]] = {}
        for head in same_head.values():
            if len(head) > 1:
                for memory in head:
                    same.setdefault(copy_key(memory), []).append(memory)
        groups = [g for g in same.values() if len(g) > 1]
        for group in groups:
            keep, *copies = _newest_first(group)
            ids = {m.id for m in group}
            for copy in copies:
                linked = _incoming(snap, copy, ids)
                reason = f"same text as memory/{scope}/{keep.name}.md, which is newer and is kept"
                if linked:
                    reason += (
                        f"; not deleted on its own because {len(linked)} note(s) link to it "
                        f"({', '.join(linked[:3])}): point them at [[{keep.name}]] first"
                    )
                else:
                    snap.going.add(copy.path)
                yield Finding(
                    "duplicate", copy.path, scope, reason,
                    Proposal(scope, "delete", {"path": vpath(copy)}, copy.hash, requires=(
                        Required(keep.path, keep.hash, "the kept copy"), _unlinked(copy, ids),
                    )),
                    safe=not linked,
                )


def same_names(snap: Snapshot) -> Iterator[Finding]:
    """Entries that claim one name: case/accent variants, one `name:`, or a private note
    that hides a shared one of the same name from its agent's links."""
    shared = {name_key(m.name): m for m in snap.by_scope.get(SHARED_SCOPE, [])}
    for scope in snap.scopes():
        notes = [m for m in snap.by_scope.get(scope, []) if m.path not in snap.going]
        groups: dict[str, list[MemoryNode]] = {}
        for memory in notes:
            groups.setdefault("file:" + name_key(memory.name), []).append(memory)
            declared = memory.properties.get("name")
            if isinstance(declared, str) and declared.strip():
                groups.setdefault("name:" + name_key(declared), []).append(memory)
        reported: set[str] = set()
        for key, group in sorted(groups.items()):
            if len(group) < 2:
                continue
            keep, *older = _newest_first(group)
            how = "a file name that differs only in case or accents" if key.startswith("file:") else (
                f"the name `{key[5:]}`"
            )
            for old in older:
                if old.id in reported:
                    continue
                reported.add(old.id)
                yield Finding(
                    "same-name", old.path, scope,
                    f"shares {how} with memory/{scope}/{keep.name}.md (newer): merge what this one "
                    "adds into it, then delete this one",
                    Proposal(scope, "delete", {"path": vpath(old)}, old.hash),
                )
        if scope == SHARED_SCOPE:
            continue
        for memory in notes:
            other = shared.get(name_key(memory.name))
            if other is None or memory.id in reported:
                continue
            reason = (
                f"has the name of memory/shared/{other.name}.md, so [[{memory.name}]] in "
                f"`{scope}`'s notes reaches this note and never the shared one"
            )
            if memory.modified_at <= other.modified_at:
                yield Finding(
                    "same-name", memory.path, scope,
                    reason + "; it is older: merge what it adds into the shared note, then delete it",
                    Proposal(scope, "delete", {"path": vpath(memory)}, memory.hash),
                )
            else:
                yield Finding(
                    "same-name", memory.path, scope,
                    reason + "; it is newer: merge the shared note into it, or rename it",
                    Proposal(scope, "view", {"path": vpath(memory)}),
                )


def expired_daily_notes(snap: Snapshot) -> Iterator[Finding]:
    """Daily notes older than the layout keeps them (none in latchai: it has no daily notes)."""
    dated = snap.layout.daily_note
    if dated is None:
        return
    for memory in snap.memories:
        day = dated(memory)
        if day is None or memory.path in snap.going:
            continue
        age = (snap.today - day).days
        if age <= snap.layout.retain_days:
            continue
        linked = _incoming(snap, memory, {memory.id})
        keeps = snap.layout.retain_days
        reason = f"daily note of {day.isoformat()}, {age} days old; {snap.layout.name} keeps {keeps}"
        if linked:
            reason += f"; kept for now because {', '.join(linked[:3])} link(s) to it"
        else:
            snap.going.add(memory.path)
        yield Finding(
            "expired-daily-note", memory.path, memory.scope, reason,
            Proposal(memory.scope, "delete", {"path": vpath(memory)}, memory.hash,
                     requires=(_unlinked(memory, {memory.id}),)), safe=not linked,
        )


_FENCE = re.compile(r"^---\s*$")
_KEY = re.compile(r"^(description|type)\s*:(.*)$")


def frontmatter_lines(text: str) -> tuple[int | None, dict[str, tuple[int, str]]]:
    """(line of the closing `---` or None without frontmatter, {key: (line, raw line)})."""
    lines = text.split("\n")
    if not lines or not _FENCE.match(lines[0].lstrip("\ufeff")):
        return None, {}
    keys: dict[str, tuple[int, str]] = {}
    for number, line in enumerate(lines[1:], 2):
        if _FENCE.match(line):
            return number, keys
        found = _KEY.match(line)
        if found:
            keys.setdefault(found.group(1), (number, line))
    return None, {}


_SURELY_PLAIN = re.compile(r"[A-Za-z][\w .,;()/'’—–…-]*[\w.)’…]")
_YAML_WORDS = frozenset(["yes", "no", "on", "off", "true", "false", "null", "y", "n"])


def yaml_value(text: str) -> str:
    """`text` as a one-line YAML value: plain when YAML reads it back unchanged, else quoted
    (a JSON string is a YAML double-quoted scalar)."""
    if _SURELY_PLAIN.fullmatch(text) and text.lower() not in _YAML_WORDS:
        return text  # words and ordinary punctuation: no need to ask the (slow) YAML parser
    try:
        plain = "\n" not in text and yaml.safe_load(f"k: {text}") == {"k": text}
    except yaml.YAMLError:
        plain = False
    return text if plain else json.dumps(text, ensure_ascii=False)


def clip_words(text: str, limit: int = DESCRIPTION_CLIP) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:—-")
    return cut + "…"


def _first_line(body: str) -> str:
    """`brain.parse.note.first_line`, without splitting a whole long body when its top line will do."""
    start = len(body) - len(body.lstrip())
    end = body.find("\n", start)
    found = first_line(body[start:] if end < 0 else body[start:end])
    return found or first_line(body)


def _given(keys: dict[str, tuple[int, str]], key: str) -> bool:
    """Whether the frontmatter gives `key` a value: `key:`, `key: ''`, `key: ""`, `key: ~` and
    `key: null` give none (YAML reads each as empty or null)."""
    if key not in keys:
        return False
    value = keys[key][1].split(":", 1)[1].split(" #", 1)[0].strip()
    return value not in ("", "''", '""', "~", "null", "Null", "NULL")


def descriptions(snap: Snapshot) -> Iterator[Finding]:
    """weak-description (empty, the first-line fallback, past the clip) and missing-type."""
    for memory in snap.memories:
        if memory.path in snap.going or not snap.layout.typed(memory):
            continue
        fallback = memory.description == _first_line(memory.body)
        if not (fallback or len(memory.description) > DESCRIPTION_CLIP or memory.type is None):
            continue
        text = snap.read_text(memory)
        if text is None:
            continue
        closing, keys = frontmatter_lines(text)
        has_desc = _given(keys, "description")
        path, scope = vpath(memory), memory.scope
        if not memory.description:
            yield Finding(
                "weak-description", memory.path, scope,
                "has no description (no `description:` and no text): indexes show it blank",
                _set_key(scope, path, closing, keys, "description", "<one line: its topic>", memory.type),
            )
        elif fallback and not has_desc:
            yield Finding(
                "weak-description", memory.path, scope,
                ("its `description:` is empty" if "description" in keys else "has no `description:`")
                + f"; indexes fall back to its first line (`{clip_words(memory.description, 60)}`)",
                _set_key(
                    scope, path, closing, keys, "description", clip_words(memory.description), memory.type
                ),
            )
        elif len(memory.description) > DESCRIPTION_CLIP and "description" in keys:
            line, raw = keys["description"]
            yield Finding(
                "weak-description", memory.path, scope,
                f"its description is {len(memory.description)} characters; indexes clip it at "
                f"{DESCRIPTION_CLIP}: say it in one shorter line",
                Proposal(scope, "str_replace", {
                    "path": path, "old_str": raw,
                    "new_str": f"description: {yaml_value(clip_words(memory.description))}",
                }),
                line=line,
            )
        if memory.type is None:
            yield Finding(
                "missing-type", memory.path, scope,
                "has no valid `type:` (one of " + ", ".join(MEMORY_TYPES) + "): choose the one that fits",
                _set_key(
                    scope, path, closing, keys, "type", f"<{_TYPES}>", None,
                    description=memory.description if closing is None else None,
                ),
                line=keys["type"][0] if "type" in keys else None,
            )


def _set_key(
    scope: str, path: str, closing: int | None, keys: dict[str, tuple[int, str]], key: str, value: str,
    kind: str | None, *, description: str | None = None,
) -> Proposal:
    """Set one frontmatter key. A note without frontmatter gets the whole skeleton at once
    (description and type), so the weak-description and missing-type fixes are one edit."""
    line = f"{key}: {value if value.startswith('<') else yaml_value(value)}"
    if key in keys:
        return Proposal(scope, "str_replace", {"path": path, "old_str": keys[key][1], "new_str": line})
    if closing is None:
        desc = line if key == "description" else f"description: {yaml_value(clip_words(description or ''))}"
        typ = line if key == "type" else f"type: {kind or '<' + _TYPES + '>'}"
        return Proposal(
            scope, "insert", {"path": path, "insert_line": 0, "insert_text": f"---\n{desc}\n{typ}\n---\n"}
        )
    return Proposal(scope, "insert", {"path": path, "insert_line": closing - 1, "insert_text": line + "\n"})


def large_notes(snap: Snapshot) -> Iterator[Finding]:
    for memory in snap.memories:
        if memory.size <= snap.large_note_bytes or memory.path in snap.going:
            continue
        sections = sum(1 for h in memory.headings if h.level <= 2)
        yield Finding(
            "large-note", memory.path, memory.scope,
            f"is {memory.size / 1024:.1f} KB (over {snap.large_note_bytes // 1024} KB) with {sections} "
            "top-level sections: split it into notes of one topic each and link them",
            Proposal(memory.scope, "view", {"path": vpath(memory)}),
        )


FINDERS: list[Finder] = [
    duplicates, near_duplicates, expired_daily_notes, same_names, descriptions, fixable_links, large_notes,
]
