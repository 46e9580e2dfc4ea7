"""Completion: link targets inside `[[`, headings after `[[name#`, frontmatter keys and types.

Targets are ranked in resolution order (the note's scope, shared, workflows, chats, work
items) and each inserts the shortest text that the resolver sends to exactly that node: a
bare name where it is unambiguous, else `shared/name` or `workflow:id`. The list is cut to
`LIMIT` and marked incomplete, so the client asks again as the user types.
"""

from __future__ import annotations

import heapq
import itertools
import unicodedata

from lsprotocol import types

from brain.lsp.capabilities import ClientFeatures
from brain.lsp.edits.linktext import prefix_of
from brain.lsp.features.anchor_items import anchor_choices
from brain.lsp.features.catalog import Catalog, reach_of
from brain.lsp.features.cursor import (
    AnchorTyping,
    KeyTyping,
    LinkTyping,
    Typing,
    split_typed,
)
from brain.lsp.features.cursor import frontmatter_keys as present_keys
from brain.lsp.features.describe import (
    KEY_MEANINGS,
    TYPE_MEANINGS,
    age_text,
    clip,
    code,
    description_of,
    kind_line,
    path_kind_line,
)
from brain.lsp.features.graph import (
    Linkable,
    Lookup,
    NameSource,
    NoteIdentity,
    node_name,
    probe,
    resolves_to,
)
from brain.lsp.features.positions import LineIndex
from brain.lsp.startup.early import EarlyNames
from brain.model import MEMORY_TYPES, AgentNode, Anchors, EntityNode, Kind, LinkStatus, MemoryNode
from brain.resolve import KIND_PREFIXES
from brain.store.base import GraphStore

LIMIT = 100
_ITEM_KINDS = {
    Kind.MEMORY: types.CompletionItemKind.File,
    Kind.WORKFLOW: types.CompletionItemKind.Function,
    Kind.CHAT: types.CompletionItemKind.Event,
    Kind.WORK_ITEM: types.CompletionItemKind.Class,
    Kind.AGENT: types.CompletionItemKind.Interface,
}


class Editing:
    """Where a completion's text goes: the span it replaces, and the cursor inside it."""

    def __init__(
        self, index: LineIndex, line: int, start: int, cursor: int, end: int, features: ClientFeatures,
        resolve_uri: str | None = None,
    ) -> None:
        self.features = features
        self.resolve_uri = resolve_uri
        # The same two ranges serve every item of the list: convert them once.
        self.insert = index.span(line, start, cursor)
        self.replace = index.span(line, start, end)

    def edit(self, new_text: str) -> types.TextEdit | types.InsertReplaceEdit:
        if self.features.insert_replace:
            return types.InsertReplaceEdit(new_text, self.insert, self.replace)
        return types.TextEdit(self.replace, new_text)


def match_rank(name: str, typed: str) -> int | None:
    """0 prefix, 1 at a word start, 2 inside, 3 as a subsequence; None: no match. Both casefolded."""
    if not typed or name.startswith(typed):
        return 0
    at = name.find(typed)
    if at > 0:
        return 1 if not name[at - 1].isalnum() else 2
    rest = iter(name)
    return 3 if all(char in rest for char in typed) else None


def fold(text: str) -> str:
    return unicodedata.normalize("NFC", text.strip()).casefold()


def complete(
    typing: Typing,
    source: NoteIdentity,
    store: GraphStore,
    catalog: Catalog,
    index: LineIndex,
    cursor: int,
    features: ClientFeatures,
    own_anchors: Anchors,
    now: float,
    resolve_uri: str | None = None,
) -> types.CompletionList | None:
    """The completion list for what is being typed at `cursor` (a code point column).

    `resolve_uri` (the document's) lets items leave their documentation to
    `completionItem/resolve`, when the client supports that.
    """
    editing = Editing(index, typing.line, typing.start, cursor, typing.end, features, resolve_uri)
    if isinstance(typing, LinkTyping):
        return link_targets(typing, source, store, catalog, editing, now)
    if isinstance(typing, AnchorTyping):
        return anchors(typing, source, store, editing, own_anchors)
    return other_items(typing, index, editing)


def other_items(typing: Typing, index: LineIndex, editing: Editing) -> types.CompletionList:
    """Frontmatter keys, or a type's values: the same with or without a graph."""
    if isinstance(typing, KeyTyping):
        others = [text for number, text in enumerate(index.lines) if number != typing.line]
        return frontmatter_keys(editing, present=present_keys(others))
    return type_values(editing)


