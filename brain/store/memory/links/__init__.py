"""The embedded store's links: held as columns by source (table, and the image a snapshot
takes of them), indexed by target and by name (index), and cut into backlink pages (backlinks)."""
