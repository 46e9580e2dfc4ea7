"""The schema's enums, and their mapping from the domain model."""

from __future__ import annotations

import enum

import strawberry

from brain import model


@strawberry.enum(description="What a memory is about (design.md section 2).")
class MemoryType(enum.Enum):
    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"

    @classmethod
    def of(cls, value: str | None) -> MemoryType | None:
        return None if value is None else _MEMORY_TYPES.get(value)


_MEMORY_TYPES = {t.value: t for t in MemoryType}


@strawberry.enum(description="Where a wikilink landed.")
class LinkStatus(enum.Enum):
    RESOLVED = "resolved"
    BROKEN = "broken"
    AMBIGUOUS = "ambiguous"
    MISSING_ANCHOR = "missing-anchor"

    @classmethod
    def of(cls, status: model.LinkStatus) -> LinkStatus:
        return cls(status.value)


@strawberry.enum
class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"

    @classmethod
    def of(cls, severity: model.Severity) -> Severity:
        return cls(severity.value)

    def to_model(self) -> model.Severity:
        return model.Severity(self.value)


@strawberry.enum(description="What happened to a node.")
class ChangeKind(enum.Enum):
    ADDED = "added"
    CHANGED = "changed"
    DELETED = "deleted"
    RELINKED = "relinked"


@strawberry.enum(description="The kinds of edges of a graph view.")
class EdgeType(enum.Enum):
    REMEMBERS = "REMEMBERS"
    LINKS_TO = "LINKS_TO"
