"""Generations of the Neo4j graph: a write too big for one transaction is staged, then switched in."""
