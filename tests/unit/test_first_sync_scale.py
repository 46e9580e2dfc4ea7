"""What a first sync in parts does once instead of part by part (issue 43, goal 5: 1,000,000
notes): each link target resolved once where its answer can differ, and memory health's
counters counted once at the end, equal to the counters kept write by write."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from brain import resolve
from brain.model import WikiLink
from brain.service.brain import Brain
from brain.store import linking
from brain.store.base import MemoryFilter
from brain.store.health import HealthAsk
from brain.store.health_counts import HealthIndex, vis_of
from brain.store.memory.links.table import LinkTable
from brain.store.memory.store import MemoryStore
from brain.store.visibility import EVERYTHING, Reach
from tests.contract.test_health import answered, recount
from tests.unit.test_ingest_parts import workspace
from tests.unit.test_ingest_parts_layouts import in_parts

ASKS = [EVERYTHING, Reach.of_agent("alpha"), Reach.of_agent("beta")]


def health(store: MemoryStore) -> list[dict[str, object]]:
    return [answered(store, HealthAsk(reach, scope, 2e9)) for reach in ASKS for scope in (None, "shared")]


def test_a_first_sync_in_parts_counts_health_once_at_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Kept part by part, each part took away and added again every link it relinked and
    re-filed every note its links reach; now the parts write without counting, the last one
    counts once, and the counters are those a recount gives (and those of one batch)."""
    workspace(tmp_path)
    whole = Brain(tmp_path, MemoryStore())
    whole.sync()
    assert isinstance(whole.store, MemoryStore)
    expected = health(whole.store)

    kept: list[int] = []
    finish = HealthIndex.finish

    def counting(self: HealthIndex, *args: Any) -> None:
        kept.append(1)
        finish(self, *args)

    monkeypatch.setattr(HealthIndex, "finish", counting)
    every_row: list[int] = []
    items = LinkTable.items

    def all_rows(self: LinkTable) -> Any:
        every_row.append(1)
        return items(self)

    monkeypatch.setattr(LinkTable, "items", all_rows)  # builds every row at once
    written = in_parts(monkeypatch, size=5)
    brain = Brain(tmp_path, MemoryStore())
    brain.sync()
    assert every_row == []  # counted one source's rows at a time
    store = brain.store
    assert isinstance(store, MemoryStore)
    assert len(written) >= 5  # written in parts
    assert kept == []  # no part kept the counters write by write
    assert store.health_recounts() == 1  # counted once, as the sync ended
    assert health(store) == expected
    for reach in ASKS:
        ask = HealthAsk(reach, None, 2e9)
        assert answered(store, ask) == recount(store, ask)
    assert store.health_recounts() == 1  # the questions found them ready

    # From then on every write keeps them again (a rescan after an edit).
    path = tmp_path / "memory" / "alpha" / "note-000.md"
    path.write_text("# Part 0\n[[note-001]] [[ghost]]\n", encoding="utf-8")
    brain.sync(["memory/alpha/note-000.md"])
    assert kept  # kept by the write
    for reach in ASKS:
        ask = HealthAsk(reach, None, 2e9)
        assert answered(store, ask) == recount(store, ask)
    assert store.health_recounts() == 1


