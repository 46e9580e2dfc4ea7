"""`brain --version` is what editors run to check a server candidate before starting it
(lsp/vscode discovery, lsp/nvim): it answers `brain <version>` at once, importing nothing else."""

from __future__ import annotations

import subprocess
import sys

from brain import __version__


def test_version_answers_without_importing_the_commands() -> None:
    code = (
        "import sys; from brain.cli.main import main; code = main(['--version']); "
        "heavy = sorted(m for m in ('brain.tool', 'brain.ingest', 'brain.lsp') if m in sys.modules); "
        "print(code, heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == [f"brain {__version__}", "0 []"]


def test_python_m_brain_version() -> None:
    proc = subprocess.run([sys.executable, "-m", "brain", "--version"], capture_output=True, text=True)
    assert (proc.returncode, proc.stdout) == (0, f"brain {__version__}\n")
