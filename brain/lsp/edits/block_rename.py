"""Renaming a block id: the `^id` in its note and every `[[Note#^id]]` that links it.

A rename on `^id` in a note, or on the `^id` part of a link to a block, is a block rename
(no file moves); anywhere else it is a note rename (brain.lsp.edits.rename). The plan is computed
from the graph (where the block is, which links land on it) and checked against the texts
as they are now by the handler, like a note rename.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsprotocol import types

from brain.lsp.context import Context, Document
from brain.lsp.edits.rename import RenameRefused
from brain.lsp.edits.workspace_edit import FileChanges, TextChange
from brain.lsp.features.navigation import hit_at
from brain.model import Block, Link, LinkStatus, MemoryNode
from brain.parse.spans.anchors import find_block, is_block_id, parse_anchor
from brain.store.base import GraphStore


@dataclass(frozen=True, slots=True)
class BlockTarget:
    """The block a rename means, the memory it is in, and the editor's rename box."""

    memory: MemoryNode
    block: Block
    range: types.Range


def block_target(ctx: Context, doc: Document, position: types.Position) -> BlockTarget | None:
    """The block under the cursor: a `^id` of this note, or the `#^id` of a link; else None."""
    index = doc.index(ctx.features)
    column = index.column(position)
    hit = hit_at(ctx, doc, position)
    if hit is not None:
        ref = parse_anchor(hit.link.anchor or "")
        if ref.block is None:
            return None
        node = hit.node
        if not isinstance(node, MemoryNode) or hit.resolution.status is not LinkStatus.RESOLVED:
            raise RenameRefused(f"`{hit.link.raw}` names no block: there is no block id to rename")
        block = find_block(node.blocks, ref.block)
        if block is None:
            return None
        at = _block_ref(hit.link.raw, block.id)
        start = hit.link.column - 1 + (at if at >= 0 else 0)
        return BlockTarget(node, block, index.span(position.line, start + 1, start + 1 + len(block.id)))
    for own in doc.note.blocks:
        if own.line - 1 == position.line and own.column - 1 <= column <= own.column + len(own.id):
            if doc.identity is None:
                return None
            memory = ctx.store.get_nodes([doc.identity.id]).get(doc.identity.id)
            if not isinstance(memory, MemoryNode):
                raise RenameRefused(f"{doc.rel} is not in the graph yet; save it first")
            stored = find_block(memory.blocks, own.id)
            if stored is None:
                raise RenameRefused(f"`^{own.id}` is not saved yet; save {doc.rel} first")
            start = own.column  # just after the `^`
            return BlockTarget(memory, stored, index.span(position.line, start, start + len(own.id)))
    return None


def plan_block_rename(store: GraphStore, memory: MemoryNode, block: Block, new_text: str) -> FileChanges:
    """Edits that rename `^old` to `^new` in its note and in every link that lands on it."""
    new_id = new_text.strip().removeprefix("^")
    if not is_block_id(new_id):
        raise RenameRefused(
            f"`{new_id}` cannot be a block id: use basic Latin letters, digits and dashes (`^my-quote`)"
        )
    other = find_block(memory.blocks, new_id)
    if other is not None and other.id.casefold() != block.id.casefold():
        raise RenameRefused(f"{memory.path} already has a block `^{other.id}` (line {other.line})")
    changes = FileChanges()
    column = block.column  # the `^` is at column - 1 (0-based): the id starts after it
    changes.edits.append(TextChange(memory.path, block.line - 1, column, column + len(block.id), new_id))
    incoming = store.links_to([memory.id]).get(memory.id, [])
    sources = store.get_nodes({link.source for link in incoming})
    for link in incoming:
        source = sources.get(link.source)
        if not isinstance(source, MemoryNode) or not _names_block(link, block):
            continue
        at = _block_ref(link.raw, block.id)
        if at < 0:
            continue
        start = link.column - 1 + at + 1
        changes.edits.append(TextChange(source.path, link.line - 1, start, start + len(block.id), new_id))
    return changes


def _names_block(link: Link, block: Block) -> bool:
    ref = parse_anchor(link.anchor or "")
    return ref.block is not None and ref.block.casefold() == block.id.casefold()


def _block_ref(raw: str, block_id: str) -> int:
    """Offset of the `^` of `#^block_id` inside a raw link (-1: not there)."""
    found = re.search(rf"#[ \t]*(\^){re.escape(block_id)}(?![A-Za-z0-9-])", raw, re.IGNORECASE)
    return -1 if found is None else found.start(1)
