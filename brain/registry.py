"""One value per live object, made on its first use: a served brain's memory service, its
as-of moments, their counts series, its maintenance reports.

Keyed weakly, so a brain that is gone (a test's, a closed workspace's) takes its values with
it; made under a lock, so two requests that race for the first one get the same one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar
from weakref import WeakKeyDictionary

K = TypeVar("K")
V = TypeVar("V")


class OnePer(Generic[K, V]):
    """`registry(key)`: the value of `key`, made by `make(key)` the first time (under the lock,
    so `make` must not ask this registry again)."""

    def __init__(self, make: Callable[[K], V]) -> None:
        self._make = make
        self._values: WeakKeyDictionary[K, V] = WeakKeyDictionary()
        self._lock = threading.Lock()

    def __call__(self, key: K) -> V:
        with self._lock:
            found = self._values.get(key)
            if found is None:
                found = self._values[key] = self._make(key)
            return found

    def put(self, key: K, value: V, then: Callable[[], None] | None = None) -> None:
        """Use `value` for `key` from now on (`then` runs under the same lock, after)."""
        with self._lock:
            self._values[key] = value
            if then is not None:
                then()

    def get(self, key: K) -> V | None:
        """The value of `key` if one was made (none is made here)."""
        with self._lock:
            return self._values.get(key)


__all__ = ["OnePer"]
