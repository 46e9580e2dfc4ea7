"""One note as of t with its backlinks, without the whole moment: GraphQL `memory(asOf:)`.

note.py answers a note's own links from a small graph of t (the note, every file that defined
one of its links' names then, the agents). Its backlinks need the notes that linked to it
then, and which those are is known without a moment: a note links to this one only through a
link whose name key is this note's, so the candidates are the paths some version of which
carried a link of that key. They come from an index built once from what each kept version
parses to (parsed.py's summaries: the version's link targets, so no blob is read again) and
kept up to date as records come, plus the notes of the graph now that hold such a link (the
store's links by key: a file no record names is as it is now at every t). The small graph adds
each candidate at its version then and every file that defined this note's name then (an
ambiguous name resolves to neither note). A link's status still comes from the linker, by
today's rules: tests/tool/test_as_of_around.py compares the answer with the whole moment's for
every note at every moment of a timeline, on both stores.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from weakref import WeakKeyDictionary

from brain.ingest.state import defined_id
from brain.store.linking import key_of_id
from brain.tool.asof.delta import MomentNotKept
from brain.tool.asof.graph import MomentBrain, Moments
from brain.tool.asof.small import Versions, link_keys, name_index
from brain.tool.history.log import HistoryRecord
from brain.tool.history.parsed import ParsedVersions


class _Linkers:
    """Name key -> the paths some recorded version of which links to that key."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen = 0
        self._by_key: dict[str, set[str]] = {}
        self._done: set[tuple[str, str]] = set()

    def paths(self, moments: Moments, parsed: ParsedVersions, records: Sequence[HistoryRecord],
              key: str) -> set[str]:
        with self._lock:
            if len(records) < self._seen:  # the history was rewritten: start over
                self._seen, self._by_key, self._done = 0, {}, set()
            parse = moments.live.layout.links.parse
            parsed.load()
            for record in records[self._seen:]:
                versions = ((record.path, record.before), (record.new_path or record.path, record.after))
                for path, digest in versions:
                    if digest is None or (path, digest) in self._done:
                        continue
                    summary = parsed.get(digest)
                    if summary is None:
                        data = moments.blobs.get(digest)
                        if data is None:
                            continue  # not kept: a moment needing it is refused anyway
                        summary = parsed.add(digest, data)
                    self._done.add((path, digest))
                    for target in summary.links:
                        self._by_key.setdefault(parse(target).key, set()).add(path)
            self._seen = len(records)
            return set(self._by_key.get(key, ()))


_LINKERS: WeakKeyDictionary[Moments, _Linkers] = WeakKeyDictionary()


def around_moment(moments: Moments, parsed: ParsedVersions, at: float, rel: str) -> MomentBrain:
    """A graph of moment `at` that answers for note `rel`, its links and its backlinks, as the
    whole moment's graph does (MomentNotKept when a version needed is not kept)."""
    then = Versions(moments, at)
    own = then.content(rel)
    if own is None:
        if then.missing:
            raise MomentNotKept(f"the content {rel} had at that moment is no longer kept (history "
                                "retention or its cap): ask for the moment as a whole to see the oldest "
                                "one shown", None)
        return then.build({})
    live = then.live
    node_id = defined_id(live.layout.classify(rel))
    name = key_of_id(node_id) if node_id is not None else None
    keys = link_keys(then, rel, own)
    if name is not None:
        keys.add(name)  # every note of its name then: a link to the name may be ambiguous
    with _REGISTRY:
        linkers = _LINKERS.setdefault(moments, _Linkers())
    index = name_index(moments)
    wanted = index.paths(moments, then.records, keys)
    if name is not None:
        wanted |= linkers.paths(moments, parsed, then.records, name)
        now = live.store.links_with_keys([name])
        sources = live.store.get_nodes({link.source for link in now})
        wanted |= {path for node in sources.values() if (path := getattr(node, "path", None))}
    held = {rel: own}
    then.hold(held, wanted)
    then.hold_agents(held, index, keys)
    if then.missing:
        raise MomentNotKept(f"the content some notes around {rel} had then is no longer kept "
                            "(history retention or its cap): ask for the moment as a whole to see the "
                            "oldest one shown", None)
    return then.build(held)


_REGISTRY = threading.Lock()



__all__ = ["around_moment"]
