"""Taking raw wikilinks apart and rewriting one part of them."""

from __future__ import annotations

import pytest

from brain.lsp.edits.linktext import explicit_target, link_parts, replace_name, replace_target
from brain.model import Kind
from brain.parse.body import split_link
from brain.resolve import parse_target


@pytest.mark.parametrize(
    ("raw", "name", "target", "kind"),
    [
        ("[[old]]", "old", "old", None),
        ("![[old]]", "old", "old", None),
        ("[[ old ]]", "old", "old", None),
        ("[[old|label]]", "old", "old", None),
        ("[[old#Heading|label]]", "old", "old", None),
        ("[[shared/old]]", "old", "shared/old", None),
        ("[[shared/ old.md]]", "old", "shared/ old.md", None),
        ("[[memory:old]]", "old", "memory:old", Kind.MEMORY),
        ("[[Memory: bot/old#A]]", "old", "Memory: bot/old", Kind.MEMORY),
        ("[[workflow:nightly]]", "nightly", "workflow:nightly", Kind.WORKFLOW),
        ("[[workflow:a/b]]", "a/b", "workflow:a/b", Kind.WORKFLOW),  # scopes are for memories only
        ("[[old\\|label]]", "old", "old", None),  # in a table cell
        ("[[日本語のメモ#見出し]]", "日本語のメモ", "日本語のメモ", None),
        ("[[😀 note.MD]]", "😀 note", "😀 note.MD", None),
    ],
)
def test_link_parts(raw: str, name: str, target: str, kind: Kind | None) -> None:
    parts = link_parts(raw)
    assert raw[parts.name_start : parts.name_end] == name
    assert raw[parts.target_start : parts.target_end] == target
    assert parts.kind is kind


@pytest.mark.parametrize(
    ("raw", "new"),
    [
        ("[[old]]", "[[new]]"),
        ("![[old|see]]", "![[new|see]]"),
        ("[[shared/old#Top|label]]", "[[shared/new#Top|label]]"),
        ("[[memory:old]]", "[[memory:new]]"),
        ("[[memory: bot/old.md]]", "[[memory: bot/new.md]]"),
        ("[[ old ]]", "[[ new ]]"),
        ("[[old\\|label]]", "[[new\\|label]]"),
        ("[[old#]]", "[[new#]]"),
    ],
)
def test_replace_name_keeps_everything_else(raw: str, new: str) -> None:
    assert replace_name(raw, "new") == new


@pytest.mark.parametrize(
    "raw",
    ["[[old]]", "[[shared/old#Top|label]]", "[[memory: bot/old.md|x]]", "![[old\\|y]]", "[[Old Name]]"],
)
def test_rewritten_links_parse_as_intended(raw: str) -> None:
    """The parser reads the rewritten link with the new name and the same anchor and label."""
    inner = raw[3:-2] if raw.startswith("!") else raw[2:-2]
    new = replace_name(raw, "fresh")
    new_inner = new[3:-2] if new.startswith("!") else new[2:-2]
    old_target, old_anchor, old_label = split_link(inner)
    target, anchor, label = split_link(new_inner)
    assert (anchor, label) == (old_anchor, old_label)
    assert parse_target(target).key == "fresh"
    assert parse_target(target).scope == parse_target(old_target).scope
    assert parse_target(target).kind == parse_target(old_target).kind


@pytest.mark.parametrize(
    ("raw", "target", "new"),
    [
        ("[[x]]", "shared/x", "[[shared/x]]"),
        ("[[x#Top|see]]", "workflow:x", "[[workflow:x#Top|see]]"),
        ("![[ x ]]", "bot/x", "![[ bot/x ]]"),
    ],
)
def test_replace_target(raw: str, target: str, new: str) -> None:
    assert replace_target(raw, target) == new


@pytest.mark.parametrize(
    ("node_id", "target"),
    [
        ("memory:shared/x", "shared/x"),
        ("memory:bot/x", "bot/x"),
        ("workflow:x", "workflow:x"),
        ("work-item:fix", "work-item:fix"),
        ("chat:c", "chat:c"),
        ("agent:bot", "agent:bot"),
    ],
)
def test_explicit_target(node_id: str, target: str) -> None:
    assert explicit_target(node_id) == target
