"""The files a sync of named paths looks at (an editor's save, a watcher's event group).

A named path may be a file, a folder (every file under it), a link (reported, never
followed: a full walk never enters one, so neither does this), or gone, with everything
the ingester knew under it. A named path goes through the checks of the full walk
(brain.safefs): a part whose name is not UTF-8 is that part, refused, under its escaped
name; a path below the depth budget is the folder the walk refused on its way.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path

from brain import safefs
from brain.safefs import special_kind
from brain.workspace import FileStat, walk_dir


def stat_paths(
    root: Path, paths: Iterable[str], overlays: Mapping[str, bytes], known: Collection[Mapping[str, object]],
) -> tuple[dict[str, FileStat], list[str]]:
    """The stats of the files at `paths` (relative to `root`), and the known paths (keys of
    `known`) that are gone. An unsaved buffer in `overlays` counts as a file."""
    stats: dict[str, FileStat] = {}
    gone: list[str] = []

    def known_under(rel: str) -> list[str]:
        prefix = rel + "/"
        return [k for group in known for k in group if k.startswith(prefix)]

    named = {_unlinked(root, p.replace(os.sep, "/").strip("/")) for p in paths}
    for raw in named:
        rel, on_disk, refused = _checked(raw)
        full = root / on_disk
        if rel in overlays:
            stats[rel] = FileStat(rel, -1, -1)
            continue
        try:
            st = full.lstat()
        except OSError:
            gone.append(rel)
            gone.extend(known_under(rel))
            continue
        if refused is None and stat.S_ISDIR(st.st_mode) and rel.count("/") >= safefs.MAX_DEPTH:
            refused = safefs.TOO_DEEP  # the folder the full walk refuses to enter
        if refused is not None:
            stats[rel] = FileStat(rel, 0, 0, is_link=True, refused=refused)
            gone.extend(known_under(rel))
            continue
        if stat.S_ISDIR(st.st_mode):  # lstat: a linked folder is a link, never walked
            found = {sub.rel: sub for sub in walk_dir(root / rel, rel)}
            stats.update(found)
            gone.extend(k for k in known_under(rel) if k not in found)
            if any(rel in group for group in known):
                gone.append(rel)  # it was a file or a link before it became a folder
            continue
        if not stat.S_ISREG(st.st_mode):
            gone.extend(known_under(rel))  # e.g. a folder replaced by a link to it
        special = special_kind(st.st_mode)  # a FIFO or device: reported, never read (it blocks)
        if special is not None:
            stats[rel] = FileStat(rel, 0, 0, True, special)
            continue
        stats[rel] = FileStat(rel, st.st_size, st.st_mtime_ns, stat.S_ISLNK(st.st_mode))
    return stats, gone


def _checked(rel: str) -> tuple[str, str, str | None]:
    """(`rel`, itself, None), or the part of it the full walk refuses: (its escaped name,
    its name on disk, the refusal)."""
    bad = safefs.first_bad_name(rel)
    deep = safefs.too_deep(rel)
    if bad is not None and (deep is None or bad.count("/") <= deep.count("/")):
        parts = bad.count("/") + 1
        return bad, "/".join(rel.split("/")[:parts]), safefs.BAD_NAME
    if deep is not None:
        return deep, deep, safefs.TOO_DEEP
    return rel, rel, None


def _unlinked(root: Path, rel: str) -> str:
    """`rel`, or its first ancestor that is a symlink: a full walk never enters one."""
    parts = rel.split("/")
    for end in range(1, len(parts)):
        ancestor = "/".join(parts[:end])
        if os.path.islink(root / ancestor):
            return ancestor
    return rel
