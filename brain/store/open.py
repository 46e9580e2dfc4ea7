"""Opening the store the operator chose (`[store]` of the operator's settings: --store,
BRAIN_STORE, the --config file)."""

from __future__ import annotations

import os
from collections.abc import Mapping

from brain.config.sections import StoreConfig
from brain.store.base import GraphStore, StoreUnavailable
from brain.store.memory.store import MemoryStore

__all__ = ["StoreUnavailable", "describe_store", "open_store"]


def open_store(
    config: StoreConfig, *, password: str | None = None, read_only: bool = False,
    replace: bool = False, env: Mapping[str, str] | None = None, health_ahead: bool = True,
) -> GraphStore:
    """The store of `config`; `password` (a `--neo4j-password` flag) before the variable that
    `neo4j_password_env` names. `health_ahead=False`: a command that never asks memory health
    (the embedded store then counts it on a first question instead of batch by batch)."""
    kind = config.kind
    if read_only and kind != "neo4j":
        raise StoreUnavailable(
            "--read-only serves a Neo4j database another brain writes: add --store neo4j (and --neo4j-uri)"
        )
    if kind == "memory":
        return MemoryStore(health_ahead=health_ahead)
    if not config.neo4j_uri:
        raise StoreUnavailable(
            "--store neo4j needs --neo4j-uri (or NEO4J_URI, or [store] neo4j_uri in the operator "
            "config), e.g. bolt://127.0.0.1:7687"
        )
    try:
        from brain.store.neo4j.store import Neo4jStore
    except ImportError as exc:
        raise StoreUnavailable(f"the Neo4j store is not available: {exc}") from exc
    environ = os.environ if env is None else env
    secret = password if password is not None else environ.get(config.neo4j_password_env)
    neo4j = Neo4jStore.connect(
        config.neo4j_uri, config.neo4j_user or None, secret, config.neo4j_database,
        read_only=read_only, atomic_rows=config.neo4j_atomic_rows or None,
        lease_seconds=config.neo4j_lease_seconds,
    )
    neo4j.replace_foreign = replace
    store: GraphStore = neo4j
    return store


def describe_store(config: StoreConfig) -> str:
    """`neo4j bolt://host:7687 database neo4j as brain`: what the startup line says (no password)."""
    if config.kind != "neo4j":
        return "memory (embedded, in this process)"
    from brain.config.operator import masked_url

    user = f" as {config.neo4j_user}" if config.neo4j_user else ""
    return f"neo4j {masked_url(config.neo4j_uri)} database {config.neo4j_database}{user}"
