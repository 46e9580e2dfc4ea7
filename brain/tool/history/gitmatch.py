"""Which git commit an outside change's content is: named on its `external` record as `commit`.

A workspace kept in git (or inside a repository) changes outside brain by `git pull`,
`git checkout` or a person's commit. When brain records such a change (origin `external`) and
the file's content is exactly the version of that path in one of the last `MAX_COMMITS`
commits that touched it (HEAD's version included), the record names that commit (the newest
such). The content's git blob id is computed here (sha1 of `blob <size>\\0` and the bytes);
git is asked once per file, `git log --raw` of the path, for the blob ids the commits gave it.

Bounded and never an error: no git binary, not a repository, a path outside it, git failing or
slower than `GIT_SECONDS` for one file: no `commit`, and the change is recorded all the same.
A batch of outside changes (a rescan after a checkout of thousands of files) asks git only
until `BATCH_SECONDS` have gone: the lookups run inside the sync that found the changes, under
the brain's lock, so they are kept short. git runs with hooks, fsmonitor, pagers, prompts and optional
locks off: reading history never runs a program the repository's config names.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

log = logging.getLogger(__name__)

MAX_COMMITS = 20
GIT_SECONDS = 1.0  # one file's question to git
BATCH_SECONDS = 2.0  # one batch of outside changes (inside the sync): past it, the rest go without
MAX_BYTES = 4 * 1024 * 1024  # bigger contents are not hashed (the history does not keep them)
NOT_A_REPO_SECONDS = 60.0  # how long "not a repository" is believed before asking again

_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "--no-pager")
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}


def blob_id(data: bytes) -> str:
    """git's object id of a file with this content (`git hash-object`)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class GitMatcher:
    """The commit whose version of a file is a given content, for one workspace root."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._top: Path | None = None
        self._checked = float("-inf")  # when the repository was last looked for

    def commit_of(self, rel: str, data: bytes, deadline: float | None = None) -> str | None:
        """The newest of the path's last commits whose version is `data`, or None."""
        if len(data) > MAX_BYTES or (deadline is not None and time.monotonic() > deadline):
            return None
        top = self._repository()
        if top is None:
            return None
        try:
            in_repo = (self.root / rel).resolve().relative_to(top).as_posix()
        except ValueError:
            return None  # a path outside the repository (a symlinked folder)
        found = _git(top, "log", f"-n{MAX_COMMITS}", "--format=commit %H", "--raw", "--no-abbrev",
                     "--no-renames", "--", in_repo)
        if found is None:
            return None
        wanted, commit = blob_id(data), None
        for line in found.splitlines():
            if line.startswith("commit "):
                commit = line[7:].strip()
            elif line.startswith(":") and commit is not None:
                fields = line.split("\t", 1)[0].split()
                if len(fields) >= 4 and fields[3] == wanted:
                    return commit
        return None

    def _repository(self) -> Path | None:
        """The repository's top folder (looked for again a minute after it was not found)."""
        with self._lock:
            now = time.monotonic()
            if self._top is None and now - self._checked < NOT_A_REPO_SECONDS:
                return None
            if self._top is None:
                self._checked = now
                found = _git(self.root, "rev-parse", "--show-toplevel")
                self._top = Path(found.strip()).resolve() if found and found.strip() else None
            return self._top


def _git(cwd: Path, *args: str) -> str | None:
    """git's output, or None when there is no git, it failed, or it took too long."""
    binary = shutil.which("git")
    if binary is None:
        return None
    try:
        done = subprocess.run(
            [binary, *_SAFE, *args], cwd=cwd, capture_output=True, timeout=GIT_SECONDS, check=False,
            env={**os.environ, **_ENV}, stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        log.debug("git %s in %s: %s", args[0], cwd, exc)
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", errors="replace")
