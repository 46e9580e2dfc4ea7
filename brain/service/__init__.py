"""The use-cases every front end shares, over one workspace: a `Brain` (brain.py) holds the
store, the ingester, search and the snapshot; `watch` keeps it equal to the files while it
runs, `replica` keeps a read-only one equal to a writer's database; `overview` picks what a
whole-workspace drawing shows."""
