"""The extension in a real VS Code on the workspaces of the new layouts, where no `memory/`
folder sits at the top: `space` (`<agent>/memory/...`) and `mindlink`
(`<agent>/memory/entries/*.md` and daily notes), and a `lab` that has no daily logs yet. Such a
folder has only its `brain.toml` to say it is a brain workspace.

Per layout: the server starts as soon as the folder opens, before any note is opened (so the
extension activated on `workspaceContains:brain.toml`, not on a markdown file, and took the
folder with `brain.toml` as the root); completion after `[[` offers the notes of the agent's
own tree and nothing of another agent's; a broken link typed into the note is underlined and
listed in Problems; the output channel has no errors. One agent's folder of a space, opened
without the space, gets the one server of the space above it.

The code-server and browser of the folder serve every case (tests/vscode/shared.py). The three
layouts share one window on a multi-root workspace of fresh copies, a folder each; the agent's
folder shares one with the example workspace of test_code_server (windows.py says why).
Screenshots land in test-artifacts/vscode/layout-<name>/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .harness import ARTIFACTS, CodeServer
from .windows import CASES, OTHER_AGENT, SIDE_BY_SIDE, Case

pytestmark = [pytest.mark.vscode, pytest.mark.xdist_group("vscode")]

try:
    from .shared import SharedWindows
    from .workbench import Workbench
except ImportError:  # pragma: no cover - test_code_server fails or skips first
    pytest.skip("needs playwright (pip install -e '.[test]')", allow_module_level=True)


def test_one_agents_folder_opened_without_its_space_gets_the_space_server(windows: SharedWindows) -> None:
    """The agent's folder (`alice/`) of a space, opened without the space (beside the example
    workspace, in the window of test_code_server's last test): activated by its `memory/`,
    rooted at the space above it."""
    window = windows.get("memory-folders")
    assert window.started_before_notes["space-agent-folder"], "no server started before a note was open"
    window.bench.shots = ARTIFACTS / "layout-space-agent-folder"
    root = window.roots["space-agent-folder"].root
    _check(window.bench, window.server, CASES["space-agent-folder"], root, "no-such-agent-note")


@pytest.mark.parametrize("layout", SIDE_BY_SIDE)
def test_extension_works_in_the_layout(layout: str, windows: SharedWindows) -> None:
    window = windows.get("layouts")
    assert window.started_before_notes[layout], f"no server started for {layout} before a note was open"
    window.bench.shots = ARTIFACTS / f"layout-{layout}"
    _check(window.bench, window.server, CASES[layout], window.roots[layout].root, f"no-such-{layout}-note")


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
