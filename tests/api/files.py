"""Writing workspaces for API tests."""

from __future__ import annotations

import os
from pathlib import Path

SMALL_WORKSPACE = {
    "agents/bot.md": "---\ndescription: A helpful bot\nmemory: true\n---\nYou help.\n",
    "agents/writer.md": "---\ndescription: Writes release notes\nmemory: true\n---\nYou write.\n",
    "memory/shared/glossary.md": (
        "---\ndescription: Team words\ntype: reference\n---\n# Terms\n"
        "See [[style]] and [[workflow:release]].\n"
    ),
    "memory/bot/notes.md": (
        "---\ndescription: Bot notes\ntype: project\n---\n# Top\n"
        "Links: [[glossary]], [[missing-thing]], [[writer/style#Tone]]\n"
    ),
    "memory/writer/style.md": (
        "---\ndescription: House style\ntype: feedback\n---\n# Tone\nShort. See [[glossary#Terms]].\n"
    ),
    "memory/old-bot/leftover.md": "A leftover note\n\nWants [[missing-thing]] too.\n",
    "workflows/release.yaml": "title: Release train\n",
    "work-items/BRN-1.md": "---\ntitle: Fix it\n---\nNot a note: [[notes]] here is no link.\n",
    "chats/c1.json": '{"title": "Chat one"}\n',
}


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_atomically(root: Path, rel: str, text: str) -> None:
    """What editors do: write a temp file next to the target, then rename it over the target."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    temp.write_text(text, encoding="utf-8")
    os.replace(temp, path)


def make_workspace(root: Path, files: dict[str, str] | None = None) -> Path:
    for rel, text in (SMALL_WORKSPACE if files is None else files).items():
        write(root, rel, text)
    return root
