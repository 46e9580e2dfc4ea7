"""One code-server and one browser for all the tests of tests/vscode, where each test used to
start its own: code-server's start and the extension's install were most of a test's time.

What stays each test's own: its workspace (a fresh copy in its tmp_path) and its window (a page
of the one browser context), and with the window its own extension host, whose output log
`CodeServer.output_log(under=...)` tells apart. The browser context is shared so that its HTTP
cache is: with a context per test, code-server sent (and gzipped) the workbench's 19 MB of
scripts again for every window. Nothing a test checks is kept in the context's storage: the extension keeps no
globalState or workspaceState, VS Code keeps a workspace's state under its folder (each test's
is new), and the one test that reads the clipboard writes it first. A test that fails leaves the
next one a working pair: a server or browser found dead is started again before the next test.

Some tests share a window, too (`SharedWindows`, the workspaces in windows.py): each has its
own workspace, a folder of the window's multi-root workspace, and reads the window's log by its
own root's lines.

Workspace trust is a flag of the server, not of a window, so the one test of Restricted Mode
gets a second server, with trust on, started when that test first asks for it. The extension
is installed from the .vsix once (`--install-extension`); a second or restarted server gets a
copy of the first one's extensions folder.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .harness import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, CodeServer
from .windows import WINDOWS, Root

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Playwright

    from .workbench import Workbench


class SharedServers:
    """Started on first use, one per trust setting; stopped at the end of the folder."""

    def __init__(self, entry: list[str], package: Path, base: Path) -> None:
        self.entry = entry
        self.package = package
        self.base = base
        self.servers: dict[bool, CodeServer] = {}
        self.starts = 0  # how many code-servers this session started (restarts included)
        # The first server that installed the .vsix; later ones copy its extensions folder.
        self.installed: CodeServer | None = None

    def get(self, trust: bool = True) -> CodeServer:
        server = self.servers.get(trust)
        if server is not None and server.alive():
            return server
        if server is not None:  # died during an earlier test: this test gets a new one
            server.stop()
        self.starts += 1
        home = self.base / f"code-server-{'trusted' if trust else 'restricted'}-{self.starts}"
        # The server's own folder is an empty one: every test opens its workspace by url_of.
        (home / "no-folder").mkdir(parents=True)
        server = CodeServer(self.entry, home, home / "no-folder", trust=trust)
        if self.installed is None:
            server.install(self.package)
            self.installed = server
        else:  # the same .vsix, already installed once this session: its files copied
            server.install_from(self.installed)
        server.start()
        self.servers[trust] = server
        return server

    def stop(self) -> None:
        for server in self.servers.values():
            server.stop()
        self.servers.clear()


class SharedBrowser:
    """One Chromium and one context of it; each test opens a page (a window) of its own
    (`open_workbench`)."""

    def __init__(self, playwright: Playwright) -> None:
        self.playwright = playwright
        self.browser: Browser | None = None
        self.context: BrowserContext | None = None

    def get(self) -> BrowserContext:
        if self.browser is None or not self.browser.is_connected() or self.context is None:
            self.close()
            self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            self.context = self.browser.new_context(
                viewport={"width": 1400, "height": 900},
                # The test of "Copy install command" reads the clipboard.
                permissions=["clipboard-read", "clipboard-write"],
                # code-server gzips each response as it sends it (its 19 MB workbench.js took
                # 0.7 s of its CPU, 0.1 s unzipped); on 127.0.0.1 that saves no time, only
                # costs CPU at both ends.
                extra_http_headers={"Accept-Encoding": "identity"},
            )
        return self.context

    def close(self) -> None:
        if self.browser is not None:
            with contextlib.suppress(Exception):
                self.browser.close()
        self.browser = None
        self.context = None


@dataclass
class Window:
    """A shared window: its workbench, its server, the tests' workspaces by key, and for each
    whether its server had started before any note was opened in the window."""

    bench: Workbench
    server: CodeServer
    roots: dict[str, Root]
    started_before_notes: dict[str, bool]


class SharedWindows:
    """The windows of windows.WINDOWS, opened on first use. At most one is open: asking for
    another closes it first, so a window's extension host and servers do not idle beside the
    tests after it. A window asked for again after that is a new one on fresh copies."""

    def __init__(self, servers: SharedServers, browser: SharedBrowser, base: Path) -> None:
        self.servers = servers
        self.browser = browser
        self.base = base
        self.opened = 0
        self.name: str | None = None
        self.window: Window | None = None
        self.stack = contextlib.ExitStack()

    def get(self, name: str) -> Window:
        if self.name == name and self.window is not None:
            return self.window
        self.close()
        from .workbench import open_workbench

        self.opened += 1
        base = self.base / f"{name}-{self.opened}"
        roots = WINDOWS[name](base)
        file = base / f"{name}.code-workspace"
        file.write_text(json.dumps({"folders": [{"path": str(r.opened)} for r in roots.values()]}, indent=2))
        server = self.servers.get(trust=True)
        with contextlib.ExitStack() as stack:
            shots = ARTIFACTS / f"window-{name}"
            bench = stack.enter_context(open_workbench(self.browser.get(), server, shots, file))
            # Before any note is open: the servers the folders alone start.
            started = _started(server, [root.root for root in roots.values()])
            started_before_notes = {key: started[root.root] for key, root in roots.items()}
            self.stack = stack.pop_all()
        self.name, self.window = name, Window(bench, server, roots, started_before_notes)
        return self.window

    def close(self) -> None:
        self.name, self.window = None, None
        stack, self.stack = self.stack, contextlib.ExitStack()
        stack.close()


def _started(server: CodeServer, roots: list[Path]) -> dict[Path, bool]:
    """Per root: the log said, within two minutes a root, that a window started its server.

    The roots start side by side, each with its own look for brain (`brain --version` of each
    candidate) and its own server: on a loaded machine (load 40 on two cores) a window of two
    roots said "starting brain" for the second after more than the two minutes a window of
    one root is given. Polled as wait_for does; a root that never starts costs the time once."""
    deadline = time.monotonic() + 120 * len(roots)
    while True:
        started = {root: f"[{root}] starting brain" in server.output_log(root) for root in roots}
        if all(started.values()) or time.monotonic() > deadline:
            return started
        time.sleep(0.2)
