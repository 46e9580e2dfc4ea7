"""Search over memories: keyword (BM25) and semantic (embeddings), fused into one ranking.

The stores keep the indexes (brain/store/memory_search.py in process, Neo4j's own full-text
and vector indexes in brain/store/neo4j.py); this package owns what is the same for both:
query terms, snippets, fusion, scope rules, the embedding model and its cache.
"""
