"""The domain model: plain, immutable data with no I/O (design.md sections 2-5)."""

from __future__ import annotations

import enum
import functools
import sys
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, NamedTuple, TypeVar, Union, cast, overload

JSONValue = Union[str, int, float, bool, None, list["JSONValue"], dict[str, "JSONValue"]]  # noqa: UP007

MEMORY_TYPES: tuple[str, ...] = ("user", "feedback", "project", "reference")
SHARED_SCOPE = "shared"
DESCRIPTION_CLIP = 120


class Kind(enum.Enum):
    """Kinds of graph nodes; the value is the id prefix and the Neo4j label."""

    MEMORY = "memory"
    AGENT = "agent"
    WORKFLOW = "workflow"
    CHAT = "chat"
    WORK_ITEM = "work-item"
    UNRESOLVED = "unresolved"
    # Layouts (design.md section 8): notes of other kinds, and plain files.
    DAILY_NOTE = "daily-note"
    SKILL = "skill"
    TOOL = "tool"
    FILE = "file"

    # Hashed by identity, in C: a member equals only itself, and Enum's own hash is Python
    # code (a first sync hashes kinds and statuses some 100,000 times, in sets and maps).
    __hash__ = object.__hash__

    @property
    def label(self) -> str:
        return _LABELS[self]

    @classmethod
    def of_id(cls, node_id: str) -> Kind:
        prefix = node_id.split(":", 1)[0]
        return cls(prefix)


_LABELS = {
    Kind.MEMORY: "Memory",
    Kind.AGENT: "Agent",
    Kind.WORKFLOW: "Workflow",
    Kind.CHAT: "Chat",
    Kind.WORK_ITEM: "WorkItem",
    Kind.UNRESOLVED: "Unresolved",
    Kind.DAILY_NOTE: "DailyNote",
    Kind.SKILL: "Skill",
    Kind.TOOL: "Tool",
    Kind.FILE: "File",
}
ENTITY_KINDS: tuple[Kind, ...] = (Kind.WORKFLOW, Kind.CHAT, Kind.WORK_ITEM)
#: Kinds held by a `MemoryNode`: markdown notes with a body, headings, links and anchors.
#: They share all of the note machinery; only their kind (id prefix, label, GraphQL type) differs.
NOTE_KINDS: tuple[Kind, ...] = (Kind.MEMORY, Kind.DAILY_NOTE, Kind.SKILL, Kind.TOOL)
_UNOWNED_NOTE_KINDS = (Kind.SKILL, Kind.TOOL)


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"  # advice (`brain check --mentions`): shown, never fails a check


class LinkStatus(enum.Enum):
    RESOLVED = "resolved"
    BROKEN = "broken"
    AMBIGUOUS = "ambiguous"
    MISSING_ANCHOR = "missing-anchor"

    __hash__ = object.__hash__  # as Kind's


@functools.lru_cache(maxsize=1 << 16)
def name_key(text: str) -> str:
    """The lookup key of a name: NFC, case-folded, trimmed, a trailing `.md` ignored."""
    key = unicodedata.normalize("NFC", text.strip()).casefold()
    if key.endswith(".md"):
        key = key[:-3].rstrip()
    return unicodedata.normalize("NFC", key)


def memory_id(scope: str, name: str) -> str:
    return f"memory:{scope}/{name}"


def note_id(kind: Kind, scope: str, name: str) -> str:
    """The id of a note of any note kind: `<kind>:<scope>/<name>` (`memory_id` for memories)."""
    # `_value_`, not `value`: an enum's `value` is a Python property (a third of this call).
    return f"{kind._value_}:{scope}/{name}"


def file_id(scope: str, name: str) -> str:
    return f"file:{scope}/{name}"


def leaf_key(name: str) -> str:
    """The name key a bare link matches: of the last path segment (`drafts/plan` -> `plan`)."""
    return name_key(name.rsplit("/", 1)[-1])


def is_note_id(node_id: str) -> bool:
    return node_id.split(":", 1)[0] in _NOTE_PREFIXES


_NOTE_PREFIXES = frozenset(k.value for k in NOTE_KINDS)


def owner_of_id(node_id: str) -> str | None:
    """The agent that REMEMBERS a note, from its id alone (as MemoryNode.owner says it)."""
    if not is_note_id(node_id):
        return None
    kind, rest = node_id.split(":", 1)
    scope = rest.split("/", 1)[0]
    if scope == SHARED_SCOPE or ":" in scope or kind in (k.value for k in _UNOWNED_NOTE_KINDS):
        return None
    return scope


def agent_id(name: str) -> str:
    return f"agent:{name}"


def entity_id(kind: Kind, ident: str) -> str:
    return f"{kind.value}:{ident}"


