"""Hover on a link: what the target is (kind, description, type, age) and how it begins."""

from __future__ import annotations

from lsprotocol import types

from brain.lsp.capabilities import ClientFeatures
from brain.lsp.context import Context, Document
from brain.lsp.features.cursor import link_at
from brain.lsp.features.describe import (
    KIND_WORDS,
    age_text,
    body_excerpt,
    code,
    description_of,
    kind_line,
)
from brain.lsp.features.graph import Linkable, Lookup, node_name
from brain.lsp.features.navigation import LinkHit, hit_at, link_range
from brain.lsp.startup.early import EarlyNames
from brain.model import (
    AgentNode,
    Block,
    EntityNode,
    Kind,
    LinkStatus,
    MemoryNode,
    UnresolvedNode,
)
from brain.parse.spans.anchors import anchor_target, heading_source
from brain.parse.spans.blocks import block_text

_LANDED = (LinkStatus.RESOLVED, LinkStatus.MISSING_ANCHOR)


def hover(ctx: Context, doc: Document, position: types.Position) -> types.Hover | None:
    hit = hit_at(ctx, doc, position)
    if hit is None:
        return None
    text = hover_text(ctx, doc, hit)
    if ctx.features.hover_markdown:
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), hit.range)
    return types.Hover(types.MarkupContent(types.MarkupKind.PlainText, text.replace("**", "")), hit.range)


def early_hover(
    early: EarlyNames | None, doc: Document, position: types.Position, features: ClientFeatures
) -> types.Hover | None:
    """While the first index is built: the kind, name and path of a link's target, if the
    walk's names say where it lands; nothing else (no claim that a link is broken)."""
    source = doc.identity
    if early is None or source is None:
        return None
    index = doc.index(features)
    link = link_at(doc.note.links, position.line, index.column(position))
    if link is None:
        return None
    resolution = Lookup(early).resolve(link, source)
    node = early.node(resolution.target_id) if resolution.status in _LANDED else None
    if node is None:
        return None
    lines = [f"**{KIND_WORDS.get(node.kind, node.kind.value)}** {code(_display_id(node))}", "",
             "brain is still indexing: the description and text follow"]
    if node.path:
        lines += ["", code(node.path)]
    text = "\n".join(lines)
    kind = types.MarkupKind.Markdown if features.hover_markdown else types.MarkupKind.PlainText
    shown = text if features.hover_markdown else text.replace("**", "")
    return types.Hover(types.MarkupContent(kind, shown), link_range(link, index))


def hover_text(ctx: Context, doc: Document, hit: LinkHit) -> str:
    status, node = hit.resolution.status, hit.node
    if status is LinkStatus.AMBIGUOUS:
        found = ctx.store.get_nodes(hit.resolution.candidates)
        lines = [f"**ambiguous link** {code(hit.link.target)} could mean:", ""]
        for candidate in hit.resolution.candidates:
            other = found.get(candidate)
            summary = ""
            if isinstance(other, MemoryNode | EntityNode | AgentNode):
                summary = f" — {kind_line(other)}"
            lines.append(f"- {code(candidate)}{summary}")
        return "\n".join(lines)
    if status is LinkStatus.BROKEN or isinstance(node, UnresolvedNode) or node is None:
        return (
            f"**missing note** {code(hit.link.target)}: no memory, workflow, chat or work item "
            "has this name. The quick fix creates it."
        )
    assert isinstance(node, MemoryNode | EntityNode | AgentNode)
    if node.id == (doc.identity.id if doc.identity else None) and not hit.link.target:
        anchor = hit.link.anchor or ""
        if anchor.startswith("^"):
            shown = block_text(doc.note.body, anchor[1:].strip())
            lines = [f"**block** {code(anchor)} of this note"]
            return "\n".join(lines + (["", "---", "", body_excerpt(shown)] if shown else []))
        return f"**heading** {code(anchor)} of this note"
    return describe_node(ctx, node, hit.link.anchor, status is LinkStatus.MISSING_ANCHOR)


def describe_node(
    ctx: Context, node: Linkable, anchor: str | None = None, anchor_missing: bool = False
) -> str:
    kind = KIND_WORDS.get(node.kind, node.kind.value)
    parts = [f"**{kind}** {code(_display_id(node))}"]
    if isinstance(node, MemoryNode):
        if node.note_kind is Kind.MEMORY:
            parts.append(node.type or "no type")
        parts.append(age_text(node.modified_at, ctx.now))
    elif node.path is not None:
        age = _file_age(ctx, node.path)
        if age is not None:
            parts.append(age)
    lines = [" · ".join(parts)]
    description = description_of(node)
    if description and description != node_name(node):
        lines += ["", description]
    if isinstance(node, MemoryNode):
        if anchor_missing:
            lines += ["", missing_anchor_text(node, anchor or "")]
        excerpt = body_excerpt(section(node, anchor) if anchor and not anchor_missing else node.body)
        if excerpt:
            lines += ["", "---", "", excerpt]
    if node.path:
        lines += ["", code(node.path)]
    return "\n".join(lines)


def _display_id(node: Linkable) -> str:
    if isinstance(node, MemoryNode):
        return f"{node.scope}/{node.name}"
    return node_name(node)


def _file_age(ctx: Context, rel: str) -> str | None:
    try:
        return age_text((ctx.root / rel).stat().st_mtime, ctx.now)
    except OSError:
        return None


def missing_anchor_text(node: MemoryNode, anchor: str) -> str:
    """What is missing, a block or a heading, and what the note has instead."""
    if anchor.strip().startswith("^"):
        blocks = ", ".join(code(f"^{b.id}") for b in node.blocks) or "none"
        return f"No block {code(anchor.strip())} here. Blocks: {blocks}."
    headings = ", ".join(code(h.text) for h in node.headings) or "none"
    return f"No heading {code(anchor)} here. Headings: {headings}."


def section(node: MemoryNode, anchor: str) -> str:
    """The part of a body an anchor names: a block, or from its heading on (else the whole body)."""
    found = anchor_target(node.anchors, anchor)
    if isinstance(found, Block):
        return block_text(node.body, found.id) or node.body
    if found is None:
        return node.body
    lines = node.body.split("\n")
    for number, line in enumerate(lines):
        if line.lstrip(" >").startswith("#") and heading_source(line) in (found.written, found.text):
            return "\n".join(lines[number:])
    return node.body
