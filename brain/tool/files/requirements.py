"""Files a change depends on besides the one it changes, checked in the step that makes it.

`brain maintain --apply` deletes a duplicate because a newer copy is kept, and rewrites a
broken link to a name that exists; both were seen by the pass, some time before. If the kept
copy went or changed since, deleting the other leaves neither; if the link's new target went,
the fix writes another broken link. So such a change carries `Required` files: the memory
service checks them while it holds the scope folder's lock, right before it unlinks or
replaces the file, and refuses (`conflict`) when one is not as the pass saw it. Other brain
writers take the same lock, so against them the check and the change are one step; an outside
editor is not stopped by a lock, which is as far as a file system lets a check go.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from brain.ingest.memory_files import content_hash
from brain.tool.calls.refusal import Call, Refusal, RefusalCode


@dataclass(frozen=True, slots=True)
class Required:
    """A workspace file (`rel`, relative with `/`) that must exist, and when `hash` is set
    have that content hash; `role` says in a refusal what it is (`the kept copy`).

    `unlinked` (a note id): instead, that note must still have no incoming link but from
    `linked_from` (a note deleted because nothing links to it: a link written since the pass
    would be left broken). The graph answers it, as far as it has seen the files."""

    rel: str
    hash: str | None
    role: str
    unlinked: str | None = None
    linked_from: tuple[str, ...] = ()

    def to_json(self) -> dict[str, str | bool | None]:
        return {"path": self.rel, "hash": self.hash, "role": self.role, "unlinked": self.unlinked is not None}


#: The sources of the links into each of some node ids (the graph's `links_to`).
LinksTo = Callable[[list[str]], Mapping[str, Sequence[str]]]


def check_required(
    root: Path, required: Sequence[Required], retry: Call, links_to: LinksTo | None = None,
) -> None:
    """Refuse unless every required file is as the caller saw it (never follows a symlink)."""
    for need in required:
        if need.unlinked is not None:
            sources = [] if links_to is None else links_to([need.unlinked]).get(need.unlinked, [])
            new = sorted(set(sources) - set(need.linked_from) - {need.unlinked})
            if new:
                names = ", ".join(i.split(":", 1)[1] for i in new[:3])
                raise Refusal(
                    RefusalCode.CONFLICT,
                    f"not done: {need.rel} is linked from {names} since the pass "
                    "found nothing linking to it; run the pass again to see what holds now",
                    retry,
                )
            continue
        now = _hash_of(root, need.rel)
        if now is not None and (need.hash is None or now == need.hash):
            continue
        seen = (need.hash or "")[:12]
        state = "no longer exists" if now is None else (
            f"changed since it was read (its hash is now {now[:12]}…, not {seen}…)"
        )
        raise Refusal(
            RefusalCode.CONFLICT,
            f"not done: {need.role} {need.rel} {state}; run the pass again to see what holds now",
            retry,
        )


def _hash_of(root: Path, rel: str) -> str | None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(root / rel, flags)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return content_hash(handle.read())
    except OSError:
        return None
    finally:
        os.close(fd)
