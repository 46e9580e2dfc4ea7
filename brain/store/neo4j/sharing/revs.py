"""Revisions: why a restart on Neo4j writes only what changed, and nothing when nothing did.

Every named node brain writes carries `rev`, a digest of everything brain wrote for it: its
properties and, for a memory, its owner and its outgoing links (target and properties). On
start the writer computes the revisions of the whole graph the files make, reads the
`(id, rev)` pairs the database holds, and writes only the nodes whose revision differs,
plus deletes for ids the files no longer define (`difference`).

A memory's `rev` is set by the statement that replaces its links, in the same transaction,
so a revision is only ever stored together with everything it covers: an interrupted write
leaves the old revision (or none), and the next start rewrites that note. A relink (one link
of another note re-resolved) clears the revision of its source for the same reason.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from brain.model import Link, MemoryNode
from brain.store.base import WriteBatch
from brain.store.neo4j.records import (
    Props,
    agent_props,
    entity_props,
    file_props,
    link_props,
    memory_owner_id,
    memory_props,
)

REV = "rev"  # the property name


def digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def memory_rev(props: Props, owner: str | None, links: Sequence[Link]) -> str:
    # Not the body: it is the file's text, which `hash` (among the props) already stands for,
    # and the bulk of the bytes to digest.
    head = {key: value for key, value in props.items() if key != "body"}
    return digest([head, owner, [[link.target_id, link_props(link)] for link in links]])


def node_rev(props: Props) -> str:
    return digest(props)


def batch_revs(batch: WriteBatch) -> dict[str, str]:
    """The revision of every node `batch` upserts (a memory's with its links in the batch)."""
    revs: dict[str, str] = {}
    for memory in batch.memories:
        revs[memory.id] = memory_rev(
            memory_props(memory), memory_owner_id(memory), batch.links.get(memory.id, ())
        )
    for agent in batch.agents:
        revs[agent.id] = node_rev(agent_props(agent))
    for entity in batch.entities:
        revs[entity.id] = node_rev(entity_props(entity))
    for node in batch.files:
        revs[node.id] = node_rev(file_props(node))
    return revs


def difference(graph: WriteBatch, held: Mapping[str, str | None]) -> WriteBatch:
    """What to write so a database holding `held` (id -> rev) holds exactly `graph`.

    `graph` is a whole graph (a fresh ingest's batch); `held` covers every named node the
    database has. Nodes of equal revision are left alone; ids `graph` lacks are deleted.
    """
    wanted = batch_revs(graph)

    def stale(node_id: str) -> bool:
        return held.get(node_id) != wanted[node_id]

    memories: list[MemoryNode] = [m for m in graph.memories if stale(m.id)]
    return WriteBatch(
        memories=memories,
        agents=[a for a in graph.agents if stale(a.id)],
        entities=[e for e in graph.entities if stale(e.id)],
        files=[f for f in graph.files if stale(f.id)],
        deletes=sorted(set(held) - set(wanted)),
        links={m.id: list(graph.links.get(m.id, ())) for m in memories},
    )
