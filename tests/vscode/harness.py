"""A real VS Code for tests and benchmarks: code-server (from npm, on Node 24) in a throw-away
profile, the packaged brain extension installed offline from its .vsix, and Debian's chromium
driven by Playwright for Python.

Everything slow is cached under ~/.cache/brain-ci (code-server, Node). The tests share one
code-server and one browser (tests/vscode/shared.py); each test has its own workspace copy
and its own window, whose extension host and output log are its own. Nothing here downloads
at test time except the one-off code-server install, which scripts/test runs first.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.plan import one_worker_at_a_time

REPO = Path(__file__).resolve().parents[2]
EXTENSION_DIR = REPO / "lsp" / "vscode"
INSTALL_SCRIPT = Path(__file__).with_name("install_code_server.sh")
CHROMIUM = os.environ.get("BRAIN_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]
ARTIFACTS = Path(os.environ.get("BRAIN_TEST_ARTIFACTS", REPO / "test-artifacts")) / "vscode"
EXTENSION_ID = "brain.brain-memory"
# In CI a missing chromium or code-server fails the real-VS-Code tests instead of skipping them.
REQUIRED = os.environ.get("CI", "").lower() == "true" or bool(os.environ.get("BRAIN_REQUIRE_VSCODE"))

# A profile that keeps VS Code quiet and offline: no welcome page, no update or telemetry
# traffic, no extension gallery. It sets nothing for brain: discovery must do without.
USER_SETTINGS: dict[str, Any] = {
    "workbench.startupEditor": "none",
    "workbench.tips.enabled": False,
    "workbench.enableExperiments": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "extensions.ignoreRecommendations": True,
    "git.enabled": False,
    "chat.disableAIFeatures": True,
    "editor.quickSuggestions": {"other": False, "comments": False, "strings": False},
    # Only the language server's suggestions: VS Code's word list would fill the widget first.
    "editor.wordBasedSuggestions": "off",
    "editor.suggest.showWords": False,
    "editor.hover.delay": 100,
    "remote.autoForwardPorts": False,  # other servers on this machine are not ours to announce
    "security.workspace.trust.startupPrompt": "never",
    "security.workspace.trust.banner": "never",
}


def code_server_entry() -> list[str]:
    """`[node, entry.js]`, installing code-server into the cache first if needed."""
    with one_worker_at_a_time("code-server-install"):
        proc = subprocess.run(["bash", str(INSTALL_SCRIPT)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"installing code-server failed:\n{proc.stderr[-4000:]}")
    return proc.stdout.strip().splitlines()[-1].split(" ")


def vsix() -> Path:
    """The packaged extension, rebuilt when a source file is newer than the package."""
    version = json.loads((EXTENSION_DIR / "package.json").read_text())["version"]
    package = EXTENSION_DIR / f"brain-memory-{version}.vsix"
    sources = [EXTENSION_DIR / "package.json", EXTENSION_DIR / "README.md", *EXTENSION_DIR.glob("src/*")]
    with one_worker_at_a_time("vscode-build"):  # two workers building into dist/ broke the bundle
        if not package.exists() or max(s.stat().st_mtime for s in sources) > package.stat().st_mtime:
            build = ["bash", str(EXTENSION_DIR / "build.sh")]
            proc = subprocess.run(build, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise RuntimeError(f"lsp/vscode/build.sh failed:\n{proc.stdout[-2000:]}{proc.stderr[-4000:]}")
    return package


def make_venv(workspace: Path, gap: float = 0.0) -> Path:
    """`<workspace>/.venv`: a real virtual environment whose `bin/brain` runs this checkout.

    Installing brain and its dependencies again would take a minute; a `.pth` file lends the
    venv this checkout and the test environment's site-packages instead, as `pip install -e`
    would. The console script is the one pip writes.
    """
    venv = workspace / ".venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    lend = [str(REPO), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    Path(site, "brain-checkout.pth").write_text("\n".join(dict.fromkeys(lend)) + "\n")
    brain = venv / "bin" / "brain"
    brain.write_text(
        f"#!{python}\nimport re\nimport sys\nfrom brain.cli.main import main\n"
        "if __name__ == '__main__':\n"
        "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"
        "    sys.exit(main())\n"
    )
    # pip, too, writes the script and then makes it executable; a slow disk or a busy
    # machine puts time between the two, and the extension must look again after the second.
    # `gap` plays that time for a test whose editor watches the venv appear; a venv made
    # before the window opens needs none.
    if gap > 0:
        time.sleep(gap)
    brain.chmod(0o755)
    return venv


def path_without_brain(path: str) -> str:
    """PATH minus the folders that hold a `brain` (a developer's activated venv)."""
    keep = [d for d in path.split(os.pathsep) if d and not Path(d, "brain").exists()]
    return os.pathsep.join(keep)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# How long code-server keeps a closed window's extension host (and its brain server) for a
# reconnect. Its default, three hours, would keep every finished test's brain running beside
# the next tests of a shared server; a live window on 127.0.0.1 reconnects within seconds.
RECONNECTION_GRACE_S = 60
# code-server answers /healthz within seconds; on a CI machine with two test workers, Neo4j and
# browsers beside it, a start took tens of seconds.
START_TIMEOUT_S = 180


@dataclass
class CodeServer:
    """One code-server process with its own profile; `folder` is the window `url` opens
    (any other folder gets a window of its own by `url_of`)."""

    entry: list[str]
    home: Path
    folder: Path
    port: int = field(default_factory=free_port)
    trust: bool = True
    proc: subprocess.Popen[bytes] | None = None

    @property
    def user_data(self) -> Path:
        return self.home / "user-data"

    @property
    def extensions(self) -> Path:
        return self.home / "extensions"

    @property
    def url(self) -> str:
        return self.url_of(self.folder)

    def url_of(self, folder: Path) -> str:
        """A window on `folder`, or on the multi-root workspace a `.code-workspace` file names:
        one code-server serves any folder, each window its own."""
        if folder.suffix == ".code-workspace":
            return f"http://127.0.0.1:{self.port}/?workspace={folder}"
        return f"http://127.0.0.1:{self.port}/?folder={folder}"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("VSCODE_", "BRAIN_")) or k == "BRAIN_SNAPSHOT_DIR"}
        env["PATH"] = path_without_brain(env.get("PATH", ""))
        env["HOME"] = str(self.home / "home")
        env.pop("VIRTUAL_ENV", None)
        env.pop("PYTHONPATH", None)
        return env

    def profile(self) -> None:
        """The profile's settings and HOME, as `install` leaves them."""
        settings = self.user_data / "User" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps(USER_SETTINGS, indent=2))
        (self.home / "home").mkdir(parents=True, exist_ok=True)

    def install(self, package: Path) -> None:
        self.profile()
        proc = subprocess.run(
            [*self.entry, "--user-data-dir", str(self.user_data),
             "--extensions-dir", str(self.extensions), "--install-extension", str(package)],
            capture_output=True, text=True, env=self.env(), timeout=300, check=False,
        )
        if proc.returncode != 0 or "successfully installed" not in proc.stdout:
            raise RuntimeError(f"--install-extension failed ({proc.returncode}): {proc.stdout}{proc.stderr}")

    def install_from(self, installed: CodeServer) -> None:
        """The extension as `installed` installed it, copied: `--install-extension` starts
        VS Code's CLI under Node, seconds of a loaded machine, for the same files. The copy's
        extensions.json names its folders relative to the extensions folder as well as by
        path; the paths are made this server's, so nothing of it points at the other's."""
        self.profile()
        shutil.copytree(installed.extensions, self.extensions, symlinks=True)
        manifest = self.extensions / "extensions.json"
        if manifest.exists():
            text = manifest.read_text(encoding="utf-8")
            text = text.replace(str(installed.extensions), str(self.extensions))
            manifest.write_text(text, encoding="utf-8")

    def start(self) -> None:
        args = [
            *self.entry, "--auth", "none", "--bind-addr", f"127.0.0.1:{self.port}",
            "--user-data-dir", str(self.user_data), "--extensions-dir", str(self.extensions),
            "--disable-telemetry", "--disable-update-check", "--disable-getting-started-override",
            "--ignore-last-opened", "--reconnection-grace-time", str(RECONNECTION_GRACE_S),
        ]
        if self.trust:
            args.append("--disable-workspace-trust")
        log = (self.home / "code-server.log").open("wb")
        self.proc = subprocess.Popen(
            args, stdout=log, stderr=subprocess.STDOUT, env=self.env(), cwd=self.home
        )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                said = (self.home / "code-server.log").read_text()
                raise RuntimeError(f"code-server exited: {said[-3000:]}")
            with (
                contextlib.suppress(OSError),
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2),
            ):
                return
            time.sleep(0.2)
        raise RuntimeError(f"code-server did not answer on /healthz within {START_TIMEOUT_S} s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def alive(self) -> bool:
        """Running, and answering on /healthz."""
        if self.proc is None or self.proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=10):
                return True
        except OSError:
            return False

    def output_log(self, under: Path | None = None) -> str:
        """The extension's `brain` output channel, as VS Code keeps it on disk: of every
        window, or with `under` of the windows that named a brain root at or below `under`.

        Each window has an extension host of its own, and each host its own log file; the
        extension starts every line about a root with `[<root>]`, so a window on a test's own
        folder is told from the windows of the tests before it (whose lines, errors included,
        are not this test's).
        """
        logs = sorted(self.user_data.glob("logs/**/output_logging_*/*brain.log"))
        texts = [p.read_text(encoding="utf-8", errors="replace") for p in logs]
        if under is not None:
            texts = [t for t in texts if f"[{under}]" in t or f"[{under}/" in t]
        return "\n".join(texts)


@contextlib.contextmanager
def running(
    entry: list[str], home: Path, folder: Path, package: Path, trust: bool = True
) -> Iterator[CodeServer]:
    server = CodeServer(entry, home, folder, trust=trust)
    server.install(package)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def copy_workspace(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest, symlinks=True)
    return dest
