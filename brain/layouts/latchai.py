"""The `latchai` layout (seeds/000, design.md section 1): memory/<scope>/*.md, agents/, entities.

The default, and exactly what brain read before layouts existed: the rules live in
brain.workspace (classify, walk), which this layout only names.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

from brain import workspace
from brain.layouts.base import Layout
from brain.model import SHARED_SCOPE
from brain.resolve import LATCHAI_LINKS, LinkRules
from brain.workspace import MEMORY_DIR, FileRole, FileStat


class LatchaiLayout(Layout):
    name: ClassVar[str] = "latchai"
    links: ClassVar[LinkRules] = LATCHAI_LINKS
    agents_need_definition: ClassVar[bool] = True

    def classify(self, rel: str) -> FileRole:
        return workspace.classify(rel)

    def walk(self, root: Path) -> Iterator[FileStat]:
        return workspace.walk(root)

    def scope_folders(self, root: Path) -> set[str]:
        return workspace.scope_folders(root) - {SHARED_SCOPE}

    def scope_folder(self, rel: str) -> tuple[str, str] | None:
        parts = rel.split("/")
        if parts[0] == MEMORY_DIR and len(parts) >= 2 and parts[1] != SHARED_SCOPE:
            return parts[1], f"{MEMORY_DIR}/{parts[1]}"
        return None


LATCHAI = LatchaiLayout()
