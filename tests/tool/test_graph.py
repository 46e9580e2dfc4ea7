"""Every accepted write reaches the graph at once, once, and is announced to subscribers."""

from __future__ import annotations

from brain.service.brain import Brain, GraphChange
from brain.tool.calls.tool import MemoryTool


def test_a_write_is_in_the_graph_at_once_and_not_ingested_twice(tool: MemoryTool, brain: Brain) -> None:
    text = "---\ndescription: Tone of voice.\ntype: feedback\n---\nCalm. See [[house-style]].\n"
    assert tool.create("writer", "/memories/tone.md", text).ok
    node = brain.store.find_memory("writer", "tone")
    assert node is not None
    assert (node.description, node.type, node.path) == ("Tone of voice.", "feedback", "memory/writer/tone.md")
    (link,) = brain.store.links_from([node.id])[node.id]
    assert link.target_id == "memory:writer/house-style"
    # What the watcher does when it reports the same file: the content hash is the one the
    # write recorded, so nothing is parsed and nothing is written to the graph again.
    again = brain.sync(["memory/writer/tone.md"])
    assert (again.parsed, bool(again.batch)) == (0, False)
    rescan = brain.sync()
    assert (rescan.read, rescan.parsed, bool(rescan.batch)) == (0, 0, False)


def test_writes_are_announced_as_graph_changes(tool: MemoryTool, brain: Brain) -> None:
    changes: list[GraphChange] = []
    brain.subscribe(changes.append)
    assert tool.create("writer", "/memories/tone.md", "Calm.\n").ok
    assert tool.str_replace("writer", "/memories/tone.md", "Calm.", "Calm and brief.").ok
    assert tool.rename("writer", "/memories/tone.md", "/memories/shared/tone.md").ok
    assert tool.delete("writer", "/memories/shared/tone.md").ok
    seen = [(c.kind, c.id) for c in changes if c.id.startswith("memory:")]
    assert seen == [
        ("added", "memory:writer/tone"),
        ("changed", "memory:writer/tone"),
        ("added", "memory:shared/tone"),
        ("deleted", "memory:writer/tone"),
        ("deleted", "memory:shared/tone"),
    ]
    changed = next(c for c in changes if c.kind == "changed")
    assert "body" in changed.fields


def test_a_refused_write_changes_no_graph(tool: MemoryTool, brain: Brain) -> None:
    changes: list[GraphChange] = []
    brain.subscribe(changes.append)
    before = brain.store.export()
    assert not tool.create("writer", "/memories/keys.md", "token: ghp_" + "x1" * 18 + "\n").ok
    assert not tool.str_replace("writer", "/memories/house-style.md", "nope", "x").ok
    assert changes == []
    assert brain.store.export() == before


def test_rename_names_the_notes_whose_links_it_breaks(tool: MemoryTool, brain: Brain) -> None:
    assert tool.create("writer", "/memories/checklist.md", "Follow [[house-style]].\n").ok
    assert tool.create("reviewer", "/memories/spy.md", "Also [[writer/house-style]].\n").ok
    result = tool.rename("writer", "/memories/house-style.md", "/memories/style.md")
    assert result.text == (
        "Renamed /memories/house-style.md to /memories/style.md. These notes link to it as "
        "[[house-style]] and may now point elsewhere; update them with str_replace: "
        "/memories/checklist.md line 1."
    )
    assert "spy" not in result.text  # another agent's note is never named
