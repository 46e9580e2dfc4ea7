"""One version, brain/__init__.py's: the package metadata reads it (setuptools dynamic), the
native crate and the pins of `brain[semantic]` on the native and model wheels must equal it, or
`pip install --find-links dist 'brain[semantic]'` finds no wheel to match (scripts/dist checks
the same before it builds)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from brain import __version__

ROOT = Path(__file__).resolve().parents[2]


def test_pyproject_reads_the_version_from_brain() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "brain.__version__"}


def test_native_crate_has_brains_version() -> None:
    cargo = tomllib.loads((ROOT / "native" / "Cargo.toml").read_text())
    assert cargo["package"]["version"] == __version__
    native = tomllib.loads((ROOT / "native" / "pyproject.toml").read_text())
    assert native["project"]["dynamic"] == ["version"]  # maturin takes Cargo.toml's


def test_semantic_extra_pins_the_wheels_make_dist_builds() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"]["semantic"]
    pins = dict(m.groups() for r in extra if (m := re.fullmatch(r"(brain-[a-z]+)==(.+)", r)))
    assert pins == {"brain-minilm": __version__, "brain-native": __version__}


def test_model_wheel_template_takes_the_version_from_dist() -> None:
    template = (ROOT / "tools" / "dist" / "minilm" / "pyproject.toml").read_text()
    assert 'version = "@VERSION@"' in template
    assert "dependencies = []" in template  # data only: never torch


def test_every_install_command_names_brain_memory_at_this_version() -> None:
    # `brain` on PyPI is another project's: a `pip install brain` anywhere we tell people to run
    # it (README, docs, the editors' "copy install command") installs that one.
    texts = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), ROOT / "lsp" / "vscode" / "README.md",
             ROOT / "lsp" / "nvim" / "README.md", ROOT / "lsp" / "vscode" / "src" / "discovery.ts",
             ROOT / "lsp" / "nvim" / "brain.lua"]
    command = r"pip install (?:-[\w-]+ (?:\S+ )?)*'?([\w.-]+)(?:\[\w+\])?(?:==([\w.]+))?"
    installs = [(p.name, m) for p in texts for m in re.findall(command, p.read_text(encoding="utf-8"))]
    ours = [(name, pin) for name, (dist, pin) in installs if dist.startswith("brain")]
    assert len(ours) >= 6, installs
    assert {dist for _, (dist, _) in installs if dist.startswith("brain")} == {"brain-memory"}, ours
    assert {pin for _, pin in ours} <= {"", __version__, "X"}, ours
