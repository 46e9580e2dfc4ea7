"""Workspaces written in tmp_path, and every answer a store gives, for comparing stores."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from brain.model import ENTITY_KINDS, Kind, is_note_id
from brain.service.brain import Brain
from brain.store.base import GraphExport, GraphStore, MemoryFilter
from brain.store.memory.store import MemoryStore


class Workspace:
    """A workspace folder the test edits as a user would."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "memory").mkdir(parents=True, exist_ok=True)
        self._clock = 1_790_000_000

    def write(self, rel: str, text: str) -> str:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self._clock += 10  # distinct, deterministic mtimes: a rewrite is always seen
        os.utime(path, (self._clock, self._clock))
        return rel

    def delete(self, rel: str) -> str:
        (self.root / rel).unlink()
        return rel

    def rename(self, old: str, new: str) -> list[str]:
        target = self.root / new
        target.parent.mkdir(parents=True, exist_ok=True)
        (self.root / old).rename(target)
        return [old, new]

    def brain(self, store: GraphStore) -> Brain:
        brain = Brain(self.root, store)
        brain.sync()
        return brain


def note(description: str, body: str = "", type_: str = "project", **extra: str) -> str:
    lines = ["---", f"description: {description}", f"type: {type_}"]
    lines += [f"{key}: {value}" for key, value in extra.items()]
    return "\n".join([*lines, "---", body, ""])


def without_age(value: Any) -> Any:
    """A GraphQL answer without its `age` fields: an age ("today", "3 days") depends on when
    the test runs, not on the store."""
    if isinstance(value, dict):
        return {k: without_age(v) for k, v in value.items() if k != "age"}
    if isinstance(value, list):
        return [without_age(v) for v in value]
    return value


def reference(root: Path) -> Brain:
    """A full ingest of the workspace as it is now, into the embedded store."""
    brain = Brain(root, MemoryStore())
    brain.sync()
    return brain


def reference_export(root: Path) -> GraphExport:
    return reference(root).store.export()


def answers(store: GraphStore) -> dict[str, Any]:
    """Every read of the GraphStore interface over the whole graph, as plain comparable data.

    Two stores holding the same graph must give equal answers, in the same order.
    """
    graph = store.export()
    ids = sorted(row[0] for row in graph.nodes)
    memories = [i for i in ids if is_note_id(i)]
    scopes = [*sorted({i.split(":", 1)[1].split("/", 1)[0] for i in memories}), "nobody"]
    keys = sorted({str(dict(row[3])["key"]) for row in graph.edges if row[0] == "LINKS_TO"})
    paths = [f"memory/{i.split(':', 1)[1]}.md" for i in memories]
    # Where the layout really keeps them (other layouts than latchai), and plain files.
    paths += sorted({str(dict(row[2])["path"]) for row in graph.nodes if row[1] != "Memory"
                     and "path" in dict(row[2]) and dict(row[2])["path"]} - set(paths))
    types: list[str | None] = [None, "user", "feedback", "project", "reference"]
    filters = [MemoryFilter()]
    filters += [MemoryFilter(scope=s) for s in scopes] + [MemoryFilter(agent=s) for s in scopes]
    filters += [MemoryFilter(type=t) for t in types if t] + [MemoryFilter(text="e"), MemoryFilter(text="RE")]
    filters += [MemoryFilter(has_problems=True), MemoryFilter(has_problems=False)]
    out: dict[str, Any] = {
        "export": graph,
        "nodes": store.get_nodes([*ids, "memory:nobody/none", "bogus"]),
        "links_from": store.links_from(ids),
        "links_to": store.links_to(ids),
        "links_with_keys": store.links_with_keys(keys),
        "name_entries": {
            k: sorted(v, key=lambda e: e.id) for k, v in store.name_entries(keys).items()
        },
        "anchors": store.anchors(memories),
        "problems": store.problems(),
        "problems_at": store.problems([f"memory/{s}" for s in scopes] + paths[::2] + ["memory/x.md"]),
        "stats": store.stats(),
        "agents": store.list_agents(),
        "entities": {kind: store.list_entities(kind) for kind in (*ENTITY_KINDS, Kind.MEMORY)},
        "type_counts": store.memory_type_counts(scopes),
        "lists": [store.list_memories(f) for f in filters],
        "counts": [store.count_memories(f) for f in filters],
        "pages": _pages(store),
        "by_path": [store.memory_by_path(p) for p in paths],
        "neighborhoods": [store.neighborhood(i, 2, 12) for i in ids[:: max(1, len(ids) // 12)]],
    }
    return out


def _pages(store: GraphStore) -> list[list[str]]:
    pages: list[list[str]] = []
    after: str | None = None
    while True:
        page = store.list_memories(MemoryFilter(), after=after, limit=7)
        if not page:
            return pages
        pages.append([m.id for m in page])
        after = page[-1].id
