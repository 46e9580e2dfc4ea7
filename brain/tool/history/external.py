"""Changes made outside brain go into the history too: origin `external`, with the content seen.

The watcher's syncs and the rescan at start tell the brain which files' hashes changed
(`Brain.file_listeners`); this records each one the memory tool did not make itself, with
the time brain found it (for a change made while brain was down, the time of the rescan
that found it). The content brain saw is kept in the blob store when the history's cap
allows; when it does not, the record says `kept: "not kept: cap"` and the change is still
applied: a full history never stops the graph following the disk. When the workspace is in
a git repository and the content is a recent commit's version of the file, the record names
that commit (brain/tool/history/gitmatch.py; bounded, never an error).

A first sync without a snapshot knew no files before it: it is compared with the last
version the history knows of each path, so a note edited while brain was down is found; a
file the history never saw is not recorded then (it would record the whole workspace).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from brain import safefs
from brain.ingest.memory_files import content_hash
from brain.model import SHARED_SCOPE
from brain.service.brain import Brain, FileChanges
from brain.tool.calls.refusal import Refusal
from brain.tool.history.gitmatch import BATCH_SECONDS, GitMatcher
from brain.tool.history.log import iso_time, replay

if TYPE_CHECKING:
    from brain.tool.service import MemoryService

log = logging.getLogger(__name__)

NOT_KEPT_CAP = "not kept: cap"
NOT_KEPT_GONE = "not kept: unreadable"


class ExternalRecorder:
    """Listens to one brain's syncs and appends `external` records to its memory service's history."""

    def __init__(self, service: MemoryService, brain: Brain) -> None:
        self.service = service
        self.brain = brain
        self._own: set[str] = set()  # paths the memory tool is applying right now
        self._lock = threading.Lock()
        self.git = GitMatcher(brain.root)  # the commit an outside change's content matches

    def own(self, rels: list[str]) -> None:
        """The tool is about to sync `rels` it wrote: not external (it records them itself)."""
        with self._lock:
            self._own.update(rels)

    def done(self, rels: list[str]) -> None:
        with self._lock:
            self._own.difference_update(rels)

    def __call__(self, news: FileChanges) -> None:
        if news.full:  # the notes brain sees for the first time: their first version kept
            self.service.baselines.keep_later(self.service, news.now)
        changed = list(news.changed)
        if news.cold:
            changed = self._against_history(news)
        with self._lock:
            changed = [change for change in changed if change[0] not in self._own]
        if not changed:
            return
        # A memory-tool write (this process's or another's: `brain memory`, maintain) holds the
        # history's lock from its file write to its record. Under the same lock, a change seen
        # between the two is found recorded, not taken for an outside edit. The tool never
        # holds it while it waits for a sync, so waiting here cannot deadlock.
        with self._history_lock():
            changed = self._not_yet_recorded(changed)
            via = "rescan" if news.full else "watch"
            deadline = time.monotonic() + BATCH_SECONDS  # git is asked for this batch until then
            for rel, before, after in changed:
                self._record(rel, before, after, via, deadline)

    @contextlib.contextmanager
    def _history_lock(self) -> Iterator[None]:
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(self.service.history_step("the history of outside changes"))
            except Refusal as refused:  # no lock file: record all the same, the race aside
                log.warning("%s", refused.message)
            yield

    def _not_yet_recorded(
        self, changed: list[tuple[str, str | None, str | None]],
    ) -> list[tuple[str, str | None, str | None]]:
        """Drop the changes whose maker recorded them already: another process's memory tool
        (`brain memory`, `brain maintain --apply` beside a server) records before this sees it."""
        if not changed:
            return changed
        wanted = {rel for rel, _, _ in changed}
        last: dict[str, str | None] = {}
        for record in reversed(self.service.history.all()):
            for rel, after in ((record.path, None if record.new_path else record.after),
                               (record.new_path, record.after)):
                if rel in wanted and rel not in last:
                    last[rel] = after
            if len(last) == len(wanted):
                break
        return [c for c in changed if c[0] not in last or last[c[0]] != c[2]]

    def _against_history(self, news: FileChanges) -> list[tuple[str, str | None, str | None]]:
        last: dict[str, str | None] = {}
        for record in self.service.history.all():
            replay(last, record)
        out: list[tuple[str, str | None, str | None]] = []
        for rel, known in sorted(last.items()):
            now = news.now.get(rel)
            if now != known and (now is not None or news.full):
                out.append((rel, known, now))
        return out

    def _record(self, rel: str, before: str | None, after: str | None, via: str, deadline: float) -> None:
        kept = commit = None
        if after is not None:
            kept, data = self._keep(rel, after)
            if data is not None:
                commit = self.git.commit_of(rel, data, deadline)
        command = "create" if before is None else "delete" if after is None else "put"
        try:
            self.service.history.append(
                at=iso_time(self.service.clock()), actor="external", agent=None, via=via,
                command=command, scope=self._scope(rel), path=rel, before=before, after=after,
                origin="external", kept=kept, commit=commit,
            )
        except OSError as exc:  # the history cannot take it: the change is applied all the same
            log.warning("the history could not record the outside change of %s: %s", rel, exc)

    def _keep(self, rel: str, digest: str) -> tuple[str | None, bytes | None]:
        """Keep the content seen, within the caps; else the reason it was not kept. With the
        content, when it is the version the sync saw (for the git commit it may match)."""
        blobs = self.service.blobs
        kept = blobs.get(digest)
        if kept is not None:
            return None, kept
        try:
            with os.fdopen(safefs.open_regular(self.brain.root / rel), "rb") as fh:
                data = fh.read(blobs.max_bytes + 1)
        except (OSError, safefs.NotRegular):
            return NOT_KEPT_GONE, None
        usage = self.service.history_usage()
        if len(data) > blobs.max_bytes or usage.full or usage.total + len(data) > usage.caps.workspace_bytes:
            return NOT_KEPT_CAP, data if content_hash(data) == digest else None
        if blobs.put(data) != digest:  # changed again since the sync read it: not this version
            return NOT_KEPT_GONE, None
        self.service.parsed.add(digest, data)  # parsed once now, never again by a diff
        return None, data

    def _scope(self, rel: str) -> str:
        found = self.brain.layout.scope_folder(rel)
        if found is not None:
            return found[0]
        return SHARED_SCOPE if rel.startswith(f"memory/{SHARED_SCOPE}/") else ""
