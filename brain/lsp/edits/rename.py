"""Renaming a memory: the file and every link to it, or a clear refusal.

The plan is computed with brain's resolver over the graph as it would be after the rename
(the old name gone, the new one added): every rewritten link must still land on the note,
and no other link may change where it points. Links keep their form: `[[x]]` becomes
`[[y]]`, `[[shared/x#Top|see]]` becomes `[[shared/y#Top|see]]`, `[[memory:x]]` stays
prefixed, and a `.md` suffix stays.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types

from brain.lsp.context import Context, Document
from brain.lsp.edits.linktext import link_parts, replace_name
from brain.lsp.edits.workspace_edit import FileChanges, TextChange
from brain.lsp.features.cursor import word_at
from brain.lsp.features.graph import Lookup, NoteIdentity
from brain.lsp.features.navigation import hit_at
from brain.model import Kind, Link, LinkStatus, MemoryNode, WikiLink, leaf_key, note_id
from brain.parse.body import split_link
from brain.resolve import LATCHAI_LINKS, LinkRules, NameEntry
from brain.store.base import GraphStore

FORBIDDEN = re.compile(r'[/\\#|\[\]:*?"<>\x00-\x1f\x7f]')
_LANDED = (LinkStatus.RESOLVED, LinkStatus.MISSING_ANCHOR)
SHOWN_CONFLICTS = 3


class RenameRefused(Exception):
    """The rename cannot be done as asked; the message says why and what would work."""


@dataclass(frozen=True, slots=True)
class RenamePlan:
    memory: MemoryNode
    new_name: str
    new_path: str
    changes: FileChanges
    links: int
    files: int


def clean_name(text: str) -> str:
    """The new note name as typed, checked: a file stem, no link syntax, `.md` optional."""
    name = text.strip()
    if name.casefold().endswith(".md"):
        name = name[:-3].rstrip()
    if not name:
        raise RenameRefused("the new name is empty")
    bad = FORBIDDEN.search(name)
    if bad is not None:
        shown = repr(bad.group(0)) if bad.group(0).isprintable() else f"U+{ord(bad.group(0)):04X}"
        raise RenameRefused(
            f"`{name}` cannot be a note name: it contains {shown} "
            "(names are file names and link text: no / \\ # | [ ] : * ? \" < >)"
        )
    if name.startswith("."):
        raise RenameRefused(f"`{name}` cannot be a note name: names starting with `.` are hidden files")
    return name


def plan_rename(
    store: GraphStore, memory: MemoryNode, new_text: str, path_exists: Callable[[str], bool],
    rules: LinkRules = LATCHAI_LINKS,
) -> RenamePlan:
    """The edits of renaming `memory` to `new_text`: its file stays in its folder (in space,
    `drafts/plan` renamed `draft` is `drafts/draft`); `rules` are the layout's link rules."""
    _check_renamable(memory)
    leaf = clean_name(new_text)
    scope = memory.scope
    folder = memory.name.rpartition("/")[0]
    new_name = f"{folder}/{leaf}" if folder else leaf
    label = f"{scope}/{memory.name}"
    if new_name == memory.name:
        raise RenameRefused(f"`{label}` already has this name")
    new_path = posixpath.join(posixpath.dirname(memory.path), f"{leaf}.md")
    old_key, new_key = leaf_key(memory.name), leaf_key(new_name)
    if new_key != old_key:
        taken = store.find_memory(scope, new_name)
        if taken is not None or path_exists(new_path):
            where = taken.path if taken is not None else new_path
            raise RenameRefused(f"cannot rename `{label}` to `{new_name}`: {where} already exists")

    new_id = note_id(memory.note_kind, scope, new_name)
    after = Lookup(
        store,
        without=[memory.id],
        extra=[NameEntry(new_id, memory.note_kind, new_key, scope)],
        anchors={new_id: memory.anchors},
    )
    incoming = [link for link in store.links_to([memory.id]).get(memory.id, []) if link.target]
    moved = {(link.source, link.ordinal) for link in incoming}
    conflicts: list[str] = []
    rewrites: list[tuple[Link, str]] = []
    for link in incoming:
        new_raw = replace_name(link.raw, leaf)
        resolution = after.resolve(_wikilink(new_raw, link), _source(link.source, memory, new_name, rules))
        if resolution.target_id != new_id or resolution.status not in _LANDED:
            conflicts.append(
                _describe(link, new_raw, resolution.target_id, resolution.status, memory.id, link.status)
            )
        rewrites.append((link, new_raw))
    for link in store.links_with_keys({old_key, new_key}):
        if (link.source, link.ordinal) in moved or not link.target:
            continue
        wiki = WikiLink(link.raw, link.target, link.label, link.anchor, link.embed, link.line, link.column)
        resolution = after.resolve(wiki, _source(link.source, memory, new_name, rules))
        if (resolution.target_id, resolution.status, resolution.candidates) != (
            link.target_id, link.status, link.candidates
        ):
            got = (resolution.target_id, resolution.status)
            conflicts.append(_describe(link, link.raw, *got, link.target_id, link.status))
    if conflicts:
        shown = "; ".join(conflicts[:SHOWN_CONFLICTS])
        more = f" (and {len(conflicts) - SHOWN_CONFLICTS} more)" if len(conflicts) > SHOWN_CONFLICTS else ""
        raise RenameRefused(
            f"cannot rename `{label}` to `{new_name}`: it would change where links point: {shown}{more}. "
            "Choose another name, or make those links explicit first"
        )

    paths = {
        node.id: node.path
        for node in store.get_nodes({link.source for link, _ in rewrites}).values()
        if isinstance(node, MemoryNode)
    }
    changes = FileChanges()
    for link, new_raw in rewrites:
        path = paths.get(link.source)
        if path is None:
            continue
        start = link.column - 1
        changes.edits.append(TextChange(path, link.line - 1, start, start + len(link.raw), new_raw))
    changes.renames.append((memory.path, new_path))
    return RenamePlan(memory, new_name, new_path, changes, len(rewrites), len(set(paths.values())))


