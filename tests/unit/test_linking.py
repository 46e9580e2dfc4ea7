"""Incremental syncs: the planner re-resolves exactly what a change affects, and the graph
after any sequence of syncs equals a fresh full ingest of the final files.

Scenario tests run on both stores (the `store` fixture); the graph they reach is compared
with a fresh ingest into the embedded store, so the two backends are held to the same rows.
A Hypothesis state machine then applies random file operations to a small workspace.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import unittest
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule

from brain.ingest.ingester import SyncResult
from brain.layouts import LayoutChoice
from brain.model import Link, MemoryNode
from brain.service.brain import Brain
from brain.store.base import GraphStore
from brain.store.memory.store import MemoryStore
from tests.layout_specs import LATCHAI as LATCHAI_SPEC
from tests.layout_specs import SPACE as SPACE_SPEC
from tests.layout_specs import SPECS, LayoutSpec


class Folder:
    """A workspace on disk whose writes get distinct, increasing modification times."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "memory").mkdir(parents=True, exist_ok=True)
        self.clock = 1_700_000_000
        self.unlinked: list[str] = []

    def write(self, rel: str, text: str | bytes) -> str:
        path = self.root / rel
        if path.is_symlink():
            path.unlink()
        for parent in reversed(path.relative_to(self.root).parents):
            folder = self.root / parent
            if folder.is_symlink() and not folder.is_dir():  # a link to a file, in the way
                folder.unlink()
                self.unlinked.append(parent.as_posix())  # a watcher reports its deletion
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        self.tick(rel)
        return rel

    def tick(self, rel: str) -> None:
        self.clock += 1
        os.utime(self.root / rel, ns=(self.clock * 10**9,) * 2, follow_symlinks=False)

    def delete(self, rel: str) -> str:
        path = self.root / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        return rel

    def rename(self, old: str, new: str) -> list[str]:
        parent = (self.root / new).parent
        if parent.is_symlink() and not parent.exists():
            return []  # a link to a folder since deleted: there is nowhere to move the file to
        parent.mkdir(parents=True, exist_ok=True)
        (self.root / old).rename(self.root / new)
        return [old, new]

    def real(self, rel: str) -> str:
        """`rel` with symlinked folders resolved: where a write through it really lands."""
        path = self.root / rel
        parent = os.path.relpath(os.path.realpath(path.parent), os.path.realpath(self.root))
        return f"{parent}/{path.name}"


def fresh_brain(root: Path, layout: LayoutChoice | None = None) -> Brain:
    brain = Brain(root, MemoryStore(), layout)
    brain.sync()
    return brain


def assert_same_as_fresh(brain: Brain) -> None:
    fresh = fresh_brain(brain.root, brain.layout_choice)
    assert brain.store.export() == fresh.store.export()
    assert brain.problems() == fresh.problems()
    assert brain.stats() == fresh.stats()


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


# ------------------------------------------------------------------------------ random operations

NAMES = ["alpha", "Alpha", "beta", "café", "cafe\u0301", "deploy"]
SCOPE_INDEX = st.integers(min_value=0, max_value=2)  # into the layout's three scopes
TARGETS = [
    *NAMES, "shared/alpha", "ann/beta", "bob/deploy", "workflow:deploy", "agent:ann", "memory:alpha",
    "chat:beta", "work-item:gamma", "gamma", "ann", "beta.md", "ALPHA", "nothing",
    "drafts/alpha", "/beta", "img/logo.png", "logo.png", "data.csv",  # paths (space)
]
ENTITY_FILES = [
    "workflows/deploy.yaml", "workflows/deploy.json", "chats/beta.json", "work-items/gamma.md",
    "work-items/alpha.yaml",
]
wikilinks = st.builds(
    lambda target, anchor, bang: f"{bang}[[{target}{anchor}]]",
    st.sampled_from(TARGETS),
    st.sampled_from(["", "#Top", "#top", "#Next", "#Gone"]),
    st.sampled_from(["", "!"]),
)
lines = st.one_of(
    wikilinks,
    st.sampled_from(["# Top", "## Next", "text", "`[[alpha]]`", "```\n[[beta]]\n```", "- [[beta]]"]),
)
frontmatter = st.sampled_from([
    "", "---\ndescription: d\ntype: user\n---\n", "---\ntype: nope\n---\n", "---\ndescription: [x\n---\n",
])
notes = st.builds(lambda fm, body: fm + "\n".join(body) + "\n", frontmatter, st.lists(lines, max_size=5))
odd_bytes = st.sampled_from([b"", b"\xef\xbb\xbf# Top\r\n[[alpha]]\r\n", b"\xff\xfe[[beta]]", b"a\x00b"])


