"""The extension in a real VS Code on the workspaces of the new layouts, where no `memory/`
folder sits at the top: `space` (`<agent>/memory/...`) and `mindlink`
(`<agent>/memory/entries/*.md` and daily notes), and a `lab` that has no daily logs yet. Such a
folder has only its `brain.toml` to say it is a brain workspace.

Per layout: the server starts as soon as the folder opens, before any note is opened (so the
extension activated on `workspaceContains:brain.toml`, not on a markdown file, and took the
folder with `brain.toml` as the root); completion after `[[` offers the notes of the agent's
own tree and nothing of another agent's; a broken link typed into the note is underlined and
listed in Problems; the output channel has no errors. One agent's folder of a space, opened on
its own, gets the one server of the space above it. The code-server and browser of the folder
serve every case (tests/vscode/shared.py). The three layouts run in one window on a multi-root
workspace of fresh copies, a folder each (`layouts_window`): a window costs about 30 s of CPU,
and the extension starts and serves each folder's root on its own, as in a window of its own.
The agent's folder has a window of its own. Screenshots land in test-artifacts/vscode/layout-<name>/.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.lsp.conftest import write_tree

from .harness import ARTIFACTS, CodeServer, make_venv
from .shared import SharedBrowser, SharedServers

pytestmark = [pytest.mark.vscode, pytest.mark.xdist_group("vscode")]

try:
    from playwright.sync_api import BrowserContext

    from .workbench import Workbench, open_workbench, wait_for
except ImportError:  # pragma: no cover - test_code_server fails or skips first
    pytest.skip("needs playwright (pip install -e '.[test]')", allow_module_level=True)


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


# The layouts whose folder holds its brain.toml open side by side, one window on a multi-root
# workspace of the three: each folder is its own brain root (the extension starts a server per
# workspace folder), so each layout's checks run in it as in a window of its own, and a
# VS Code window (about 30 s of CPU) serves three cases. The agent's folder of a space keeps a
# window of its own: it is about that folder being the only one opened.
SIDE_BY_SIDE = ("space", "mindlink", "lab")


@dataclass
class Window:
    bench: Workbench
    server: CodeServer
    workspaces: dict[str, Path]
    # Per layout: its server had started before any note was opened in the window.
    started_before_notes: dict[str, bool]


@pytest.fixture(scope="module")
def layouts_window(
    _servers: SharedServers, _browser: SharedBrowser, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Window]:
    """One window on a multi-root workspace of the SIDE_BY_SIDE layouts, fresh copies each."""
    server = _servers.get(trust=True)
    base = tmp_path_factory.mktemp("layouts")
    workspaces = {layout: _workspace(base / layout, CASES[layout]) for layout in SIDE_BY_SIDE}
    folders = [{"path": str(workspaces[layout] / CASES[layout].opened)} for layout in SIDE_BY_SIDE]
    file = base / "layouts.code-workspace"
    file.write_text(json.dumps({"folders": folders, "settings": {}}, indent=2))
    with open_workbench(_browser.get(), server, ARTIFACTS / "layouts-side-by-side", file) as bench:
        # Before any note is open: each server started by brain.toml, rooted at its folder.
        started = {layout: _starts(server, workspace) for layout, workspace in workspaces.items()}
        yield Window(bench, server, workspaces, started)


@pytest.mark.parametrize("layout", SIDE_BY_SIDE)
def test_extension_works_in_the_layout(layout: str, layouts_window: Window) -> None:
    window = layouts_window
    assert window.started_before_notes[layout], f"no server started for {layout} before a note was open"
    window.bench.shots = ARTIFACTS / f"layout-{layout}"
    _check(window.bench, window.server, CASES[layout], window.workspaces[layout], f"no-such-{layout}-note")


def test_one_agents_folder_opened_alone_gets_the_space_server(
    code_server: CodeServer, browser: BrowserContext, tmp_path: Path
) -> None:
    """The agent's folder (`alice/`) of a space, the only folder of its window."""
    server = code_server
    case = CASES["space-agent-folder"]
    workspace = _workspace(tmp_path / "space-agent-folder", case)
    started = f"[{workspace}] starting brain"
    shots = ARTIFACTS / "layout-space-agent-folder"
    with open_workbench(browser, server, shots, workspace / case.opened) as bench:
        # Before any note is open: activated by its memory/, rooted at the space above it.
        wait_for(lambda: started in server.output_log(workspace), 120, f"the server to start for {workspace}")
        _check(bench, server, case, workspace, "no-such-note")


def _starts(server: CodeServer, workspace: Path) -> bool:
    """The window's log said, within two minutes, that it started the server for `workspace`."""
    try:
        wait_for(lambda: f"[{workspace}] starting brain" in server.output_log(workspace), 120,
                 f"the server to start for {workspace}")
    except AssertionError:
        return False
    return True


def _workspace(workspace: Path, case: Case) -> Path:
    write_tree(workspace, case.files)
    assert not (workspace / "memory").exists()  # only brain.toml marks it
    make_venv(workspace)
    return workspace


def _check(bench: Workbench, server: CodeServer, case: Case, workspace: Path, broken: str) -> None:
    """Completion after `[[` in the case's note, the broken link `[[broken]]` underlined and in
    Problems, and the window's output log: one server for the workspace, none below it, no errors."""
    bench.shots.mkdir(parents=True, exist_ok=True)
    started = f"[{workspace}] starting brain"
    name = Path(case.note).name
    bench.open_file(str(Path(case.note).relative_to(case.opened)))
    bench.go_to_end()
    bench.type("\nAlso [[")
    rows = bench.suggestions()
    bench.shot("1-completion")
    labels = [row.inner_text().split("\n")[0].strip() for row in rows.all()]
    for label in case.offered:
        assert labels.count(label) == 1, labels  # twice: two servers for one note
    assert Path(case.note).stem not in labels, "the note being edited is not offered"
    assert not [label for label in labels if OTHER_AGENT in label], f"another agent's note: {labels}"

    bench.page.keyboard.press("Escape")
    bench.type(f"{broken}]]")
    bench.page.locator(f".monaco-editor[data-uri$='/{name}'] .squiggly-error").first.wait_for(timeout=60_000)
    if not bench.page.locator(".markers-panel").first.is_visible():  # a case before opened it
        bench.page.keyboard.press("Control+Shift+M")
    problems = bench.page.locator(".markers-panel .monaco-list-row").filter(has_text=broken)
    problems.first.wait_for(timeout=30_000)
    bench.shot("2-problems")
    problem = problems.first.inner_text()
    assert f"[[{broken}]] points to nothing" in problem, problem

    log = server.output_log(workspace)  # this window's own: the other tests' windows share the server
    (bench.shots / "output.log").write_text(log)
    own = [line for line in log.splitlines() if line.startswith(f"[{workspace}]")]
    assert sum(started in line for line in own) == 1, own  # one server, for the brain.toml folder
    assert not [line for line in log.splitlines() if f"[{workspace}/" in line], "a root below the workspace"
    assert re.search(rf"{re.escape(started)} \S+ \(workspace-venv\): \S+/\.venv/bin/brain lsp", log), own
    bad = [line for line in log.splitlines() if re.search(r"error|exception|traceback", line, re.I)]
    assert not bad, f"errors in the brain output channel: {bad}"
