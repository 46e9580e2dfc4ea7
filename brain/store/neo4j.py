"""The Neo4j store: placeholder until it lands (issue 4)."""

from __future__ import annotations

from brain.store.base import GraphStore
from brain.store.open import StoreUnavailable


class Neo4jStore:
    @classmethod
    def connect(
        cls, uri: str, user: str | None, password: str | None, database: str | None
    ) -> GraphStore:
        raise StoreUnavailable("the Neo4j store is not built yet")
