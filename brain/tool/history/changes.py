"""What changed in a workspace between two moments, from its history: one function, every front end.

`brain diff`, GraphQL `changes`, `GET /api/changes` and the MCP tool `memory_changes` all
call `changes_between`. It reads the history records in the window (a memory-tool write,
a maintenance run's, or a change made outside brain), folds each path's records into its
state before the window and after it, and says which notes were added, removed or
changed (with the origin and actor of the last change, and its run or git commit). Links
and problems come from what brain's parser makes of both sides (kept once per version by its
writer: parsed.py): a link of the version after that does not resolve at `until` by the
layout's real rules (linkcheck.py: brain.resolve against that moment's names) and did
resolve, or was not there, before `since` is `broken`; the reverse is `fixed`; the parser's
problems of the two sides give `new` and `gone`. A side whose content the history did not
keep (the cap, or a version brain never saw) is said in `notKept`, and a window that starts
before the oldest record says so in `retention`: never silently treated as empty.

Who may see what is decided by the caller's `visible(scope)`, applied to the records
before anything is computed, so an agent's changes never carry another agent's notes.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from brain.layouts import get_layout
from brain.layouts.base import Layout
from brain.tool.history.backlinks import Linkers, touched_keys, unchanged_links
from brain.tool.history.blobs import BlobStore
from brain.tool.history.linkcheck import NamesAt, names_at
from brain.tool.history.log import HistoryRecord, iso_time, origin_of
from brain.tool.history.parsed import EMPTY, Parsed, ParsedVersions, problems_of

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
    layout: Layout | None = None,
    scopes: Iterable[str] = (),
    parsed: ParsedVersions | None = None,
    name_visible: Callable[[str], bool] = lambda rel: True,
    linkers: Linkers | None = None,
) -> dict[str, Any]:
    """The changes of the records in [since, until] as the diff's JSON. `names` are the
    workspace's paths now, `scopes` its scope folders, `layout` its layout (the link rules):
    what a link's target may name, at `since` and at `until`, as far as `name_visible` lets
    the caller see. `parsed`: what versions parse to (brain/tool/history/parsed.py).
    `linkers`: the notes now that link to given names (backlinks.py), for the links a note
    added or removed in the window fixed or broke in notes it did not change."""
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
    added: list[dict[str, Any]] = []
    removed: list[dict[str, Any]] = []
    changed: list[dict[str, Any]] = []
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
        elif state.after is None:
            removed.append(entry)
        else:
            changed.append({"path": path, "before": state.before, "after": state.after, **entry})
    at_until = _names_at(set(names), records, until)
    # Before the window: its own changes undone too (a change at `since` itself is in it).
    at_since = _names_at(set(at_until), records, since - 1e-6, through=high)
    layout = layout if layout is not None else get_layout("latchai")
    scopes = frozenset(scopes)
    before_names = names_at(layout, filter(name_visible, at_since), scopes)
    after_names = names_at(layout, filter(name_visible, at_until), scopes)
    parsed = parsed or ParsedVersions(None)
    links_and_problems = _links_and_problems(window, blobs, parsed, before_names, after_names)
    sides = {path: (state.before, state.after) for path, state in window.paths.items()}
    keys = touched_keys(sides) & before_names.changed_keys(after_names)
    if linkers is not None and keys:
        broken, fixed = unchanged_links(
            window=sides, records=records, after_index=_first_after(records, high), keys=keys,
            before=before_names, after=after_names, both=at_since & at_until, linkers=linkers,
            blobs=blobs, parsed=parsed, visible=name_visible,
        )
        links = links_and_problems["links"]
        for name, more in (("broken", broken), ("fixed", fixed)):
            links[name] = sorted([*links[name], *more],
                                 key=lambda lk: (lk["source"], lk["line"], lk["target"]))
    return {
        "since": _iso(since),
        "until": _iso(until),
        "notes": {"added": added, "removed": removed, "changed": changed},
        **links_and_problems,
        "retention": retention_of(records, since),
    }


def _links_and_problems(
    window: _Window, blobs: BlobStore, parsed: ParsedVersions, before: NamesAt, after: NamesAt,
) -> dict[str, Any]:
    """Links the window's changes broke or fixed (each side judged by the link rules against
    the names of its own moment) and problems new or gone, from what each version parses to."""
    broken: list[dict[str, Any]] = []
    fixed: list[dict[str, Any]] = []
    new_problems: list[dict[str, Any]] = []
    gone_problems: list[dict[str, Any]] = []
    not_kept: list[dict[str, Any]] = []
    parsed.load()
    moved = before.changed_keys(after)  # usually few: a window of edits names the same notes
    for path, state in sorted(window.paths.items()):
        if state.before == state.after or not path.endswith(".md"):
            continue
        old = _side(blobs, parsed, path, state.before, "before", not_kept)
        new = _side(blobs, parsed, path, state.after, "after", not_kept)
        if old is None or new is None:
            continue
        # A link on both sides whose name meant the same notes at both moments is neither
        # broken nor fixed by the window: only the others are resolved (most of a big note).
        kept = old.links.keys() & new.links.keys()
        if moved:
            kept = {t for t in kept if before.key_of(t) not in moved}
        old_broken = _unresolved(old.links, path, before, kept)
        new_broken = _unresolved(new.links, path, after, kept)
        for target, (line, status) in sorted(new_broken.items(), key=lambda kv: (kv[1][0], kv[0])):
            if target not in old_broken:
                broken.append(_link(path, target, line, status))
        for target, (line, status) in sorted(old_broken.items(), key=lambda kv: (kv[1][0], kv[0])):
            # A removed note's broken links went with it (it is listed as removed): not fixed.
            if target not in new_broken and state.after is not None:
                fixed.append(_link(path, target, line, status))
        old_problems, new_found = problems_of(old, path), problems_of(new, path)
        new_problems += [p for key, p in new_found.items() if key not in old_problems]
        gone_problems += [p for key, p in old_problems.items() if key not in new_found]
    return {
        "links": {"broken": broken, "fixed": fixed},
        "problems": {"new": new_problems, "gone": gone_problems},
        "notKept": not_kept,
    }


def _first_after(records: list[HistoryRecord], high: str) -> int:
    """The index of the first record after the stamp `high` (records are in time order)."""
    for index in range(len(records) - 1, -1, -1):
        if _at(records[index]) <= high:
            return index + 1
    return 0


def _link(source: str, target: str, line: int, status: str) -> dict[str, Any]:
    found: dict[str, Any] = {"source": source, "target": target, "line": line}
    if status != "broken":
        found["status"] = status  # `ambiguous`: it names two or more notes
    return found


def _unresolved(
    links: dict[str, int], source: str, names: NamesAt, skip: set[str],
) -> dict[str, tuple[int, str]]:
    """The links of one side, but `skip`, that do not resolve at its moment: target -> (line, status)."""
    out: dict[str, tuple[int, str]] = {}
    for target, line in links.items():
        if target in skip:
            continue
        status = names.status(source, target)
        if status is not None:
            out[target] = (line, status)
    return out


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


def _names_at(
    now: set[str], records: list[HistoryRecord], until: float, through: str | None = None,
) -> set[str]:
    """The paths at `until`: those of `now` (the moment `through`, default now), with the
    recorded changes after `until` undone (newest first), so a link is judged against the
    names of its moment."""
    high = _stamp(until)
    for record in reversed(records):
        at = _at(record)
        if through is not None and at > through:
            continue
        if at <= high:
            break
        if record.new_path is not None:
            now.discard(record.new_path)
            now.add(record.path)
        elif record.before is None:
            now.discard(record.path)
        elif record.after is None:
            now.add(record.path)
    return now


def _side(blobs: BlobStore, parsed: ParsedVersions, path: str, digest: str | None, side: str,
          not_kept: list[dict[str, Any]]) -> Parsed | None:
    """What one side parses to (None: its content is gone, and `not_kept` says so). Read from
    what the writer kept (parsed.py); a version kept before that is parsed once, then kept."""
    if digest is None:
        return EMPTY
    found = parsed.get(digest)
    if found is not None:
        return found
    data = blobs.get(digest)
    if data is None:
        not_kept.append({"path": path, "side": side, "hash": digest})
        return None
    return parsed.add(digest, data)


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
