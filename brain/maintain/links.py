"""fixable-link: a broken link whose target is a near miss of exactly one reachable name.

"Reachable" follows the resolution rules (design.md section 3): from a note of scope S a
bare name reaches S's notes, shared notes, then workflows, chats, work items and agents;
`shared/x` reaches shared notes; `workflow:x` only workflows. Another agent's private notes
are never candidates. "Close" is a typo, not a similar idea: at most one edit (a letter added,
dropped, changed, or two swapped) for names up to 8 characters, two for longer ones, with
`-`, `_` and spaces counted alike. A fix is proposed only when exactly one name is that
close and no other is within one edit more: with two plausible targets brain does not guess.
(`[[pending-tutorial-outline]]` is not a typo of `pending-tutorial-ideas`: not proposed.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from rapidfuzz import process
from rapidfuzz.distance import OSA

from brain.maintain.findings import Finding, Proposal, vpath
from brain.model import SHARED_SCOPE, Kind, Link, LinkStatus, name_key
from brain.resolve import parse_target
from brain.tool.textedit import occurrences, widen_to_unique

if TYPE_CHECKING:
    from brain.maintain.snapshot import Snapshot

_SEPARATORS = re.compile(r"[-_ ]+")
_PREFIX = {Kind.WORKFLOW: "workflow:", Kind.CHAT: "chat:", Kind.WORK_ITEM: "work-item:", Kind.AGENT: "agent:"}

class Pool(dict[str, str]):
    """name key -> the link text that reaches it; `plain` is the keys with separators unified."""

    def near_length(self, n: int, spread: int) -> tuple[list[str], list[str]]:
        """(plain keys, keys) of the names whose plain length is within `spread` of `n`."""
        by_length: dict[int, list[tuple[str, str]]] | None = self.__dict__.get("_by_length")
        if by_length is None:
            by_length = self.__dict__["_by_length"] = {}
            for key in self:
                plain = _plain(key)
                by_length.setdefault(len(plain), []).append((plain, key))
        slices: dict[tuple[int, int], tuple[list[str], list[str]]] = self.__dict__.setdefault("_slices", {})
        found = slices.get((n, spread))
        if found is None:
            rows = [row for size in range(n - spread, n + spread + 1) for row in by_length.get(size, ())]
            found = slices[(n, spread)] = ([p for p, _ in rows], [k for _, k in rows])
        return found


class _Pools:
    """Candidate names per (scope, kind, explicit scope), built once per pass."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self._cache: dict[tuple[str, Kind | None, str | None], Pool] = {}
        self._entities: dict[Kind, list[str]] = {}
        self.matches: dict[tuple[str, Kind | None, str | None, str], list[tuple[int, str]]] = {}

    def _memory_names(self, scope: str) -> list[str]:
        return [m.name for m in self.snap.by_scope.get(scope, []) if m.id not in self.snap.going]

    def _entity_ids(self, kind: Kind) -> list[str]:
        if kind not in self._entities:
            self._entities[kind] = (
                self.snap.agent_names() if kind is Kind.AGENT else self.snap.entity_ids(kind)
            )
        return self._entities[kind]

    def pool(self, source_scope: str, kind: Kind | None, scope: str | None) -> Pool:
        key = (source_scope, kind, scope)
        if key in self._cache:
            return self._cache[key]
        pool = Pool()
        if kind in (None, Kind.MEMORY) and scope is not None:
            if scope in (SHARED_SCOPE, source_scope):
                pool.update({name_key(n): f"{scope}/{n}" for n in self._memory_names(scope)})
        elif kind in (None, Kind.MEMORY):
            own = {name_key(n): n for n in self._memory_names(source_scope)}
            pool.update(own)
            if source_scope != SHARED_SCOPE:
                for n in self._memory_names(SHARED_SCOPE):
                    pool.setdefault(name_key(n), f"shared/{n}" if name_key(n) in own else n)
            if kind is None:
                for other in (Kind.WORKFLOW, Kind.CHAT, Kind.WORK_ITEM, Kind.AGENT):
                    for ident in self._entity_ids(other):
                        k = name_key(ident)
                        pool[k] = _PREFIX[other] + ident if k in pool else ident
        else:
            pool.update({name_key(i): _PREFIX[kind] + i for i in self._entity_ids(kind)})
        self._cache[key] = pool
        return pool


def edits_allowed(key: str) -> int:
    return 1 if len(key) <= 8 else 2


def _plain(key: str) -> str:
    return _SEPARATORS.sub("-", key)


def close_names(key: str, pool: Pool) -> list[tuple[int, str]]:
    """Names of `pool` within one edit more than `key` allows, nearest first."""
    limit = edits_allowed(key) + 1
    plain = _plain(key)
    choices, names = pool.near_length(len(plain), limit)  # each edit changes the length by <= 1
    found = process.extract(plain, choices, scorer=OSA.distance, score_cutoff=limit, limit=None)
    return sorted((int(distance), names[index]) for _, distance, index in found)


def single_candidate(key: str, found: list[tuple[int, str]]) -> str | None:
    """The one name within the edits allowed, if no other is within one more."""
    if len(found) == 1 and found[0][0] <= edits_allowed(key):
        return found[0][1]
    return None


def fixable_links(snap: Snapshot) -> Iterator[Finding]:
    pools = _Pools(snap)
    for memory in snap.memories:
        if memory.id in snap.going:
            continue
        broken = [
            link for link in snap.links.get(memory.id, [])
            if link.status is LinkStatus.BROKEN and not link.candidates
        ]
        if not broken:
            continue
        text: str | None = None
        for link in broken:
            fixed = _fix_of(pools, memory.scope, link)
            if fixed is None:
                continue
            if text is None:
                text = snap.read_text(memory) or ""
            edit = _edit(text, link, fixed)
            if edit is None:
                continue
            old_str, new_str = edit
            yield Finding(
                "fixable-link", memory.path, memory.scope,
                f"`{link.raw}` points to nothing; the only close name is `{fixed}`",
                Proposal(memory.scope, "str_replace", {
                    "path": vpath(memory), "old_str": old_str, "new_str": new_str,
                }),
                safe=True, line=link.line,
            )


def _fix_of(pools: _Pools, source_scope: str, link: Link) -> str | None:
    target = parse_target(link.target)
    if not target.key:
        return None
    pool = pools.pool(source_scope, target.kind, target.scope)
    memo = (source_scope, target.kind, target.scope, target.key)
    found = pools.matches.get(memo)
    if found is None:
        found = pools.matches[memo] = close_names(target.key, pool)
    best = single_candidate(target.key, found)
    return None if best is None else pool[best]


def _edit(text: str, link: Link, fixed: str) -> tuple[str, str] | None:
    """(old_str, new_str) for a str_replace that changes exactly this link, or None if stale."""
    lines = text.split("\n")
    if not 1 <= link.line <= len(lines):
        return None
    offset = sum(len(line) + 1 for line in lines[: link.line - 1]) + link.column - 1
    if text[offset : offset + len(link.raw)] != link.raw:
        return None  # the file changed since the graph read it
    inner = link.raw.index("[[") + 2
    at = link.raw.find(link.target, inner)
    if at < 0:
        return None
    new_raw = link.raw[:at] + fixed + link.raw[at + len(link.target) :]
    if len(occurrences(text, link.raw)) == 1:
        return link.raw, new_raw
    wide = widen_to_unique(text, offset, link.raw, new_raw)
    return None if wide is None else (wide.old_str, wide.new_str)

