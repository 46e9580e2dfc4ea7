"""The service side of "what changed since…": the moments, who may see what, the names now.

Front ends (CLI, REST, GraphQL, MCP) pass the caller and the text of the moments; this turns
them into `changes_between` (brain/tool/history/changes.py), filtering by the caller's scopes
before anything is computed, and answers a bad moment with a refusal that says the fix.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from brain import safefs
from brain.layouts import choose_layout_leniently, get_layout
from brain.layouts.base import Layout
from brain.model import MemoryNode
from brain.tool.access import Actor
from brain.tool.calls.refusal import Refusal, RefusalCode
from brain.tool.history.backlinks import Linkers
from brain.tool.history.changes import BadMoment, changes_between, parse_moment
from brain.tool.history.digest import MAX_WEEKS, weekly_digest
from brain.workspace import read_bytes

if TYPE_CHECKING:
    from brain.tool.service import MemoryService


def memory_changes(
    service: MemoryService, actor: Actor, since: str, until: str | None = None,
    agent: str | None = None,
) -> dict[str, Any]:
    """What changed between `since` and `until` (default: now) that `actor` may see."""
    now = service.clock()
    try:
        start = parse_moment(since, now)
        end = now if until is None or not until.strip() else parse_moment(until, now)
    except BadMoment as exc:
        raise Refusal(RefusalCode.INVALID_ARGUMENT, str(exc)) from None
    if end < start:
        raise Refusal(RefusalCode.INVALID_ARGUMENT, f"`until` ({until}) is before `since` ({since})")
    paths, layout, scopes = workspace_names(service)
    return changes_between(
        service.history.all(), service.blobs, since=start, until=end, agent=agent,
        visible=actor.can_see, names=paths, layout=layout, scopes=scopes, parsed=service.parsed,
        name_visible=lambda rel: _name_visible(actor, rel), linkers=linkers_now(service),
    )


def memory_digest(
    service: MemoryService, actor: Actor, weeks: int = 8, agent: str | None = None,
) -> list[dict[str, Any]]:
    """The weekly digest (brain/tool/history/digest.py) of what `actor` may see."""
    if not 1 <= weeks <= MAX_WEEKS:
        raise Refusal(
            RefusalCode.INVALID_ARGUMENT,
            f"`weeks` is {weeks}: ask for 1 to {MAX_WEEKS} weeks (each week is one diff)",
        )
    paths, layout, scopes = workspace_names(service)
    return weekly_digest(
        service.history.all(), now=service.clock(), weeks=weeks, agent=agent, visible=actor.can_see,
        blobs=service.blobs, names=paths, layout=layout, scopes=scopes, parsed=service.parsed,
        name_visible=lambda rel: _name_visible(actor, rel), linkers=linkers_now(service),
    )


def linkers_now(service: MemoryService) -> Linkers:
    """The notes now that may link to given name keys (brain/tool/history/backlinks.py), with
    their text: the served graph's links of those keys, else the note files whose text holds
    one of the names (case-folded, as name keys are): a superset, each link judged again."""

    def served(keys: Collection[str]) -> dict[str, bytes]:
        assert brain is not None
        sources = {link.source for link in brain.store.links_with_keys(keys)}
        paths = [n.path for n in brain.store.get_nodes(sources).values() if isinstance(n, MemoryNode)]
        return _read(service, paths)

    def walked(keys: Collection[str]) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        for rel in note_paths(service):
            data = read_bytes(service.root / rel)
            if not isinstance(data, bytes) or b"[[" not in data:
                continue
            text = unicodedata.normalize("NFC", data.decode("utf-8", errors="replace")).casefold()
            if any(key in text for key in keys):
                out[rel] = data
        return out

    brain = service.brain
    return served if brain is not None and brain.ingester.synced else walked


def _read(service: MemoryService, paths: list[str]) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    for rel in paths:
        data = read_bytes(service.root / rel)
        if isinstance(data, bytes):
            out[rel] = data
    return out


def workspace_names(service: MemoryService) -> tuple[list[str], Layout, set[str]]:
    """Every path a link may name now (notes, entities, agents' definitions), the layout
    whose rules resolve links, and the scope folders: the served graph's, else one walk."""
    brain = service.brain
    if brain is not None and brain.ingester.synced:
        return list(brain.ingester.files), brain.layout, brain.layout.scope_folders(brain.root)
    layout = get_layout(choose_layout_leniently(service.root).name)
    paths = [st.rel for st in layout.walk(service.root) if not st.is_link]  # as a sync walks
    return paths, layout, layout.scope_folders(service.root)


def note_paths(service: MemoryService) -> list[str]:
    """The workspace's markdown files now: the served graph's, else one bounded walk."""
    brain = service.brain
    if brain is not None and brain.ingester.synced:
        return [rel for rel in brain.ingester.files if rel.endswith(".md")]
    return [
        rel for rel, entry, refusal in safefs.walk(service.root, "")
        if refusal is None and rel.endswith(".md")
    ]


def _name_visible(actor: Actor, rel: str) -> bool:
    """A name an agent may resolve a link to: not another agent's private note."""
    parts = rel.split("/")
    return not (parts[0] == "memory" and len(parts) > 2) or actor.can_see(parts[1])
