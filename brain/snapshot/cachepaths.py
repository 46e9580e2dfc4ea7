"""Where brain keeps what it can compute again: its cache folder and a workspace's snapshot.

A module of its own, with no import of brain's: the language server asks it before it has
imported anything else (brain/lsp/startup/codecache.py, a warm start's early check in
brain/lsp/session.py).

What is read back from these folders is trusted: a snapshot becomes the graph, the language
server's code cache is code it runs, the vector cache ranks search results. So a folder (or
file) that someone else owns, or that others may write, is not used, with a warning that names
it and the fix (`untrusted`); brain then reads everything afresh, as without a cache.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from pathlib import Path

log = logging.getLogger("brain.cache")
_warned: set[str] = set()


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


def untrusted(path: Path) -> str | None:
    """Why `path` (a cache folder or file) must not be used, or None if it may: it does not
    exist yet (brain creates it, private), or it is this user's and no one else may write it."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be checked ({exc.strerror or exc})"
    return stat_untrusted(st)


def stat_untrusted(st: os.stat_result) -> str | None:
    """`untrusted` of what `os.stat` or `os.fstat` said (an open file: not what its name
    points at by now)."""
    uid = os.getuid() if hasattr(os, "getuid") else st.st_uid
    if st.st_uid != uid:
        return f"belongs to user id {st.st_uid}, not to this user ({uid})"
    # Group-writable is fine when the group is the user's own (a umask of 002 with a group
    # per user, as many distributions set up, makes ~/.cache/brain 775).
    gid = os.getgid() if hasattr(os, "getgid") else st.st_gid
    if st.st_mode & stat.S_IWOTH or (st.st_mode & stat.S_IWGRP and st.st_gid != gid):
        return f"may be written by others (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def trusted(path: Path, what: str) -> bool:
    """Whether `path` may be used; if not, one warning (per path and process) saying why and
    what to do."""
    reason = untrusted(path)
    if reason is None:
        return True
    key = str(path)
    if key not in _warned:
        _warned.add(key)
        fix = f"`chmod go-w {path}`" if "written by others" in reason else f"remove {path}"
        log.warning(
            "not using %s (%s) for brain's %s: what is read back from it is trusted; %s, or set "
            "BRAIN_CACHE_DIR to a folder of your own", path, reason, what, fix,
        )
    return False
