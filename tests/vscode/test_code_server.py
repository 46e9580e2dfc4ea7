"""The extension in a real VS Code: code-server from npm, the packaged .vsix installed offline,
a copy of examples/workspace with its own `.venv`, Chromium driven by Playwright.

With no setting at all the server is found in the workspace's .venv: completion after `[[`
lists notes with their descriptions, a broken link typed into the note is underlined and
listed in Problems (as plain text), hover and go to definition work, and the output channel
has no errors. Without any brain (no .venv, none on PATH) the user gets exactly one
notification that says what was tried; once brain is installed into .venv it starts by
itself. A server that dies at start is not restarted in a loop. In Restricted Mode it says
once why it waits, and starts when the folder is trusted.

The tests share one code-server and one browser (tests/vscode/shared.py); each opens a fresh
copy of the workspace and reads only its own root's output log. Those about the window as a
whole (its notifications, Restricted Mode) have a window of their own; the example's found
server shares one with a layout test's folder (tests/vscode/windows.py).

Screenshots land in test-artifacts/vscode/. In CI (CI=true) or with BRAIN_REQUIRE_VSCODE=1 a
missing chromium or a failed code-server install fails the test instead of skipping it.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from .harness import ARTIFACTS, REPO, REQUIRED, CodeServer, copy_workspace, make_venv

# One xdist group for the folder: its tests share the code-server and browser of one worker.
pytestmark = [pytest.mark.vscode, pytest.mark.xdist_group("vscode")]

EXAMPLE = REPO / "examples" / "workspace"
NOTE = "memory/on-call/paging-etiquette.md"
TIMINGS = ARTIFACTS / "timings.json"

try:
    from playwright.sync_api import BrowserContext

    from .shared import SharedWindows
    from .workbench import TOASTS, open_workbench, wait_for
except ImportError:  # pragma: no cover - the test extras install playwright
    if REQUIRED:
        raise
    pytest.skip("needs playwright (pip install -e '.[test]')", allow_module_level=True)


def record(name: str, seconds: float) -> None:
    timings = json.loads(TIMINGS.read_text()) if TIMINGS.exists() else {}
    timings[name] = round(seconds, 3)
    TIMINGS.parent.mkdir(parents=True, exist_ok=True)
    TIMINGS.write_text(json.dumps(timings, indent=2))


def test_one_notification_when_no_server_is_found(
    code_server: CodeServer, browser: BrowserContext, tmp_path: Path
) -> None:
    server = code_server
    workspace = copy_workspace(EXAMPLE, tmp_path / "workspace")  # no .venv, no brain on PATH
    shots = ARTIFACTS / "server-missing"
    missing = "no language server found"
    with open_workbench(browser, server, shots, workspace) as bench:
        bench.open_file(NOTE)
        toasts = bench.page.locator(TOASTS, has_text="brain")
        toasts.first.wait_for(timeout=90_000)
        bench.open_file("memory/on-call/dashboards.md")
        bench.open_file("memory/shared/glossary.md")
        bench.shot("1-notification")
        # Read from the notification center: a toast hides itself after a while.
        notifications = [n for n in bench.all_notifications() if "brain" in n.lower()]
        assert len(notifications) == 1, notifications
        (told,) = notifications
        assert missing in told, told
        assert ".venv/bin/brain" in told, told
        assert "PATH" in told, told
        for button in ("Pick executable…", "Open setting", "Copy install command"):
            assert button in told, (button, told)
        missing_log = server.output_log(workspace)
        assert "no brain language server found" in missing_log, missing_log
        assert "starting brain" not in missing_log

        # "Copy install command", run it (here: make the .venv), and the server starts by itself.
        # The browser is shared: the clipboard first holds something else, so the command in it
        # is this click's.
        clipboard = "navigator.clipboard.readText()"
        bench.page.evaluate("navigator.clipboard.writeText('nothing copied yet')")
        wait_for(lambda: bench.page.evaluate(clipboard) == "nothing copied yet", 30, "the clipboard cleared")
        bench.command("Notifications: Show Notifications")
        items = bench.page.locator(".notifications-center .notification-list-item")
        center = items.filter(has_text="no language server")
        center.locator("a.monaco-button", has_text="Copy install command").click()
        install = "python3 -m venv .venv && .venv/bin/pip install brain-memory"
        wait_for(lambda: bench.page.evaluate(clipboard) == install, 30, "the command in the clipboard")
        make_venv(workspace, gap=1.0)  # written, then made executable a second later, as pip does
        wait_for(lambda: "starting brain" in server.output_log(workspace), 120,
                 "the server to start once .venv exists")
        bench.open_file(NOTE)
        bench.go_to_end()
        bench.type("\n[[")
        bench.suggestions()
        bench.shot("2-started-after-install")
        # Long after the three files were opened, and after the looks for brain the venv set
        # off: the one notification (gone with the click on its button) was not shown again,
        # neither for a file nor for a retry; and no second look until the venv changed.
        later = [n for n in bench.all_notifications() if missing in n]
        assert not later, later
        log = server.output_log(workspace)
    (shots / "output.log").write_text(log)
    before_venv = log.split("A virtual environment changed")[0]
    assert before_venv.count("no brain language server found") == 1, before_venv


def test_restricted_mode_says_why_it_waits_and_starts_when_trusted(
    restricted_code_server: CodeServer, browser: BrowserContext, tmp_path: Path
) -> None:
    server = restricted_code_server
    workspace = copy_workspace(EXAMPLE, tmp_path / "workspace")
    make_venv(workspace)
    shots = ARTIFACTS / "restricted-mode"
    waiting = "starts as soon as you trust the folder"
    with open_workbench(browser, server, shots, workspace) as bench:
        bench.open_file(NOTE)
        toasts = bench.page.locator(TOASTS, has_text="Restricted Mode")
        toasts.first.wait_for(timeout=90_000)
        bench.shot("1-restricted")
        bench.open_file("memory/on-call/dashboards.md")
        told = [n for n in bench.all_notifications() if "brain" in n.lower()]
        assert len(told) == 1, told
        assert waiting in told[0], told
        assert "starting brain" not in server.output_log(workspace)
        bench.command("Workspaces: Manage Workspace Trust")
        bench.page.locator(".workspace-trust-editor a.monaco-button", has_text="Trust").first.click()
        wait_for(lambda: "starting brain" in server.output_log(workspace), 90,
                 "the server to start once trusted")
        bench.command("View: Close Editor")  # the trust editor, a modal over the editors
        bench.page.locator(".workspace-trust-editor").first.wait_for(state="hidden", timeout=30_000)
        bench.open_file(NOTE)
        bench.go_to_end()
        bench.type("\n[[")
        bench.suggestions()
        bench.shot("2-trusted-completion")
        # Long after the second file was opened: still the one notice, and no server started
        # before the folder was trusted.
        later = [n for n in bench.all_notifications() if waiting in n]
        assert len(later) == 1, later
        log = server.output_log(workspace)
    (shots / "output.log").write_text(log)
    untrusted, _, trusted = log.partition("The workspace is trusted now: starting.")
    assert trusted, log
    assert "starting brain" not in untrusted, log
    assert untrusted.count("waiting: the workspace is in Restricted Mode") == 1, untrusted


def _body_start(note: Path) -> str:
    """The first words of the note's text (after its front matter), as its hover begins it."""
    body = note.read_text(encoding="utf-8").split("---", 2)[2]
    return " ".join(next(line for line in body.splitlines() if line.strip()).split()[:3])


