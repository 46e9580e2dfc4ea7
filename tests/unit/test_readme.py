"""The README as a front door: short, its code fences closed, every command it shows exists,
every link it gives lands. The docs' fences too (an unclosed one renders the rest as code)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from brain.cli.main import build_parser

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]


def _blocks(text: str) -> list[str]:
    return re.findall(r"^```[^\n]*\n(.*?)^```\s*$", text, flags=re.M | re.S)


def _commands(text: str) -> list[list[str]]:
    """Each command line of the page's code blocks, as words, comments cut."""
    lines = [line.split("  #")[0].strip() for block in _blocks(text) for line in block.splitlines()]
    return [shlex.split(line) for line in lines if line and not line.startswith("#")]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_code_fence_is_closed(page: Path) -> None:
    fences = [n for n, line in enumerate(page.read_text().splitlines(), 1) if line.startswith("```")]
    assert len(fences) % 2 == 0, f"{page.name}: the fence at line {fences[-1]} is never closed"


def test_the_readme_fits_on_a_few_screens() -> None:
    assert len(README.read_text().splitlines()) < 200


def test_every_brain_command_the_readme_shows_exists() -> None:
    parser = build_parser()
    choices = next(a for a in parser._actions if a.choices and isinstance(a.choices, dict)).choices
    assert isinstance(choices, dict)
    shown = []
    for words in _commands(README.read_text()):
        for at, word in enumerate(words):
            if word.endswith("brain") and at + 1 < len(words) and not words[at + 1].startswith("-"):
                shown.append(words[at + 1])
    assert {"serve", "check", "lsp", "mcp", "search"} <= set(shown)
    assert [c for c in shown if c not in choices] == []


def test_every_make_target_the_readme_shows_exists() -> None:
    makefile = (REPO / "Makefile").read_text()
    targets = {m.group(1) for m in re.finditer(r"^([\w-]+):", makefile, flags=re.M)}
    shown = [words[1] for words in _commands(README.read_text()) if words[0] == "make"]
    assert {"serve", "test"} <= set(shown)
    assert [t for t in shown if t not in targets] == []


def test_every_relative_link_of_the_readme_lands() -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README.read_text())
    relative = [link for link in links if "://" not in link]
    assert relative
    assert [link for link in relative if not (REPO / link).exists()] == []
