"""`brain check --store neo4j`: check the files, then compare them with the database, read-only.

A check often runs beside a `brain serve` that writes the same database, and what that
server's readers see must not move. So the check builds the graph in process (the embedded
store: the contract suite proves both stores give the same answers), connects to Neo4j
read-only, and only compares revisions (brain/store/neo4j/sharing/revs.py): it says whether the
database holds this workspace and is in step with the files, and writes nothing.

The in-process graph starts from the startup snapshot the embedded store keeps for this
workspace (`brain check` and `brain serve` write it; `--no-cache` turns it off), so a check
of an unchanged workspace reads no file, as on the embedded store. The comparison takes the
whole graph the store then holds, not the sync's batch: from a snapshot that batch is only
what changed, and a first sync of more than a part (brain/ingest/parts.py) hands its graph
over in several.
"""

from __future__ import annotations

import argparse

from brain.config.operator import OperatorSettings
from brain.model import MemoryNode
from brain.service.brain import Brain
from brain.service.options import store_of
from brain.store.base import SharedStore, StoreUnavailable, WriteBatch
from brain.store.memory.rows import as_link, memory_of
from brain.store.memory.store import MemoryStore


class ComparedCheck:
    """A Brain on the embedded store, and the read-only database it is compared with."""

    def __init__(self, args: argparse.Namespace, root_brain: Brain, settings: OperatorSettings) -> None:
        self.brain = root_brain
        database = store_of(args, settings, read_only=True)
        if not isinstance(database, SharedStore):
            database.close()
            raise StoreUnavailable(f"--store {settings.store.kind} cannot be compared with the files")
        self.database = database

    def summary(self) -> str:
        """One line: how the database stands against the files just checked."""
        db = self.database
        name = db.describe()
        workspace = db.workspace()
        root = str(self.brain.root)
        if workspace is None:
            return f"{name} holds no brain graph yet (`brain serve {root} --store neo4j` writes it)"
        if workspace.get("root") != root:
            return f"{name} holds the graph of workspace {workspace.get('root')}, not of {root}"
        assert isinstance(self.brain.store, MemoryStore)
        diff = db.difference(whole_graph(self.brain.store))
        if not diff:
            return f"{name} is in step with these files"
        nodes = len(diff.memories) + len(diff.agents) + len(diff.entities) + len(diff.deletes)
        return (
            f"{name} differs from these files in {nodes} nodes: the writer (`brain serve "
            f"{root} --store neo4j`) brings it in step as it follows the files"
        )

    def close(self) -> None:
        self.database.close()


def whole_graph(store: MemoryStore) -> WriteBatch:
    """Everything the store holds as the one batch a fresh ingest would write, bodies left out
    (a revision does not cover them: the content hash stands for the text)."""
    image = store.contents()
    return WriteBatch(
        memories=[m if isinstance(m, MemoryNode) else memory_of(m) for m in image.memories],
        agents=image.agents,
        entities=image.entities,
        files=image.files,
        links={} if image.links is None else {
            source: [as_link(row) for row in rows] for source, rows in image.links.items()
        },
    )


def open_check(args: argparse.Namespace, settings: OperatorSettings | None = None) -> ComparedCheck:
    from brain.service.options import operator_settings, workspace_layout

    root, layout = workspace_layout(args.workspace)
    if settings is None:
        settings = operator_settings(args, root)
    brain = Brain(root, MemoryStore(), layout, cache=not getattr(args, "no_cache", False), settings=settings)
    return ComparedCheck(args, brain, settings)