def _description(note: Path) -> str:
    for line in note.read_text(encoding="utf-8").splitlines():
        if line.startswith("description:"):
            return line.split(":", 1)[1].strip().strip("\"'")
    raise AssertionError(f"{note} has no description")


def test_a_server_that_crashes_is_not_restarted_in_a_loop(
    code_server: CodeServer, browser: BrowserContext, tmp_path: Path
) -> None:
    server = code_server
    workspace = copy_workspace(EXAMPLE, tmp_path / "workspace")
    venv = make_venv(workspace)
    # A broken install: it answers --version, then dies at start (say, a missing dependency).
    (venv / "bin" / "brain").write_text(
        '#!/bin/sh\nif [ "$1" = --version ]; then echo "brain 0.1.0"; exit 0; fi\n'
        'echo "ModuleNotFoundError: No module named pygls" >&2\nexit 1\n'
    )
    shots = ARTIFACTS / "server-crashes"
    with open_workbench(browser, server, shots, workspace) as bench:
        bench.open_file(NOTE)
        bench.page.locator(TOASTS, has_text="brain").first.wait_for(timeout=90_000)
        # The extension says when it has given up; a loop would start the server again after.
        wait_for(lambda: "not restarting it" in server.output_log(workspace), 60, "the extension to give up")
        bench.open_file("memory/on-call/dashboards.md")
        # A command of the extension, run after the second file's open event in the same
        # extension host: whatever that open set off has been handled when its output shows.
        bench.command("brain: Show language server output")
        bench.page.locator(".output-view, .panel .monaco-editor").first.wait_for()
        bench.shot("1-stopped")
        told = [n for n in bench.all_notifications() if "brain" in n.lower() or "server" in n.lower()]
    log = server.output_log(workspace)
    (shots / "output.log").write_text(log)
    assert len(told) == 1, told
    assert "stopped and was not restarted" in told[0], told
    assert log.count("starting brain 0.1.0 (workspace-venv)") == 1, log
    assert "No module named pygls" in log, log