class RandomOperations(RuleBasedStateMachine):
    """Writes, deletes, renames, symlinks and odd bytes, then an incremental or full sync.

    After each sync the graph and the problems must equal a fresh ingest of the same files.
    Incremental syncs name exactly the paths touched (and, for writes through a symlinked
    folder, where they really landed), as a file watcher would. `spec` says where the
    layout under test keeps things (one subclass per layout, below).
    """

    spec: LayoutSpec = LATCHAI_SPEC

    def __init__(self) -> None:
        super().__init__()
        self.folder = Folder(Path(tempfile.mkdtemp(prefix="brain-ops-")))
        self.spec.prepare(self.folder.root)
        self.brain = Brain(self.folder.root, MemoryStore(), self.spec.choice)
        self.brain.sync()
        self.touched: list[str] = []

    def teardown(self) -> None:
        shutil.rmtree(self.folder.root)

    def _touch(self, *rels: str) -> None:
        for rel in rels:
            self.touched += [rel, self.folder.real(rel)]
        self.touched += self.folder.unlinked
        self.folder.unlinked.clear()

    def _note(self, scope: int, name: str) -> str:
        return self.spec.note(self.spec.scopes[scope], name)

    @rule(scope=SCOPE_INDEX, name=st.sampled_from(NAMES), text=notes)
    def write_note(self, scope: int, name: str, text: str) -> None:
        rel = self._note(scope, name)
        self.folder.write(rel, text)
        self._touch(rel)

    @rule(scope=SCOPE_INDEX, name=st.sampled_from(NAMES), raw=odd_bytes)
    def write_bytes(self, scope: int, name: str, raw: bytes) -> None:
        rel = self._note(scope, name)
        self.folder.write(rel, raw)
        self._touch(rel)

    @rule(scope=SCOPE_INDEX, name=st.sampled_from(NAMES))
    def touch_note(self, scope: int, name: str) -> None:
        rel = self._note(scope, name)
        if (self.folder.root / rel).is_file():
            self.folder.tick(rel)
            self._touch(rel)

    @rule(
        scope=SCOPE_INDEX, name=st.sampled_from(NAMES),
        scope2=SCOPE_INDEX, name2=st.sampled_from(NAMES),
    )
    def rename_note(self, scope: int, name: str, scope2: int, name2: str) -> None:
        old, new = self._note(scope, name), self._note(scope2, name2)
        if (self.folder.root / old).exists():
            self._touch(old, new)  # before: where `old` really is
            self.folder.rename(old, new)
            self._touch(new)

    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        rel = data.draw(st.sampled_from([
            *(self.spec.note(s, n) for s in self.spec.scopes for n in NAMES), *ENTITY_FILES,
            *self.spec.deletable,
        ]))
        self._touch(rel)
        self.folder.delete(rel)

    @rule(name=st.sampled_from(["ann", "bob", "deploy"]), memory=st.sampled_from(["true", "false", "'yes'"]))
    def write_agent(self, name: str, memory: str) -> None:
        self._touch(self.folder.write(f"agents/{name}.md", f"---\nmemory: {memory}\n---\nAgent {name}\n"))

    @rule(rel=st.sampled_from(ENTITY_FILES), title=st.sampled_from(["T1", "T2"]))
    def write_entity(self, rel: str, title: str) -> None:
        if rel.endswith(".json"):
            text = f'{{"title": "{title}"}}'
        elif rel.endswith(".md"):
            text = f"---\ntitle: {title}\n---\n"
        else:
            text = f"title: {title}\n"
        self._touch(self.folder.write(rel, text))

    @rule(data=st.data(), raw=st.sampled_from([b"misplaced [[alpha]]\n", b"\x89PNG\r\n\x1a\n\x00[[beta]]"]))
    def write_misplaced(self, data: st.DataObject, raw: bytes) -> None:
        rel = data.draw(st.sampled_from(self.spec.odd_files))
        self._touch(self.folder.write(rel, raw))

    @rule(data=st.data())
    def make_symlink(self, data: st.DataObject) -> None:
        link, linked = self.spec.folder_link
        rel = data.draw(st.sampled_from([*self.spec.symlinks, link]))
        self._touch(rel)
        self.folder.delete(rel)
        path = self.folder.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel == link:
            target = self.folder.root / linked
            if not target.exists():
                target.mkdir(parents=True)
                self._touch(linked)
        else:
            target = self.folder.root / "outside.md"
            target.write_text("# Top\n[[alpha]]\n")
        path.symlink_to(target)

    @rule(full=st.booleans())
    def sync(self, full: bool) -> None:
        self.brain.sync(None if full else self.touched)
        self.touched = []
        assert_same_as_fresh(self.brain)


def _random_operations(spec: LayoutSpec) -> type[unittest.TestCase]:
    machine = type(f"RandomOperations_{spec.name}", (RandomOperations,), {"spec": spec})
    case: type[unittest.TestCase] = machine.TestCase
    case.settings = settings(  # type: ignore[attr-defined]
        max_examples=int(os.environ.get("BRAIN_RANDOM_OPS_EXAMPLES", "250")),
        stateful_step_count=30,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    return case


# One state machine per layout (tests/layout_specs.py): latchai keeps its old name.
TestRandomOperations = _random_operations(LATCHAI_SPEC)
TestRandomOperationsSpace = _random_operations(SPACE_SPEC)
for _spec in SPECS:
    if _spec not in (LATCHAI_SPEC, SPACE_SPEC):  # layouts added later get theirs here
        globals()[f"TestRandomOperations_{_spec.name}"] = _random_operations(_spec)


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