def _wikilink(raw: str, like: Link) -> WikiLink:
    start = 3 if raw.startswith("!") else 2
    target, anchor, label = split_link(raw[start:-2])
    return WikiLink(raw, target, label, anchor, raw.startswith("!"), like.line, like.column)


def _source(source_id: str, memory: MemoryNode, new_name: str, rules: LinkRules) -> NoteIdentity:
    kind, rest = source_id.split(":", 1)
    scope, name = rest.split("/", 1)
    if source_id == memory.id:
        name = new_name
    return NoteIdentity(scope, name, "", Kind(kind), rules)


def _check_renamable(memory: MemoryNode) -> None:
    """Notes whose file name is fixed by their layout are not renamed by name."""
    if memory.note_kind is Kind.DAILY_NOTE:
        raise RenameRefused(f"{memory.path} is a daily note: it is named by its date")
    if memory.note_kind in (Kind.SKILL, Kind.TOOL):
        raise RenameRefused(
            f"{memory.path} is named by its folder: rename the folder to rename the "
            f"{memory.note_kind.value}"
        )
    if posixpath.basename(memory.path) == "MEMORY.md":
        raise RenameRefused(f"{memory.path} is an agent's MEMORY.md: its name is fixed")


def _describe(
    link: Link, raw: str, got: str, status: LinkStatus, before: str, before_status: LinkStatus
) -> str:
    where = f"memory/{link.source.split(':', 1)[1]}.md:{link.line} `{raw}`"
    now = f"`{_short(before)}`"
    if before_status is LinkStatus.AMBIGUOUS:
        now = "several notes: it is ambiguous"
    elif before_status is LinkStatus.BROKEN:
        now = "nothing"
    if status is LinkStatus.AMBIGUOUS:
        return f"{where} would become ambiguous (it points to {now})"
    if status is LinkStatus.BROKEN:
        return f"{where} would point to nothing (it points to {now})"
    return f"{where} would point to `{_short(got)}` instead of {now}"


def _short(node_id: str) -> str:
    kind, rest = node_id.split(":", 1)
    return rest if kind == "memory" else node_id


def name_span(raw: str) -> tuple[int, int]:
    """[start, end) of the name inside a raw link, for the editor's rename box."""
    parts = link_parts(raw)
    return parts.name_start, parts.name_end


def rename_target(ctx: Context, doc: Document, position: types.Position) -> tuple[MemoryNode, types.Range]:
    """The memory a rename at this position means, and the range the editor's rename box covers.

    On a link: the note it points to, the box over the link's name. Elsewhere in a memory:
    the memory itself, the box over the word at the cursor.
    """
    hit = hit_at(ctx, doc, position)
    index = doc.index(ctx.features)
    if hit is not None:
        status, node = hit.resolution.status, hit.node
        if status is LinkStatus.BROKEN:
            raise RenameRefused(f"`{hit.link.raw}` points to nothing: there is no note to rename")
        if status is LinkStatus.AMBIGUOUS:
            raise RenameRefused(f"`{hit.link.raw}` is ambiguous: make it explicit first (quick fix)")
        if not isinstance(node, MemoryNode):
            kind = node.kind.value if node is not None else "node"
            raise RenameRefused(
                f"`{hit.link.raw}` points to a {kind.replace('-', ' ')}: only memories are renamed here"
            )
        if not hit.link.target:
            raise RenameRefused("`[[#...]]` names a heading of this note, not a note")
        start, end = name_span(hit.link.raw)
        column = hit.link.column - 1
        return node, index.span(hit.link.line - 1, column + start, column + end)
    if doc.identity is None:
        raise RenameRefused(f"{doc.rel} is not a note of this workspace (see its layout in brain.toml)")
    found = ctx.store.get_nodes([doc.identity.id]).get(doc.identity.id)
    if not isinstance(found, MemoryNode):
        raise RenameRefused(f"{doc.rel} is not in the graph yet; save it first")
    column = index.column(position)
    start, end = word_at(index.line(position.line), column)
    return found, index.span(position.line, start, end)