def test_works_without_any_setting(windows: SharedWindows) -> None:
    # The example's window, shared with the agent's folder of test_code_server_layouts, which
    # runs next (windows.py): the last test here, so that no other window opens while it is up.
    window = windows.get("memory-folders")
    server, bench = window.server, window.bench
    workspace = window.roots["example"].root
    shots = ARTIFACTS / "found-in-venv"
    bench.shots = shots
    shots.mkdir(parents=True, exist_ok=True)
    settings = json.loads((server.user_data / "User" / "settings.json").read_text())
    assert not any(key.startswith("brain.") for key in settings)
    opened = bench.open_file(NOTE)
    bench.go_to_end()
    bench.type("\nAlso see [[")
    rows = bench.suggestions()
    record("example: open -> first completion list (s)", time.monotonic() - opened)
    bench.shot("1-completion")
    texts = [row.inner_text() for row in rows.all()]
    labels = [t.split("\n")[0].strip() for t in texts]
    assert "alert-tuning" in labels, texts
    assert "dashboards" in labels, texts
    assert "paging-etiquette" not in labels, "the note being edited is not offered"
    described = next(t for t in texts if "alert-tuning" in t)
    description = _description(workspace / "memory/on-call/alert-tuning.md")
    assert description[:30] in " ".join(described.split()), (described, description)

    bench.page.keyboard.press("Escape")
    bench.type("no-such-note]]")
    typed = time.monotonic()
    squiggles = bench.page.locator(".monaco-editor[data-uri$='/paging-etiquette.md'] .squiggly-error")
    squiggles.first.wait_for(timeout=60_000)
    record("example: typed broken link -> underlined (s)", time.monotonic() - typed)
    bench.page.keyboard.press("Control+Shift+M")
    problems = bench.page.locator(".markers-panel .monaco-list-row")
    problems.filter(has_text="no-such-note").first.wait_for(timeout=30_000)
    bench.shot("2-problems")
    problem = problems.filter(has_text="no-such-note").first.inner_text()
    assert "[[no-such-note]] points to nothing" in problem, problem
    assert "`" not in problem, f"markdown backticks in the Problems panel: {problem!r}"

    # Hover and go to definition on the note's own link `[[alert-tuning]]` (line 7).
    bench.page.keyboard.press("Control+G")
    bench.page.keyboard.type("7:6")
    bench.page.keyboard.press("Enter")
    bench.page.keyboard.press("Control+K")
    bench.page.keyboard.press("Control+I")
    hover = bench.page.locator(".monaco-hover:not(.hidden)")
    # The note's first words as well: the link's own tooltip (document links) shows the
    # description too, and a plant that silenced the hover provider passed on it alone.
    begins = _body_start(workspace / "memory/on-call/alert-tuning.md")
    shown = hover.filter(has_text=description[:20]).filter(has_text=begins)
    shown.first.wait_for(timeout=30_000)
    bench.shot("3-hover")
    bench.page.keyboard.press("Escape")
    bench.page.keyboard.press("F12")
    bench.page.locator(".tab.active", has_text="alert-tuning.md").wait_for(timeout=30_000)
    bench.shot("4-definition")

    bench.command("brain: Show language server output")
    bench.page.locator(".output-view, .panel .monaco-editor").first.wait_for()
    bench.shot("5-output")
    notifications = bench.all_notifications()
    assert not [n for n in notifications if "brain" in n.lower()], notifications

    log = server.output_log(workspace)
    (shots / "output.log").write_text(log)
    # The example's own line: the window's log holds the agent folder's root's lines too.
    started = rf"\[{re.escape(str(workspace))}\] starting brain \S+ \(workspace-venv\): "
    assert re.search(started + r"\S+/\.venv/bin/brain lsp", log), log
    bad = [line for line in log.splitlines() if re.search(r"error|exception|traceback", line, re.I)]
    assert not bad, f"errors in the brain output channel: {bad}"
