"""A note's unlinked mentions and related notes as GraphQL types (`Memory.unlinkedMentions`,
`Memory.related`): thin over brain.service.mentions, with the caller's reach.

Mentions page by a cursor that names the mention's position (line, column), as link pages
do (brain/api/graph/paging/links.py): a boundary stays put while the note changes elsewhere.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import strawberry

from brain.api.graph.paging.cursors import decode_cursor, encode_cursor
from brain.api.graphql.context import Info
from brain.api.graphql.errors import UserError
from brain.maintain.finders.mentions import mention_edit
from brain.model import MemoryNode
from brain.parse.mentions import Mention
from brain.search.related import MAX_RELATED
from brain.service.mentions import brain_mentions, note_text, related_to

if TYPE_CHECKING:
    from brain.api.graph.nodes import Memory


@strawberry.type(description="Text in a note that names a note it can reach, without linking it.")
class UnlinkedMention:
    line: int = strawberry.field(description="1-based line in the file.")
    column: int = strawberry.field(description="1-based column, in characters (code points).")
    text: str = strawberry.field(description="The mention as written.")
    target_id: strawberry.ID | None = strawberry.field(description="The note it names; null when ambiguous.")
    candidates: list[strawberry.ID] = strawberry.field(description="When ambiguous: the notes it may name.")
    replacement: str | None = strawberry.field(
        description="The wikilink that links it, keeping the text (`[[x]]` or `[[x|Text]]`)."
    )
    old_str: str | None = strawberry.field(description=(
        "The str_replace that links it (with `newStr`): the mention, or as many whole lines "
        "around it as make it occur once in the note; null when ambiguous."))
    new_str: str | None = strawberry.field(description="What `oldStr` becomes: it with the wikilink.")
    cursor: str

    @classmethod
    def of(cls, m: Mention, text: str) -> UnlinkedMention:
        edit = None if m.replacement is None else mention_edit(text, m)
        return cls(
            line=m.line, column=m.column, text=m.text,
            target_id=None if m.target is None else strawberry.ID(m.target),
            candidates=[strawberry.ID(c) for c in m.candidates], replacement=m.replacement,
            old_str=None if edit is None else edit[0], new_str=None if edit is None else edit[1],
            cursor=encode_cursor("mention", json.dumps([m.line, m.column])),
        )


@strawberry.type(description="A note close in meaning to another that it does not link.")
class RelatedNote:
    score: float = strawberry.field(description="The search's fused score: higher is closer.")
    terms: list[str] = strawberry.field(description="The source's top terms this note holds too.")
    memory: Annotated[Memory, strawberry.lazy("brain.api.graph.nodes")]


def mention_page(info: Info, record: MemoryNode, first: int, after: str | None) -> list[UnlinkedMention]:
    brain = info.context.brain
    found = brain_mentions(brain, record, reach=info.context.loaders.reach,
                           overlays=brain.ingester.overlays)
    if after is not None:
        try:
            line, column = json.loads(decode_cursor("mention", after))
            start = (int(line), int(column))
        except (ValueError, TypeError) as exc:
            raise UserError("`after` is not a cursor of `unlinkedMentions`: pass its `cursor`") from exc
        found = [m for m in found if (m.line, m.column) > start]
    page = found[: max(0, first)]
    text = (note_text(brain.root, record, brain.ingester.overlays) or "") if page else ""
    return [UnlinkedMention.of(m, text) for m in page]


def related_page(info: Info, record: MemoryNode, first: int) -> list[RelatedNote]:
    from brain.api.graph.nodes import Memory

    if not 1 <= first <= MAX_RELATED:
        raise UserError(f"`first` must be from 1 to {MAX_RELATED}, not {first}")
    brain = info.context.brain
    found = related_to(brain.search, brain.root, record, reach=info.context.loaders.reach, first=first,
                       overlays=brain.ingester.overlays)
    nodes = brain.store.get_nodes([r.id for r in found])
    return [
        RelatedNote(score=r.score, terms=list(r.terms), memory=Memory.of(node))
        for r in found if isinstance(node := nodes.get(r.id), MemoryNode)
    ]
