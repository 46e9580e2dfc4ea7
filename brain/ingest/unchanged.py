"""A rescan's unchanged files, passed over before anything looks at them.

A warm start rescans every file: at 100,000 notes, working out each one's role
(`Layout.classify`) was a third of it, and sorting the paths and walking them one by one
most of the rest, for files whose size and mtime had not changed. `Ingester._apply` passes
exactly those over, but only after their role; this drops them first. A file in
`Ingester.files` is a node's (its role is neither ignored nor a problem) and still its id's
winner (`brain.ingest.claims.claim` drops one that stops being), so nothing below would have
looked further at it.
"""

from __future__ import annotations

from collections.abc import Mapping

from brain.ingest.state import FileState
from brain.workspace import FileStat


def drop_unchanged(
    stats: dict[str, FileStat], files: Mapping[str, FileState], overlays: Mapping[str, bytes],
) -> int:
    """Remove from `stats` each file known with the same size and mtime (not a link, not
    refused, not overlaid by an editor's buffer); how many were removed."""
    passed = [
        rel for rel, st in stats.items()
        if (known := files.get(rel)) is not None and known.size == st.size
        and known.mtime_ns == st.mtime_ns and st.refused is None and not st.is_link
        and rel not in overlays
    ]
    for rel in passed:
        del stats[rel]
    return len(passed)
