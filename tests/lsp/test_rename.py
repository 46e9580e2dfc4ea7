"""Renaming a memory: every link rewritten in its own form, or a refusal that says why."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types

from brain.lsp.edits.rename import RenameRefused, clean_name, plan_rename, rename_target
from brain.lsp.edits.workspace_edit import workspace_edit
from brain.model import MemoryNode
from brain.service.brain import Brain
from brain.store.base import MemoryFilter

from .conftest import BrainFactory, context, document

LINKS = {
    "memory/bot/one.md": "[[gamma]] and [[shared/gamma#Usage|how]] and ![[memory:gamma.md]]\n",
    "memory/shared/two.md": "shared link [[gamma]]\n",
    "memory/other/three.md": "from another agent: [[shared/gamma]]\n",
    "memory/bot/code.md": "`[[gamma]]` is code, [[gamma-ray]] is another note\n",
}


def memory(brain: Brain, node_id: str) -> MemoryNode:
    found = brain.store.get_nodes([node_id])[node_id]
    assert isinstance(found, MemoryNode)
    return found


def apply(brain: Brain, plan_edits: list[tuple[str, int, int, int, str]]) -> dict[str, str]:
    texts: dict[str, str] = {}
    for path, line, start, end, new in sorted(plan_edits, key=lambda e: (e[0], e[1], -e[2])):
        text = texts.get(path) or (brain.root / path).read_text(encoding="utf-8")
        lines = text.split("\n")
        lines[line] = lines[line][:start] + new + lines[line][end:]
        texts[path] = "\n".join(lines)
    return texts


def rename(brain: Brain, node_id: str, new: str) -> dict[str, str]:
    plan = plan_rename(brain.store, memory(brain, node_id), new, lambda rel: (brain.root / rel).exists())
    edits = [(c.path, c.line, c.start, c.end, c.new_text) for c in plan.changes.edits]
    return apply(brain, edits) | {"renamed": f"{plan.changes.renames}"}


def test_rename_rewrites_every_link_in_its_form(make_brain: BrainFactory) -> None:
    brain = make_brain(LINKS)
    out = rename(brain, "memory:shared/gamma", "delta")
    assert out["memory/bot/one.md"] == "[[delta]] and [[shared/delta#Usage|how]] and ![[memory:delta.md]]\n"
    assert out["memory/shared/two.md"] == "shared link [[delta]]\n"
    assert out["memory/other/three.md"] == "from another agent: [[shared/delta]]\n"
    assert out["memory/bot/alpha.md"].endswith("See [[beta]] and [[shared/delta#Usage|gamma usage]].\n")
    assert "memory/bot/code.md" not in out  # code is not a link; gamma-ray is another note
    assert out["renamed"] == "[('memory/shared/gamma.md', 'memory/shared/delta.md')]"


def test_rename_then_reingest_keeps_every_link_resolved(make_brain: BrainFactory, tmp_path: Path) -> None:
    brain = make_brain(LINKS)
    before = targets(brain)
    for path, text in rename(brain, "memory:shared/gamma", "delta").items():
        if path != "renamed":
            (tmp_path / path).write_text(text, encoding="utf-8")
    (tmp_path / "memory/shared/gamma.md").rename(tmp_path / "memory/shared/delta.md")
    after_brain = Brain(tmp_path)
    after_brain.sync()
    moved = {k: v.replace("memory:shared/gamma", "memory:shared/delta") for k, v in before.items()}
    assert targets(after_brain) == moved
    assert after_brain.problems() == brain.problems()


def targets(brain: Brain) -> dict[tuple[str, int], str]:
    """Where every link of the graph points, by (source, ordinal); sources renamed as gamma->delta."""
    ids = [m.id for m in brain.store.list_memories(MemoryFilter())]
    return {
        (link.source.replace("shared/gamma", "shared/delta"), link.ordinal): link.target_id
        for links in brain.store.links_from(ids).values()
        for link in links
    }


@pytest.mark.parametrize(
    ("node", "new", "reason"),
    [
        ("memory:bot/alpha", "beta", "rename `bot/alpha` to `beta`: memory/bot/beta.md already exists"),
        ("memory:bot/alpha", "BETA", "memory/bot/beta.md already exists"),  # names are case-insensitive
        ("memory:shared/gamma", "gamma", "already has this name"),
        ("memory:shared/gamma", "a/b", "contains '/'"),
        ("memory:shared/gamma", "x|y", "contains '|'"),
        ("memory:shared/gamma", "x\ty", "contains U+0009"),
        ("memory:shared/gamma", "  ", "empty"),
        ("memory:shared/gamma", ".hidden", "hidden files"),
    ],
)
def test_refused_names(make_brain: BrainFactory, node: str, new: str, reason: str) -> None:
    brain = make_brain(LINKS)
    with pytest.raises(RenameRefused, match=re.escape(reason)):
        plan_rename(brain.store, memory(brain, node), new, lambda rel: (brain.root / rel).exists())


def test_refused_when_the_file_exists_but_is_not_indexed(make_brain: BrainFactory) -> None:
    brain = make_brain(LINKS)
    with pytest.raises(RenameRefused, match=re.escape("memory/shared/new.md already exists")):
        plan_rename(brain.store, memory(brain, "memory:shared/gamma"), "new", lambda rel: True)


def test_refused_when_a_rewritten_link_would_land_elsewhere(make_brain: BrainFactory) -> None:
    # bot has its own `delta`: `[[gamma]]` in a bot note would become `[[delta]]` and reach it
    brain = make_brain({**LINKS, "memory/bot/delta.md": "bot's delta\n"})
    with pytest.raises(RenameRefused) as refused:
        plan_rename(brain.store, memory(brain, "memory:shared/gamma"), "delta", lambda rel: False)
    assert "memory/bot/one.md:1 `[[delta]]` would point to `bot/delta` instead of `shared/gamma`" in str(
        refused.value
    )


def test_refused_when_another_link_would_change(make_brain: BrainFactory) -> None:
    # `[[nightly-release]]` reaches the workflow now; a memory of that name would take it over
    brain = make_brain({"memory/bot/wf.md": "run [[nightly-release]]\n"})
    with pytest.raises(RenameRefused) as refused:
        plan_rename(brain.store, memory(brain, "memory:bot/beta"), "nightly-release", lambda rel: False)
    message = str(refused.value)
    assert "memory/bot/wf.md:1 `[[nightly-release]]` would point to `bot/nightly-release`" in message
    assert "instead of `workflow:nightly-release`" in message


def test_refused_when_a_broken_link_would_start_pointing_here(make_brain: BrainFactory) -> None:
    brain = make_brain({"memory/bot/wants.md": "[[delta]] does not exist yet\n"})
    with pytest.raises(RenameRefused, match="would point to `shared/delta` instead of nothing"):
        plan_rename(brain.store, memory(brain, "memory:shared/gamma"), "delta", lambda rel: False)


def test_case_only_rename_is_allowed(make_brain: BrainFactory) -> None:
    brain = make_brain(LINKS)
    out = rename(brain, "memory:shared/gamma", "Gamma")
    assert out["memory/shared/two.md"] == "shared link [[Gamma]]\n"


def test_new_name_with_md_suffix_and_unicode(make_brain: BrainFactory) -> None:
    brain = make_brain(LINKS)
    out = rename(brain, "memory:shared/gamma", "ガンマ 😀.md")
    assert out["memory/shared/two.md"] == "shared link [[ガンマ 😀]]\n"
    assert clean_name(" x.MD ") == "x"


def test_workspace_edit_renames_after_editing_with_versions(make_brain: BrainFactory) -> None:
    brain = make_brain({"memory/bot/one.md": "😀 [[gamma]]\n"})
    plan = plan_rename(brain.store, memory(brain, "memory:shared/gamma"), "delta", lambda rel: False)
    edit = workspace_edit(context(brain), plan.changes, lambda rel: 7 if rel == "memory/bot/one.md" else None)
    assert edit.document_changes is not None
    *texts, move = edit.document_changes
    assert isinstance(move, types.RenameFile)
    assert move.old_uri.endswith("memory/shared/gamma.md")
    assert move.new_uri.endswith("memory/shared/delta.md")
    one = next(t for t in texts if isinstance(t, types.TextDocumentEdit) and t.text_document.version == 7)
    (text_edit,) = one.edits
    assert isinstance(text_edit, types.TextEdit)
    assert text_edit.range.start.character == 3  # after the emoji's two UTF-16 units and a space
    assert text_edit.new_text == "[[delta]]"


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("see [[shared/gamma#Usage]] x", (0, 8), ("memory:shared/gamma", (0, 13, 0, 18))),
        ("see [[beta]] x", (0, 5), ("memory:bot/beta", (0, 6, 0, 10))),
        ("see [[beta]] word", (0, 14), ("memory:bot/alpha", (0, 13, 0, 17))),  # inside the note
    ],
)
def test_rename_target(
    make_brain: BrainFactory, text: str, position: tuple[int, int],
    expected: tuple[str, tuple[int, int, int, int]],
) -> None:
    brain = make_brain()
    doc = document(brain, "memory/bot/alpha.md", text)
    node, span = rename_target(context(brain), doc, types.Position(*position))
    assert node.id == expected[0]
    assert (span.start.line, span.start.character, span.end.line, span.end.character) == expected[1]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[[nowhere]]", "points to nothing"),
        ("[[nightly-release]]", "points to a workflow"),
        ("[[#Alpha]]", "names a heading"),
    ],
)
def test_rename_target_refusals(make_brain: BrainFactory, text: str, reason: str) -> None:
    brain = make_brain()
    doc = document(brain, "memory/bot/alpha.md", text)
    with pytest.raises(RenameRefused, match=reason):
        rename_target(context(brain), doc, types.Position(0, 3))
