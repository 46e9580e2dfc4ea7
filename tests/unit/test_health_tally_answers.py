"""The hubs, most wanted and lists' heads the Neo4j writer keeps in the tally
(brain/store/neo4j/health/tally_answers.py): read back, they answer exactly as the counters
do for every reach and scope, or say they cannot (None: the counters count); a garbled
entry makes the whole tally ignored."""

from __future__ import annotations

import json
import random

import pytest

from brain.model import LinkStatus
from brain.store.health import MAX_TOP, HealthAsk, HealthList, PageKey
from brain.store.health_counts import Facts, HealthIndex
from brain.store.neo4j.health import tally, tally_answers
from brain.store.neo4j.health.counters import rows
from brain.store.neo4j.health.first_count import Kept, kept_link
from brain.store.neo4j.health.tally_answers import PAGE, Answers, Stored
from brain.store.visibility import EVERYTHING, Reach

SCOPES = ["alice", "bob", "carol", "shared", "project:x"]
NOW = 1_790_000_000


def counters(size: int, seed: int) -> HealthIndex:
    """A graph at random: links within and across scopes (into other agents' notes too),
    broken and ambiguous ones, ties in every count."""
    rng = random.Random(seed)
    ids = [f"memory:{rng.choice(SCOPES)}/n{i:04d}" for i in range(size)]
    facts: dict[str, Facts] = {
        i: (i.split(":", 1)[1].split("/", 1)[0] if "project:x" not in i else "project:x",
            float(NOW - rng.randrange(20) * 60 - rng.random()), rng.random() < 0.3, rng.random() < 0.3)
        for i in ids
    }
    held: dict[str, tuple[Kept, ...]] = {}
    for source in ids:
        found = []
        for _ in range(rng.choice([0, 0, 1, 2, 4])):
            roll = rng.random()
            if roll < 0.7:
                found.append(kept_link(rng.choice(ids[: max(3, size // 4)]), LinkStatus.RESOLVED, "x", ()))
            elif roll < 0.9:
                found.append(kept_link(f"unresolved:m{rng.randrange(6)}", LinkStatus.BROKEN, "x", ()))
            else:
                found.append(kept_link(f"unresolved:a{rng.randrange(3)}", LinkStatus.AMBIGUOUS, "a",
                                       tuple(rng.sample(ids, 2))))
        if found:
            held[source] = tuple(found)
    index = HealthIndex()
    index.build(facts, ((s, rows(k)) for s, k in held.items()), facts.get)
    return index


REACHES = [EVERYTHING, Reach.of_agent("alice"), Reach.of_agent("bob"), Reach.of_agent("carol"),
           Reach.of_agent("nobody"), Reach(frozenset()), Reach(frozenset({"shared"}))]


def walk(answers: Answers, index: HealthIndex, ask: HealthAsk, which: HealthList, size: int) -> int:
    """The list page by page from the tally while it answers, each page checked against the
    counters; how many pages it answered."""
    after: PageKey | None = None
    for n in range(10_000):
        got = tally_answers.page(answers, ask, which, after, size)
        if got is None:
            return n
        assert got == index.page(ask, which, after, size), (ask, which, after)
        if len(got) < size:
            return n + 1
        after = got[-1]
    raise AssertionError("no end")


@pytest.mark.parametrize(("size", "seed"), [(0, 1), (12, 2), (60, 3), (700, 4), (1500, 5)])
def test_the_stored_answers_equal_the_counters_for_every_reach_and_scope(size: int, seed: int) -> None:
    index = counters(size, seed)
    parsed = tally.parse(tally.tally_of(index))
    assert parsed is not None
    for reach in REACHES:
        for scope in (None, *SCOPES, "elsewhere"):
            for cutoff in (float(NOW - 600), float(NOW - 599.5), float(NOW + 60)):
                ask = HealthAsk(reach, scope, cutoff)
                # Every scope that holds a note is stored, in view or not ("elsewhere" holds none).
                known = scope is None or any(g.notes and key[0] == scope for key, g in index.groups.items())
                for top in (0, 1, 3, 10, MAX_TOP):
                    hubs = tally_answers.hubs(parsed.answers, ask, top)
                    wanted = tally_answers.wanted(parsed.answers, ask, top)
                    if known:  # the dashboard's questions are always answered
                        assert hubs is not None, (ask, top)
                        assert wanted is not None, (ask, top)
                    if hubs is not None:
                        assert hubs == index.hubs(ask, top), (ask, top)
                    if wanted is not None:
                        assert wanted == index.most_wanted(ask, top), (ask, top)
                for which in HealthList:
                    for page in (1, 7, 21, PAGE):
                        answered = walk(parsed.answers, index, ask, which, page)
                        if known:
                            assert answered >= 1, (ask, which, page)  # the first page at least


def stored(keys: list[PageKey]) -> Answers:
    lists = tuple(tuple(keys) if which is HealthList.STALE else tuple((0.0, k) for _, k in keys)
                  for which in tally_answers.LISTS)
    return Answers(frozenset({"alice", "shared"}),
                   {(None, None): Stored((("a", 3), ("b", 1)), (), lists)})


FULL = [(float(t), f"n{t:04d}") for t in range(PAGE)]  # a head of PAGE keys: more may follow
SHORT = FULL[:5]  # the whole list


@pytest.mark.parametrize(("keys", "which", "after", "limit", "cutoff", "expected"), [
    (SHORT, HealthList.ORPHANS, None, 3, 0.0, [(0.0, "n0000"), (0.0, "n0001"), (0.0, "n0002")]),
    (SHORT, HealthList.ORPHANS, (0.0, "n0003"), 3, 0.0, [(0.0, "n0004")]),  # the whole list's end
    (SHORT, HealthList.ORPHANS, (0.0, "zz"), 3, 0.0, []),
    (FULL, HealthList.ORPHANS, (0.0, f"n{PAGE - 3:04d}"), 2, 0.0, [(0.0, f"n{PAGE - 2:04d}"),
                                                                     (0.0, f"n{PAGE - 1:04d}")]),
    (FULL, HealthList.ORPHANS, (0.0, f"n{PAGE - 3:04d}"), 3, 0.0, None),  # past the head
    (FULL, HealthList.STALE, None, 50, 2.0, [(0.0, "n0000"), (1.0, "n0001")]),  # cut by the cutoff
    (FULL, HealthList.STALE, (1.0, "n0001"), 5, 2.0, []),
    (FULL, HealthList.STALE, (float(PAGE - 2), f"n{PAGE - 2:04d}"), 5, 1e12, None),
    (FULL, HealthList.WITHOUT_TYPE, None, 0, 0.0, []),
])
def test_a_page_from_the_stored_head(keys: list[PageKey], which: HealthList, after: PageKey | None,
                                     limit: int, cutoff: float, expected: list[PageKey] | None) -> None:
    ask = HealthAsk(EVERYTHING, None, cutoff)
    assert tally_answers.page(stored(keys), ask, which, after, limit) == expected


@pytest.mark.parametrize(("reach", "scope", "top", "expected"), [
    (EVERYTHING, None, 1, [("a", 3)]),
    (EVERYTHING, None, 50, [("a", 3), ("b", 1)]),  # fewer than MAX_TOP stored: that is all
    (EVERYTHING, "alice", 1, None),  # a scope filter not stored
    (Reach.of_agent("alice"), None, 1, None),  # a reach not stored
])
def test_hubs_from_the_stored_answers(reach: Reach, scope: str | None, top: int,
                                      expected: list[tuple[str, int]] | None) -> None:
    assert tally_answers.hubs(stored(SHORT), HealthAsk(reach, scope), top) == expected


def test_a_full_top_answers_within_it_only() -> None:
    full = tuple((f"n{i:04d}", 1) for i in range(MAX_TOP))
    answers = Answers(frozenset(), {(None, None): Stored(full, full, ((),) * 4)})
    assert tally_answers.hubs(answers, HealthAsk(), MAX_TOP) == list(full)
    assert tally_answers.wanted(answers, HealthAsk(), MAX_TOP + 1) is None


def test_a_reach_is_looked_up_by_the_scopes_the_graph_names() -> None:
    answers = Answers(frozenset({"alice", "shared"}),
                      {(frozenset({"alice", "shared"}), None): Stored((("a", 1),), (), ((),) * 4)})
    wider = Reach(frozenset({"alice", "shared", "zed"}))  # zed: no note or link of it
    assert tally_answers.hubs(answers, HealthAsk(wider), 5) == [("a", 1)]
    assert tally_answers.hubs(answers, HealthAsk(Reach(frozenset({"alice"}))), 5) is None


def answers_json(index: HealthIndex) -> dict[str, object]:
    raw: dict[str, object] = json.loads(tally.tally_of(index))
    return raw


@pytest.mark.parametrize("damage", [
    lambda a: a.update(ids=[1, 2]),
    lambda a: a["entries"][0].__setitem__(2, [999_999, 1]),  # an id not in the table
    lambda a: a["entries"][0].__setitem__(2, [0, 0]),  # a hub no link points to
    lambda a: a["entries"][0].__setitem__(2, [0, 1, 1, 2]),  # out of order
    lambda a: a["entries"][0].__setitem__(3, [0]),  # odd
    lambda a: a["entries"][0][4].__setitem__(1, [0, "soon"]),  # a stale time not a number
    lambda a: a["entries"][0][4].__setitem__(0, [1, 0]),  # out of order
    lambda a: a["entries"][0][4].pop(),
    lambda a: a["entries"][0].__setitem__(0, "alice"),
    lambda a: a["entries"][0].__setitem__(1, 7),
    lambda a: a["entries"].append([None]),
    lambda a: a.pop("vis"),
    lambda a: a.update(vis="alice"),
])
def test_garbled_answers_make_the_tally_ignored(damage: object) -> None:
    raw = answers_json(counters(60, 3))
    answers = raw["answers"]
    assert isinstance(answers, dict)
    assert callable(damage)
    damage(answers)
    assert tally.parse(json.dumps(raw)) is None
