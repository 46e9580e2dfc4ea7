"""Memory health (brain/store/health.py) on both stores: exact on a known workspace, equal to
a recount from scratch after random edits, deletes and renames, and private per agent.

The oracle counts from the store's plain reads (every note, every link, each projected with
`Reach.link` as the caller sees it), so it shares nothing with either store's health code.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from brain.model import Link, LinkStatus, MemoryNode
from brain.service.brain import Brain
from brain.store.base import GraphStore, MemoryFilter
from brain.store.health import (
    HealthAnswers,
    HealthAsk,
    HealthList,
    HealthReader,
    PageKey,
    ScopeHealth,
    ranked,
)
from brain.store.memory.store import MemoryStore
from brain.store.visibility import EVERYTHING, Reach
from tests.contract.helpers import Workspace, note

T0 = 1_790_000_000  # Workspace's clock: the n-th file written is modified at T0 + 10 n


def read_all(store: GraphStore) -> tuple[list[MemoryNode], dict[str, list[Link]]]:
    """What a recount counts from: every note and its links, as the store reads them."""
    every = store.list_memories(MemoryFilter(), bodies=False)
    return every, store.links_from([m.id for m in every])


def recount(store: GraphStore, ask: HealthAsk, top: int = 1000,
            read: tuple[list[MemoryNode], dict[str, list[Link]]] | None = None) -> dict[str, object]:
    """Everything health answers, counted from scratch (from `read`: the store's notes and
    links read once for several asks of an unchanged store)."""
    reach = ask.reach
    every, links = read or read_all(store)
    seen = [(m, reach.link(link)) for m in every if reach.sees(m.id) for link in links[m.id]]
    incoming = Counter(link.target_id for _, link in seen)
    notes = [m for m in every if reach.sees(m.id) and ask.scope in (None, m.scope)]
    rows: dict[str, Counter[str]] = {}
    lists: dict[HealthList, list[PageKey]] = {which: [] for which in HealthList}
    for m in notes:
        row = rows.setdefault(m.scope, Counter())
        row["notes"] += 1
        unlinked = not incoming[m.id]
        if unlinked and not links[m.id]:
            row["orphans"] += 1
            lists[HealthList.ORPHANS].append((0.0, m.id))
        if unlinked and m.modified_at < ask.stale_before:
            row["stale"] += 1
            lists[HealthList.STALE].append((m.modified_at, m.id))
        if not m.description.strip():
            row["without_description"] += 1
            lists[HealthList.WITHOUT_DESCRIPTION].append((0.0, m.id))
        if not m.type:
            row["without_type"] += 1
            lists[HealthList.WITHOUT_TYPE].append((0.0, m.id))
    wanted: dict[str, set[str]] = {}
    for m, link in seen:
        if m.scope not in rows:
            continue
        rows[m.scope]["links"] += 1
        if link.status is not LinkStatus.RESOLVED:
            rows[m.scope][link.status.name.lower()] += 1
        if link.status is LinkStatus.BROKEN:
            wanted.setdefault(link.target_id, set()).add(m.id)
    return {
        "counts": [ScopeHealth(scope, **row) for scope, row in sorted(rows.items())],
        "lists": {which: sorted(keys) for which, keys in lists.items()},
        "hubs": ranked({m.id: incoming[m.id] for m in notes}, top),
        "wanted": ranked({target: len(sources) for target, sources in wanted.items()}, top),
    }


def answered(store: GraphStore, ask: HealthAsk, top: int = 1000, page: int = 3) -> dict[str, object]:
    """The same, as the store answers it (every list walked page by page)."""
    assert isinstance(store, HealthReader)
    lists: dict[HealthList, list[PageKey]] = {}
    for which in HealthList:
        walked: list[PageKey] = []
        while True:
            got = store.health_page(ask, which, walked[-1] if walked else None, page)
            walked += got
            if len(got) < page:
                break
        lists[which] = walked
    return {
        "counts": store.health_counts(ask),
        "lists": lists,
        "hubs": store.health_hubs(ask, top),
        "wanted": store.health_wanted(ask, top),
    }


ALICE, BOB = Reach.of_agent("alice"), Reach.of_agent("bob")


def known(ws: Workspace) -> None:
    """alice: a hub `plan` (3 links in), an orphan `lonely` without type, a note `secret`
    only bob's explicit link points to; bob links alice's `secret` and wants `ghost` twice;
    shared: an empty note (a description is the first line when none is written) `faq` links to."""
    ws.write("memory/alice/plan.md", note("the plan", "[[todo]]"))
    ws.write("memory/alice/todo.md", note("todo", "[[plan]] [[plan#Missing]] [[ghost]]"))
    ws.write("memory/alice/lonely.md", "---\ndescription: alone\n---\nnobody\n")
    ws.write("memory/alice/secret.md", note("secret", "no links"))
    ws.write("memory/bob/b1.md", note("b1", "[[alice/plan]] [[alice/secret]] [[ghost]]"))
    ws.write("memory/bob/b2.md", note("b2", "[[ghost]] [[shared/glossary]]"))
    ws.write("memory/shared/glossary.md", "---\ntype: project\n---\n")  # nothing to describe it
    ws.write("memory/shared/faq.md", note("faq", "[[glossary]]"))


def test_health_of_a_known_workspace(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    known(ws)
    ws.brain(store)
    everything = HealthAsk(EVERYTHING, None, T0 + 35)  # the first three files written are old
    assert isinstance(store, HealthReader)
    counts = {row.scope: row for row in store.health_counts(everything)}
    assert counts["alice"] == ScopeHealth(
        "alice", notes=4, links=4, broken=1, missing_anchor=1, orphans=1, stale=1,
        without_type=1,
    )
    assert counts["bob"] == ScopeHealth("bob", notes=2, links=5, broken=2)
    assert counts["shared"] == ScopeHealth("shared", notes=2, links=1, without_description=1)
    assert store.health_hubs(everything, 2) == [("memory:alice/plan", 3), ("memory:shared/glossary", 2)]
    assert store.health_wanted(everything, 5) == [("unresolved:ghost", 3)]
    assert store.health_page(everything, HealthList.ORPHANS, None, 10) == [(0.0, "memory:alice/lonely")]
    # alice does not see bob's notes: `secret` is an orphan to her, `plan` has two links in.
    alice = HealthAsk(ALICE, None, T0 + 35)
    assert [row.scope for row in store.health_counts(alice)] == ["alice", "shared"]
    assert store.health_hubs(alice, 1) == [("memory:alice/plan", 2)]
    assert store.health_page(alice, HealthList.ORPHANS, None, 10) == [
        (0.0, "memory:alice/lonely"), (0.0, "memory:alice/secret"),
    ]
    assert store.health_wanted(alice, 5) == [("unresolved:ghost", 1)]
    # bob sees his explicit links into alice's folder broken: they want `alice/plan` and `alice/secret`.
    bob = HealthAsk(BOB, "bob", T0 + 35)
    assert store.health_counts(bob) == [ScopeHealth("bob", notes=2, links=5, broken=4)]
    assert store.health_wanted(bob, 5) == [
        ("unresolved:ghost", 2), ("unresolved:alice/plan", 1), ("unresolved:alice/secret", 1),
    ]
    for ask in (everything, alice, bob, HealthAsk(EVERYTHING, "shared", T0 + 1000)):
        assert answered(store, ask) == recount(store, ask)


NAMES = ["a", "b", "c", "d", "e"]
SCOPES = ["alice", "bob", "shared"]
TARGETS = [*NAMES, "alice/a", "bob/b", "shared/c", "a#Top", "zz"]
ASKS = [EVERYTHING, ALICE, BOB]


def random_note(rng: random.Random) -> str:
    links = " ".join(f"[[{rng.choice(TARGETS)}]]" for _ in range(rng.randint(0, 4)))
    body = "# Top\n" + links if links or rng.random() < 0.5 else ""
    description = rng.choice(["", "a note"])
    if rng.random() < 0.3:
        return f"---\ndescription: {description}\n---\n{body}\n"
    return note(description, body, rng.choice(["project", ""]))


def edit(ws: Workspace, brain: Brain, rng: random.Random) -> None:
    rel = f"memory/{rng.choice(SCOPES)}/{rng.choice(NAMES)}.md"
    path = ws.root / rel
    action = rng.random()
    if path.exists() and action < 0.25:
        brain.sync([ws.delete(rel)])
    elif path.exists() and action < 0.45:
        new = f"memory/{rng.choice(SCOPES)}/{rng.choice(NAMES)}.md"
        if not (ws.root / new).exists():
            brain.sync(ws.rename(rel, new))
    else:
        brain.sync([ws.write(rel, random_note(rng))])


def check_all(store: GraphStore, cutoff: float) -> None:
    read = read_all(store)  # nothing changes between the asks: the recount reads once
    for reach in ASKS:
        for scope in (None, "shared"):
            ask = HealthAsk(reach, scope, cutoff)
            assert answered(store, ask, top=3) == recount(store, ask, top=3, read=read), ask


def random_changes(store: GraphStore, root: Path, seed: int, steps: int) -> None:
    store.clear()
    ws = Workspace(root)
    rng = random.Random(seed)
    for _ in range(6):
        ws.write(f"memory/{rng.choice(SCOPES)}/{rng.choice(NAMES)}.md", random_note(rng))
    brain = ws.brain(store)
    check_all(store, T0 + 30)  # counted now: every later change must keep the counts
    assert isinstance(store, HealthAnswers)
    counted = store.health_recounts()
    for _ in range(steps):
        edit(ws, brain, rng)
        if rng.random() < 0.3:  # a question between edits: the sorted forms are edited in place
            check_all(store, T0 + 10 * rng.randint(0, 20))
    check_all(store, T0 + 10 * rng.randint(0, 20))
    # Kept in step by the writes themselves: no edit made a store count them again.
    assert store.health_recounts() == counted


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 12))
def test_embedded_health_equals_a_recount_after_random_changes(
    tmp_path_factory: pytest.TempPathFactory, seed: int, steps: int
) -> None:
    random_changes(MemoryStore(), tmp_path_factory.mktemp("ws"), seed, steps)


# Each example on Neo4j takes seconds: fewer of them, on both stores for equal footing.
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 12))
def test_health_equals_a_recount_after_random_changes(
    store: GraphStore, tmp_path_factory: pytest.TempPathFactory, seed: int, steps: int
) -> None:
    random_changes(store, tmp_path_factory.mktemp("ws"), seed, steps)


def test_the_embedded_counters_equal_counting_again(tmp_path: Path) -> None:
    """Kept counters and counters built from the tables after the same changes are equal."""
    store = MemoryStore()
    ws = Workspace(tmp_path)
    rng = random.Random(7)
    known(ws)
    brain = ws.brain(store)
    ask = HealthAsk(ALICE, None, T0 + 100)
    before = answered(store, ask)
    for _ in range(40):
        edit(ws, brain, rng)
    kept = answered(store, ask)
    store._health.valid = False  # counted again from the tables on the next query
    assert answered(store, ask) == kept != before


def test_a_snapshot_start_counts_health_from_the_restored_tables(tmp_path: Path) -> None:
    """A warm start keeps no counters in the snapshot: the first question counts them from
    the restored tables, and later edits keep them (a recount says so after each)."""
    ws = Workspace(tmp_path / "ws")
    known(ws)
    cold = Brain(ws.root, cache=True)
    cold.sync()
    cold.close()
    warm = Brain(ws.root, cache=True)
    assert warm.open_snapshot()
    store = warm.store
    assert isinstance(store, MemoryStore)
    assert not store._health.valid
    for reach in ASKS:
        ask = HealthAsk(reach, None, T0 + 35)
        assert answered(store, ask) == recount(store, ask)
    warm.sync()  # the rescan after a warm start, then an edit
    warm.sync([ws.write("memory/alice/lonely.md", note("no longer alone", "[[plan]]"))])
    for reach in ASKS:
        ask = HealthAsk(reach, None, T0 + 1000)
        assert answered(store, ask) == recount(store, ask)
    warm.close()


def test_a_store_without_health_ahead_counts_it_on_the_first_question(tmp_path: Path) -> None:
    """`brain ingest` and `brain check` never ask memory health: their store counts nothing
    as it writes (a third of a first sync's CPU), and a first question counts it once from
    the tables, the same answers as counters kept from the first batch; later edits keep it."""
    ws = Workspace(tmp_path)
    known(ws)
    lazy, kept = MemoryStore(health_ahead=False), MemoryStore()
    brain = ws.brain(lazy)
    ws.brain(kept)
    assert not lazy._health.valid
    assert lazy.health_recounts() == 0
    assert not lazy._health.out
    for reach in ASKS:
        ask = HealthAsk(reach, None, T0 + 35)
        assert answered(lazy, ask) == answered(kept, ask) == recount(lazy, ask)
    assert lazy.health_recounts() == 1
    rng = random.Random(11)
    for _ in range(10):
        edit(ws, brain, rng)
    for reach in ASKS:
        ask = HealthAsk(reach, None, T0 + 1000)
        assert answered(lazy, ask) == recount(lazy, ask)
    assert lazy.health_recounts() == 1
