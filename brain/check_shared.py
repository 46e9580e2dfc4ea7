"""`brain check --store neo4j`: check the files, then compare them with the database, read-only.

A check often runs beside a `brain serve` that writes the same database, and what that
server's readers see must not move. So the check builds the graph in process (the embedded
store: the contract suite proves both stores give the same answers), connects to Neo4j
read-only, and only compares revisions (brain/store/neo4j_revs.py): it says whether the
database holds this workspace and is in step with the files, and writes nothing.
"""

from __future__ import annotations

import argparse

from brain.model import Node
from brain.service import Brain
from brain.store.base import SharedStore, StoreUnavailable, WriteBatch
from brain.store.memory import MemoryStore
from brain.store.open import open_store


class ComparedCheck:
    """A Brain on the embedded store, and the read-only database it is compared with."""

    def __init__(self, args: argparse.Namespace, root_brain: Brain) -> None:
        self.brain = root_brain
        self.graph = WriteBatch()
        read_only = argparse.Namespace(**{**vars(args), "read_only": True})
        database = open_store(read_only)
        if not isinstance(database, SharedStore):
            database.close()
            raise StoreUnavailable(f"--store {args.store} cannot be compared with the files")
        self.database = database
        root_brain.ingester.listeners.append(self._keep_first)

    def _keep_first(self, batch: WriteBatch, before: dict[str, Node]) -> None:
        if not self.graph:
            self.graph = batch  # the first sync's batch: the whole graph of the files

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
        diff = db.difference(self.graph)
        if not diff:
            return f"{name} is in step with these files"
        nodes = len(diff.memories) + len(diff.agents) + len(diff.entities) + len(diff.deletes)
        return (
            f"{name} differs from these files in {nodes} nodes: the writer (`brain serve "
            f"{root} --store neo4j`) brings it in step as it follows the files"
        )

    def close(self) -> None:
        self.database.close()


def open_check(args: argparse.Namespace) -> ComparedCheck:
    from brain.commands import workspace_root

    return ComparedCheck(args, Brain(workspace_root(args.workspace), MemoryStore()))