def test_each_target_is_resolved_once_where_its_answer_can_differ(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The memo is sized by the workspace's names, so it never starts over: each target is
    resolved once for all the scopes that hold no entry of its name, and once in each scope
    that holds one (a fixed memo too small for the workspace resolved them again and again)."""
    workspace(tmp_path, count=90)
    whole = Brain(tmp_path, MemoryStore())
    whole.sync()
    expected = whole.store.export()
    monkeypatch.setattr(linking, "MEMO_LIMIT", 8)  # the floor: far below what 90 notes ask
    calls: list[tuple[str, str]] = []

    def counted(link: WikiLink, source: str, scope: str, *args: Any, **kwargs: Any) -> resolve.Resolution:
        names = args[0]
        key = resolve.parse_target(link.target).key
        reach = any(e.scope == scope for e in names(key))
        if not link.raw:  # the memo's (a link as written has its text; relinks are planned apart)
            calls.append((scope if reach else "*", link.target))
        return resolve.resolve_link(link, source, scope, *args, **kwargs)

    monkeypatch.setattr(linking, "resolve_link", counted)
    in_parts(monkeypatch, size=5)
    brain = Brain(tmp_path, MemoryStore())
    brain.sync()
    assert brain.store.export() == expected
    planned = calls
    assert len(planned) == len(set(planned)), "a target resolved twice where it resolves the same"
    assert any(scope == "*" for scope, _ in planned)  # answers shared by the scopes out of reach
    assert any(scope != "*" for scope, _ in planned)  # and a scope's own


def test_the_memo_stays_within_its_bound_and_gives_the_same_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Sized by the workspace's names alone, the memo held four entries a name: millions at
    1,000,000 notes. However many names, it now holds at most `MEMO_CAP` answers (the older
    half goes when full) and the own answers of `NEAR_SCOPES` scopes, and the graph is the
    one resolving every link gives."""
    workspace(tmp_path, count=90)
    whole = Brain(tmp_path, MemoryStore())
    whole.sync()
    expected = whole.store.export()
    monkeypatch.setattr(linking, "MEMO_LIMIT", 4)
    monkeypatch.setattr(linking, "MEMO_CAP", 12)  # far below the four a name (90 notes)
    monkeypatch.setattr(linking, "NEAR_SCOPES", 1)
    held: list[tuple[int, int]] = []
    scope = linking.ResolutionMemo.scope

    def watched(self: linking.ResolutionMemo, name: str) -> dict[str, Any]:
        near = scope(self, name)
        held.append((len(self.shared) + sum(map(len, self.near.values())), len(self.near)))
        return near

    monkeypatch.setattr(linking.ResolutionMemo, "scope", watched)
    in_parts(monkeypatch, size=5)
    brain = Brain(tmp_path, MemoryStore())
    brain.sync()
    assert brain.store.export() == expected
    assert held, "the parts used no memo"
    # At most the cap, plus one note's links (8) kept before the next note's look at it.
    assert max(entries for entries, _ in held) <= 12 + 8
    assert max(scopes for _, scopes in held) == 1


def test_incoming_links_of_a_notes_own_view_are_held_as_one_number(tmp_path: Path) -> None:
    """The counters hold a note's incoming links as one int where every source has the
    note's own view key (most notes: 860 MB of Counters at 1,000,000 notes), a Counter only
    where keys mix; the form is canonical, so a link from another view added and taken away
    leaves the int again, and every answer is a recount's throughout."""
    workspace(tmp_path)
    brain = Brain(tmp_path, MemoryStore())
    brain.sync()
    store = brain.store
    assert isinstance(store, MemoryStore)
    index = store._health
    assert index.valid
    counted = store.health_recounts()
    held = index.inc
    assert any(type(by) is int for by in held.values())
    for target, by in held.items():  # canonical: a Counter only where keys mix
        assert type(by) is int or set(by) != {vis_of(target)}, target
    target, stem = next((m.id, Path(m.path).stem) for m in store.list_memories(MemoryFilter())
                        if vis_of(m.id) == "alpha" and type(held.get(m.id)) is int)
    own = held.get(target)
    assert type(own) is int
    assert own > 0

    def same_as_recount() -> None:
        for reach in ASKS:
            for scope in (None, "alpha", "shared"):
                ask = HealthAsk(reach, scope, 2e9)
                assert answered(store, ask) == recount(store, ask)

    same_as_recount()
    pointer = tmp_path / "memory" / "shared" / "pointer.md"
    pointer.write_text(f"# Pointer\n[[alpha/{stem}]]\n", encoding="utf-8")
    brain.sync(["memory/shared/pointer.md"])
    mixed = held.get(target)
    assert isinstance(mixed, Counter)
    assert mixed["alpha"] == own  # the note's own view's, and one from the pointer's
    assert sum(mixed.values()) == own + 1
    same_as_recount()
    pointer.write_text("# Pointer\nno link now\n", encoding="utf-8")
    brain.sync(["memory/shared/pointer.md"])
    assert held.get(target) == own
    assert type(held.get(target)) is int
    same_as_recount()
    assert store.health_recounts() == counted  # kept write by write, never counted again


def test_a_target_one_note_wants_once_is_held_as_that_notes_id(tmp_path: Path) -> None:
    """The notes wanting a missing or hidden target: the one note's id where one note wants
    it once (most targets), a Counter otherwise; canonical, so a second note wanting it and
    then not again leaves the id, and most wanted and every other answer are a recount's."""
    workspace(tmp_path)
    brain = Brain(tmp_path, MemoryStore())
    brain.sync()
    store = brain.store
    assert isinstance(store, MemoryStore)
    index = store._health
    for part in index.wanted.values():  # canonical
        for askers in part.values():
            assert type(askers) is str or len(askers) > 1 or set(askers.values()) != {1}

    def ghost() -> dict[str, object]:
        return {t: a for part in index.wanted.values() for t, a in part.items() if "ghost-z" in t}

    def same_as_recount() -> None:
        for reach in ASKS:
            for scope in (None, "alpha"):
                ask = HealthAsk(reach, scope, 2e9)
                assert answered(store, ask) == recount(store, ask)

    first, second = (tmp_path / "memory" / "alpha" / f"{n}.md" for n in ("wants-1", "wants-2"))
    first.write_text("# One\n[[ghost-z]]\n", encoding="utf-8")
    brain.sync(["memory/alpha/wants-1.md"])
    (target, askers), = ghost().items()
    assert type(askers) is str
    assert askers.endswith("wants-1")
    same_as_recount()
    second.write_text("# Two\n[[ghost-z]]\n", encoding="utf-8")
    brain.sync(["memory/alpha/wants-2.md"])
    both = ghost()[target]
    assert isinstance(both, Counter)
    assert sorted(both.values()) == [1, 1]
    same_as_recount()
    second.write_text("# Two\nno more\n", encoding="utf-8")
    brain.sync(["memory/alpha/wants-2.md"])
    assert ghost() == {target: askers}
    same_as_recount()
    first.write_text("# One\nno more\n", encoding="utf-8")
    brain.sync(["memory/alpha/wants-1.md"])
    assert ghost() == {}
    same_as_recount()
