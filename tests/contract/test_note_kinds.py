"""Notes of the layouts' other kinds (daily notes, skills, tools) and plain files, as stores
keep them: both stores give the same graph, the right kinds back, and links that land on them."""

from __future__ import annotations

from dataclasses import replace

from brain.model import AgentNode, FileNode, Heading, Kind, MemoryNode, WikiLink
from brain.resolve import LATCHAI_LINKS, Level, NameEntry, Target
from brain.store.base import GraphStore
from brain.store.linking import NoteChange, plan
from brain.store.memory.store import MemoryStore


def note(kind: Kind, scope: str, name: str, body: str = "", triggers: tuple[str, ...] = ()) -> MemoryNode:
    return MemoryNode(
        scope=scope, name=name, path=f"{scope}/{name}.md", description=name, type=None,
        hash=f"h-{name}", size=len(body), modified_at=1.0, body=body, note_kind=kind,
        triggers=triggers,
    )


class AnyKindLinks:
    """Latchai's levels, plus any note kind or file of the source's scope by name."""

    def parse(self, target: str) -> Target:
        return LATCHAI_LINKS.parse(target)

    def levels(self, target: Target, source_scope: str) -> list[Level]:
        return [lambda e: e.kind is not Kind.AGENT and e.scope == source_scope,
                *LATCHAI_LINKS.levels(target, source_scope)]

    def out_of_reach(self, target: Target, entries: object, source_scope: str) -> tuple[str, ...]:
        return ()


def build(store: GraphStore) -> None:
    links = tuple(
        WikiLink(f"[[{t}{'#' + a if a else ''}]]", t, None, a, False, 1, 1 + i)
        for i, (t, a) in enumerate([
            ("2026-01-05", None), ("deploy", None), ("grep", None), ("logo.png", None),
            ("2026-01-05", "Done"),
        ])
    )
    daily = replace(note(Kind.DAILY_NOTE, "ann", "2026-01-05", "# Done\n"), headings=(Heading("Done", 1, 1),))
    notes = [
        NoteChange(note(Kind.MEMORY, "ann", "index"), links),
        NoteChange(daily, ()),
        NoteChange(note(Kind.SKILL, "ann", "deploy", triggers=("ship it", "deploy")), ()),
        NoteChange(note(Kind.TOOL, "ann", "grep", triggers=("search",)), ()),
    ]
    files = [FileNode("ann", "logo.png", "ann/logo.png", 9, "image/png", True, "h", 1.0)]
    agents = [AgentNode("ann", "", True, False, None)]  # as ingest makes for every agent folder
    store.write(plan(store, notes, agents, files=files, fresh=True, rules=AnyKindLinks()))


def test_note_kinds_and_files_in_both_stores(store: GraphStore) -> None:
    build(store)
    reference = MemoryStore()
    build(reference)
    assert store.export() == reference.export()
    found = store.get_nodes([
        "daily-note:ann/2026-01-05", "skill:ann/deploy", "tool:ann/grep", "file:ann/logo.png",
    ])
    assert {i: n.kind for i, n in found.items()} == {
        "daily-note:ann/2026-01-05": Kind.DAILY_NOTE, "skill:ann/deploy": Kind.SKILL,
        "tool:ann/grep": Kind.TOOL, "file:ann/logo.png": Kind.FILE,
    }
    skill = found["skill:ann/deploy"]
    assert isinstance(skill, MemoryNode)
    assert skill.triggers == ("ship it", "deploy")
    links = store.links_from(["memory:ann/index"])["memory:ann/index"]
    assert [(link.target_id, link.status.value) for link in links] == [
        ("daily-note:ann/2026-01-05", "resolved"), ("skill:ann/deploy", "resolved"),
        ("tool:ann/grep", "resolved"), ("file:ann/logo.png", "resolved"),
        ("daily-note:ann/2026-01-05", "resolved"),  # its heading is an anchor like any note's
    ]
    assert sorted(e.id for e in store.name_entries(["deploy"])["deploy"]) == ["skill:ann/deploy"]
    entries: list[NameEntry] = store.name_entries(["logo.png"])["logo.png"]
    assert [(e.id, e.kind) for e in entries] == [("file:ann/logo.png", Kind.FILE)]
    # Skills and tools are nobody's memories; a daily note is its agent's.
    remembered = {row[2] for row in store.export().edges if row[0] == "REMEMBERS"}
    assert remembered == {"memory:ann/index", "daily-note:ann/2026-01-05"}

    gone = ["daily-note:ann/2026-01-05", "file:ann/logo.png"]
    store.write(plan(store, deletes=gone, rules=AnyKindLinks()))
    links = store.links_from(["memory:ann/index"])["memory:ann/index"]
    assert [link.status.value for link in links] == ["broken", "resolved", "resolved", "broken", "broken"]
    assert store.get_nodes(["daily-note:ann/2026-01-05", "file:ann/logo.png"]) == {}
