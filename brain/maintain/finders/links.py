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
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from rapidfuzz import process
from rapidfuzz.distance import OSA

from brain.maintain.findings import Finding, Proposal, vpath
from brain.model import SHARED_SCOPE, Kind, Link, LinkStatus, name_key
from brain.resolve import parse_target
from brain.tool.calls.textedit import occurrences, widen_to_unique
from brain.tool.files.requirements import Required

if TYPE_CHECKING:
    from brain.maintain.finders.snapshot import Snapshot

_SEPARATORS = re.compile(r"[-_ ]+")
#: Near-miss searches one pass may make (each compares one target with a scope's names, so
#: the work grows with broken targets x names): past it, further broken links wait for a
#: narrower run (`--scope`), and the report says how many were left unexamined.
SEARCH_BUDGET = 5_000
_PREFIX = {Kind.WORKFLOW: "workflow:", Kind.CHAT: "chat:", Kind.WORK_ITEM: "work-item:", Kind.AGENT: "agent:"}

class Names:
    """One set of reachable names (a scope's notes, or the entities), matched once per key."""

    def __init__(self, keys: Iterable[str]) -> None:
        self._by_length: dict[int, list[tuple[str, str]]] = {}
        for key in keys:
            plain = _plain(key)
            self._by_length.setdefault(len(plain), []).append((plain, key))
        self._slices: dict[tuple[int, int], tuple[list[str], list[str]]] = {}
        self._found: dict[str, list[tuple[int, str]]] = {}

    def cached(self, key: str) -> bool:
        return key in self._found

    def close(self, key: str) -> list[tuple[int, str]]:
        """(edits, name key) of the names within one edit more than `key` allows."""
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._close(key)
        return found

    def _close(self, key: str) -> list[tuple[int, str]]:
        limit = edits_allowed(key) + 1
        plain = _plain(key)
        choices, names = self._near_length(len(plain), limit)
        hits = process.extract(plain, choices, scorer=OSA.distance, score_cutoff=limit, limit=None)
        return [(int(distance), names[index]) for _, distance, index in hits]

    def _near_length(self, n: int, spread: int) -> tuple[list[str], list[str]]:
        """Only names whose length is within `spread`: each edit changes the length by <= 1."""
        found = self._slices.get((n, spread))
        if found is None:
            sizes = range(n - spread, n + spread + 1)
            rows = [row for size in sizes for row in self._by_length.get(size, ())]
            found = self._slices[(n, spread)] = ([p for p, _ in rows], [k for _, k in rows])
        return found


Texts = dict[str, str | None]  # name key -> the link text that reaches it (None: none does)


