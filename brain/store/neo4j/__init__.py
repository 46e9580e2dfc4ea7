"""The Neo4j store: the graph in a Neo4j database, written in generations and read with Cypher.

This package is the only place Cypher is written.
"""
