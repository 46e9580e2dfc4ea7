"""Graph stores: the GraphStore interface, the embedded store and the Neo4j store."""

from brain.store.base import GraphStore, MemoryFilter, Subgraph, WriteBatch

__all__ = ["GraphStore", "MemoryFilter", "Subgraph", "WriteBatch"]
