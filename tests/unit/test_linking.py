"""Incremental syncs: the planner re-resolves exactly what a change affects, and the graph
after any sequence of syncs equals a fresh full ingest of the final files.

Scenario tests run on both stores (the `store` fixture); the graph they reach is compared
with a fresh ingest into the embedded store, so the two backends are held to the same rows.
The random file operations are in tests/unit/test_linking_random.py.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from brain.ingest.ingester import SyncResult
from brain.model import Link, MemoryNode
from brain.service.brain import Brain
from brain.store.base import GraphStore
from tests.unit.linking_folder import Folder, assert_same_as_fresh, fresh_brain


def link(brain: Brain, source: str, ordinal: int = 0) -> Link:
    return brain.store.links_from([source])[source][ordinal]


def where(brain: Brain, source: str, ordinal: int = 0) -> tuple[str, str, tuple[str, ...]]:
    found = link(brain, source, ordinal)
    return found.status.value, found.target_id, found.candidates


@pytest.fixture
def folder(tmp_path: Path) -> Folder:
    return Folder(tmp_path)


@pytest.fixture
def brain(folder: Folder, store: GraphStore) -> Brain:
    return Brain(folder.root, store)


def sync(brain: Brain, *paths: str) -> SyncResult:
    result = brain.sync(list(paths))
    assert_same_as_fresh(brain)
    return result


# ------------------------------------------------------------------------------ scenarios


def test_a_new_note_resolves_the_links_waiting_for_it(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "see [[Plan]] and [[plan.md#Goals]]\n")
    folder.write("memory/shared/b.md", "also [[PLAN]]\n")
    brain.sync()
    assert where(brain, "memory:bot/a") == ("broken", "unresolved:plan", ())
    assert where(brain, "memory:bot/a", 1) == ("broken", "unresolved:plan", ())
    # one Unresolved node answers "what is missing and who wants it"
    waiting = brain.store.links_to(["unresolved:plan"])["unresolved:plan"]
    assert [w.source for w in waiting] == ["memory:bot/a", "memory:bot/a", "memory:shared/b"]

    result = sync(brain, folder.write("memory/shared/plan.md", "# Goals\n"))
    assert (result.read, result.parsed) == (1, 1)  # no full re-ingest
    assert where(brain, "memory:bot/a") == ("resolved", "memory:shared/plan", ())
    assert where(brain, "memory:bot/a", 1) == ("resolved", "memory:shared/plan", ())
    assert where(brain, "memory:shared/b") == ("resolved", "memory:shared/plan", ())
    assert brain.store.get_nodes(["unresolved:plan"]) == {}
    assert {link.source for link in result.batch.relinks} == {"memory:bot/a", "memory:shared/b"}


def test_a_deleted_note_turns_incoming_links_broken(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[b]] [[b#Top]]\n")
    folder.write("memory/bot/b.md", "# Top\n")
    brain.sync()
    assert where(brain, "memory:bot/a") == ("resolved", "memory:bot/b", ())
    sync(brain, folder.delete("memory/bot/b.md"))
    assert where(brain, "memory:bot/a") == ("broken", "unresolved:b", ())
    assert where(brain, "memory:bot/a", 1) == ("broken", "unresolved:b", ())
    assert set(brain.store.get_nodes(["unresolved:b", "memory:bot/b"])) == {"unresolved:b"}


def test_ambiguity_collapses_when_a_candidate_goes(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[twin]]\n")
    folder.write("memory/bot/Twin.md", "one\n")
    folder.write("memory/bot/twin.md", "two\n")
    brain.sync()
    assert where(brain, "memory:bot/a") == (
        "ambiguous", "unresolved:twin", ("memory:bot/Twin", "memory:bot/twin"),
    )
    sync(brain, folder.delete("memory/bot/Twin.md"))
    assert where(brain, "memory:bot/a") == ("resolved", "memory:bot/twin", ())
    sync(brain, folder.write("memory/bot/TWIN.md", "again\n"))
    assert where(brain, "memory:bot/a")[0] == "ambiguous"


def test_unicode_twins_are_ambiguous_until_one_goes(folder: Folder, brain: Brain) -> None:
    nfc, nfd = "café", "cafe\u0301"
    folder.write("memory/shared/a.md", "[[Café]]\n")
    folder.write(f"memory/shared/{nfc}.md", "nfc\n")
    folder.write(f"memory/shared/{nfd}.md", "nfd\n")
    brain.sync()
    assert where(brain, "memory:shared/a")[0] == "ambiguous"
    sync(brain, folder.delete(f"memory/shared/{nfc}.md"))
    assert where(brain, "memory:shared/a") == ("resolved", f"memory:shared/{nfd}", ())


def test_a_rename_moves_the_links(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[old]] [[new]]\n")
    folder.write("memory/bot/old.md", "note\n")
    brain.sync()
    sync(brain, *folder.rename("memory/bot/old.md", "memory/bot/new.md"))
    assert where(brain, "memory:bot/a", 0) == ("broken", "unresolved:old", ())
    assert where(brain, "memory:bot/a", 1) == ("resolved", "memory:bot/new", ())
    assert brain.store.memory_by_path("memory/bot/old.md") is None
    # into another scope: own-scope links break, explicit ones find it
    folder.write("memory/shared/c.md", "[[bot/new]] [[shared/new]]\n")
    sync(brain, "memory/shared/c.md", *folder.rename("memory/bot/new.md", "memory/shared/new.md"))
    assert where(brain, "memory:bot/a", 1) == ("resolved", "memory:shared/new", ())
    assert where(brain, "memory:shared/c", 0) == ("broken", "unresolved:bot/new", ())
    assert where(brain, "memory:shared/c", 1) == ("resolved", "memory:shared/new", ())


def test_heading_changes_flip_missing_anchor(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[b#Top]] [[b#top|t]] [[#Mine]]\n")
    folder.write("memory/bot/b.md", "# Top\n")
    brain.sync()
    assert [where(brain, "memory:bot/a", i)[0] for i in range(3)] == [
        "resolved", "resolved", "missing-anchor",
    ]
    sync(brain, folder.write("memory/bot/b.md", "# Bottom\n"))
    assert [where(brain, "memory:bot/a", i)[0] for i in range(2)] == ["missing-anchor"] * 2
    assert where(brain, "memory:bot/a")[1] == "memory:bot/b"  # still resolves
    sync(brain, folder.write("memory/bot/b.md", "text\n\n## top\n"))
    assert [where(brain, "memory:bot/a", i)[0] for i in range(2)] == ["resolved"] * 2
    sync(brain, folder.write("memory/bot/a.md", "# Mine\n[[#Mine]]\n"))
    assert where(brain, "memory:bot/a") == ("resolved", "memory:bot/a", ())


@pytest.mark.parametrize("body", ["[[b#Top]] [[c]] [[b#Top]]", "[[c]] [[b#Top]] [[c]]"])
def test_a_status_and_a_target_change_in_one_note_in_one_sync(
    folder: Folder, brain: Brain, body: str,
) -> None:
    """The embedded store sets a link whose status alone changed where it is, and writes a
    source's links again for any other change: both at once, in either order."""
    folder.write("memory/bot/a.md", body + "\n")
    folder.write("memory/bot/b.md", "# Bottom\n")
    folder.write("memory/bot/c.md", "c\n")
    brain.sync()
    before = [where(brain, "memory:bot/a", i) for i in range(3)]
    assert {w[0] for w in before} == {"resolved", "missing-anchor"}
    sync(brain, folder.write("memory/bot/b.md", "# Top\n"), folder.delete("memory/bot/c.md"))
    after = [where(brain, "memory:bot/a", i) for i in range(3)]
    assert [w[0] for w in after] == ["resolved" if "#" in w else "broken" for w in body.split()]
    assert [w[1] for w in after] == ["memory:bot/b" if "#" in w else "unresolved:c" for w in body.split()]


