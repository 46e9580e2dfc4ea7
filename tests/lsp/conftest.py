"""Shared helpers for the language server tests: small real workspaces on disk."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from brain.lsp.capabilities import ClientFeatures
from brain.lsp.context import Context, Document
from brain.lsp.features.catalog import Catalog
from brain.lsp.features.positions import Encoding
from brain.service.brain import Brain

NOW = 1_793_491_200.0  # 2026-11-01, after every mtime the tests set

WORKSPACE: dict[str, str] = {
    "agents/bot.md": "---\ndescription: The bot\nmemory: true\n---\n",
    "memory/bot/alpha.md": (
        "---\ndescription: Alpha note\ntype: project\n---\n\n# Alpha\n\n## Details\n\n"
        "See [[beta]] and [[shared/gamma#Usage|gamma usage]].\n"
    ),
    "memory/bot/beta.md": "---\ndescription: Beta note\ntype: user\n---\n\nBack to [[alpha]].\n",
    "memory/shared/gamma.md": (
        "---\ndescription: Gamma, shared\ntype: reference\n---\n\n# Gamma\n\n## Usage\n\nUse it.\n"
    ),
    "workflows/nightly-release.yaml": "title: Nightly release\nsteps: []\n",
    "chats/standup.md": "---\ntitle: Daily standup\n---\nhello\n",
    "work-items/fix-login.md": "---\ntitle: Fix the login page\n---\n",
}


def write_tree(root: Path, files: Mapping[str, str], mtime: float = NOW - 3 * 86_400) -> None:
    import os

    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (mtime, mtime))


BrainFactory = Callable[..., Brain]


@pytest.fixture
def make_brain(tmp_path: Path) -> BrainFactory:
    """A synced Brain over `WORKSPACE` plus/minus the given files (None removes one)."""

    def make(extra: Mapping[str, str | None] | None = None, base: Mapping[str, str] = WORKSPACE) -> Brain:
        files = dict(base)
        for rel, text in (extra or {}).items():
            if text is None:
                files.pop(rel, None)
            else:
                files[rel] = text
        write_tree(tmp_path, files)
        brain = Brain(tmp_path)
        brain.sync()
        return brain

    return make


def context(
    brain: Brain, encoding: Encoding = "utf-16", **features: bool
) -> Context:
    flags = {
        "markdown": True, "document_changes": True, "rename_files": True, "create_files": True,
        "definition_links": True, "hierarchical_symbols": True, "hover_markdown": True,
    }
    flags.update(features)
    features = ClientFeatures(encoding=encoding, **flags)
    return Context(brain.store, Catalog.of(brain.store), brain.root, features, NOW)


def document(brain: Brain, rel: str, text: str | None = None, version: int | None = 1) -> Document:
    if text is None:
        text = (brain.root / rel).read_text(encoding="utf-8")
    return Document((brain.root / rel).as_uri(), rel, text, version)
