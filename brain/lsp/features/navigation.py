"""Definition, references, document links and symbols: where links lead.

A link in the open document is resolved against the graph with brain's resolver (through
`Lookup`), so these answers follow the text being typed, not only the last saved version.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from lsprotocol import types

from brain.lsp.context import Context, Document
from brain.lsp.features.cursor import link_at
from brain.lsp.features.describe import (
    clip,
    description_of,
    kind_line,
)
from brain.lsp.features.graph import Lookup
from brain.lsp.features.positions import LineIndex
from brain.model import (
    AgentNode,
    EntityNode,
    LinkStatus,
    MemoryNode,
    Node,
    WikiLink,
)
from brain.parse.spans.anchors import anchor_lines
from brain.resolve import Resolution, parse_target
from brain.store.base import MemoryFilter

SYMBOL_LIMIT = 200
_LANDED = (LinkStatus.RESOLVED, LinkStatus.MISSING_ANCHOR)


@dataclass(frozen=True, slots=True)
class LinkHit:
    """The link under the cursor, where it points, and the node it points to (if any)."""

    link: WikiLink
    resolution: Resolution
    node: Node | None
    range: types.Range


def hit_at(ctx: Context, doc: Document, position: types.Position) -> LinkHit | None:
    source = doc.identity
    if source is None:
        return None
    index = doc.index(ctx.features)
    link = link_at(doc.note.links, position.line, index.column(position))
    if link is None:
        return None
    resolution = Lookup(ctx.store).resolve(link, source)
    node = ctx.store.get_nodes([resolution.target_id]).get(resolution.target_id)
    return LinkHit(link, resolution, node, link_range(link, index))


def link_range(link: WikiLink, index: LineIndex) -> types.Range:
    return index.span(link.line - 1, link.column - 1, link.column - 1 + len(link.raw))


# ------------------------------------------------------------------ definition


def definition(
    ctx: Context, doc: Document, position: types.Position
) -> list[types.Location] | list[types.LocationLink] | None:
    hit = hit_at(ctx, doc, position)
    if hit is None or hit.resolution.status in (LinkStatus.BROKEN, LinkStatus.AMBIGUOUS):
        return None
    node = hit.node
    if not isinstance(node, MemoryNode | EntityNode | AgentNode) or node.path is None:
        return None
    target = types.Range(types.Position(0, 0), types.Position(0, 0))
    anchor = hit.link.anchor
    lines = anchor_lines(node.anchors, anchor) if anchor and isinstance(node, MemoryNode) else None
    if lines is not None:
        # A heading is one line; a block (`^id`) is every line of its paragraph or list.
        first, last = lines[0] - 1, lines[1] - 1
        end = types.Position(last, 0) if first == last else types.Position(last + 1, 0)
        target = types.Range(types.Position(first, 0), end)
    uri = doc.uri if node.path == doc.rel else ctx.uri(node.path)
    if ctx.features.definition_links:
        return [types.LocationLink(uri, target, target, origin_selection_range=hit.range)]
    return [types.Location(uri, target)]


# ------------------------------------------------------------------ references


def references(
    ctx: Context, doc: Document, position: types.Position, include_declaration: bool
) -> list[types.Location] | None:
    """Backlinks of the link's target, or of this note when the cursor is not on a link."""
    hit = hit_at(ctx, doc, position)
    if hit is not None:
        target_id = hit.resolution.target_id
    elif doc.identity is not None:
        target_id = doc.identity.id
    else:
        return None
    incoming = ctx.store.links_to([target_id]).get(target_id, [])
    sources = ctx.store.get_nodes({link.source for link in incoming} | {target_id})
    locations: list[types.Location] = []
    target = sources.get(target_id)
    if include_declaration and isinstance(target, MemoryNode | EntityNode | AgentNode) and target.path:
        start = types.Position(0, 0)
        locations.append(types.Location(ctx.uri(target.path), types.Range(start, start)))
    indexes: dict[str, LineIndex] = {}
    for link in incoming:
        source = sources.get(link.source)
        if not isinstance(source, MemoryNode):
            continue
        index = indexes.get(source.path)
        if index is None:
            index = indexes[source.path] = ctx.lines_of(source.path)
        locations.append(types.Location(ctx.uri(source.path), stored_link_range(link.line, link.column,
                                                                                 link.raw, index)))
    return locations


def stored_link_range(line: int, column: int, raw: str, index: LineIndex) -> types.Range:
    return index.span(line - 1, column - 1, column - 1 + len(raw))