def test_a_closer_level_takes_over_and_gives_back(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[deploy]]\n")
    brain.sync()
    both = ("ambiguous", "unresolved:deploy", ("chat:deploy", "workflow:deploy"))
    steps: list[tuple[Callable[[], str], tuple[str, str, tuple[str, ...]]]] = [
        (lambda: folder.write("workflows/deploy.yaml", "title: D\n"), ("resolved", "workflow:deploy", ())),
        (lambda: folder.write("chats/deploy.json", "{}"), both),
        (lambda: folder.write("memory/shared/deploy.md", "s\n"), ("resolved", "memory:shared/deploy", ())),
        (lambda: folder.write("memory/bot/Deploy.md", "b\n"), ("resolved", "memory:bot/Deploy", ())),
        (lambda: folder.delete("memory/bot/Deploy.md"), ("resolved", "memory:shared/deploy", ())),
        (lambda: folder.delete("memory/shared/deploy.md"), both),
        (lambda: folder.delete("chats/deploy.json"), ("resolved", "workflow:deploy", ())),
        (lambda: folder.delete("workflows/deploy.yaml"), ("broken", "unresolved:deploy", ())),
    ]
    for change, expected in steps:
        path = change()
        sync(brain, path)
        assert where(brain, "memory:bot/a") == expected, path


def test_another_agents_new_note_is_never_reached_by_a_bare_name(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[secret]] [[other/secret]]\n")
    brain.sync()
    sync(brain, folder.write("memory/other/secret.md", "mine\n"))
    assert where(brain, "memory:bot/a", 0) == ("broken", "unresolved:secret", ("memory:other/secret",))
    assert where(brain, "memory:bot/a", 1) == ("resolved", "memory:other/secret", ())
    (problem,) = [p for p in brain.problems() if p.code == "broken-link"]
    assert problem.candidates == ("memory:other/secret",)
    assert "other/secret" in (problem.fix or "")


