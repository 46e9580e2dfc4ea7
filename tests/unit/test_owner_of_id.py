"""`owner_of_id` (brain/model.py): the agent that REMEMBERS a note, from its id alone, as the
Neo4j store's writes say it; it must agree with `MemoryNode.owner` for every kind and scope."""

from __future__ import annotations

import pytest

from brain.model import NOTE_KINDS, Kind, MemoryNode, owner_of_id

SCOPES = ["bot", "shared", "project:site", "ops-team"]


@pytest.mark.parametrize("kind", sorted(NOTE_KINDS, key=lambda k: k.value))
@pytest.mark.parametrize("scope", SCOPES)
def test_the_id_names_the_owner_the_note_does(kind: Kind, scope: str) -> None:
    node = MemoryNode(scope=scope, name="drafts/plan", path=f"memory/{scope}/drafts/plan.md",
                      description="", type=None, hash="h", size=1, modified_at=0.0, body="",
                      note_kind=kind)
    assert owner_of_id(node.id) == node.owner


@pytest.mark.parametrize("node_id", ["agent:bot", "workflow:deploy", "unresolved:x", "nothing"])
def test_what_is_no_note_has_no_owner(node_id: str) -> None:
    assert owner_of_id(node_id) is None
