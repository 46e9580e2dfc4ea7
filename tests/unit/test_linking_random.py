"""Incremental syncs under random file operations: a Hypothesis state machine per layout
writes, deletes, renames, symlinks and feeds odd bytes to a small workspace, and after each
sync the graph and the problems must equal a fresh ingest of the same files.

`make check` tries 30 sequences a machine (BRAIN_RANDOM_OPS_EXAMPLES), `make test` 250.
Not fewer in `make test`: with the fixes of two bugs these machines found taken out again, a
machine found them after 86 sequences (latchai, a link replaced by a folder: f5ab90e; not
within 250 on two other seeds) and after 133 and 180 (lab, a scope outliving its folder:
28115d6; not within 250 on a third seed). Measured for issue 40, generate phase alone. Nor is one
layout's machine another's: each layout's paths reach code the others do not (the second
bug needs lab's scope of two folders, MEMORY.md or memory/).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import unittest
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule

from brain.service.brain import Brain
from brain.store.memory.store import MemoryStore
from tests.layout_specs import LATCHAI as LATCHAI_SPEC
from tests.layout_specs import SPACE as SPACE_SPEC
from tests.layout_specs import SPECS, LayoutSpec
from tests.unit.linking_folder import Folder, assert_same_as_fresh

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
