"""What changed in a workspace between two moments, from its history: one function, every front end.

`brain diff`, GraphQL `changes`, `GET /api/changes` and the MCP tool `memory_changes` all
call `changes_between`. It reads the history records in the window (a memory-tool write,
a maintenance run's, or a change made outside brain), folds each path's records into its
state before the window and after it, and says which notes were added, removed or
changed (with the origin and actor of the last change). Links and problems come from
parsing the kept content of both sides with brain's parser: a link the change made whose
target names no note is `broken`, one that named none before and now does (or went) is
`fixed`; the parser's problems of the two sides give `new` and `gone`. A side whose
content the history did not keep (retention, or the cap) is said in `notKept`, never
silently treated as empty.

Who may see what is decided by the caller's `visible(scope)`, applied to the records
before anything is computed, so an agent's changes never carry another agent's notes.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from brain.model import name_key
from brain.parse.note import decode, parse_note
from brain.tool.history.blobs import BlobStore
from brain.tool.history.log import HistoryRecord, iso_time, origin_of

_RELATIVE = re.compile(r"(\d+)\s*([smhdw])")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


class BadMoment(ValueError):
    """A time that is neither ISO 8601 nor relative ("7d", "24h", "30m", "2w")."""


def parse_moment(text: str, now: float) -> float:
    """Seconds since the epoch of `text`: ISO 8601 (UTC when it names no zone) or a
    relative age ("7d" is seven days before `now`)."""
    value = text.strip()
    relative = _RELATIVE.fullmatch(value)
    if relative is not None:
        return now - int(relative.group(1)) * _UNITS[relative.group(2)]
    try:
        moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise BadMoment(
            f"{text!r} is not a time: give ISO 8601 (2026-12-01T09:00:00Z) or an age (7d, 24h, 30m)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.timestamp()


def record_time(record: HistoryRecord) -> float:
    return parse_moment(record.at, 0.0)


def _stamp(epoch: float) -> str:
    """`epoch` as the history writes times (log.iso_time): such strings compare as times."""
    return iso_time(epoch)


def _at(record: HistoryRecord) -> str:
    """The record's time as a comparable stamp: its own when written by brain (a string
    compare, no parse: a diff looks at every record), else parsed."""
    at = record.at
    if len(at) == 27 and at[-1] == "Z" and at[10] == "T":
        return at
    try:
        return _stamp(record_time(record))
    except BadMoment:
        return ""  # not a time: before every window (the reader already warned of bad lines)


@dataclass(slots=True)
class _Path:
    before: str | None
    after: str | None
    origin: str
    by: str
    records: int = 0
    run: str | None = None  # the maintenance or consolidation run of the last change
    commit: str | None = None  # the git commit an outside change's content matched


@dataclass(slots=True)
class _Window:
    paths: dict[str, _Path] = field(default_factory=dict)

    def see(self, path: str, before: str | None, after: str | None, record: HistoryRecord) -> None:
        found = self.paths.get(path)
        if found is None:
            found = self.paths[path] = _Path(before, after, origin_of(record), record.actor)
        found.after, found.origin, found.by = after, origin_of(record), record.actor
        found.run, found.commit = record.run, record.commit
        found.records += 1


def changes_between(
    records: Iterable[HistoryRecord],
    blobs: BlobStore,
    *,
    since: float,
    until: float,
    agent: str | None = None,
    visible: Callable[[str], bool] = lambda scope: True,
    names: Iterable[str] = (),
) -> dict[str, Any]:
    """The changes of the records in [since, until] as the diff's JSON. `names` are the
    workspace's note paths now (what a link's target may name, with the window's own)."""
    window = _Window()
    records = list(records)
    low, high = _stamp(since), _stamp(until)
    for record in records:
        if record.command == "maintain" and record.path == "":
            continue  # a maintenance run's own report, not a note's change
        at = _at(record)
        if at < low or at > high:
            continue
        if agent is not None and record.agent != agent:
            continue
        if not visible(record.scope):
            continue
        if record.new_path is not None:
            if record.new_scope is not None and not visible(record.new_scope):
                continue
            window.see(record.path, record.before, None, record)
            window.see(record.new_path, None, record.after, record)
        else:
            window.see(record.path, record.before, record.after, record)
    known = {name_key(PurePosixPath(p).stem) for p in _names_at(set(names), records, until)}
    added: list[dict[str, Any]] = []
    removed: list[dict[str, Any]] = []
    changed: list[dict[str, Any]] = []
    broken: list[dict[str, Any]] = []
    fixed: list[dict[str, Any]] = []
    new_problems: list[dict[str, Any]] = []
    gone_problems: list[dict[str, Any]] = []
    not_kept: list[dict[str, Any]] = []
    for path, state in sorted(window.paths.items()):
        if state.before == state.after:
            continue  # changed and changed back within the window
        entry: dict[str, Any] = {"path": path, "origin": state.origin, "by": state.by}
        if state.run is not None:  # added only when known: the shape stays the same otherwise
            entry["run"] = state.run
        if state.commit is not None:
            entry["commit"] = state.commit
        if state.before is None:
            added.append(entry)
            known.add(name_key(PurePosixPath(path).stem))
        elif state.after is None:
            removed.append(entry)
        else:
            changed.append({"path": path, "before": state.before, "after": state.after, **entry})
    for path, state in sorted(window.paths.items()):
        if state.before == state.after or not path.endswith(".md"):
            continue
        old = _side(blobs, path, state.before, "before", not_kept)
        new = _side(blobs, path, state.after, "after", not_kept)
        if old is None or new is None:
            continue
        old_broken = _broken(old[0], known)
        new_broken = _broken(new[0], known)
        for target, line in sorted(new_broken.items(), key=lambda kv: (kv[1], kv[0])):
            if target not in old_broken:
                broken.append({"source": path, "target": target, "line": line})
        for target, line in sorted(old_broken.items(), key=lambda kv: (kv[1], kv[0])):
            if target not in new_broken:
                fixed.append({"source": path, "target": target, "line": line})
        new_problems += [p for key, p in new[1].items() if key not in old[1]]
        gone_problems += [p for key, p in old[1].items() if key not in new[1]]
    return {
        "since": _iso(since),
        "until": _iso(until),
        "notes": {"added": added, "removed": removed, "changed": changed},
        "links": {"broken": broken, "fixed": fixed},
        "problems": {"new": new_problems, "gone": gone_problems},
        "notKept": not_kept,
        "retention": retention_of(records, since),
    }


