"""Links a window broke or fixed in notes it did not change: a note deleted (or renamed, or
created) changes what every link to its name resolves to, wherever that link is written.

A note deleted in the window breaks each link to it from notes that stayed as they were, and
a note created fixes each link to its name that was broken; the diff lists these beside the
links the window's edits broke and fixed (changes.py). Only names the window's own adds,
removes and renames touched are looked at (with `--agent`, that agent's), and only those
whose entries really differ between the two moments (`NamesAt.changed_keys`).

The notes that may link to those names come from `Linkers` (the served graph's links by name
key, else one walk of the note files whose text holds the name; query.py). A note unchanged
in the window held the same text all through it: its text now, or, when it changed after
the window, its version at `until` (the `before` of its first record after the window). Each
version is read through what it parses to (parsed.py), so a note is parsed once.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from brain.model import leaf_key
from brain.tool.history.blobs import BlobStore
from brain.tool.history.linkcheck import NamesAt
from brain.tool.history.log import HistoryRecord
from brain.tool.history.parsed import Parsed, ParsedVersions

# The notes now that may link to any of these name keys: path -> its content now (a superset
# is fine: each link is judged again here).
Linkers = Callable[[Collection[str]], Mapping[str, bytes]]


def touched_keys(window: Mapping[str, tuple[str | None, str | None]]) -> set[str]:
    """The name keys of the window's notes that came or went (a rename: both its names)."""
    keys: set[str] = set()
    for path, (before, after) in window.items():
        if (before is None) != (after is None) and path.endswith(".md"):
            keys.add(leaf_key(path.rsplit("/", 1)[-1]))
    return keys


def unchanged_links(
    *,
    window: Mapping[str, tuple[str | None, str | None]],
    records: list[HistoryRecord],
    after_index: int,
    keys: set[str],
    before: NamesAt,
    after: NamesAt,
    both: Collection[str],
    linkers: Linkers,
    blobs: BlobStore,
    parsed: ParsedVersions,
    visible: Callable[[str], bool],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(broken, fixed) links to the name `keys` written in notes the window did not change.
    `window`: path -> (before, after) of the window's notes; `records[after_index:]`: the
    records after `until`; `both`: the paths at `since` and at `until` alike."""
    if not keys:
        return [], []
    later = _versions_at_until(records[after_index:])
    candidates: dict[str, Parsed | None] = {}
    for path, data in linkers(keys).items():
        if path not in later:
            candidates[path] = parsed.add_content(data)
    for path, digest in later.items():
        if digest is not None:
            candidates[path] = _parsed_of(digest, blobs, parsed)
    broken: list[dict[str, Any]] = []
    fixed: list[dict[str, Any]] = []
    for path in sorted(candidates):
        version = candidates[path]
        if version is None or path not in both or not visible(path) or _changed_in(window, path):
            continue
        for target, line in sorted(version.links.items(), key=lambda kv: (kv[1], kv[0])):
            if before.key_of(target) not in keys:
                continue
            then, now = before.status(path, target), after.status(path, target)
            if now is not None and then is None:
                broken.append(_link(path, target, line, now))
            elif then is not None and now is None:
                fixed.append(_link(path, target, line, then))
    return broken, fixed


def _changed_in(window: Mapping[str, tuple[str | None, str | None]], path: str) -> bool:
    found = window.get(path)
    return found is not None and found[0] != found[1]


def _versions_at_until(after_until: Iterable[HistoryRecord]) -> dict[str, str | None]:
    """The paths changed after `until`, each with its content's sha256 at `until`."""
    found: dict[str, str | None] = {}
    for record in after_until:
        if record.command == "maintain" and record.path == "":
            continue
        found.setdefault(record.path, record.before)
        if record.new_path is not None:
            found.setdefault(record.new_path, None)
    return found


def _parsed_of(digest: str, blobs: BlobStore, parsed: ParsedVersions) -> Parsed | None:
    known = parsed.get(digest)
    if known is not None:
        return known
    data = blobs.get(digest)
    return None if data is None else parsed.add(digest, data)


def _link(source: str, target: str, line: int, status: str) -> dict[str, Any]:
    found: dict[str, Any] = {"source": source, "target": target, "line": line}
    if status != "broken":
        found["status"] = status
    return found
