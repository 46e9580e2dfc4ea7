"""The workspaces of the windows that several tests share (`SharedWindows` in shared.py): each
window opens a multi-root workspace whose folders are the tests' workspaces, fresh copies made
when the window opens. A VS Code window costs about 30 s of CPU (its renderer, extension host
and the browser's processes), whatever it then does; the extension starts a server per brain
root of the window's folders and keeps each root's state (notices, restarts, the output log's
`[<root>]` lines) apart, so each test checks its own folder as in a window of its own.

What a test checks about the window as a whole stays in a window of its own: the one
notification when no server is found, a server that dies at start, Restricted Mode (a server
flag), and which activation event opens a window with no note open, which is why the layouts
whose only mark is `brain.toml` share a window and the folders marked by a `memory/` share
another.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.lsp.conftest import write_tree

from .harness import REPO, copy_workspace, make_venv

EXAMPLE = REPO / "examples" / "workspace"


@dataclass(frozen=True)
class Root:
    """A test's workspace in a shared window: `root` is the brain root (its files, its
    `.venv`), `opened` the folder the window holds (`root` or a folder below it)."""

    root: Path
    opened: Path


@dataclass(frozen=True)
class Case:
    files: dict[str, str]
    note: str  # the note opened and typed into
    offered: tuple[str, ...]  # completion labels of the agent's own tree
    opened: str = ""  # the folder opened in VS Code, below the workspace (brain.toml) root


# Another agent's note, named so that no label of the own tree can contain it.
OTHER_AGENT = "ledger"

SPACE = {
    "brain.toml": 'layout = "space"\n',
    "alice/memory/drafts/plan.md": "# Launch plan\n\nShip on Friday; see [[notes/risks]].\n",
    "alice/memory/notes/risks.md": (
        "---\ndescription: What could go wrong at the launch\n---\n\n# Risks\n\nThe venue may move.\n"
    ),
    "bob/memory/ledger.md": "---\ndescription: Bob's own books\n---\n\n# Ledger\n",
}
CASES = {
    "space": Case(SPACE, note="alice/memory/drafts/plan.md", offered=("notes/risks",)),
    # One agent's folder opened on its own: its `memory/` must not make it a root of its own
    # (a latchai workspace, and a second server for the same notes); the space above is.
    "space-agent-folder": Case(
        SPACE, note="alice/memory/drafts/plan.md", offered=("notes/risks",), opened="alice"
    ),
    "mindlink": Case(
        files={
            "brain.toml": 'layout = "mindlink"\n',
            "alice/memory/entries/prefers-short-answers.md": (
                "---\nname: prefers-short-answers\ndescription: Maya wants answers in three sentences"
                " or fewer.\ntype: user\n---\n\nConclusion first. See [[no-emoji]].\n"
            ),
            "alice/memory/entries/no-emoji.md": (
                "---\nname: no-emoji\ndescription: No emoji in release notes.\ntype: feedback\n---\n\n"
                "Never use emoji.\n\nWhy: they render as boxes.\nHow to apply: write the word.\n"
            ),
            "alice/memory/2026-11-30.md": "Worked on [[prefers-short-answers]].\n",
            "bob/memory/entries/ledger.md": (
                "---\nname: ledger\ndescription: Bob's own books.\ntype: reference\n---\n\n"
                "In the shared drive.\n"
            ),
        },
        note="alice/memory/entries/prefers-short-answers.md",
        offered=("no-emoji",),
    ),
    # The lab without a daily-log `memory/` folder yet: MEMORY.md and skills, and brain.toml.
    "lab": Case(
        files={
            "brain.toml": 'layout = "lab"\n',
            "MEMORY.md": "# Memory\n\n## 2026-11-30 Release\n\nUse [[deploy]] for releases.\n",
            "skills/deploy/SKILL.md": (
                "---\nname: deploy\ndescription: Ship a release to production.\n---\n\n# Deploy\n"
            ),
        },
        note="MEMORY.md",
        offered=("deploy",),
    ),
}


def layout_root(base: Path, layout: str) -> Root:
    """A fresh workspace of `layout` under `base`, with its `.venv`."""
    case = CASES[layout]
    workspace = base / layout
    write_tree(workspace, case.files)
    assert not (workspace / "memory").exists()  # only brain.toml marks it
    make_venv(workspace)
    return Root(workspace, workspace / case.opened)


def example_root(base: Path) -> Root:
    """A copy of examples/workspace (a `memory/` at its top, no brain.toml), with its `.venv`."""
    workspace = copy_workspace(EXAMPLE, base / "workspace")
    make_venv(workspace)
    return Root(workspace, workspace)


# The layouts whose only mark is their brain.toml: a window on them activates the extension by
# `workspaceContains:brain.toml` alone, as a window on any one of them does.
SIDE_BY_SIDE = ("space", "mindlink", "lab")

# Window name -> its workspaces by test key, made under a fresh folder.
WINDOWS: dict[str, Callable[[Path], dict[str, Root]]] = {
    "layouts": lambda base: {layout: layout_root(base, layout) for layout in SIDE_BY_SIDE},
    # Both marked by a `memory/` (the example's at its top, the agent's folder's inside it), none
    # by a brain.toml: the window activates the extension by `workspaceContains:memory/**`.
    "memory-folders": lambda base: {
        "example": example_root(base),
        "space-agent-folder": layout_root(base, "space-agent-folder"),
    },
}
