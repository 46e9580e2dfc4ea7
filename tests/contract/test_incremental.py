"""One note added, edited, renamed or deleted: the graph ends as a full ingest would leave it.

After every step the store must export exactly what a fresh full ingest of the same files
exports, which checks the Unresolved bookkeeping too: an Unresolved node exists exactly
while some link points to it.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

from bench.workload import generate
from brain.model import LinkStatus
from brain.service.brain import Brain
from brain.store.base import GraphStore
from tests.contract.helpers import Workspace, answers, note, reference, reference_export


def unresolved_ids(store: GraphStore) -> list[str]:
    return sorted(row[0] for row in store.export().nodes if row[1] == "Unresolved")


def test_a_new_note_resolves_the_links_waiting_for_it(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("a", "[[later]] [[later#Part]] [[Later.md|label]]"))
    ws.write("memory/shared/b.md", note("b", "[[later]] [[other]]"))
    brain = ws.brain(store)
    assert unresolved_ids(store) == ["unresolved:later", "unresolved:other"]

    brain.sync([ws.write("memory/shared/later.md", note("later", "# Part\n"))])
    links = store.links_from(["memory:bot/a"])["memory:bot/a"]
    resolved = ("memory:shared/later", LinkStatus.RESOLVED)
    assert [(link.target_id, link.status) for link in links] == [resolved] * 3
    assert unresolved_ids(store) == ["unresolved:other"]
    assert [link.source for link in store.links_to(["memory:shared/later"])["memory:shared/later"]] == [
        "memory:bot/a", "memory:bot/a", "memory:bot/a", "memory:shared/b",
    ]
    assert store.export() == reference_export(tmp_path)


def test_deleting_a_note_breaks_links_to_it_and_drops_its_own(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("a", "[[b]] [[b#Top]]"))
    ws.write("memory/bot/b.md", note("b", "# Top\n[[only-b-wants-this]]"))
    brain = ws.brain(store)
    assert unresolved_ids(store) == ["unresolved:only-b-wants-this"]

    brain.sync([ws.delete("memory/bot/b.md")])
    assert store.get_nodes(["memory:bot/b"]) == {}
    assert [link.status for link in store.links_from(["memory:bot/a"])["memory:bot/a"]] == [
        LinkStatus.BROKEN, LinkStatus.BROKEN,
    ]
    assert unresolved_ids(store) == ["unresolved:b"]
    assert store.export() == reference_export(tmp_path)


def test_editing_a_note_replaces_its_links_and_headings(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("a", "# Old\n[[x]] [[c]]"))
    ws.write("memory/bot/c.md", note("c", "[[a#Old]] [[a#New]]"))
    brain = ws.brain(store)
    statuses = [link.status for link in store.links_from(["memory:bot/c"])["memory:bot/c"]]
    assert statuses == [LinkStatus.RESOLVED, LinkStatus.MISSING_ANCHOR]

    brain.sync([ws.write("memory/bot/a.md", note("a, edited", "# New\n[[y]]", "user"))])
    statuses = [link.status for link in store.links_from(["memory:bot/c"])["memory:bot/c"]]
    assert statuses == [LinkStatus.MISSING_ANCHOR, LinkStatus.RESOLVED]
    assert unresolved_ids(store) == ["unresolved:y"]
    edited = store.find_memory("bot", "a")
    assert edited is not None
    assert (edited.description, edited.type) == ("a, edited", "user")
    assert store.export() == reference_export(tmp_path)


def test_renaming_a_note(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/old.md", note("n", "[[new]]"))
    ws.write("memory/bot/fan.md", note("fan", "[[old]] [[new]]"))
    brain = ws.brain(store)

    brain.sync(ws.rename("memory/bot/old.md", "memory/bot/new.md"))
    assert store.memory_by_path("memory/bot/old.md") is None
    renamed = store.memory_by_path("memory/bot/new.md")
    assert renamed is not None
    assert renamed.id == "memory:bot/new"
    assert [link.target_id for link in store.links_from(["memory:bot/fan"])["memory:bot/fan"]] == [
        "unresolved:old", "memory:bot/new",
    ]
    assert store.export() == reference_export(tmp_path)


def test_names_becoming_ambiguous_and_clear_again(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/bot/a.md", note("a", "[[plan]]"))
    ws.write("chats/plan.md", "hi\n")
    brain = ws.brain(store)
    brain.sync([ws.write("workflows/plan.yaml", "title: Plan\n")])
    (link,) = store.links_from(["memory:bot/a"])["memory:bot/a"]
    assert (link.status, link.target_id) == (LinkStatus.AMBIGUOUS, "unresolved:plan")
    assert store.export() == reference_export(tmp_path)

    brain.sync([ws.write("memory/shared/plan.md", note("the plan"))])  # shared beats level 3
    (link,) = store.links_from(["memory:bot/a"])["memory:bot/a"]
    assert (link.status, link.target_id) == (LinkStatus.RESOLVED, "memory:shared/plan")
    assert unresolved_ids(store) == []
    brain.sync([ws.delete("memory/shared/plan.md"), ws.delete("chats/plan.md")])
    (link,) = store.links_from(["memory:bot/a"])["memory:bot/a"]
    assert (link.status, link.target_id) == (LinkStatus.RESOLVED, "workflow:plan")
    assert store.export() == reference_export(tmp_path)


def test_agents_follow_their_folders_and_definitions(store: GraphStore, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.write("memory/shared/s.md", note("s", "[[agent:helper]]"))
    brain = ws.brain(store)
    brain.sync([ws.write("memory/helper/one.md", note("one"))])
    assert [(a.name, a.memory_off) for a in store.list_agents()] == [("helper", True)]
    (link,) = store.links_from(["memory:shared/s"])["memory:shared/s"]
    assert link.target_id == "agent:helper"

    brain.sync([ws.write("agents/helper.md", "---\ndescription: Helper\nmemory: true\n---\n")])
    agents = store.list_agents()
    assert [(a.name, a.memory_off, a.memory_enabled) for a in agents] == [("helper", False, True)]
    assert store.export() == reference_export(tmp_path)

    shutil.rmtree(tmp_path / "memory" / "helper")
    (tmp_path / "agents" / "helper.md").unlink()
    brain.sync(["memory/helper", "agents/helper.md"])
    assert store.list_agents() == []
    assert unresolved_ids(store) == ["unresolved:agent:helper"]
    assert store.export() == reference_export(tmp_path)


def test_a_long_run_of_random_edits_matches_a_full_ingest(store: GraphStore, tmp_path: Path) -> None:
    root = tmp_path / "workload"
    generate(root, notes=60, agents=3, seed=11)
    brain = Brain(root, store)
    brain.sync()
    ws = Workspace(root)
    rng = random.Random(5)
    notes = sorted(p.relative_to(root).as_posix() for p in (root / "memory").rglob("*.md"))
    names = [*sorted({Path(n).stem for n in notes}), "brand-new", "ghost"]
    steps = 24
    for step in range(steps):
        action = rng.choice(["add", "edit", "delete", "rename"])
        victim = rng.choice(notes)
        if action == "add" or not (root / victim).exists():
            scope = rng.choice(["shared", *sorted({n.split("/")[1] for n in notes})])
            rel = f"memory/{scope}/{rng.choice(names)}-{step}.md"
            body = " ".join(f"[[{rng.choice(names)}]]" for _ in range(3))
            changed = [ws.write(rel, note(f"added {step}", body))]
            notes.append(rel)
        elif action == "edit":
            body = f"# H{step}\n" + " ".join(f"[[{rng.choice(names)}#H{step}]]" for _ in range(2))
            changed = [ws.write(victim, note(f"edited {step}", body))]
        elif action == "delete":
            changed = [ws.delete(victim)]
        else:
            new = f"{victim[:-3]}-moved.md"
            changed = ws.rename(victim, new)
            notes.append(new)
        brain.sync(changed)
        expected = reference(root)
        if step < steps - 1:
            assert store.export() == expected.store.export(), f"step {step}: {action} {changed}"
    # The last step is compared through answers(), whose first read is the export: one full
    # ingest and one export of each store for it, not a second of each of the same files.
    got, want = answers(store), answers(expected.store)
    assert got["export"] == want["export"], f"step {step}: {action} {changed}"
    assert got == want
