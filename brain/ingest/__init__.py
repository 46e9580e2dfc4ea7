"""Workspace -> store, and kept so: the first sync, rescans, the watcher and the replica follower.

`ingester` is the one code path (`Ingester.sync`): stat, read what changed, parse what
changed (`memory_files`, in helper processes for a big batch: `parse_helpers` and `worker`),
claim names (`claims`), plan and write the links (`parts`, `state`). `watch` follows a
running workspace's files; `replica` follows a writer's change log instead.
"""