def complete_early(
    typing: Typing,
    source: NoteIdentity,
    early: EarlyNames | None,
    index: LineIndex,
    cursor: int,
    features: ClientFeatures,
    own_anchors: Anchors,
    now: float,
    resolve_uri: str | None = None,
) -> types.CompletionList | None:
    """`complete` while the first index is being built: link targets from the names the walk
    found (none yet: an empty list the client asks again for); another note's headings wait
    for the index; keys, types and this note's own headings need no graph (nor the store,
    which the indexing worker builds after this first answer)."""
    editing = Editing(index, typing.line, typing.start, cursor, typing.end, features, resolve_uri)
    if isinstance(typing, LinkTyping):
        if early is None:
            return types.CompletionList(is_incomplete=True, items=[])
        return link_targets(typing, source, early, early.catalog, editing, now, early=True)
    if isinstance(typing, AnchorTyping):
        if typing.target:
            return types.CompletionList(is_incomplete=True, items=[])
        return anchor_items(typing, own_anchors, "this note", editing)
    return other_items(typing, index, editing)


def link_targets(
    typing: LinkTyping, source: NoteIdentity, store: NameSource, catalog: Catalog, editing: Editing,
    now: float, early: bool = False,
) -> types.CompletionList:
    """Link targets for what is typed after `[[`. `early`: the names of a walk (brain/lsp/startup/early.py)
    before indexing ends: the same targets, described only by what their paths say."""
    prefix, scope, typed_name = split_typed(typing.typed)
    kinds: tuple[Kind, ...] | None = None
    if prefix:
        kinds = tuple(kind for text, kind in KIND_PREFIXES if text == prefix.casefold())
    typed = fold(typed_name)
    groups = catalog.groups(source.scope, kinds, scope, reach_of(source.rules, source.scope))
    # A note never links to itself by name (its own headings come after `[[#`): leave it out.
    own_id = source.id
    if not typed:
        # Everything matches: the groups are in tier order and sorted by name already.
        everything = itertools.chain.from_iterable(g for _, g in groups)
        shown = list(itertools.islice((e for e in everything if e.node.id != own_id), LIMIT + 1))
        more = len(shown) > LIMIT
        del shown[LIMIT:]
    else:
        ranked: list[tuple[bool, int, int, str, int, int]] = []
        for number, (tier, group) in enumerate(groups):
            for position, candidate in enumerate(group):
                if candidate.node.id == own_id:
                    continue
                rank = match_rank(candidate.key, typed)
                if rank is not None:
                    ranked.append((rank > 1, tier, rank, candidate.key, number, position))
        shown = [groups[best[4]][1][best[5]] for best in heapq.nsmallest(LIMIT, ranked)]
        more = True  # narrowed here: ask again as the user types
    lookup = Lookup(store)
    lookup.prefetch(entry.key for entry in shown)
    describe = store.description if isinstance(store, EarlyNames) else description_of
    items = [
        _target_item(entry.node, position, _insert_text(entry.node, source, prefix, scope, lookup),
                     typing.closed, editing, now, describe(entry.node), early)
        for position, entry in enumerate(shown)
    ]
    # Early: ask again as the user types, so the descriptions arrive once indexing ends.
    return types.CompletionList(is_incomplete=more or early, items=items)


def _insert_text(
    node: Linkable, source: NoteIdentity, prefix: str, scope: str | None, lookup: Lookup
) -> str:
    """What to write between `[[` and `]]` so the link lands on `node` from `source`."""
    name = node_name(node)
    if scope is not None:
        return f"{prefix}{scope}/{name}"
    if prefix:
        return f"{prefix}{name}"
    if isinstance(node, AgentNode):
        return f"{prefix_of(Kind.AGENT)}{name}"
    if isinstance(node, MemoryNode):
        if node.scope == source.scope or resolves_to(lookup, name, source, node.id):
            return name
        return f"{node.scope}/{name}"
    if resolves_to(lookup, name, source, node.id):
        return name
    return f"{prefix_of(node.entity_kind)}{name}"


def _target_item(
    node: Linkable, position: int, target: str, closed: bool, editing: Editing, now: float,
    description: str, early: bool = False,
) -> types.CompletionItem:
    features = editing.features
    # A client that resolves items lazily gets the documentation on demand (less to send
    # on every keystroke); `data` says which node to describe.
    lazy = features.resolve_documentation and editing.resolve_uri is not None
    if early:
        documentation = None if lazy else early_documentation(node, target, features)
    else:
        documentation = None if lazy else target_documentation(node, target, features, now)
    return types.CompletionItem(
        label=target,
        kind=_ITEM_KINDS.get(node.kind, types.CompletionItemKind.Reference),
        detail=path_kind_line(node) if early else kind_line(node),
        label_details=(
            types.CompletionItemLabelDetails(description=clip(description, 60))
            if features.label_details and description else None
        ),
        documentation=documentation,
        sort_text=f"{position:05d}",
        text_edit=editing.edit(target if closed else target + "]]"),
        data={"uri": editing.resolve_uri, "id": node.id} if lazy else None,
    )


