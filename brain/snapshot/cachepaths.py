"""Where brain keeps what it can compute again: its cache folder and a workspace's snapshot.

A module of its own, with no import of brain's: the language server asks it before it has
imported anything else (brain/lsp/codecache.py, a warm start's early check in
brain/lsp/session.py).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def cache_dir() -> Path:
    """`BRAIN_CACHE_DIR`, else `$XDG_CACHE_HOME/brain`, else `~/.cache/brain`."""
    explicit = os.environ.get("BRAIN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")) / "brain"


def snapshot_path(root: Path, folder: Path | None = None, kind: str = "") -> Path:
    """`<folder>/<digest of the workspace's real path>.snapshot`; the folder is
    `BRAIN_SNAPSHOT_DIR`, else `snapshots/` in brain's cache folder."""
    key = hashlib.sha256(os.fsencode(root.resolve())).hexdigest()[:32]
    if folder is None:
        explicit = os.environ.get("BRAIN_SNAPSHOT_DIR")
        folder = Path(explicit) if explicit else cache_dir() / "snapshots"
    return folder / f"{key}{'.' + kind if kind else ''}.snapshot"
