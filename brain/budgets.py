"""Operator budgets for what sits on disk: their names, defaults and limits, and the values
this process runs with.

A note, an editor buffer or the write history can grow past anything brain should parse,
hold or keep. These are the operator's limits (design section 12: budgets belong to whoever
runs brain, never to the workspace), so they are the `[budgets]` section of the operator's
settings (brain/config/operator.py: `--config FILE`, the environment, flags), read and
checked there like every other setting. The variables keep the names they had before the
operator file existed; they are that section's environment layer:

    BRAIN_MAX_NOTE_BYTES         1 MiB     a note (or unsaved buffer) past it is not parsed
    BRAIN_MAX_NOTE_LINKS         5,000     links kept of one note; the rest are not read
    BRAIN_MAX_NOTE_DEPTH         100       nesting of lists and quotes in one note
    BRAIN_HISTORY_AGENT_BYTES    64 MiB    history kept for one agent's writes
    BRAIN_HISTORY_WORKSPACE_BYTES 512 MiB  history kept for the whole workspace

This module sits in the base layer (the parser needs the note budget) and so cannot read the
settings itself: a command installs what it loaded (`install`), and a process that loaded
none (a test, an embedder, the language server) asks the loader the settings registered
(`set_loader`), which reads BRAIN_CONFIG and the environment. The note budget is asked for by
every note of a first ingest, so it is read once per process (`refresh()` reads it again).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MIB = 1024 * 1024

NOTE_BYTES_ENV = "BRAIN_MAX_NOTE_BYTES"
NOTE_LINKS_ENV = "BRAIN_MAX_NOTE_LINKS"
NOTE_DEPTH_ENV = "BRAIN_MAX_NOTE_DEPTH"
HISTORY_AGENT_ENV = "BRAIN_HISTORY_AGENT_BYTES"
HISTORY_WORKSPACE_ENV = "BRAIN_HISTORY_WORKSPACE_BYTES"

#: field of Budgets -> the variable that sets it (the operator settings' environment layer).
ENV_NAMES = {
    "note_bytes": NOTE_BYTES_ENV,
    "note_links": NOTE_LINKS_ENV,
    "note_depth": NOTE_DEPTH_ENV,
    "history_agent_bytes": HISTORY_AGENT_ENV,
    "history_workspace_bytes": HISTORY_WORKSPACE_ENV,
}


@dataclass(frozen=True, slots=True)
class Budgets:
    """The `[budgets]` section of the operator's settings."""

    note_bytes: int = 1 * MIB
    note_links: int = 5_000
    note_depth: int = 100
    history_agent_bytes: int = 64 * MIB
    history_workspace_bytes: int = 512 * MIB

    def check(self) -> list[tuple[str, str]]:
        # A zero or negative budget would turn a limit off or refuse everything: neither is
        # what a typo should do, so both are refused with the command's exit 2.
        out = []
        for key, least in (("note_bytes", 1024), ("note_links", 1), ("note_depth", 1),
                           ("history_agent_bytes", 1024), ("history_workspace_bytes", 1024)):
            if getattr(self, key) < least:
                out.append((key, f"must be a whole number of at least {least}, e.g. {DEFAULTS[key]}"))
        return out


DEFAULTS = {key: getattr(Budgets(), key) for key in ENV_NAMES}


@dataclass(frozen=True, slots=True)
class NoteBudget:
    """What one note (a file or an unsaved buffer) may hold before brain stops reading it."""

    max_bytes: int
    max_links: int
    max_depth: int


@dataclass(frozen=True, slots=True)
class HistoryCaps:
    """Bytes the write history may keep: per agent, and for the whole workspace."""

    agent_bytes: int
    workspace_bytes: int


_installed: Budgets | None = None
_loader: Callable[[], Budgets] | None = None
_note_budget: NoteBudget | None = None


def install(budgets: Budgets | None) -> None:
    """The budgets of this process's command (its `--config`, environment and flags); None:
    ask the loader again."""
    global _installed, _note_budget
    _installed, _note_budget = budgets, None


def set_loader(loader: Callable[[], Budgets]) -> None:
    """How budgets are read when no command installed them (brain/config/operator.py)."""
    global _loader
    _loader = loader


def current() -> Budgets:
    if _installed is not None:
        return _installed
    return _loader() if _loader is not None else Budgets()


def note_budget() -> NoteBudget:
    global _note_budget
    found = _note_budget
    if found is None:
        b = current()
        found = _note_budget = NoteBudget(b.note_bytes, b.note_links, b.note_depth)
    return found


def refresh() -> None:
    """Read the note budget again at its next use (tests and embedders that change it)."""
    install(None)


def history_caps(budgets: Budgets | None = None) -> HistoryCaps:
    b = current() if budgets is None else budgets
    return HistoryCaps(b.history_agent_bytes, b.history_workspace_bytes)


def mib(size: int) -> str:
    """`67,108,864 bytes (64 MiB)`: exact for the log, readable for a person."""
    return f"{size:,} bytes ({size / MIB:.1f} MiB)".replace(".0 MiB", " MiB")