def unresolved_id(target_key: str) -> str:
    return f"unresolved:{target_key}"


def clip_description(text: str, limit: int = DESCRIPTION_CLIP) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True, slots=True)
class Position:
    """A place in a note: 1-based line, 1-based column counted in characters (code points)."""

    line: int
    column: int


_Tuple = TypeVar("_Tuple", bound=tuple[Any, ...])


def made_in_c(cls: type[_Tuple]) -> Callable[[Iterable[Any]], _Tuple]:
    """A named tuple's maker from its values, in one C call (`tuple.__new__`): its
    own `__new__` is Python code, and a first sync of 10,000 notes builds 40,000 headings and
    55,000 links twice over."""
    return cast(Callable[[Iterable[Any]], _Tuple], functools.partial(tuple.__new__, cls))


class Heading(NamedTuple):
    """A heading as shown (`text`) and, where that differs, as written (`source`).

    `## The `date` *field*` shows as `The date field` and is written `The `date` *field*`:
    Obsidian links match either (see brain.parse.spans.anchors). A named tuple: a first ingest builds four
    a note, and one is built in one C call from the native scanner's values (a frozen
    dataclass set its four fields one by one: 0.5 us a heading).
    """

    text: str
    level: int
    line: int
    source: str = ""

    @property
    def written(self) -> str:
        return self.source or self.text


new_heading = made_in_c(Heading)


class Headings(Sequence[Heading]):
    """A memory's headings as the store holds them: one flat tuple (text, level, line, source,
    text, ...), read as a sequence of `Heading`, each built when read.

    At 100,000 notes of four headings a `Heading` object each and a tuple to hold them were
    27 MB (their texts apart); this holder and its flat tuple are 21 MB, the tuple is not
    tracked by the collector, and a parse helper sends one object a note instead of five."""

    __slots__ = ("flat",)

    def __init__(self, headings: Iterable[Heading] = ()) -> None:
        self.flat: tuple[str | int, ...] = tuple(chain.from_iterable(headings))  # each its values

    @staticmethod
    def of_flat(flat: tuple[str | int, ...]) -> Headings:
        if len(flat) % 4:
            raise ValueError("flat headings of the wrong length")
        headings = Headings.__new__(Headings)  # not __init__: the flat tuple is given
        headings.flat = flat
        return headings

    def __reduce__(self) -> tuple[object, tuple[tuple[str | int, ...]]]:
        return Headings.of_flat, (self.flat,)

    def __len__(self) -> int:
        return len(self.flat) >> 2

    def __iter__(self) -> Iterator[Heading]:
        flat = self.flat
        return map(Heading, flat[0::4], flat[1::4], flat[2::4], flat[3::4])  # type: ignore[arg-type]

    @overload
    def __getitem__(self, index: int) -> Heading: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Heading, ...]: ...
    def __getitem__(self, index: int | slice) -> Heading | tuple[Heading, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        at = range(len(self))[index] << 2  # IndexError past either end, as a tuple's
        return Heading(*self.flat[at : at + 4])  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Headings):
            return self.flat == other.flat
        if isinstance(other, tuple | list):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))  # equal to the tuple of its headings, so hashed as that

    def __repr__(self) -> str:
        return f"Headings({list(self)!r})"


NO_HEADINGS = Headings()


@dataclass(frozen=True, slots=True)
class Block:
    """A block anchor: a paragraph, list item or quote that ends with `^id`.

    `line`/`column` are where `^id` is written (1-based; the `^`); `start_line` is the first
    line of the block it names (a `^id` alone on a line names the block before it).
    """

    id: str
    line: int
    column: int
    start_line: int


@dataclass(frozen=True, slots=True)
class Anchors:
    """What `#...` in a link can name in one memory: its headings and its block ids."""

    headings: Sequence[Heading] = ()
    blocks: tuple[Block, ...] = ()


class WikiLink(NamedTuple):
    """One `[[...]]` as written: raw text and exact position of its first `[` (or `!`).

    A named tuple, as `Link` is: a first sync builds one for every link, in a parse helper,
    and builds it again from the pickle in the ingesting process."""

    raw: str
    target: str
    label: str | None
    anchor: str | None
    embed: bool
    line: int
    column: int

    @property
    def length(self) -> int:
        return len(self.raw)


new_wikilink = made_in_c(WikiLink)


@dataclass(frozen=True, slots=True)
class Problem:
    """One finding; the same record feeds `brain check`, the API and the language server."""

    code: str
    severity: Severity
    path: str
    message: str
    line: int | None = None
    column: int | None = None
    length: int | None = None
    target: str | None = None
    candidates: tuple[str, ...] = ()
    fix: str | None = None

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line or 0, self.column or 0, self.code)


