"""The sets of Neo4j labels (brain/store/neo4j/generations/staged.py): how statements are rendered.

Every statement is written on the documented labels; `on` renders it for a generation written
under `BrainStaged…` (or, while a big switch relabels, for the set `BrainLive` names, which
brain's own reads use). Pure string functions: no server needed.
"""

from __future__ import annotations

import pytest

from brain.store.neo4j import cypher
from brain.store.neo4j.generations import staged as generation
from brain.store.neo4j.search import KEYWORD_SEARCH, VECTOR_SEARCH

B = generation.STAGED_PREFIX  # "BrainStaged"


@pytest.mark.parametrize(("statement", "b_live"), [
    ("MATCH (m:Memory {id: $id}) RETURN m", "MATCH (m:BrainStagedMemory {id: $id}) RETURN m"),
    ("MATCH (n:Memory|Agent|WorkItem) RETURN n",
     "MATCH (n:BrainStagedMemory|BrainStagedAgent|BrainStagedWorkItem) RETURN n"),
    ("MATCH (s:Memory)-[r:LINKS_TO]->(t) WHERE t:Unresolved RETURN r",
     "MATCH (s:BrainStagedMemory)-[r:LINKS_TO]->(t) WHERE t:BrainStagedUnresolved RETURN r"),
    ("MATCH (c:BrainStagedMemory) MATCH (l:Memory) RETURN c, l",
     "MATCH (c:BrainStagedMemory) MATCH (l:BrainStagedMemory) RETURN c, l"),
    ("USING INDEX SEEK s:Memory(id)", "USING INDEX SEEK s:BrainStagedMemory(id)"),
    ("CALL db.index.fulltext.queryNodes('memory_text', $t)",
     "CALL db.index.fulltext.queryNodes('brain_staged_memory_text', $t)"),
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
    assert generation.varies(statement) == (b_live != statement)


def test_the_legacy_second_set_renders_with_its_own_indexes() -> None:
    """An older brain's `BrainB…` generation, read while a start switches it in."""
    query = "CALL db.index.fulltext.queryNodes('memory_text', $t) YIELD node MATCH (node:Memory)"
    assert generation.on(query, generation.LEGACY_PREFIX) == (
        "CALL db.index.fulltext.queryNodes('brain_b_memory_text', $t) YIELD node MATCH (node:BrainBMemory)")


def test_a_staged_upsert_copies_the_vector_of_the_live_note() -> None:
    staged = generation.staged(cypher.UPSERT_MEMORIES)
    assert "MERGE (m:BrainStagedMemory {id: row.props.id})" in staged
    assert "OPTIONAL MATCH (live:Memory {id: row.props.id})" in staged
    assert "MATCH (a:BrainStagedAgent {id: row.owner})" in staged


def test_every_schema_statement_of_a_label_has_a_twin_on_the_staged_set() -> None:
    plain = [s for s in cypher.SCHEMA if generation.varies(s) and "BrainStaged" not in s]
    twins = [s for s in cypher.SCHEMA if "BrainStaged" in s]
    assert len(plain) == len(twins) > 20
    assert sorted(twins) == sorted(t for t in map(generation.staged_schema, plain) if t is not None)
    for query in (KEYWORD_SEARCH, VECTOR_SEARCH):  # the search indexes it renames exist
        name = generation.on(query, B).split("'")[1]
        assert any(f" {name} IF NOT EXISTS" in s for s in twins), name


def test_the_relabel_steps_name_each_documented_label_and_its_staged_twin_only() -> None:
    relabel, drop, unstage = generation.relabel_steps(B)
    assert len(relabel) == len(drop) == len(generation.PRIMARY_LABELS)
    assert len(unstage) == len(generation.LABELS)
    memory = relabel[generation.PRIMARY_LABELS.index("Memory")]
    for sub in generation.SUBLABELS:  # a daily note, skill or tool keeps its own label
        assert f"WHEN n:{B}{sub} THEN [1] ELSE [] END | SET n:{sub})" in memory
    for statement in (*relabel, *drop, *unstage):
        assert "$limit" in statement
        assert "BrainB" + "Memory" not in statement
