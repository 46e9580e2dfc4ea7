"""The live set of labels a process trusts between lookups (brain/store/neo4j/generations/live.py)."""

from __future__ import annotations

import threading

import pytest

import brain.store.neo4j.generations.live as live_module
from brain.store.neo4j.generations.live import LIVE_TTL, LiveSet
from brain.store.neo4j.store import Neo4jStore


class _Clock:
    """The module's `time`, moved by hand: a loaded CI worker may stall longer than any TTL."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def test_an_answer_is_trusted_until_its_ttl_from_when_the_lookup_began(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = _Clock()
    monkeypatch.setattr(live_module, "time", clock)
    live = LiveSet(ttl=0.3)
    assert live.fresh() is None  # nothing looked up yet
    token = live.begin()
    clock.now += 0.2  # the lookup took a while: the TTL counts from its beginning
    live.saw(token, "BrainStaged")
    assert live.fresh() == (token[1], "BrainStaged")
    clock.now += 0.09
    assert live.fresh() == (token[1], "BrainStaged")
    clock.now += 0.02
    assert live.fresh() is None


def test_the_plain_set_is_an_answer_too() -> None:
    live = LiveSet()
    token = live.begin()
    live.saw(token, None)
    assert live.fresh() == (token[1], None)


def test_forget_drops_the_answer_and_any_lookup_begun_before_it() -> None:
    live = LiveSet()
    live.saw(live.begin(), "BrainStaged")
    before = live.begin()  # a read looks up, then a commit lands before it keeps the answer
    live.forget()
    assert live.fresh() is None
    live.saw(before, "BrainStaged")
    assert live.fresh() is None  # an answer older than the commit is not kept
    after = live.begin()
    live.saw(after, None)
    assert live.fresh() == (after[1], None)


def test_forgets_from_other_threads_are_never_lost() -> None:
    live = LiveSet()
    tokens = [live.begin()]

    def forget() -> None:
        for _ in range(1000):
            live.forget()

    threads = [threading.Thread(target=forget) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    live.saw(tokens[0], "BrainStaged")
    assert live.fresh() is None


def test_the_grace_of_a_switch_covers_a_read_begun_a_ttl_after_it() -> None:
    # The replaced set stays whole for the grace: a read trusting an answer looked up just
    # before the switch starts on it up to LIVE_TTL later, and has a second to run.
    assert Neo4jStore.switch_grace >= LIVE_TTL + 1.0
