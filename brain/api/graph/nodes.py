"""The graph's nodes as GraphQL types (design.md section 5).

Each type is built from the model's frozen node (kept as a private `record`) with plain
fields for what the node holds; what needs another store call (owners, links, counts)
is an async resolver that goes through the request's DataLoaders.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated

import strawberry
from strawberry.scalars import JSON

from brain import model
from brain.api.graph.paging.links import PAGE, link_after, link_page, problem_page
from brain.api.graph.paging.lists import keyed_cursor, keyed_page
from brain.api.graph.problems import Problem
from brain.api.graph.selection import asks_below
from brain.api.graphql.context import Info
from brain.api.graphql.enums import MemoryType
from brain.api.graphql.fields import field
from brain.api.graphql.permissions import ADMIN_ONLY
from brain.service.brain import Brain
from brain.store.base import MemoryFilter, link_problem

if TYPE_CHECKING:
    from brain.api.graph.connections import MemoryConnection
    from brain.api.graph.links import Link
    from brain.api.graph.nearby import RelatedNote, UnlinkedMention


@strawberry.interface(
    description=(
        "Anything in the graph. Ids are stable strings: `memory:<scope>/<name>`, `agent:<name>`, "
        "`workflow:<id>`, `chat:<id>`, `work-item:<id>`, `unresolved:<target>`."
    )
)
class Node:
    id: strawberry.ID


async def _links_into(
    info: Info, node_id: str, first: int, after: str | None, moment: Brain | None = None,
) -> list[Link]:
    from brain.api.graph.links import Link

    cursor = None if after is None else link_after(after)
    loaders = info.context.loaders_of(moment)
    found = await loaders.backlinks.load((node_id, max(0, first), cursor))
    if not (found and asks_below(info, "source")):
        return [Link.of(link, moment) for link in found]
    # Every source at once (one load, batched with the other lists' of this level), handed to
    # each link, so that `Link.source` answers without an await per link (brain/api/graph/selection.py).
    sources = await loaders.nodes.load_many([link.source for link in found])
    return [Link.of(link, moment, source) for link, source in zip(found, sources, strict=True)]


async def _links_into_count(info: Info, node_id: str, moment: Brain | None = None) -> int:
    return await info.context.loaders_of(moment).backlink_counts.load(node_id)




@strawberry.type
class Heading:
    text: str = strawberry.field(description="As shown: without inline code marks or emphasis.")
    level: int
    line: int
    written: str = strawberry.field(
        description="As written in the markdown (`` The `date` field ``); links may use either form."
    )
    cursor: str = strawberry.field(description="Pass as `after` for the headings after this one.")


@strawberry.type(description="A block id: a paragraph, list item or quote that ends with `^id`.")
class Block:
    id: str = strawberry.field(description="The id without `^`; `[[note#^id]]` links to it.")
    line: int = strawberry.field(description="The 1-based line where `^id` is written.")
    start_line: int = strawberry.field(description="The 1-based first line of the block it names.")
    cursor: str = strawberry.field(description="Pass as `after` for the block ids after this one.")


def _heading_key(heading: model.Heading) -> tuple[int, str]:
    return (heading.line, heading.text)


def _block_key(block: model.Block) -> tuple[int, str]:
    return (block.line, block.id)


@strawberry.type(description="A note an agent (or every agent, in `shared`) remembers.")
class Memory(Node):
    scope: str = strawberry.field(description="`shared` or the name of the agent whose folder holds it.")
    name: str = strawberry.field(description="The file stem; unique within its scope.")
    path: str = strawberry.field(description="Relative to the workspace root, e.g. `memory/shared/x.md`.")
    virtual_path: str = strawberry.field(description="How its agent sees it: `/memories/x.md`.")
    description: str
    type: MemoryType | None
    size: int = strawberry.field(description="Bytes on disk.")
    hash: str = strawberry.field(description="SHA-256 of the file's bytes.")
    record: strawberry.Private[model.MemoryNode]
    # The graph of the moment an `asOf:` query asked for (brain/api/graph/asof/moments.py); None: now.
    moment: strawberry.Private[Brain | None] = None

    # Computed only when asked: a page of a hundred memories rarely wants them. Paged: a 1 MiB
    # note may hold tens of thousands (brain/api/graph/paging/lists.py).
    @field(description="Its headings, in order; a page of `first` after `after` (a heading's `cursor`).")
    def headings(self, first: int = PAGE, after: str | None = None) -> list[Heading]:
        page = keyed_page(self.record.headings, _heading_key, "heading", first, after)
        return [
            Heading(text=h.text, level=h.level, line=h.line, written=h.written,
                    cursor=keyed_cursor("heading", _heading_key(h)))
            for h in page
        ]

    @field(description="How many headings it has: `headings` pages through them.")
    def heading_count(self) -> int:
        return len(self.record.headings)

    @field(description="Its block ids, in order: what `[[note#^id]]` can name; a page of `first` "
           "after `after`.")
    def blocks(self, first: int = PAGE, after: str | None = None) -> list[Block]:
        page = keyed_page(self.record.blocks, _block_key, "block", first, after)
        return [
            Block(id=b.id, line=b.line, start_line=b.start_line, cursor=keyed_cursor("block", _block_key(b)))
            for b in page
        ]

    @field(description="How many block ids it has: `blocks` pages through them.")
    def block_count(self) -> int:
        return len(self.record.blocks)

    @strawberry.field
    def modified_at(self) -> datetime:
        return datetime.fromtimestamp(self.record.modified_at, tz=UTC)

    @field(description="Frontmatter keys other than description and type.")
    def properties(self) -> JSON:
        return JSON(dict(self.record.properties))

    @classmethod
    def of(cls, node: model.MemoryNode, moment: Brain | None = None) -> Memory:
        return cls(
            id=strawberry.ID(node.id),
            scope=node.scope,
            name=node.name,
            path=node.path,
            virtual_path=node.virtual_path,
            description=node.description,
            type=MemoryType.of(node.type),
            size=node.size,
            hash=node.hash,
            record=node,
            moment=moment,
        )

    # Read only when asked, a page of notes at once: the nodes a query reaches through links
    # come without bodies (brain/api/graphql/loaders.py), and most queries show none.
    @field(description="The markdown after the frontmatter.")
    async def body(self, info: Info) -> str:
        return await info.context.loaders_of(self.moment).bodies.load(self.id)

    @field(description="Seconds since the file was last modified (as of the query's moment).")
    def age(self) -> int:
        now = time.time() if self.moment is None else float(getattr(self.moment, "at", time.time()))
        return max(0, int(now - self.record.modified_at))

    @field(description="The agent whose folder holds it; null for shared memories.")
    async def owner(self, info: Info) -> Agent | None:
        owner = self.record.owner
        if owner is None:
            return None
        node = await info.context.loaders_of(self.moment).nodes.load(model.agent_id(owner))
        return Agent.of(node, self.moment) if isinstance(node, model.AgentNode) else None

    @field(description="The wikilinks written in this note, in order; a page of `first` after `after`.")
    async def links(
        self, info: Info, first: int = PAGE, after: str | None = None
    ) -> list[Annotated[Link, strawberry.lazy("brain.api.graph.links")]]:
        from brain.api.graph.links import Link

        found = await info.context.loaders_of(self.moment).links_from.load(self.id)
        return [Link.of(link, self.moment) for link in link_page(found, first, after)]

    @field(description="How many wikilinks the note holds in the graph: `links` pages through them.")
    async def link_count(self, info: Info) -> int:
        return len(await info.context.loaders_of(self.moment).links_from.load(self.id))

    @field(description="Links from other notes (and this one) that land here.")
    async def backlinks(
        self, info: Info, first: int = PAGE, after: str | None = None
    ) -> list[Annotated[Link, strawberry.lazy("brain.api.graph.links")]]:
        return await _links_into(info, self.id, first, after, self.moment)

    @field(description="How many links land here: `backlinks` pages through them.")
    async def backlink_count(self, info: Info) -> int:
        return await _links_into_count(info, self.id, self.moment)

    @field(description="This note's problems, its own and its links'; a page of `first` after `after`.")
    async def problems(self, info: Info, first: int = PAGE, after: str | None = None) -> list[Problem]:
        return [Problem.of(p) for p in problem_page(await self._problems(info), first, after)]

    @field(description="How many problems the note has: `problems` pages through them.")
    async def problem_count(self, info: Info) -> int:
        return len(await self._problems(info))

    @field(description=(
        "Text in this note that names a note it can reach (its name, `name:` or `aliases:`; whole "
        "words, never in code or links) without linking it, in order; a page of `first` after `after`."
    ))
    def unlinked_mentions(
        self, info: Info, first: int = PAGE, after: str | None = None
    ) -> list[Annotated[UnlinkedMention, strawberry.lazy("brain.api.graph.nearby")]]:
        from brain.api.graph.nearby import mention_page

        return mention_page(info, self.record, first, after)

    @field(description=(
        "The notes closest in meaning to this one (the search indexes) that it does not link, "
        "among those the caller may see, best first."
    ))
    def related(
        self, info: Info, first: int = 10
    ) -> list[Annotated[RelatedNote, strawberry.lazy("brain.api.graph.nearby")]]:
        from brain.api.graph.nearby import related_page

        return related_page(info, self.record, first)

    async def _problems(self, info: Info) -> list[model.Problem]:
        found = list(self.record.problems)
        for link in await info.context.loaders_of(self.moment).links_from.load(self.id):
            problem = link_problem(self.record.path, link)
            if problem is not None:
                found.append(problem)
        return found


@strawberry.type
class TypeCount:
    type: MemoryType
    count: int


@strawberry.type(description="How many memories a scope holds, by type.")
class MemoryCounts:
    total: int
    untyped: int = strawberry.field(description="Memories without a valid `type`.")
    by_type: list[TypeCount] = strawberry.field(description="Every type, in a fixed order, zeros included.")

    @classmethod
    def of(cls, counts: dict[str | None, int]) -> MemoryCounts:
        by_type = [TypeCount(type=t, count=counts.get(t.value, 0)) for t in MemoryType]
        known = sum(c.count for c in by_type)
        total = sum(counts.values())
        return cls(total=total, untyped=total - known, by_type=by_type)


@strawberry.type(description="An agent: a definition in agents/, a memory folder, or both.")
class Agent(Node):
    name: str
    description: str
    memory_enabled: bool = strawberry.field(description="Its definition sets `memory: true`.")
    memory_off: bool = strawberry.field(
        description="It has a memory folder but cannot remember (no definition, or no `memory: true`)."
    )
    path: str | None = strawberry.field(description="Its definition file, if it has one.")
    record: strawberry.Private[model.AgentNode]
    moment: strawberry.Private[Brain | None] = None  # as Memory.moment

    @classmethod
    def of(cls, node: model.AgentNode, moment: Brain | None = None) -> Agent:
        return cls(
            id=strawberry.ID(node.id),
            name=node.name,
            description=node.description,
            memory_enabled=node.memory_enabled,
            memory_off=node.memory_off,
            path=node.path,
            record=node,
            moment=moment,
        )

    @field(description="Its memories counted by type.", permission_classes=ADMIN_ONLY)
    async def memory_counts(self, info: Info) -> MemoryCounts:
        return MemoryCounts.of(await info.context.loaders_of(self.moment).type_counts.load(self.name))

    @field(description="Its own memories (not the shared ones), by name.", permission_classes=ADMIN_ONLY)
    async def memories(
        self,
        info: Info,
        type: MemoryType | None = None,
        text: str | None = None,
        has_problems: bool | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> Annotated[MemoryConnection, strawberry.lazy("brain.api.graph.connections")]:
        from brain.api.graph.connections import memory_page

        where = MemoryFilter(
            agent=self.name, type=type.value if type else None, text=text, has_problems=has_problems
        )
        return await memory_page(info, where, first, after, self.moment)

    @field(description="Links that name this agent (`[[agent:name]]`).", permission_classes=ADMIN_ONLY)
    async def backlinks(
        self, info: Info, first: int = PAGE, after: str | None = None
    ) -> list[Annotated[Link, strawberry.lazy("brain.api.graph.links")]]:
        return await _links_into(info, self.id, first, after, self.moment)

    @field(description="How many links land here: `backlinks` pages through them.",
           permission_classes=ADMIN_ONLY)
    async def backlink_count(self, info: Info) -> int:
        return await _links_into_count(info, self.id, self.moment)

    @field(description="The `## Your memory` block of its system prompt; null when its memory is off.")
    async def memory_prompt(self, info: Info) -> str | None:
        from brain.api.memory_mutations import memory_prompt

        return await memory_prompt(info, self.name)


@strawberry.interface(description="A workflow, chat or work item of the platform.")
class Entity(Node):
    name: str = strawberry.field(description="Its id within its kind: the file stem.")
    title: str = strawberry.field(description="Its `title` or `name`, else the file stem.")
    path: str | None = strawberry.field(description="Its file, if it came from the workspace.")
    moment: strawberry.Private[Brain | None] = None  # as Memory.moment

    @field(description="Notes that link here.")
    async def backlinks(
        self, info: Info, first: int = PAGE, after: str | None = None
    ) -> list[Annotated[Link, strawberry.lazy("brain.api.graph.links")]]:
        return await _links_into(info, self.id, first, after, self.moment)

    @field(description="How many links land here: `backlinks` pages through them.")
    async def backlink_count(self, info: Info) -> int:
        return await _links_into_count(info, self.id, self.moment)


@strawberry.type
class Workflow(Entity):
    pass


@strawberry.type
class Chat(Entity):
    pass


@strawberry.type
class WorkItem(Entity):
    pass


_ENTITY_TYPES: dict[model.Kind, type[Workflow | Chat | WorkItem]] = {
    model.Kind.WORKFLOW: Workflow,
    model.Kind.CHAT: Chat,
    model.Kind.WORK_ITEM: WorkItem,
}


def entity_of(node: model.EntityNode, moment: Brain | None = None) -> Workflow | Chat | WorkItem:
    cls = _ENTITY_TYPES[node.entity_kind]
    return cls(id=strawberry.ID(node.id), name=node.ident, title=node.title, path=node.path, moment=moment)


@strawberry.type(description="A target no note has yet: links wait here until one appears.")
class Unresolved(Node):
    target: str = strawberry.field(description="The target's name key (case-folded, NFC).")
    moment: strawberry.Private[Brain | None] = None  # as Memory.moment

    @classmethod
    def of(cls, node: model.UnresolvedNode, moment: Brain | None = None) -> Unresolved:
        return cls(id=strawberry.ID(node.id), target=node.target, moment=moment)

    @field(description="The links that ask for it.")
    async def wanted_by(
        self, info: Info, first: int = PAGE, after: str | None = None
    ) -> list[Annotated[Link, strawberry.lazy("brain.api.graph.links")]]:
        return await _links_into(info, self.id, first, after, self.moment)

    @field(description="How many links ask for it: `wantedBy` pages through them.")
    async def wanted_by_count(self, info: Info) -> int:
        return await _links_into_count(info, self.id, self.moment)


# ---------------------------------------------------------------- layouts (design.md 8)


@strawberry.type(description="A daily note (mindlink, lab): one day's raw notes of one agent.")
class DailyNote(Memory):
    @field(description="Its day, `YYYY-MM-DD` (the file name).")
    def date(self) -> str:
        return self.record.date or self.record.name

    @field(description="The agent it belongs to.")
    def agent(self) -> str:
        return self.record.scope


@strawberry.type(description="A skill (lab `skills/<name>/SKILL.md`): a capability and when to use it.")
class Skill(Memory):
    @field(description="The phrases that call for it.")
    def triggers(self) -> list[str]:
        return list(self.record.triggers)


@strawberry.type(description="A tool (lab `tools/<name>/TOOL.md`): a command the agent can invoke.")
class Tool(Memory):
    @field(description="The phrases that call for it.")
    def triggers(self) -> list[str]:
        return list(self.record.triggers)


@strawberry.type(description="A file of an agent's memory tree that is not a note (space).")
class File(Node):
    scope: str = strawberry.field(description="The agent whose memory tree holds it.")
    name: str = strawberry.field(description="Its path under the memory root, e.g. `data/report.csv`.")
    path: str = strawberry.field(description="Relative to the workspace root.")
    size: int = strawberry.field(description="Bytes on disk.")
    media_type: str = strawberry.field(description="E.g. `image/png`, from its first bytes or its extension.")
    binary: bool = strawberry.field(description="It holds a NUL byte or is not UTF-8: read as metadata only.")
    hash: str = strawberry.field(description="SHA-256 of the file's bytes.")
    record: strawberry.Private[model.FileNode]
    moment: strawberry.Private[Brain | None] = None  # as Memory.moment

    @classmethod
    def of(cls, node: model.FileNode, moment: Brain | None = None) -> File:
        return cls(
            id=strawberry.ID(node.id), scope=node.scope, name=node.name, path=node.path,
            size=node.size, media_type=node.media_type, binary=node.binary, hash=node.hash,
            record=node, moment=moment,
        )

    @strawberry.field
    def modified_at(self) -> datetime:
        return datetime.fromtimestamp(self.record.modified_at, tz=UTC)

    @field(description="Notes that link here (`[[data/report.csv]]`, `![[logo.png]]`).")
    async def backlinks(
        self, info: Info, first: int = PAGE, after: str | None = None
    ) -> list[Annotated[Link, strawberry.lazy("brain.api.graph.links")]]:
        return await _links_into(info, self.id, first, after, self.moment)

    @field(description="How many links land here: `backlinks` pages through them.")
    async def backlink_count(self, info: Info) -> int:
        return await _links_into_count(info, self.id, self.moment)


_NOTE_TYPES: dict[model.Kind, type[Memory]] = {
    model.Kind.MEMORY: Memory,
    model.Kind.DAILY_NOTE: DailyNote,
    model.Kind.SKILL: Skill,
    model.Kind.TOOL: Tool,
}

GraphNode = Memory | Agent | Workflow | Chat | WorkItem | Unresolved | File


def note_of(node: model.MemoryNode, moment: Brain | None = None) -> Memory:
    """The GraphQL type of a note of any note kind: Memory, DailyNote, Skill or Tool."""
    return _NOTE_TYPES[node.note_kind].of(node, moment)


def graph_node(node: model.Node, moment: Brain | None = None) -> GraphNode:
    """The GraphQL type of a node; `moment`: the graph of an `asOf:` query it came from."""
    if isinstance(node, model.MemoryNode):
        return note_of(node, moment)
    if isinstance(node, model.AgentNode):
        return Agent.of(node, moment)
    if isinstance(node, model.EntityNode):
        return entity_of(node, moment)
    if isinstance(node, model.FileNode):
        return File.of(node, moment)
    return Unresolved.of(node, moment)
