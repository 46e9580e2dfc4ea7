"""One note as of t with its backlinks, without the whole moment: GraphQL `memory(asOf:)`.

note.py answers a note's own links from a small graph of t (the note, every file that defined
one of its links' names then, the agents). Its backlinks need the notes that linked to it
then, and which those are is known without a moment: a note links to this one only through a
link whose name key is this note's, so the candidates are the paths some version of which
carried a link of that key. They come from an index of what each kept version links to,
kept beside the history and brought up to date as records come (linkers.py), plus the notes
of the graph now that hold such a link (the store's links by key: a file no record names is
as it is now at every t). The small graph adds
each candidate that linked the name at its version then (one may have linked it only in another
version: `_linking_then`), and every file that defined this note's name then (an ambiguous
name resolves to neither note). A link's status still comes from the linker, by
today's rules: tests/tool/test_as_of_around.py compares the answer with the whole moment's for
every note at every moment of a timeline, on both stores.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from brain.ingest.state import FileState, defined_id
from brain.resolve import Target
from brain.store.linking import key_of_id
from brain.tool.asof.delta import MomentNotKept
from brain.tool.asof.graph import MomentBrain, Moments
from brain.tool.asof.kept import kept_or_built, small_key
from brain.tool.asof.linkers import linker_index
from brain.tool.asof.small import NOW, Versions, link_keys, name_index
from brain.tool.history.parsed import ParsedVersions, parse_version


def around_moment(moments: Moments, parsed: ParsedVersions, at: float, rel: str) -> MomentBrain:
    """A graph of moment `at` that answers for note `rel`, its links and its backlinks, as the
    whole moment's graph does (MomentNotKept when a version needed is not kept); the same ask
    again finds it kept (kept.py)."""
    then = Versions(moments, at)
    key = small_key("around", moments, rel, at, then.records)
    return kept_or_built(moments, key, lambda: _build(moments, parsed, then, rel))


def _build(moments: Moments, parsed: ParsedVersions, then: Versions, rel: str) -> MomentBrain:
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
    index = name_index(moments)
    definers = index.paths(moments, then.records, keys)
    chosen: dict[str, bytes] = {}
    if name is not None:
        linkers = linker_index(moments, parsed).paths(then.records, name)
        now = live.store.links_with_keys([name])
        # only their paths: a note's body read back from its file is not wanted here
        sources = live.store.get_nodes({link.source for link in now}, bodies=False)
        linking_now = {path for node in sources.values() if (path := getattr(node, "path", None))}
        linkers |= linking_now
        linking = live.layout.links.parse
        files = live.ingester.files
        for path in sorted(linkers - definers - {rel}):
            data = _linking_then(then, parsed, path, name, linking, files, path in linking_now)
            if data is not None:
                chosen[path] = data
    then.hold(chosen, definers - {rel})
    held = {rel: own}
    for path in sorted(chosen):  # (in the order they were held in before: the note, then by path)
        held[path] = chosen[path]
    then.hold_agents(held, index, keys)
    if then.missing:
        raise MomentNotKept(f"the content some notes around {rel} had then is no longer kept "
                            "(history retention or its cap): ask for the moment as a whole to see the "
                            "oldest one shown", None)
    return then.build(held, rel, name)


def _linking_then(then: Versions, parsed: ParsedVersions, path: str, name: str,
                  linking: Callable[[str], Target], files: Mapping[str, FileState],
                  links_now: bool) -> bytes | None:
    """The content of `path` at t if it linked to the name key `name` then, else None.

    A path some version of which once linked the name (or that links it now) need not have
    at t: a note's links come and go with its edits. Held anyway, each was a note ingested
    whole (its every link resolved, its body stored) for no backlink. Which links its version
    then holds: the graph now's, when the file now is that very version (its sha256 is the
    blob's; `links_now`: it links the name now), else its kept summary, else one parse (as the
    link index read it). Still read first: a version no longer kept refuses the moment, as the
    whole moment's graph does."""
    data = then.content(path)
    if data is None:
        return None
    digest = then.version(path)
    if digest is None or digest == NOW:
        return data  # as it is on disk now: the graph now says it links the name
    state = files.get(path)
    if state is not None and state.hash == digest:
        return data if links_now else None
    summary = parsed.get(digest) or parse_version(data)
    return data if any(linking(target).key == name for target in summary.links) else None


__all__ = ["around_moment"]