def test_agent_definitions_turn_memory_on_and_off(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[agent:bot]] [[bot]]\n")
    brain.sync()
    assert [p.code for p in brain.problems()] == ["memory-off"]
    sync(brain, folder.write("agents/bot.md", "---\nmemory: true\n---\nThe bot\n"))
    assert brain.problems() == []
    sync(brain, folder.write("agents/bot.md", "---\nmemory: false\n---\nThe bot\n"))
    assert [p.path for p in brain.problems()] == ["memory/bot"]
    sync(brain, folder.delete("agents/bot.md"))
    assert "no definition" in brain.problems()[0].message
    assert where(brain, "memory:bot/a") == ("resolved", "agent:bot", ())
    sync(brain, folder.delete("memory/bot"))
    assert (brain.store.list_agents(), brain.problems()) == ([], [])


def test_a_renamed_scope_folder(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[b]]\n")
    folder.write("memory/bot/b.md", "b\n")
    folder.write("memory/shared/s.md", "[[bot/b]]\n")
    brain.sync()
    sync(brain, *folder.rename("memory/bot", "memory/robot"))
    assert where(brain, "memory:robot/a") == ("resolved", "memory:robot/b", ())
    assert where(brain, "memory:shared/s") == ("broken", "unresolved:bot/b", ())
    assert [a.name for a in brain.store.list_agents()] == ["robot"]


def test_a_touched_note_gets_its_new_age(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "same\n")
    brain.sync()
    before = brain.store.get_nodes(["memory:bot/a"])["memory:bot/a"]
    folder.tick("memory/bot/a.md")
    result = brain.sync()
    after = brain.store.get_nodes(["memory:bot/a"])["memory:bot/a"]
    assert isinstance(before, MemoryNode)
    assert isinstance(after, MemoryNode)
    assert after.modified_at == before.modified_at + 1
    assert result.read == 1
    assert_same_as_fresh(brain)


def test_a_named_path_is_read_even_when_size_and_mtime_match(folder: Folder, brain: Brain) -> None:
    # Two same-size writes within one timestamp tick: only the content hash can tell.
    folder.write("memory/bot/a.md", "[[b1]]\n")
    brain.sync()
    stat = (folder.root / "memory/bot/a.md").stat()
    (folder.root / "memory/bot/a.md").write_text("[[b2]]\n")
    os.utime(folder.root / "memory/bot/a.md", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    sync(brain, "memory/bot/a.md")
    assert where(brain, "memory:bot/a")[1] == "unresolved:b2"


def test_a_file_replaced_by_a_symlink_leaves_the_graph(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[b]]\n")
    folder.write("memory/bot/b.md", "b\n")
    folder.write("outside.md", "x\n")
    brain.sync()
    folder.delete("memory/bot/b.md")
    (folder.root / "memory/bot/b.md").symlink_to(folder.root / "outside.md")
    sync(brain, "memory/bot/b.md")
    assert where(brain, "memory:bot/a")[0] == "broken"
    assert [p.code for p in brain.problems() if p.path == "memory/bot/b.md"] == ["symlink"]


def test_a_duplicate_takes_over_when_the_winner_goes(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[x]]\n")
    folder.write("workflows/x.yaml", "title: From YAML\n")
    brain.sync()
    sync(brain, folder.write("workflows/x.json", '{"title": "From JSON"}'))
    assert brain.store.get_nodes(["workflow:x"])["workflow:x"].title == "From JSON"  # type: ignore[union-attr]
    assert [p.path for p in brain.problems() if p.code == "duplicate-file"] == ["workflows/x.yaml"]
    sync(brain, folder.delete("workflows/x.json"))
    assert brain.store.get_nodes(["workflow:x"])["workflow:x"].title == "From YAML"  # type: ignore[union-attr]
    assert [p.code for p in brain.problems()] == ["memory-off"]
    assert where(brain, "memory:bot/a") == ("resolved", "workflow:x", ())


def test_a_rescan_of_an_unchanged_workspace_writes_nothing(folder: Folder, brain: Brain) -> None:
    folder.write("memory/bot/a.md", "[[b]] [[workflow:w]]\n")
    folder.write("workflows/w.yaml", "title: W\n")
    folder.write("agents/bot.md", "---\nmemory: true\n---\n")
    brain.sync()
    writes = getattr(brain.store, "writes", None)
    again = brain.sync()
    assert (again.read, again.parsed, bool(again.batch)) == (0, 0, False)
    assert getattr(brain.store, "writes", None) == writes


def test_a_named_fifo_is_not_read(folder: Folder) -> None:
    # Opening a FIFO blocks until a writer comes: a watcher event naming one must not hang.
    brain = fresh_brain(folder.root)
    (folder.root / "memory" / "bot").mkdir()
    os.mkfifo(folder.root / "memory" / "bot" / "pipe.md")
    done = threading.Event()

    def run() -> None:
        brain.sync(["memory/bot", "memory/bot/pipe.md"])
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(10), "sync blocked on a FIFO"
    assert_same_as_fresh(brain)
