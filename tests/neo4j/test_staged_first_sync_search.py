"""Semantic search beside a staged first sync (tests/neo4j/test_staged_first_sync.py).

The one test of the staged first sync that needs the semantic model, in a module of its own:
tests/plan.py turns the model on for a whole module that asks (`semantic`), and asked for by
test_staged_first_sync.py every Brain of its tests loaded the model and embedded its notes
(the reference Brains too, on threads nobody stopped), for this test's one check.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from brain.service.brain import Brain
from tests.neo4j.conftest import StoreMaker
from tests.neo4j.test_generations import NOTES
from tests.neo4j.test_staged_first_sync import small_parts, workspace  # noqa: F401  (a fixture)
from tests.search.helpers import needs_model

pytestmark = [pytest.mark.neo4j, pytest.mark.semantic]


@pytest.mark.usefixtures("small_parts")
def test_search_started_before_a_staged_first_sync_embeds_its_notes(
    tmp_path: Path, make_store: StoreMaker
) -> None:
    """The indexer looked for notes to embed when the graph was empty; the parts were not
    readable until the switch, so it looks again then (`Indexer.recheck`)."""
    needs_model()
    ws = workspace(tmp_path)
    store = make_store()
    brain = Brain(ws.root, store)
    assert brain.search.indexer.wait(timeout=60)  # started, caught up on an empty graph
    brain.sync()
    assert brain.search.indexer.wait(timeout=900), "the staged notes were never embedded"
    notes = {f"memory:bot/n{i}" for i in range(NOTES)} | {"memory:shared/anchored"}
    assert set(store.vector_hashes()) == notes
    brain.close()
