"""The walk's names as the walking child sends them (brain/lsp/startup/packed.py): the same catalog and
name keys as a walk in the server itself, unpacked group by group as completion reads them."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from brain.layouts import get_layout
from brain.lsp.features.catalog import Catalog, Entry, entry
from brain.lsp.startup.early import WalkedNames, walk_parts
from brain.lsp.startup.packed import (
    NameRows,
    PackedCatalog,
    PackedNames,
    decode_entries,
    dumps,
    encode_entries,
    pack,
)
from brain.model import AgentNode, Block, EntityNode, Heading, Kind, MemoryNode
from brain.resolve import NameEntry

from .conftest import WORKSPACE, write_tree

MORE = {  # a second agent, names shared between scopes and kinds, a note kind of its own
    **WORKSPACE,
    "agents/other.md": "---\ndescription: Other\n---\n",
    "memory/other/alpha.md": "---\ndescription: Another alpha\n---\n",
    "memory/other/standup.md": "---\ndescription: A note named like the chat\n---\n",
    "memory/shared/beta.md": "---\ndescription: A shared beta\n---\n",
}


@pytest.fixture
def walked(tmp_path: Path) -> WalkedNames:
    write_tree(tmp_path, MORE)
    return walk_parts(tmp_path, get_layout("latchai"))


def through_the_pipe(walked: WalkedNames) -> PackedNames:
    packed = pickle.loads(pickle.dumps(pack(walked), protocol=pickle.HIGHEST_PROTOCOL))
    assert isinstance(packed, PackedNames)
    return packed


def groups_of(catalog: Catalog) -> dict[str, list[Entry]]:
    out = {f"memory {scope}": catalog.memories(scope) for scope in catalog.scopes()}
    out.update({f"{kind.value}s": catalog.others(kind) for kind in catalog.kinds()})
    return out


def test_the_packed_catalog_is_the_walks_catalog(walked: WalkedNames) -> None:
    plain = Catalog.of_nodes(walked.nodes)
    packed = through_the_pipe(walked).early(Path("/nowhere")).catalog
    assert isinstance(packed, PackedCatalog)
    assert packed.scopes() == plain.scopes() == ["bot", "other", "shared"]
    assert packed.kinds() == plain.kinds()
    assert set(packed.kinds()) == {Kind.WORKFLOW, Kind.CHAT, Kind.WORK_ITEM, Kind.AGENT}
    assert groups_of(packed) == groups_of(plain)
    for source in ["bot", "shared", "nobody"]:
        assert packed.candidates(source) == plain.candidates(source)
        assert packed.candidates(source, [Kind.AGENT]) == plain.candidates(source, [Kind.AGENT])
    for node_id, node in walked.nodes:
        assert packed.find(node_id) == node
    assert packed.find("memory:bot/nothing") is None
    assert packed.memories("nobody") == []
    assert packed.others(Kind.FILE) == []


def test_a_completion_unpacks_only_the_groups_it_reads(walked: WalkedNames) -> None:
    catalog = through_the_pipe(walked).early(Path("/nowhere")).catalog
    assert isinstance(catalog, PackedCatalog)
    assert catalog.unpacked() == set()
    catalog.groups("bot")  # what `[[` in a note of `bot` reads
    assert catalog.unpacked() == {("memory", "bot"), ("memory", "shared"), ("other", "workflow"),
                                  ("other", "chat"), ("other", "work-item")}
    assert catalog.find("agent:other") is not None
    assert ("other", "agent") in catalog.unpacked()
    assert ("memory", "other") not in catalog.unpacked()


def test_name_keys_are_the_walks(walked: WalkedNames) -> None:
    early = through_the_pipe(walked).early(Path("/nowhere"))
    assert isinstance(early.names, NameRows)
    assert early.names == walked.names
    assert early.names["alpha"] == [
        NameEntry("memory:bot/alpha", Kind.MEMORY, "alpha", "bot"),
        NameEntry("memory:other/alpha", Kind.MEMORY, "alpha", "other"),
    ]
    assert early.name_entries(["alpha", "standup", "missing"]) == {
        key: walked.names[key] for key in ["alpha", "standup"]
    }
    assert "missing" not in early.names
    with pytest.raises(KeyError):
        early.names["missing"]


NODES: list[MemoryNode | EntityNode | AgentNode] = [
    MemoryNode(scope="bot", name="full", path="memory/bot/full.md", description="d", type="user",
               hash="h", size=3, modified_at=1.5, body="body", headings=(Heading("H", 1, 4),),
               properties={"k": [1, "v"]}, blocks=(Block("b1", 2, 1, 2),), note_kind=Kind.MEMORY,
               triggers=("when",)),
    MemoryNode(scope="bot", name="bare", path="memory/bot/bare.md", description="", type=None, hash="",
               size=0, modified_at=0.0, body=""),
    EntityNode(Kind.WORKFLOW, "wf", "Wf", "workflows/wf.yaml"),
    EntityNode(Kind.CHAT, "c", "c", None),
    AgentNode("bot", "The bot", True, False, "agents/bot.md"),
]


@pytest.mark.parametrize("node", NODES, ids=lambda node: node.id)
def test_a_node_crosses_the_pipe_whole(node: MemoryNode | EntityNode | AgentNode) -> None:
    entries = [entry(node)]
    back = pickle.loads(dumps(entries))
    assert back == entries
    assert type(back[0].node) is type(node)


@pytest.mark.parametrize(
    "entries",
    [
        [],
        [NameEntry("memory:bot/alpha", Kind.MEMORY, "alpha", "bot")],
        [NameEntry("agent:bot", Kind.AGENT, "alpha", None), NameEntry("chat:alpha", Kind.CHAT, "alpha")],
        [NameEntry("memory:équipe/été à|x#y", Kind.MEMORY, "alpha", "équipe"),
         NameEntry("file:bot/alpha.png", Kind.FILE, "alpha", "bot"),
         NameEntry("workflow:alpha", Kind.WORKFLOW, "alpha", None)],
    ],
    ids=["none", "one", "no-scopes", "several"],
)
def test_a_keys_entries_survive_their_encoding(entries: list[NameEntry]) -> None:
    assert decode_entries("alpha", encode_entries(entries)) == entries
