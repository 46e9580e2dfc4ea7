"""What the kept as-of counts hold besides `Stats`: each scope's health row and the problems
by code, so `memoryHealth(asOf:) { scopes }` and `linkReport(asOf:) { byCode }` are a lookup too.

A moment's detail is two small maps: per scope (every scope holding a note, the admin's view)
the health counts `health_counts` gives (notes, links by status, orphans, notes without a
description or a type; not `stale`, which depends on each question's `staleDays`), and the
problems `brain check` reports, counted by (code, severity). One record changes one or two
files, so a checkpoint keeps only the entries that differ from the checkpoint before (`diff`),
a full one every `SNAP` checkpoints in memory so any moment is at most `SNAP` small merges away.

The walker (series.py) counts them the way the whole moment reports them, never by a second
rule: the rows are its store's own health counters, kept in step with each sync; the link
problems are its link counts by status (one `error` per link not resolved, store/base.py's
`link_problem`); a note's own problems are counted as the store's writes replace the note
(`CountingStore`), the files' problems (ingester) and the agents without memory as they stand.
tests/tool/test_as_of_detail.py compares every checkpoint with the whole moment's answer.

Beside the admin's rows, each agent's (and a token's of no agent) as their difference from
the admin's (asof/counts/agents.py), so an agent's `memoryHealth(asOf:)` is a lookup too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from brain.model import Severity, Stats
from brain.service.brain import Brain
from brain.store.base import MemoryFilter, WriteBatch, memory_off_problem
from brain.store.health import HealthAsk, ScopeHealth
from brain.store.memory.store import MemoryStore
from brain.store.visibility import Reach
from brain.tool.asof.counts.agents import ROW_FIELDS, AgentKey, Row, caller_differences, caller_rows, row_of

_NROW = len(ROW_FIELDS)
_ZERO_ROW = (0,) * _NROW
_SEVERITIES = frozenset(s.value for s in Severity)
SNAP = 256  # a full detail kept every this many checkpoints (a moment is at most this many merges)

Code = tuple[str, str]  # (problem code, severity value)
K = TypeVar("K")


@dataclass(frozen=True, slots=True)
class Detail:
    """Per-scope health rows and problem counts by code: a moment's whole, or a checkpoint's
    difference from the one before (a scope's row of zeros, a code's 0: gone)."""

    rows: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    codes: Mapping[Code, int] = field(default_factory=dict)
    # (caller, scope) -> that caller's row less the admin's (asof/counts/agents.py), signed.
    agents: Mapping[AgentKey, tuple[int, ...]] = field(default_factory=dict)

    def scope_rows(self, scope: str | None = None) -> list[ScopeHealth]:
        """The rows as `health_counts(HealthAsk(scope=scope))` of the admin gives them."""
        return [ScopeHealth(name, **dict(zip(ROW_FIELDS, row, strict=True)))
                for name, row in sorted(self.rows.items()) if scope is None or name == scope]

    def reach_rows(self, reach: Reach, scope: str | None = None) -> list[ScopeHealth] | None:
        """The rows as `health_counts(HealthAsk(reach, scope))` gives them (agents.py), or None
        when the moment does not keep that caller's."""
        if reach.scopes is None:
            return self.scope_rows(scope)
        return caller_rows(self.rows, self.agents, reach, scope)


def diff(new: Detail, old: Detail) -> Detail:
    """The entries of `new` that differ from `old`, and zeros for those `new` has not."""
    rows = {k: v for k, v in new.rows.items() if old.rows.get(k) != v}
    rows.update((k, _ZERO_ROW) for k in old.rows.keys() - new.rows.keys())
    codes = {k: v for k, v in new.codes.items() if old.codes.get(k) != v}
    codes.update((k, 0) for k in old.codes.keys() - new.codes.keys())
    agents = {k: v for k, v in new.agents.items() if old.agents.get(k) != v}
    agents.update((k, _ZERO_ROW) for k in old.agents.keys() - new.agents.keys())
    return Detail(rows, codes, agents)


def merged(whole: Detail, delta: Detail) -> Detail:
    """`whole` with a checkpoint's differences applied."""
    rows, agents = _applied(whole.rows, delta.rows), _applied(whole.agents, delta.agents)
    codes = dict(whole.codes)
    for c, n in delta.codes.items():
        if n:
            codes[c] = n
        else:
            codes.pop(c, None)
    return Detail(rows, codes, agents)


