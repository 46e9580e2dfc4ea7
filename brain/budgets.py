"""Operator budgets for what sits on disk: one place that reads them from the environment.

A note, an editor buffer or the write history can grow past anything brain should parse,
hold or keep. These are the operator's limits (design section 12: budgets belong to whoever
runs brain, never to the workspace), so they come from environment variables, read here and
nowhere else, each with a default that no ordinary workspace reaches:

    BRAIN_MAX_NOTE_BYTES         1 MiB     a note (or unsaved buffer) past it is not parsed
    BRAIN_MAX_NOTE_LINKS         5,000     links kept of one note; the rest are not read
    BRAIN_MAX_NOTE_DEPTH         100       nesting of lists and quotes in one note
    BRAIN_HISTORY_AGENT_BYTES    64 MiB    history kept for one agent's writes
    BRAIN_HISTORY_WORKSPACE_BYTES 512 MiB  history kept for the whole workspace

A value that is not a positive whole number is ignored with a warning (the default stays),
so a typo never turns a limit off. The history caps are read at each write (a write costs far
more than a lookup); the note budget once per process, since every note of a first ingest
asks for it (`refresh()` reads it again, for tests and embedders).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

log = logging.getLogger(__name__)

MIB = 1024 * 1024

NOTE_BYTES_ENV = "BRAIN_MAX_NOTE_BYTES"
NOTE_LINKS_ENV = "BRAIN_MAX_NOTE_LINKS"
NOTE_DEPTH_ENV = "BRAIN_MAX_NOTE_DEPTH"
HISTORY_AGENT_ENV = "BRAIN_HISTORY_AGENT_BYTES"
HISTORY_WORKSPACE_ENV = "BRAIN_HISTORY_WORKSPACE_BYTES"

DEFAULTS = {
    NOTE_BYTES_ENV: 1 * MIB,
    NOTE_LINKS_ENV: 5_000,
    NOTE_DEPTH_ENV: 100,
    HISTORY_AGENT_ENV: 64 * MIB,
    HISTORY_WORKSPACE_ENV: 512 * MIB,
}

_warned: set[tuple[str, str]] = set()


def budget(name: str) -> int:
    """The budget named by environment variable `name` (one of DEFAULTS)."""
    default = DEFAULTS[name]
    raw = os.environ.get(name, "").strip().replace("_", "")
    if not raw:
        return default
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    if (name, raw) not in _warned:
        _warned.add((name, raw))
        log.warning("%s=%r is not a positive whole number; using the default, %d", name, raw, default)
    return default


@dataclass(frozen=True, slots=True)
class NoteBudget:
    """What one note (a file or an unsaved buffer) may hold before brain stops reading it."""

    max_bytes: int
    max_links: int
    max_depth: int


_note_budget: NoteBudget | None = None


def note_budget() -> NoteBudget:
    global _note_budget
    found = _note_budget
    if found is None:
        found = NoteBudget(budget(NOTE_BYTES_ENV), budget(NOTE_LINKS_ENV), budget(NOTE_DEPTH_ENV))
        _note_budget = found
    return found


def refresh() -> None:
    """Read the note budget from the environment again at its next use."""
    global _note_budget
    _note_budget = None


@dataclass(frozen=True, slots=True)
class HistoryCaps:
    """Bytes the write history may keep: per agent, and for the whole workspace."""

    agent_bytes: int
    workspace_bytes: int


def history_caps() -> HistoryCaps:
    return HistoryCaps(budget(HISTORY_AGENT_ENV), budget(HISTORY_WORKSPACE_ENV))


def mib(size: int) -> str:
    """`67,108,864 bytes (64 MiB)`: exact for the log, readable for a person."""
    return f"{size:,} bytes ({size / MIB:.1f} MiB)".replace(".0 MiB", " MiB")
