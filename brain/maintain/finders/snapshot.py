"""What the finders look at: the scopes' notes and their links, read once from the graph.

The graph already holds every note's description, type, body, hash, size and age, and every
link's resolution, so a pass over a live server costs no file reads; only the few notes a
finding needs the exact text of (a link fix, a description fallback) are read again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date

from brain import safefs
from brain.model import SHARED_SCOPE, Kind, Link, MemoryNode
from brain.service.brain import Brain
from brain.store.base import MemoryFilter


@dataclass(frozen=True, slots=True)
class MaintenanceLayout:
    """What a layout tells maintenance. `daily_note` dates a note that is a daily note.

    latchai (seeds/000) has no daily notes, so its `daily_note` is None and the
    expired-daily-note finder finds nothing there. Layouts with daily notes (mindlink's
    `memory/YYYY-MM-DD.md`, lab's daily logs) register one here when they arrive.
    """

    name: str
    daily_note: Callable[[MemoryNode], date | None] | None = None
    retain_days: int = 30
    #: The notes that carry a frontmatter `description` and `type` (weak-description,
    #: missing-type look only at these): every note in latchai.
    typed: Callable[[MemoryNode], bool] = lambda memory: True
    #: The layout's own verbs (brain.tool.layouts.verbs) that proposals are calls of; None: the
    #: memory tool's commands.
    verbs: str | None = None


def daily_note_day(memory: MemoryNode) -> date | None:
    """The day of a DailyNote node (its name, `YYYY-MM-DD`); None for every other note."""
    if memory.note_kind is not Kind.DAILY_NOTE:
        return None
    try:
        return date.fromisoformat(memory.name)
    except ValueError:
        return None


LAYOUTS: dict[str, MaintenanceLayout] = {
    "latchai": MaintenanceLayout("latchai"),
    # seeds/003: idle maintain cleans expired daily notes (`daily_note_retain_days`).
    # Its entries carry `name`, `description` and `type`; daily notes are plain text.
    "mindlink": MaintenanceLayout(
        "mindlink", daily_note=daily_note_day, typed=lambda m: m.note_kind is Kind.MEMORY,
        verbs="mindlink",
    ),
    # seeds/004: the lab keeps its daily logs indefinitely, so none ever expires; its notes
    # have no `type` (a skill's or tool's description is the `incomplete-skill` rule's).
    "lab": MaintenanceLayout("lab", typed=lambda m: False),
}


def register_layout(layout: MaintenanceLayout) -> None:
    LAYOUTS[layout.name] = layout


def layout_of(brain: Brain) -> MaintenanceLayout:
    """What maintenance knows of the workspace's layout, with its brain.toml settings."""
    found = LAYOUTS.get(brain.layout.name, LAYOUTS["latchai"])
    if found.daily_note is not None and brain.layout.name == "mindlink":
        found = replace(found, retain_days=brain.ingester.config.mindlink.daily_note_retain_days)
    return found


@dataclass(slots=True)
class Snapshot:
    brain: Brain
    scope: str | None  # None: every scope
    today: date
    layout: MaintenanceLayout
    large_note_bytes: int
    memories: list[MemoryNode] = field(default_factory=list)  # the scopes looked at
    by_scope: dict[str, list[MemoryNode]] = field(default_factory=dict)  # every scope
    links: dict[str, list[Link]] = field(default_factory=dict)  # outgoing, of `memories`
    going: set[str] = field(default_factory=set)  # paths an earlier finder proposes to delete
    notes: list[str] = field(default_factory=list)  # what the pass could not do, for the report

    @classmethod
    def read(
        cls, brain: Brain, scope: str | None, today: date, layout: MaintenanceLayout,
        large_note_bytes: int,
    ) -> Snapshot:
        every = brain.store.list_memories(MemoryFilter())
        by_scope: dict[str, list[MemoryNode]] = {}
        for memory in every:
            by_scope.setdefault(memory.scope, []).append(memory)
        mine = every if scope is None else by_scope.get(scope, [])
        links = brain.store.links_from([m.id for m in mine])
        return cls(brain, scope, today, layout, large_note_bytes, mine, by_scope, links)

    def scopes(self) -> list[str]:
        return sorted({m.scope for m in self.memories}, key=lambda s: (s != SHARED_SCOPE, s))

    def entity_ids(self, kind: Kind) -> list[str]:
        return [e.ident for e in self.brain.store.list_entities(kind)]

    def agent_names(self) -> list[str]:
        return [a.name for a in self.brain.store.list_agents()]

    def read_text(self, memory: MemoryNode) -> str | None:
        """The note's text as it is on disk now (None: gone or unreadable)."""
        try:
            return safefs.read_regular_file(self.brain.root / memory.path).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None


def scope_names(brain: Brain) -> list[str]:
    """`shared`, then every agent with notes or memory on, by name (as the memory tool lists them)."""
    from brain.tool import memory_service

    agents = memory_service(brain).agents.all()
    return [SHARED_SCOPE, *(a.name for a in agents if a.memory_enabled or a.has_folder)]
