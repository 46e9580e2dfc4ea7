"""The keyword index both stores and the ingest share: how text splits into words and
snippets (`text`), the postings a note's words make (`postings`, counted by the native
scanner or by numpy), and the embedded store's BM25 ranking over them (`bm25`,
`held_postings`). Below the store, so the store can keep it; search (brain/search/) ranks
with it."""

import os

# numpy's OpenBLAS starts a thread per core for every matrix product; for a query's few
# tokens that costs 10x the work (measured: 140 ms CPU and 600 ms wall on a busy 2-core
# machine, against 15 ms and 60 ms single-threaded). Set before numpy is first imported
# (brain imports it only here and in brain/search, lazily); an operator's own setting wins.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")
