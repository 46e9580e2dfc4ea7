"""The read side of Neo4jStore beside store.py: its mixins for backlink pages, link targets, a
note's view and neighbourhood, and what it keeps between reads until the graph token moves."""