def target_documentation(
    node: Linkable, target: str, features: ClientFeatures, now: float
) -> str | types.MarkupContent:
    """Kind, type, age, description and path of a completion's target."""
    first = f"**{target}** · {kind_line(node)}"
    if isinstance(node, MemoryNode):
        first += f" · {age_text(node.modified_at, now)}"
    lines = [first]
    description = description_of(node)
    if description:
        lines.append(description)
    if node.path:
        lines.append(code(node.path) if features.markdown else node.path)
    text = "\n\n".join(lines)
    if features.markdown:
        return types.MarkupContent(types.MarkupKind.Markdown, text)
    return text.replace("**", "")


def early_documentation(node: Linkable, target: str, features: ClientFeatures) -> str | types.MarkupContent:
    """What a path tells of a target, before indexing reads its description."""
    text = f"**{target}** · {path_kind_line(node)}"
    if node.path:
        text += "\n\n" + (code(node.path) if features.markdown else node.path)
    if features.markdown:
        return types.MarkupContent(types.MarkupKind.Markdown, text)
    return text.replace("**", "")


def resolve_item(
    item: types.CompletionItem, store: GraphStore, features: ClientFeatures, now: float,
    early: EarlyNames | None = None,
) -> types.CompletionItem:
    """Fill in the documentation of an item sent without it (`early`: the walk's names, while
    the first index is being built)."""
    data = item.data if isinstance(item.data, dict) else {}
    node_id = data.get("id")
    if isinstance(node_id, str) and item.documentation is None:
        node = store.get_nodes([node_id]).get(node_id)
        if isinstance(node, MemoryNode | EntityNode | AgentNode):
            item.documentation = target_documentation(node, item.label, features, now)
        elif early is not None and (bare := early.node(node_id)) is not None:
            item.documentation = early_documentation(bare, item.label, features)
    return item


def anchors(
    typing: AnchorTyping, source: NoteIdentity, store: GraphStore, editing: Editing,
    own_anchors: Anchors,
) -> types.CompletionList | None:
    if typing.target:
        resolution = Lookup(store).resolve(probe(typing.target), source)
        if resolution.status not in (LinkStatus.RESOLVED, LinkStatus.MISSING_ANCHOR):
            return None
        found = store.get_nodes([resolution.target_id]).get(resolution.target_id)
        if not isinstance(found, MemoryNode):
            return None
        found_anchors, owner = found.anchors, found.id.split(":", 1)[1]
    else:
        found_anchors, owner = own_anchors, "this note"
    return anchor_items(typing, found_anchors, owner, editing)


def anchor_items(
    typing: AnchorTyping, found_anchors: Anchors, owner: str, editing: Editing
) -> types.CompletionList:
    typed_part, choices = anchor_choices(typing.typed, found_anchors, owner)
    typed = fold(typed_part)
    items: list[types.CompletionItem] = []
    for choice in choices:
        if match_rank(fold(choice.key), typed) is None:
            continue
        items.append(
            types.CompletionItem(
                label=choice.label,
                kind=types.CompletionItemKind.Reference,
                detail=choice.detail,
                sort_text=f"{len(items):05d}",
                text_edit=editing.edit(choice.insert if typing.closed else choice.insert + "]]"),
            )
        )
    return types.CompletionList(is_incomplete=False, items=items)


def frontmatter_keys(editing: Editing, present: set[str]) -> types.CompletionList:
    items = [
        types.CompletionItem(
            label=key,
            kind=types.CompletionItemKind.Property,
            detail=meaning,
            sort_text=f"{position}",
            text_edit=editing.edit(f"{key}: "),
        )
        for position, (key, meaning) in enumerate(KEY_MEANINGS.items())
        if key not in present
    ]
    return types.CompletionList(is_incomplete=False, items=items)


def type_values(editing: Editing) -> types.CompletionList:
    items = [
        types.CompletionItem(
            label=value,
            kind=types.CompletionItemKind.EnumMember,
            detail=TYPE_MEANINGS[value],
            sort_text=f"{position}",
            text_edit=editing.edit(value),
        )
        for position, value in enumerate(MEMORY_TYPES)
    ]
    return types.CompletionList(is_incomplete=False, items=items)
