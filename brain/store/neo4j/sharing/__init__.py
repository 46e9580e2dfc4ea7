"""One Neo4j database shared by several brain processes: identity, the writer's lease, revisions."""
