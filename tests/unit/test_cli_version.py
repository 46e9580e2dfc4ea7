"""`brain --version` is what editors run to check a server candidate before starting it
(lsp/vscode discovery, lsp/nvim): its first line is `brain <version>`, at once, importing no
command. The lines after it say which optional parts this install has (UI, native, model), from
the files themselves: here real folders stand in for an install with and without each part."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from brain import __version__

ROOT = Path(__file__).resolve().parents[2]


def _version(env: dict[str, str] | None = None, *args: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "brain", "--version", *args],
        capture_output=True, text=True, env={**os.environ, **(env or {})}, check=True,
    )
    return proc.stdout.splitlines()


def test_version_answers_without_importing_the_commands() -> None:
    code = (
        "import sys; from brain.cli.main import main; code = main(['--version']); "
        "heavy = sorted(m for m in ('brain.tool', 'brain.ingest', 'brain.lsp', 'starlette', 'numpy') "
        "if m in sys.modules); print(code, heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == f"brain {__version__}"
    assert [line.split(":")[0] for line in lines[1:4]] == ["web UI", "native scanners", "semantic model"]
    assert lines[4:] == ["0 []"]


def test_python_m_brain_version_first_line_is_what_editors_read() -> None:
    assert _version()[0] == f"brain {__version__}"


def test_version_among_other_arguments_gives_the_same_report() -> None:
    # argparse's path (`brain --version schema`), not main's fast path.
    assert _version(None, "schema")[:1] == [f"brain {__version__}"]
    assert len(_version(None, "schema")) == 4


def test_version_reports_the_web_ui_from_its_files(tmp_path: Path) -> None:
    built = tmp_path / "built"
    built.mkdir()
    (built / "index.html").write_text("<!doctype html>")
    assert f"web UI: present ({built})" in _version({"BRAIN_WEB_DIST": str(built)})
    empty = tmp_path / "empty"
    empty.mkdir()
    (line,) = [x for x in _version({"BRAIN_WEB_DIST": str(empty)}) if x.startswith("web UI")]
    assert line.startswith("web UI: absent")
    assert "make web" in line


def test_version_reports_native_scanners_turned_off() -> None:
    lines = _version({"BRAIN_NATIVE": "0"})
    assert any(x.startswith("native scanners: not loaded") or x.startswith("native scanners: absent")
               for x in lines)


def test_version_reports_the_semantic_model_from_its_package(tmp_path: Path) -> None:
    # A stand-in brain_minilm on the path: present with its weights, absent without them.
    package = tmp_path / "site" / "brain_minilm"
    (package / "model").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(ROOT)])}
    (line,) = [x for x in _version(env) if x.startswith("semantic model")]
    assert line.startswith("semantic model: absent: brain-minilm has no")
    (package / "model" / "model.safetensors").write_bytes(b"\0" * 8)
    (line,) = [x for x in _version(env) if x.startswith("semantic model")]
    assert line.startswith("semantic model: present (brain-minilm"), line