def retention_of(records: list[HistoryRecord], since: float) -> dict[str, Any] | None:
    """None when the history reaches back to `since`; else what it does not know: a window
    starting before the oldest record kept (the history began later, or a person trimmed or
    replaced the file) cannot say what changed before that record, and says so."""
    oldest = next((at for at in map(_at, records) if at), None)
    if oldest is not None and oldest <= _stamp(since):
        return None
    if oldest is None:
        return {"oldest": None, "message": "the history holds no record yet: no change before now is known"}
    return {
        "oldest": oldest,
        "message": f"the history begins at {oldest}: changes before it are not known",
    }


def _names_at(now: set[str], records: list[HistoryRecord], until: float) -> set[str]:
    """The note paths at `until`: those of now, with the recorded changes since undone
    (newest first), so a link is judged against the names of its moment."""
    high = _stamp(until)
    for record in reversed(records):
        if _at(record) <= high:
            break
        if record.new_path is not None:
            now.discard(record.new_path)
            now.add(record.path)
        elif record.before is None:
            now.discard(record.path)
        elif record.after is None:
            now.add(record.path)
    return now


_Parsed = tuple[dict[str, int], dict[tuple[str, str], dict[str, Any]]]
_EMPTY: _Parsed = ({}, {})


# What a version's content parses to, by its hash: blobs never change, so a dashboard asking
# for the week's changes again parses only what is new. Bounded; dropped whole when full.
_PARSED: dict[tuple[str, str], _Parsed] = {}
PARSED_CACHE_ENTRIES = 50_000


def _side(blobs: BlobStore, path: str, digest: str | None, side: str,
          not_kept: list[dict[str, Any]]) -> _Parsed | None:
    """The unresolvable-link candidates and problems of one side (None: its content is gone)."""
    if digest is None:
        return _EMPTY
    cached = _PARSED.get((path, digest))  # problems name the path: keyed by both
    if cached is not None:
        return cached
    data = blobs.get(digest)
    if data is None:
        not_kept.append({"path": path, "side": side, "hash": digest})
        return None
    parsed = _parse_side(data, path)
    if len(_PARSED) >= PARSED_CACHE_ENTRIES:
        _PARSED.clear()
    _PARSED[(path, digest)] = parsed
    return parsed


def _parse_side(data: bytes, path: str) -> _Parsed:
    text, problems = decode(data, path)
    note = parse_note(text, path)
    links: dict[str, int] = {}
    for link in note.links:
        target = link.target.strip()
        if target and target not in links:
            links[target] = link.line
    found = {
        (p.code, p.message): {"path": path, "code": p.code, "message": p.message, "line": p.line}
        for p in (*problems, *note.problems)
    }
    return links, found


def _broken(links: dict[str, int], known: set[str]) -> dict[str, int]:
    """The links whose target (its last segment, as the resolver's name key) names no note."""
    out: dict[str, int] = {}
    for target, line in links.items():
        last = target.split(":", 1)[-1].rsplit("/", 1)[-1]
        if name_key(last) not in known:
            out[target] = line
    return out


def _iso(epoch: float) -> str:
    stamp = dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat(timespec="seconds")
    return stamp.replace("+00:00", "Z")


def text_of(found: dict[str, Any]) -> str:
    """The diff as a person reads it: one line a change."""
    lines = [f"changes from {found['since']} to {found['until']}"]
    notes = found["notes"]
    lines += [f"+ {n['path']}  ({_how(n)})" for n in notes["added"]]
    lines += [f"- {n['path']}  ({_how(n)})" for n in notes["removed"]]
    lines += [f"~ {n['path']}  ({_how(n)})" for n in notes["changed"]]
    lines += [f"broken link {b['source']}:{b['line']} -> [[{b['target']}]]" for b in found["links"]["broken"]]
    lines += [f"fixed link {b['source']}:{b['line']} -> [[{b['target']}]]" for b in found["links"]["fixed"]]
    lines += [f"new problem {p['path']}: {p['message']}" for p in found["problems"]["new"]]
    lines += [f"gone problem {p['path']}: {p['message']}" for p in found["problems"]["gone"]]
    lines += [f"not kept: the {k['side']} of {k['path']} (retention or the cap)" for k in found["notKept"]]
    if len(lines) == 1:
        lines.append("nothing changed")
    if found.get("retention"):  # said last, never silently missing
        lines.append(f"retention: {found['retention']['message']}")
    return "\n".join(lines)


def _how(entry: dict[str, Any]) -> str:
    """Origin and who, then the run and the git commit when the record names them."""
    parts = [entry["origin"], entry["by"]]
    if entry.get("run"):
        parts.append(f"run {entry['run']}")
    if entry.get("commit"):
        parts.append(f"commit {str(entry['commit'])[:12]}")
    return ", ".join(parts)