@dataclass(frozen=True, slots=True)
class MemoryNode:
    scope: str
    name: str
    path: str
    description: str
    type: str | None
    hash: str
    size: int
    modified_at: float
    body: str
    headings: Sequence[Heading] = ()  # `Headings` once parsed or stored
    properties: Mapping[str, JSONValue] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()
    blocks: tuple[Block, ...] = ()
    # Layouts: a daily note, skill or tool is a note of another kind (NOTE_KINDS); `name`
    # may hold `/` (space: the path under the agent's memory root, without `.md`).
    note_kind: Kind = Kind.MEMORY
    triggers: tuple[str, ...] = ()  # skills and tools (lab): when to use them
    # Worked out once, interned (one copy with the store's indexes and the note's links): a
    # first sync asks each note for its id a dozen times, and building it took 0.75 us.
    id: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", sys.intern(note_id(self.note_kind, self.scope, self.name)))

    @property
    def anchors(self) -> Anchors:
        return Anchors(self.headings, self.blocks)

    @property
    def kind(self) -> Kind:
        return self.note_kind

    @property
    def owner(self) -> str | None:
        """The agent that REMEMBERS it: none for shared notes, project notes, skills and tools."""
        if self.scope == SHARED_SCOPE or ":" in self.scope or self.note_kind in _UNOWNED_NOTE_KINDS:
            return None
        return self.scope

    @property
    def date(self) -> str | None:
        """A daily note's day, `YYYY-MM-DD` (its name)."""
        return self.name if self.note_kind is Kind.DAILY_NOTE else None

    @property
    def virtual_path(self) -> str:
        if self.scope == SHARED_SCOPE:
            return f"/memories/shared/{self.name}.md"
        return f"/memories/{self.name}.md"


@dataclass(frozen=True, slots=True)
class AgentNode:
    name: str
    description: str
    memory_enabled: bool
    memory_off: bool
    path: str | None

    @property
    def id(self) -> str:
        return agent_id(self.name)

    @property
    def kind(self) -> Kind:
        return Kind.AGENT


@dataclass(frozen=True, slots=True)
class EntityNode:
    """A workflow, chat or work item of the platform."""

    entity_kind: Kind
    ident: str
    title: str
    path: str | None

    @property
    def id(self) -> str:
        return entity_id(self.entity_kind, self.ident)

    @property
    def kind(self) -> Kind:
        return self.entity_kind


@dataclass(frozen=True, slots=True)
class FileNode:
    """A file that is not a note (space: any non-markdown file of an agent's memory tree).

    `name` is its path under the agent's memory root (`data/report.csv`); `path` is relative
    to the workspace. `binary`: it holds a NUL byte or is not UTF-8 (read as metadata only).
    """

    scope: str
    name: str
    path: str
    size: int
    media_type: str
    binary: bool
    hash: str
    modified_at: float

    @property
    def id(self) -> str:
        return file_id(self.scope, self.name)

    @property
    def kind(self) -> Kind:
        return Kind.FILE


@dataclass(frozen=True, slots=True)
class UnresolvedNode:
    target: str

    @property
    def id(self) -> str:
        return unresolved_id(self.target)

    @property
    def kind(self) -> Kind:
        return Kind.UNRESOLVED


Node = MemoryNode | AgentNode | EntityNode | FileNode | UnresolvedNode


class Link(NamedTuple):
    """A stored LINKS_TO edge: the wikilink as written plus where it resolved to.

    `ordinal` is the link's index among its source's links, so (source, ordinal) names it.
    `key` is the name key of the last target segment: a new or deleted node of that name
    is exactly what can change this link's resolution.

    A named tuple, not a frozen dataclass: a first sync builds one for every link, and a
    tuple is built in one C call (0.3 µs against 1.4 for the dataclass's 13 setattrs).
    """

    source: str
    ordinal: int
    target_id: str
    status: LinkStatus
    raw: str
    target: str
    key: str
    label: str | None
    anchor: str | None
    embed: bool
    line: int
    column: int
    candidates: tuple[str, ...] = ()

    @property
    def resolved(self) -> bool:
        return self.status in (LinkStatus.RESOLVED, LinkStatus.MISSING_ANCHOR)


new_link = made_in_c(Link)


@dataclass(frozen=True, slots=True)
class Edge:
    """A generic edge for graph views: REMEMBERS or LINKS_TO."""

    type: str
    source: str
    target: str
    link: Link | None = None


@dataclass(frozen=True, slots=True)
class Stats:
    agents: int
    memories: int
    links: int
    broken: int
    ambiguous: int
    missing_anchor: int
    unresolved: int
    workflows: int
    chats: int
    work_items: int


def sorted_problems(problems: Sequence[Problem]) -> list[Problem]:
    return sorted(problems, key=Problem.sort_key)
