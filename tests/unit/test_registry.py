"""brain/registry.py: one value per live key, made once even when first asks race."""

from __future__ import annotations

import gc
import threading
import time

from brain.registry import OnePer


class Key:
    """A weakly referenceable key (a served brain in the product)."""


def test_each_key_has_one_value_made_on_first_use() -> None:
    made: list[Key] = []

    def make(key: Key) -> list[Key]:
        made.append(key)
        return [key]

    registry: OnePer[Key, list[Key]] = OnePer(make)
    a, b = Key(), Key()
    assert registry.get(a) is None
    first = registry(a)
    assert registry(a) is first
    assert registry.get(a) is first
    assert registry(b) is not first
    assert registry(b) == [b]
    assert made == [a, b]


def test_racing_first_asks_get_the_same_value() -> None:
    def slow(key: Key) -> object:
        time.sleep(0.05)  # wide enough that every thread asks while the first is making
        return object()

    registry: OnePer[Key, object] = OnePer(slow)
    key = Key()
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(registry(key))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 8
    assert all(value is got[0] for value in got)


def test_put_replaces_the_value_and_runs_then() -> None:
    registry: OnePer[Key, str] = OnePer(lambda key: "made")
    key = Key()
    seen: list[str | None] = []
    registry.put(key, "given", then=lambda: seen.append(registry._values.get(key)))
    assert registry(key) == "given"
    assert seen == ["given"]


def test_a_key_that_is_gone_takes_its_value_with_it() -> None:
    registry: OnePer[Key, str] = OnePer(lambda key: "made")
    key = Key()
    registry(key)
    del key
    gc.collect()
    assert len(registry._values) == 0
