"""Which agents exist and whether their memory is on, read straight from the workspace.

An agent exists when it has a definition (`agents/<name>.md`) or a memory folder
(`memory/<name>/`); its memory is on when the definition sets `memory: true`. A folder
without such a definition is "memory off": its notes can be read and cleared, not written
by the agent (seeds/000: "a folder outlives the agent that made it"). Definitions are read
without following links, like the ingester, and cached by size and modification time.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from brain.model import SHARED_SCOPE
from brain.tool.files.confined import read_regular, real_subfolders, regular_files
from brain.tool.files.names import MD, NameProblem, check_agent_name
from brain.workspace import AGENTS_DIR, MEMORY_DIR, AgentDefinition, read_agent_definition


@dataclass(frozen=True, slots=True)
class AgentState:
    name: str
    defined: bool
    memory_enabled: bool
    has_folder: bool
    description: str = ""

    @property
    def exists(self) -> bool:
        return self.defined or self.has_folder

    @property
    def memory_off(self) -> bool:
        """Notes on disk that the agent can no longer write (the review screen's tag)."""
        return self.has_folder and not self.memory_enabled


class AgentDirectory:
    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self._cache: dict[str, tuple[int, int, AgentDefinition]] = {}
        self._lock = threading.Lock()

    def get(self, name: str) -> AgentState:
        if not _valid(name):
            return AgentState(name, defined=False, memory_enabled=False, has_folder=False)
        definition = self._definition(name)
        folder = self.root / MEMORY_DIR / name
        has_folder = os.path.isdir(folder) and not os.path.islink(folder)
        return AgentState(
            name=name,
            defined=definition is not None,
            memory_enabled=definition is not None and definition.memory,
            has_folder=has_folder,
            description=definition.description if definition else "",
        )

    def names(self) -> list[str]:
        """Every agent with a definition or a memory folder, by name."""
        found = {n[: -len(MD)] for n in regular_files(self.root / AGENTS_DIR, MD)}
        found |= set(real_subfolders(self.root / MEMORY_DIR))
        found.discard(SHARED_SCOPE)
        return sorted(n for n in found if _valid(n))

    def all(self) -> list[AgentState]:
        return [self.get(n) for n in self.names()]

    def _definition(self, name: str) -> AgentDefinition | None:
        if not _valid(name):
            return None
        filename = name + MD
        try:
            st = os.stat(self.root / AGENTS_DIR / filename, follow_symlinks=False)
        except OSError:
            return None
        with self._lock:
            cached = self._cache.get(name)
        if cached is not None and cached[:2] == (st.st_size, st.st_mtime_ns):
            return cached[2]
        found = read_regular(self.root, AGENTS_DIR, filename)
        if found is None:
            return None
        data, size, mtime_ns = found
        definition = read_agent_definition(f"{AGENTS_DIR}/{filename}", name, data)
        with self._lock:
            self._cache[name] = (size, mtime_ns, definition)
        return definition


def _valid(name: str) -> bool:
    try:
        check_agent_name(name)
    except NameProblem:
        return False
    return True
