"""A real `brain serve` subprocess on a free port, and a headless Chromium driven by Playwright.

Playwright cannot download browsers here, so it drives Debian's `chromium` (scripts/test
installs it). Without it the UI tests skip locally and fail in CI (CI=true).
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.plan import one_worker_at_a_time

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "workspace"
ARTIFACTS = Path(os.environ.get("BRAIN_UI_ARTIFACTS", REPO / "tests" / "ui" / "artifacts"))
CHROMIUM = os.environ.get("BRAIN_CHROMIUM", "/usr/bin/chromium")
# What a real user's Chromium does, headless: the benchmarks (bench_ui, bench_graph_view) time
# the app with these.
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
# The tests' Chromium (tests/ui/browser.py) adds --js-flags=--no-opt: V8 without its optimizing
# compiler (TurboFan). A test's page lives seconds, too short for optimized code to pay back its
# compiling, and the app's answers are the same in any tier (the benchmarks keep TurboFan: their
# times are a user's). Chromium's CPU over tests/ui: 122 and 100 CPU-s without it, 100 and 92
# with it (interleaved pairs, load 8-23); the 6,000-note layout of test_graph_clusters still
# converges, its CPU no higher. Playwright already passes the background, extension and sync
# switches.
TEST_CHROMIUM_ARGS = [*CHROMIUM_ARGS, "--js-flags=--no-opt"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class BrainServer:
    """`brain serve WORKSPACE --port N` in its own process group; restartable on the same port."""

    root: Path
    port: int = field(default_factory=free_port)
    env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[str] | None = None
    log: Path | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> BrainServer:
        inherited = {k: v for k, v in os.environ.items() if k not in ("BRAIN_TOKEN", "BRAIN_TOKENS_FILE")}
        env = {**inherited, "BRAIN_RESCAN_SECONDS": "2", **self.env}
        self.log = self.root.parent / f"serve-{self.port}.log"
        out = self.log.open("a")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "brain", "serve", str(self.root), "--port", str(self.port)],
            stdout=out, stderr=subprocess.STDOUT, text=True, env=env, start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        # One client for the polls: httpx.get makes a client (and its SSL context) a call, about
        # 40 ms of CPU each; the 50-100 polls of a start cost more than the server's own start.
        with httpx.Client(timeout=1) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"brain serve exited: {self.log.read_text()}")
                try:
                    if client.get(f"{self.base}/healthz").status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                time.sleep(0.1)
        raise RuntimeError(f"brain serve did not get ready in {timeout} s: {self.log.read_text()}")

    def stop(self) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        self.process = None


def copy_example(tmp: Path) -> Path:
    """The example workspace, its files written now (shutil.copy, not copy2): their times are
    the test's, not the checkout's, so an age the UI shows is one the test chose."""
    root = tmp / "workspace"
    shutil.copytree(EXAMPLE, root, copy_function=shutil.copy)
    return root


def aged_example(tmp: Path) -> Path:
    """The example, its glossary last changed five and a half days ago (the memory list shows
    its age): the workspace of the shared reader (tests/ui/conftest.py) and of the memory
    review's writers."""
    root = copy_example(tmp)
    five_days_ago = time.time() - 5.5 * 86_400
    os.utime(root / "memory/shared/glossary.md", (five_days_ago, five_days_ago))
    return root


def chromium_missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is not installed (apt-get install chromium; scripts/test does it)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[test]')"
    return None


@functools.cache
def ensure_built() -> None:
    """The bundle the server answers at /; web/build.sh only rebuilds what changed. Once a
    process, under a lock: two pytest-xdist workers must not build into web_dist together."""
    with one_worker_at_a_time("web-build"):
        subprocess.run(["bash", str(REPO / "web" / "build.sh"), "--if-needed"], check=True,
                       stdout=subprocess.DEVNULL)
