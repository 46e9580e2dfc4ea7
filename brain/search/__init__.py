"""Search over memories: keyword (BM25) and semantic (embeddings), fused into one ranking.

The stores keep the indexes (brain/store/memory/search.py in process, Neo4j's own full-text
and vector indexes in brain/store/neo4j/store.py); this package owns what is the same for both:
fusion, scope rules, the embedding model and its cache (query terms and snippets: brain/index).
"""

# numpy's thread count is set where brain first imports numpy: brain/index/__init__.py.
import brain.index  # noqa: F401