# ------------------------------------------------------------------ document links


def document_links(ctx: Context, doc: Document) -> list[types.DocumentLink]:
    source = doc.identity
    if source is None:
        return []
    lookup = Lookup(ctx.store)
    lookup.prefetch(_keys(doc.note.links))
    resolved = [(link, lookup.resolve(link, source)) for link in doc.note.links]
    wanted = {r.target_id for _, r in resolved if r.status in _LANDED}
    nodes = ctx.store.get_nodes(wanted)
    index = doc.index(ctx.features)
    out: list[types.DocumentLink] = []
    for link, resolution in resolved:
        node = nodes.get(resolution.target_id)
        if not isinstance(node, MemoryNode | EntityNode | AgentNode) or node.path is None:
            continue
        uri = doc.uri if node.path == doc.rel else ctx.uri(node.path)
        if link.anchor and isinstance(node, MemoryNode) and resolution.status is LinkStatus.RESOLVED:
            lines = anchor_lines(node.anchors, link.anchor)
            if lines is not None:
                uri += f"#L{lines[0]}"
        tooltip = None
        if ctx.features.link_tooltips:
            tooltip = f"{kind_line(node)} — {clip(description_of(node), 80)}"
        out.append(types.DocumentLink(link_range(link, index), target=uri, tooltip=tooltip))
    return out


def _keys(links: Iterable[WikiLink]) -> set[str]:
    return {parse_target(link.target).key for link in links if link.target}


# ------------------------------------------------------------------ symbols


def document_symbols(
    ctx: Context, doc: Document
) -> list[types.DocumentSymbol] | list[types.SymbolInformation]:
    index = doc.index(ctx.features)
    headings = list(doc.note.headings)
    last_line = max(len(doc.lines) - 1, 0)
    ends: list[int] = []
    for number, heading in enumerate(headings):
        end = last_line
        for later in headings[number + 1 :]:
            if later.level <= heading.level:
                end = later.line - 2
                break
        ends.append(max(end, heading.line - 1))
    if not ctx.features.hierarchical_symbols:
        return [
            types.SymbolInformation(
                name=h.text, kind=types.SymbolKind.String,
                location=types.Location(doc.uri, index.whole_line(h.line - 1)),
            )
            for h in headings
        ]
    roots: list[types.DocumentSymbol] = []
    children: dict[int, list[types.DocumentSymbol]] = {}
    stack: list[tuple[int, types.DocumentSymbol]] = []
    for heading, end in zip(headings, ends, strict=True):
        full = types.Range(types.Position(heading.line - 1, 0), index.position(end, len(index.line(end))))
        kids: list[types.DocumentSymbol] = []
        symbol = types.DocumentSymbol(
            name=heading.text or "(empty heading)",
            kind=types.SymbolKind.String,
            range=full,
            selection_range=index.whole_line(heading.line - 1),
            detail="#" * heading.level,
            children=kids,
        )
        children[id(symbol)] = kids
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        (children[id(stack[-1][1])] if stack else roots).append(symbol)
        stack.append((heading.level, symbol))
    return roots


def workspace_symbols(
    ctx: Context, query: str, search: Callable[[str], Sequence[str]] | None = None
) -> list[types.SymbolInformation]:
    """Memories whose name starts with or contains the query first (typing a name), then what
    `search` (brain search: words and meaning, ids best first) finds in their text."""
    needle = query.strip().casefold()
    found = ctx.store.list_memories(MemoryFilter(text=needle or None))

    def rank(memory: MemoryNode) -> tuple[int, str]:
        name = memory.name.casefold()
        if name.startswith(needle):
            return (0, name)
        return (1, name) if needle in name else (2, name)

    found.sort(key=rank)
    if search is not None and needle and len(found) < SYMBOL_LIMIT:
        seen = {m.id for m in found}
        extra = [i for i in search(query) if i not in seen]
        found += [n for n in ctx.store.get_nodes(extra).values() if isinstance(n, MemoryNode)]
        order = {node_id: rank for rank, node_id in enumerate(extra)}
        found.sort(key=lambda m: (0, *rank(m)) if m.id in seen else (1, order[m.id], ""))
    start = types.Position(0, 0)
    return [
        types.SymbolInformation(
            name=memory.name,
            kind=types.SymbolKind.File,
            location=types.Location(ctx.uri(memory.path), types.Range(start, start)),
            container_name=f"{memory.scope} · {clip(memory.description, 80)}",
        )
        for memory in found[:SYMBOL_LIMIT]
    ]
