"""Which layout a workspace has: `layout = ...` in brain.toml, else read from its folders.

Detection looks only at folder and file names near the root (a few dozen stat calls), and
always says why it chose, since a wrong guess changes every problem brain reports. Rules, in
order (the first that holds wins):

1. `MEMORY.md` at the root, `agents/*/MEMORY.md`, `skills/*/SKILL.md` or `tools/*/TOOL.md`: lab.
2. `memory/`, `agents/*.md`, `workflows/`, `chats/` or `work-items/` at the root: latchai.
3. No entries at all (but dot-files and brain.toml): latchai, the default.
4. `<agent>/memory/entries/` or `<agent>/memory/YYYY-MM-DD.md`: mindlink.
5. `<agent>/memory/`: space.
6. Anything else: no layout (the caller says how to name one).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from brain.config.messages import ConfigError
from brain.config.workspace import CONFIG_FILE, LAYOUT_NAMES, BrainConfig, load_config
from brain.safefs import is_utf8

_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
_LATCHAI_DIRS = ("memory", "workflows", "chats", "work-items")
_MAX_LOOK = 200  # top-level folders looked into: a huge root stays cheap


class LayoutError(Exception):
    """The workspace's layout cannot be known: the message names the layouts and brain.toml."""


@dataclass(frozen=True, slots=True)
class LayoutChoice:
    name: str
    reason: str  # why, in words: "brain.toml", or what was found on disk
    detected: bool  # True: read from the folders; False: named in brain.toml

    def describe(self) -> str:
        how = "detected" if self.detected else "set"
        return f"layout {self.name} ({how}: {self.reason})"


def unplaceable(root: Path) -> LayoutError:
    names = " | ".join(f'"{n}"' for n in LAYOUT_NAMES)
    return LayoutError(
        f"{root} has no memory/ folder, no <agent>/memory/ folder and no MEMORY.md, so brain "
        "cannot tell which memory layout it is; brain reads four: "
        "latchai (memory/<scope>/*.md), space (<agent>/memory/**), mindlink "
        "(<agent>/memory/entries/*.md), lab (MEMORY.md, memory/YYYY-MM-DD.md); write "
        f"{CONFIG_FILE} at the workspace root with layout = {names}"
    )


def detect_layout(root: Path) -> LayoutChoice | None:
    """The layout the folders show, or None when nothing is recognisable."""
    root = Path(root)
    if (root / "MEMORY.md").is_file():
        return LayoutChoice("lab", "MEMORY.md at the root", True)
    for folder, inner in (("agents", "MEMORY.md"), ("skills", "SKILL.md"), ("tools", "TOOL.md")):
        hit = _first_child_with(root / folder, inner)
        if hit is not None:
            return LayoutChoice("lab", f"{folder}/{hit}/{inner}", True)
    for folder in _LATCHAI_DIRS:
        if (root / folder).is_dir():
            return LayoutChoice("latchai", f"a {folder}/ folder at the root", True)
    if _has_md(root / "agents"):
        return LayoutChoice("latchai", "agent definitions in agents/", True)
    children = _visible_children(root)
    if not children:
        return LayoutChoice("latchai", "an empty workspace: the default layout", True)
    space_agent: str | None = None
    for name in sorted(children)[:_MAX_LOOK]:
        memory = root / name / "memory"
        if not memory.is_dir():
            continue
        if (memory / "entries").is_dir():
            return LayoutChoice("mindlink", f"{name}/memory/entries/", True)
        if _dated_note(memory):
            return LayoutChoice("mindlink", f"daily notes in {name}/memory/", True)
        space_agent = space_agent or name
    if space_agent is not None:
        return LayoutChoice("space", f"{space_agent}/memory/", True)
    return None


def choose_layout(root: Path, config: BrainConfig | None = None) -> LayoutChoice:
    """brain.toml's `layout`, else detection; LayoutError when neither names one.

    ConfigError (a brain.toml that cannot be used) passes through: it names its own fix.
    """
    config = config if config is not None else load_config(root)
    if config.layout is not None:
        return LayoutChoice(config.layout, f"layout = \"{config.layout}\" in {CONFIG_FILE}", False)
    choice = detect_layout(root)
    if choice is None:
        raise unplaceable(root)
    return choice


def choose_layout_leniently(root: Path) -> LayoutChoice:
    """For embedders (the language server, tests): what `choose_layout` says, else latchai."""
    try:
        return choose_layout(root)
    except (LayoutError, ConfigError):
        try:
            choice = detect_layout(root)
        except OSError:
            choice = None
        return choice or LayoutChoice("latchai", "nothing recognisable: the default layout", True)


def _visible_children(root: Path) -> list[str]:
    try:
        return [
            e.name for e in os.scandir(root)
            if not e.name.startswith(".") and e.name != CONFIG_FILE and is_utf8(e.name)
        ]
    except OSError:
        return []


def _first_child_with(folder: Path, inner: str) -> str | None:
    try:
        names = sorted(  # a name said in the reason for the choice: never one that is not UTF-8
            e.name for e in os.scandir(folder) if e.is_dir(follow_symlinks=False) and is_utf8(e.name)
        )
    except OSError:
        return None
    for name in names[:_MAX_LOOK]:
        if (folder / name / inner).is_file():
            return name
    return None


def _has_md(folder: Path) -> bool:
    try:
        return any(e.name.endswith(".md") and e.is_file() for e in os.scandir(folder))
    except OSError:
        return False


def _dated_note(memory: Path) -> bool:
    try:
        return any(_DATED.match(e.name) for e in os.scandir(memory))
    except OSError:
        return False
