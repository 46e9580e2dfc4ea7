"""A Brain's startup snapshot: the graph and the ingester's state, written beside the cache.

`image` writes and reads one file (checked, never pickle), `columns` lays the big tables out
as columns, `rows` is the type-driven codec of everything else, `keeper` decides when a
running Brain loads and writes it, and `cachepaths` says where the cache folder is (with no
import of brain's, so the language server can ask it first).
"""
