"""The history of memory writes: the append-only log and the blobs of each version.

Also how long it keeps them (retention) and how much (the size cap).
"""
