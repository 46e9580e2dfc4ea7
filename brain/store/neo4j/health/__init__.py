"""Memory health on Neo4j: the counters kept in step with every write (counters), and their
first count over the whole graph, read lean (first_count)."""
