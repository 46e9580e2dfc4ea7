"""The oldest moment the history can show, and the one refusal every front end gives for a
moment it cannot (issue 44: "what falls out of retention is said, not silently missing").

A moment is shown exactly when the content each file had then is kept: the graph now, with
each record since undone, needs every `before` of those records in the blob store. Retention
and the cap drop the oldest versions first, so the moments that can be shown run from some
record to now; this walks the history back from now (a stat of a blob a record, no read) to
the first moment that needs a version not kept, and names the one after it.

A moment before the history began, one past retention, and one whose version of a single
note is gone (asof/note.py, asof/around.py) are all refused in the same words, naming that
moment, on the CLI, GraphQL, REST and MCP alike: they all refuse through `refusal` here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from brain.tool.calls.refusal import Refusal, RefusalCode
from brain.tool.diff.changes import _at, _iso, _stamp
from brain.tool.history.blobs import BlobStore
from brain.tool.history.log import HistoryRecord

_EMPTY = hashlib.sha256(b"").hexdigest()  # an empty file's blob takes 0 bytes on disk


def oldest_shown(records: Sequence[HistoryRecord], blobs: BlobStore) -> str | None:
    """The time of the oldest moment from which every moment to now can be shown exactly (the
    stamp of the record that starts it); None when the history holds no record."""
    kept: dict[str, bool] = {}

    def is_kept(digest: str) -> bool:
        found = kept.get(digest)
        if found is None:
            found = kept[digest] = digest == _EMPTY or blobs.size(digest) > 0
        return found

    missing: set[str] = set()  # the paths whose content at the moment walked to is not kept
    oldest = len(records)
    for applied in range(len(records), 0, -1):
        if missing:
            break
        oldest = applied
        record = records[applied - 1]  # undone: the moment with one record fewer applied
        if record.command == "maintain" and record.path == "":
            continue  # a maintenance run's own report, not a file's change
        if record.new_path is not None:
            missing.discard(record.new_path)  # it did not exist before its rename
        if record.before is None or is_kept(record.before):
            missing.discard(record.path)
        else:
            missing.add(record.path)
    return _at(records[oldest - 1]) if records else None


def refusal(at: float, records: Sequence[HistoryRecord], blobs: BlobStore) -> Refusal:
    """The refusal of a moment (or a note's version at it) the history cannot show exactly."""
    oldest = oldest_shown(records, blobs)
    if oldest is None:
        return Refusal(RefusalCode.NOT_KEPT, "the history holds no record yet: brain can show the memory "
                                             "as it was only from its first recorded change on")
    begins = _at(records[0])
    if _stamp(at) < begins:
        why = f"the history begins at {begins}, and brain keeps nothing from before it"
    else:
        why = "the content some notes had then is no longer kept (history retention or its cap)"
    return Refusal(RefusalCode.NOT_KEPT,
                   f"brain cannot show the memory as it was at {_iso(at)}: {why}. The oldest moment "
                   f"brain can show is {oldest}: ask for a moment at or after it")


__all__ = ["oldest_shown", "refusal"]
