"""Search over memories: keyword (BM25) and semantic (embeddings), fused into one ranking.

The stores keep the indexes (brain/store/memory_search.py in process, Neo4j's own full-text
and vector indexes in brain/store/neo4j.py); this package owns what is the same for both:
query terms, snippets, fusion, scope rules, the embedding model and its cache.
"""

import os

# numpy's OpenBLAS starts a thread per core for every matrix product; for a query's few
# tokens that costs 10x the work (measured: 140 ms CPU and 600 ms wall on a busy 2-core
# machine, against 15 ms and 60 ms single-threaded). Set before numpy is first imported
# (brain imports it only here, lazily); an operator's own setting wins.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
