"""The two sets of Neo4j labels (brain/store/neo4j/generation.py): how statements are rendered.

Every statement is written with the plain labels live and `BrainB…` staged; `on` renders it
for whichever set `BrainLive` names. Pure string functions: no server needed.
"""

from __future__ import annotations

import pytest

from brain.store.neo4j import cypher, generation
from brain.store.neo4j.search import KEYWORD_SEARCH, VECTOR_SEARCH

B = generation.STAGED_PREFIX


@pytest.mark.parametrize(("statement", "b_live"), [
    ("MATCH (m:Memory {id: $id}) RETURN m", "MATCH (m:BrainBMemory {id: $id}) RETURN m"),
    ("MATCH (n:Memory|Agent|WorkItem) RETURN n",
     "MATCH (n:BrainBMemory|BrainBAgent|BrainBWorkItem) RETURN n"),
    ("MATCH (s:Memory)-[r:LINKS_TO]->(t) WHERE t:Unresolved RETURN r",
     "MATCH (s:BrainBMemory)-[r:LINKS_TO]->(t) WHERE t:BrainBUnresolved RETURN r"),
    ("MATCH (c:BrainBMemory) MATCH (l:Memory) RETURN c, l",
     "MATCH (c:Memory) MATCH (l:BrainBMemory) RETURN c, l"),
    ("USING INDEX SEEK s:Memory(id)", "USING INDEX SEEK s:BrainBMemory(id)"),
    ("CALL db.index.fulltext.queryNodes('memory_text', $t)",
     "CALL db.index.fulltext.queryNodes('brain_b_memory_text', $t)"),
    # Neither set: bookkeeping labels, legacy labels, property maps, list comprehensions.
    ("MATCH (w:BrainWorkspace {key: 'brain'}) RETURN w", "MATCH (w:BrainWorkspace {key: 'brain'}) RETURN w"),
    ("MATCH (n:BrainOld|BrainNextMemory) RETURN n", "MATCH (n:BrainOld|BrainNextMemory) RETURN n"),
    ("RETURN {label: 'Memory'} AS x, [y IN $ys | y.Memory] AS z",
     "RETURN {label: 'Memory'} AS x, [y IN $ys | y.Memory] AS z"),
])
def test_statements_render_for_the_live_set(statement: str, b_live: str) -> None:
    assert generation.on(statement, None) == statement  # no BrainLive node: the plain set
    assert generation.on(statement, "") == statement
    assert generation.on(statement, B) == b_live
    assert generation.swapped(b_live) == statement  # swapping twice is the identity
    assert generation.varies(statement) == (b_live != statement)


def test_a_staged_upsert_copies_the_vector_of_the_live_note_on_either_set() -> None:
    staged = generation.staged(cypher.UPSERT_MEMORIES)
    assert "MERGE (m:BrainBMemory {id: row.props.id})" in staged
    assert "OPTIONAL MATCH (live:Memory {id: row.props.id})" in staged
    assert "MATCH (a:BrainBAgent {id: row.owner})" in staged
    b_live = generation.on(staged, B)  # the plain set is staged now
    assert "MERGE (m:Memory {id: row.props.id})" in b_live
    assert "OPTIONAL MATCH (live:BrainBMemory {id: row.props.id})" in b_live


def test_every_schema_statement_of_a_label_has_a_twin_on_the_other_set() -> None:
    plain = [s for s in cypher.SCHEMA if generation.varies(s) and "BrainB" not in s]
    twins = [s for s in cypher.SCHEMA if "BrainB" in s]
    assert len(plain) == len(twins) > 20
    assert sorted(twins) == sorted(t for t in map(generation.staged_schema, plain) if t is not None)
    for query in (KEYWORD_SEARCH, VECTOR_SEARCH):  # the search indexes it renames exist
        name = generation.on(query, B).split("'")[1]
        assert any(f" {name} IF NOT EXISTS" in s for s in twins), name