class _Pools:
    """What a link from scope S may reach, per (S, kind, explicit scope), built once per pass."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self._texts: dict[tuple[str, Kind | None, str | None], Texts] = {}
        self._scopes: dict[str, Names] = {}
        self._entities: dict[Kind | None, Names] = {}
        self._entity_ids: dict[Kind, list[str]] = {}
        self.searches = 0
        self.unexamined = 0

    def _memory_names(self, scope: str) -> list[str]:
        going = self.snap.going
        notes = self.snap.by_scope.get(scope, [])
        return [m.name for m in notes if m.path not in going]

    def _ids(self, kind: Kind) -> list[str]:
        if kind not in self._entity_ids:
            self._entity_ids[kind] = (
                self.snap.agent_names() if kind is Kind.AGENT else self.snap.entity_ids(kind)
            )
        return self._entity_ids[kind]

    def _scope_names(self, scope: str) -> Names:
        if scope not in self._scopes:
            self._scopes[scope] = Names(name_key(n) for n in self._memory_names(scope))
        return self._scopes[scope]

    def _entity_names(self, kind: Kind | None) -> Names:
        if kind not in self._entities:
            kinds = _ENTITY_KINDS if kind is None else (kind,)
            self._entities[kind] = Names(name_key(i) for k in kinds for i in self._ids(k))
        return self._entities[kind]

    def names(self, source: str, kind: Kind | None, scope: str | None) -> list[Names]:
        if kind in (None, Kind.MEMORY) and scope is not None:
            return [self._scope_names(scope)] if scope in (SHARED_SCOPE, source) else []
        if kind in (None, Kind.MEMORY):
            out = [self._scope_names(source)]
            if source != SHARED_SCOPE:
                out.append(self._scope_names(SHARED_SCOPE))
            if kind is None:
                out.append(self._entity_names(None))
            return out
        return [self._entity_names(kind)]

    def texts(self, source: str, kind: Kind | None, scope: str | None) -> Texts:
        key = (source, kind, scope)
        if key in self._texts:
            return self._texts[key]
        texts: Texts = {}
        if kind in (None, Kind.MEMORY) and scope is not None:
            if scope in (SHARED_SCOPE, source):
                texts.update({name_key(n): f"{scope}/{n}" for n in self._memory_names(scope)})
        elif kind in (None, Kind.MEMORY):
            own = {name_key(n): n for n in self._memory_names(source)}
            texts.update(own)
            if source != SHARED_SCOPE:
                for n in self._memory_names(SHARED_SCOPE):
                    texts.setdefault(name_key(n), f"shared/{n}" if name_key(n) in own else n)
            if kind is None:
                memories = set(texts)
                for other in _ENTITY_KINDS:
                    for ident in self._ids(other):
                        k = name_key(ident)
                        if k in memories:
                            continue  # the bare name reaches the note, never this entity
                        # Two kinds with one id: a bare name would be ambiguous, so no fix to it.
                        texts[k] = None if k in texts else ident
        else:
            texts.update({name_key(i): _PREFIX[kind] + i for i in self._ids(kind)})
        self._texts[key] = texts
        return texts

    def fix(self, source: str, kind: Kind | None, scope: str | None, key: str) -> str | None:
        texts = self.texts(source, kind, scope)
        nearest: dict[str, int] = {}
        sets = self.names(source, kind, scope)
        new = sum(1 for names in sets if not names.cached(key))
        if new and self.searches + new > SEARCH_BUDGET:
            self.unexamined += 1
            return None
        self.searches += new
        for names in sets:
            for distance, name in names.close(key):
                if name in texts:
                    nearest[name] = min(distance, nearest.get(name, distance))
        best = single_candidate(key, sorted((d, n) for n, d in nearest.items()))
        return None if best is None else texts[best]


_ENTITY_KINDS = (Kind.WORKFLOW, Kind.CHAT, Kind.WORK_ITEM, Kind.AGENT)


def edits_allowed(key: str) -> int:
    return 1 if len(key) <= 8 else 2


def _plain(key: str) -> str:
    return _SEPARATORS.sub("-", key)


def single_candidate(key: str, found: list[tuple[int, str]]) -> str | None:
    """The one name within the edits allowed, if no other is within one more."""
    if len(found) == 1 and found[0][0] <= edits_allowed(key):
        return found[0][1]
    return None


def fixable_links(snap: Snapshot) -> Iterator[Finding]:
    pools = _Pools(snap)
    for memory in snap.memories:
        if memory.path in snap.going:
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
            fixed_file = _named(snap, memory.scope, fixed)
            yield Finding(
                "fixable-link", memory.path, memory.scope,
                f"`{link.raw}` points to nothing; the only close name is `{fixed}`",
                Proposal(memory.scope, "str_replace", {
                    "path": vpath(memory), "old_str": old_str, "new_str": new_str,
                }, requires=fixed_file or ()),
                safe=fixed_file is not None, line=link.line,
            )
    if pools.unexamined:
        snap.notes.append(
            f"fixable-link: {pools.unexamined:,} broken link(s) were not examined: the pass makes at "
            f"most {SEARCH_BUDGET:,} near-miss searches; run it per scope (--scope) to look at the rest"
        )


def _named(snap: Snapshot, source_scope: str, fixed: str) -> tuple[Required, ...] | None:
    """The file the fixed link names from `source_scope`, which must still be there when the
    fix is written (else it writes another broken link); None if the pass cannot tell."""
    target = parse_target(fixed)
    if target.kind in (None, Kind.MEMORY):
        for scope in [target.scope] if target.scope else [source_scope, SHARED_SCOPE]:
            for memory in snap.by_scope.get(scope, []):
                if name_key(memory.name) == target.key:
                    return (Required(memory.path, None, "the link's new target"),)
        if target.kind is Kind.MEMORY or target.scope:
            return None
    store = snap.brain.store
    for entry in store.name_entries([target.key]).get(target.key, []):
        if entry.kind is not Kind.MEMORY and (target.kind is None or entry.kind is target.kind):
            path = getattr(store.get_nodes([entry.id]).get(entry.id), "path", None)
            return (Required(path, None, "the link's new target"),) if isinstance(path, str) else None
    return None


def _fix_of(pools: _Pools, source_scope: str, link: Link) -> str | None:
    target = parse_target(link.target)
    if not target.key:
        return None
    return pools.fix(source_scope, target.kind, target.scope, target.key)


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