def _applied(whole: Mapping[K, Row], changes: Mapping[K, Row]) -> dict[K, Row]:
    table = dict(whole)
    for k, v in changes.items():
        if v == _ZERO_ROW:
            table.pop(k, None)
        else:
            table[k] = v
    return table


def encoded(delta: Detail) -> dict[str, Any]:
    return {"g": {k: list(v) for k, v in sorted(delta.rows.items())},
            "p": {f"{code}|{severity}": n for (code, severity), n in sorted(delta.codes.items())},
            "a": [[caller, scope, list(v)] for (caller, scope), v in sorted(delta.agents.items())]}


def decoded(raw: object) -> Detail | None:
    """A line's detail, or None when it is not one (the file is untrusted: `.brain/` is the
    workspace's): rows of 8 counts, codes `code|severity` of a known severity, counts >= 0;
    callers' differences `[caller, scope, [8 signed counts]]`."""
    if not isinstance(raw, dict) or not isinstance(raw.get("g"), dict) or not isinstance(raw.get("p"), dict) \
            or not isinstance(raw.get("a"), list):
        return None
    rows: dict[str, tuple[int, ...]] = {}
    for scope, row in raw["g"].items():
        if not isinstance(row, list) or len(row) != _NROW or not all(_count(v) for v in row):
            return None
        rows[scope] = tuple(row)
    codes: dict[Code, int] = {}
    for key, n in raw["p"].items():
        code, _, severity = key.rpartition("|")
        if not code or severity not in _SEVERITIES or not _count(n):
            return None
        codes[(code, severity)] = n
    agents: dict[AgentKey, tuple[int, ...]] = {}
    for entry in raw["a"]:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)
                and isinstance(entry[1], str) and isinstance(entry[2], list) and len(entry[2]) == _NROW
                and all(isinstance(v, int) and not isinstance(v, bool) for v in entry[2])):
            return None
        agents[(entry[0], entry[1])] = tuple(entry[2])
    return Detail(rows, codes, agents)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _rows(store: Any) -> dict[str, tuple[int, ...]]:
    """The admin's health rows of every scope, less `stale` (a question's own cutoff)."""
    return {row.scope: row_of(row) for row in store.health_counts(HealthAsk()) if row.notes}


def detail_of(brain: Brain) -> Detail:
    """The reference: the detail of a whole graph, from its problems as `brain check` has them."""
    codes = Counter((p.code, p.severity.value) for p in brain.problems())
    rows = _rows(brain.store)
    return Detail(rows, dict(codes), caller_differences(brain.store, rows))


class CountingStore(MemoryStore):
    """The walker's store: keeps its notes' own problems counted by code as writes replace
    the notes (a step syncs one or two files; counting every note's each step was O(notes))."""

    note_codes: Counter[Code]

    def count_notes(self) -> None:
        """Counted once from every note (the walker's first moment)."""
        self.note_codes = Counter()
        for memory in self.list_memories(MemoryFilter(), bodies=False):
            self.note_codes.update((p.code, p.severity.value) for p in memory.problems)

    def write(self, batch: WriteBatch) -> None:
        counted = getattr(self, "note_codes", None)
        if counted is None:
            super().write(batch)
            return
        touched = [*batch.deletes, *(m.id for m in batch.memories)]
        for node_id in touched:
            old = self._memory(node_id)
            if old is not None:
                counted.subtract((p.code, p.severity.value) for p in old.problems)
        super().write(batch)
        for node_id in dict.fromkeys(touched):
            new = self._memory(node_id)
            if new is not None:
                counted.update((p.code, p.severity.value) for p in new.problems)


def walker_detail(walker: Brain, stats: Stats) -> Detail:
    """The walker's detail now: counted as `detail_of` reports it, without a pass over every note."""
    store = walker.store
    assert isinstance(store, CountingStore)
    codes: Counter[Code] = Counter({k: n for k, n in store.note_codes.items() if n})
    codes.update((p.code, p.severity.value) for p in walker.ingester.problems())
    codes.update((p.code, p.severity.value) for p in
                 (memory_off_problem(a) for a in store.list_agents() if a.memory_off))
    error = Severity.ERROR.value
    for code, n in (("broken-link", stats.broken), ("ambiguous-link", stats.ambiguous),
                    ("missing-anchor", stats.missing_anchor)):
        codes[(code, error)] += n
    rows = _rows(store)
    return Detail(rows, {k: n for k, n in codes.items() if n}, caller_differences(store, rows))


__all__ = ["ROW_FIELDS", "SNAP", "CountingStore", "Detail", "decoded", "detail_of", "diff", "encoded",
           "merged", "walker_detail"]
