"""Whether a link resolved at one moment, by the layout's real link rules (brain.resolve).

The diff says which links a change broke or fixed: a link of the version after that does not
resolve at `until` but did before (or was not there), and the reverse. "Resolves" is what the
graph says: `brain.resolve.resolve_link` with the layout's rules (kind prefixes, scope
prefixes, own scope, shared, entities and agents, ambiguity) against the names that existed
at that moment. Those names come from the paths alone, as a first sync's walk makes them
(`brain.ingest.parts.walk_names`: a path's role by the layout, the first file of an id wins,
agents from scopes and definitions), so no note is parsed and nothing is ingested again.

A link's `#anchor` is not judged here: the headings of every target at a past moment are not
kept apart from its content, so a link is judged by the note it names.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from brain.ingest.parts import walk_names
from brain.ingest.state import defined_id
from brain.layouts.base import Layout
from brain.model import LinkStatus, WikiLink
from brain.resolve import resolve_link
from brain.workspace import FileRole


def names_at(layout: Layout, paths: Iterable[str], scopes: Iterable[str]) -> NamesAt:
    """`NamesAt` of these paths, the same object for the same names: a window of edits has the
    same names at both ends, and a dashboard asks again and again about the same paths."""
    key = (id(layout), frozenset(paths), frozenset(scopes))
    found = _RECENT.get(key)
    if found is None:
        found = NamesAt(layout, key[1], key[2])
        if len(_RECENT) >= RECENT_NAMES:
            _RECENT.pop(next(iter(_RECENT)))
        _RECENT[key] = found
    return found


RECENT_NAMES = 4  # the moments of two diffs: each holds a workspace's names (a few MB at 10,000 notes)
_RECENT: dict[tuple[int, frozenset[str], frozenset[str]], NamesAt] = {}


class NamesAt:
    """What a link could name at one moment: the nodes the paths then defined."""

    def __init__(self, layout: Layout, paths: Iterable[str], scopes: Iterable[str]) -> None:
        self.layout = layout
        claims: dict[str, tuple[str, ...]] = {}
        for rel in paths:
            node_id = _defined(layout, rel)
            if node_id is not None:
                claims[node_id] = (*claims.get(node_id, ()), rel)
        self._names = walk_names(layout, claims, set(scopes))
        self._memo: dict[tuple[str, str], str | None] = {}

    def changed_keys(self, other: NamesAt) -> set[str]:
        """The name keys whose entries differ between these names and `other`'s: a link is
        resolved by the entries of its name key alone (brain.resolve), so a link whose key is
        not one of these resolves the same at both moments, from any note."""
        if other is self:
            return set()
        mine, theirs = self._names.entries, other._names.entries
        return {key for key in mine.keys() | theirs.keys() if mine.get(key) != theirs.get(key)}

    def key_of(self, target: str) -> str:
        return self.layout.links.parse(target).key

    def status(self, source: str, target: str) -> str | None:
        """None when `[[target]]` written in the note at `source` resolves; else `broken` or
        `ambiguous` (two or more notes at the first level that has any)."""
        role = _role(self.layout, source)
        key = (target, role.scope)
        if key in self._memo:  # a link resolves the same from every note of one scope
            return self._memo[key]
        source_id = defined_id(role) or source
        link = WikiLink(target, target, None, None, False, 1, 0)
        found = resolve_link(link, source_id, role.scope, self._names.lookup, lambda _id: None,
                             self.layout.links).status
        answer = None if found is LinkStatus.RESOLVED else found.value
        self._memo[key] = answer
        return answer


@lru_cache(maxsize=1 << 17)
def _role_cached(layout: Layout, rel: str) -> FileRole:
    return layout.classify(rel)


def _role(layout: Layout, rel: str) -> FileRole:
    return _role_cached(layout, rel)


@lru_cache(maxsize=1 << 17)
def _defined(layout: Layout, rel: str) -> str | None:
    return defined_id(_role_cached(layout, rel))
