"""Wikilink resolution, exactly as design.md section 3. Pure: names come from a lookup."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from brain.model import (
    ENTITY_KINDS,
    NOTE_KINDS,
    SHARED_SCOPE,
    Anchors,
    Kind,
    LinkStatus,
    WikiLink,
    name_key,
    unresolved_id,
)
from brain.parse.spans.anchors import anchor_target

KIND_PREFIXES: tuple[tuple[str, Kind], ...] = (
    ("workflow:", Kind.WORKFLOW),
    ("chat:", Kind.CHAT),
    ("work-item:", Kind.WORK_ITEM),
    ("workitem:", Kind.WORK_ITEM),
    ("agent:", Kind.AGENT),
    ("memory:", Kind.MEMORY),
)
_LEVEL3_KINDS = (*ENTITY_KINDS, Kind.AGENT)


class NameEntry(NamedTuple):
    """Something a link can name: its id, kind, and for memories the scope (a named tuple:
    a first sync builds several for each note, hashed in C)."""

    id: str
    kind: Kind
    key: str
    scope: str | None = None


@dataclass(frozen=True, slots=True)
class Target:
    """The target part of a link, taken apart: kind prefix, scope, name key."""

    kind: Kind | None
    scope: str | None
    key: str
    full_key: str
    path: str | None = None  # layouts with folders (space): the name key of the whole path


class Resolution(NamedTuple):
    status: LinkStatus
    target_id: str
    candidates: tuple[str, ...] = ()


NameLookup = Callable[[str], Sequence[NameEntry]]
AnchorLookup = Callable[[str], Anchors | None]
Level = Callable[[NameEntry], bool]


class LinkRules(Protocol):
    """How one layout reads a link target and where a name is looked for (design.md 3, 8).

    `parse` takes the target apart (its `key` is the name key of the last segment: the
    name a bare link asks for, stored on the link so new names re-resolve it); `levels`
    are tried in order and the first with exactly one match wins (two or more: ambiguous);
    `out_of_reach` names the notes a broken link could have meant but may not reach.

    Both read the source scope only by comparing an entry's scope with it: a link resolves
    the same from every scope that no entry of its key is in (a first sync resolves such a
    target once for all of them: brain.store.linking.ResolutionMemo).
    """

    def parse(self, target: str) -> Target: ...
    def levels(self, target: Target, source_scope: str) -> list[Level]: ...
    def out_of_reach(
        self, target: Target, entries: Sequence[NameEntry], source_scope: str
    ) -> tuple[str, ...]: ...


class LatchaiLinks:
    """design.md section 3: scope prefixes, then own scope, `shared`, entities and agents."""

    def parse(self, target: str) -> Target:
        return parse_target(target)

    def levels(self, target: Target, source_scope: str) -> list[Level]:
        return _levels(target, source_scope)

    def out_of_reach(
        self, target: Target, entries: Sequence[NameEntry], source_scope: str
    ) -> tuple[str, ...]:
        # Out of reach is not the same as missing: name the other agents' notes it could mean.
        if target.scope is None and target.kind in (None, Kind.MEMORY):
            return tuple(sorted(
                e.id for e in entries
                if e.kind is Kind.MEMORY and e.scope not in (source_scope, SHARED_SCOPE)
            ))
        return ()


LATCHAI_LINKS = LatchaiLinks()


@functools.lru_cache(maxsize=1 << 16)
def parse_target(target: str) -> Target:
    text = target.strip()
    kind: Kind | None = None
    lowered = text.casefold()
    for prefix, prefix_kind in KIND_PREFIXES:
        if lowered.startswith(prefix):
            kind = prefix_kind
            text = text[len(prefix) :].strip()
            break
    scope: str | None = None
    if "/" in text and kind in (None, Kind.MEMORY):
        scope, text = text.split("/", 1)
        scope = scope.strip()
    key = name_key(text)
    return Target(kind, scope, key, name_key(target))


def resolve_link(
    link: WikiLink,
    source_id: str,
    source_scope: str,
    names: NameLookup,
    anchors: AnchorLookup,
    rules: LinkRules = LATCHAI_LINKS,
) -> Resolution:
    """Where `link`, written in a note of `source_scope`, points (by the layout's `rules`)."""
    if not link.target:
        # `[[#Heading]]` names a heading of the note it is written in.
        return _check_anchor(Resolution(LinkStatus.RESOLVED, source_id), link, anchors)
    target = rules.parse(link.target)
    if not target.key or (target.scope is not None and "/" in target.key):
        return Resolution(LinkStatus.BROKEN, unresolved_id(target.full_key))
    entries = names(target.key)
    for level in rules.levels(target, source_scope):
        matches = sorted({e.id for e in entries if level(e)})
        if len(matches) == 1:
            return _check_anchor(Resolution(LinkStatus.RESOLVED, matches[0]), link, anchors)
        if matches:
            return Resolution(LinkStatus.AMBIGUOUS, unresolved_id(target.full_key), tuple(matches))
    private = rules.out_of_reach(target, entries, source_scope)
    return Resolution(LinkStatus.BROKEN, unresolved_id(target.full_key), private)


def _levels(target: Target, source_scope: str) -> list[Level]:
    if target.scope is not None:
        scope_key = name_key(target.scope)
        return [lambda e: e.kind is Kind.MEMORY and name_key(e.scope or "") == scope_key]
    if target.kind not in (None, Kind.MEMORY):
        kind = target.kind
        return [lambda e: e.kind is kind]
    levels: list[Level] = [
        lambda e: e.kind is Kind.MEMORY and e.scope == source_scope,
        lambda e: e.kind is Kind.MEMORY and e.scope == SHARED_SCOPE,
    ]
    if target.kind is None:
        levels.append(lambda e: e.kind in _LEVEL3_KINDS)
    return levels


def _check_anchor(resolution: Resolution, link: WikiLink, anchors: AnchorLookup) -> Resolution:
    if link.anchor is None:
        return resolution
    status = anchor_status(resolution.target_id, link.anchor, anchors)
    return resolution if status is LinkStatus.RESOLVED else Resolution(status, resolution.target_id)


def anchor_status(target_id: str, anchor: str, anchors: AnchorLookup) -> LinkStatus:
    """A `#Heading`, `#A#B` or `#^block` part must name something in the target memory
    (a link to anything else than a note has no anchors to check)."""
    if Kind.of_id(target_id) not in NOTE_KINDS:
        return LinkStatus.RESOLVED
    found = anchors(target_id)
    if found is not None and anchor_target(found, anchor) is not None:
        return LinkStatus.RESOLVED
    return LinkStatus.MISSING_ANCHOR
