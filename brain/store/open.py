"""Choosing a store from the command line or the environment."""

from __future__ import annotations

import argparse

from brain.store.base import GraphStore, StoreUnavailable
from brain.store.memory.store import MemoryStore

__all__ = ["StoreUnavailable", "open_store"]


def open_store(args: argparse.Namespace) -> GraphStore:
    kind = getattr(args, "store", "memory") or "memory"
    if getattr(args, "read_only", False) and kind != "neo4j":
        raise StoreUnavailable(
            "--read-only serves a Neo4j database another brain writes: add --store neo4j (and --neo4j-uri)"
        )
    if kind == "memory":
        return MemoryStore()
    if kind == "neo4j":
        if not args.neo4j_uri:
            raise StoreUnavailable("--store neo4j needs --neo4j-uri (or NEO4J_URI), e.g. bolt://127.0.0.1:7687")
        try:
            from brain.store.neo4j.store import Neo4jStore
        except ImportError as exc:  # the Neo4j store lands in its own change
            raise StoreUnavailable(f"the Neo4j store is not available: {exc}") from exc
        neo4j = Neo4jStore.connect(
            args.neo4j_uri, args.neo4j_user, args.neo4j_password, args.neo4j_database,
            read_only=bool(getattr(args, "read_only", False)),
        )
        neo4j.replace_foreign = bool(getattr(args, "neo4j_replace", False))
        store: GraphStore = neo4j
        return store
    raise StoreUnavailable(f"unknown store {kind!r}: use memory or neo4j")
